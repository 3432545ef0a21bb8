import CSQLite

/// Deterministic SQL functions from text to text (`search_words(text)`,
/// `place_fold(text)`, …): NULL for a NULL argument or a nil answer.
enum SQLTextFunction {
    /// Registers `name(text)` on a connection, giving `transform` of its argument.
    /// Wraps `sqlite3_create_function_v2`.
    static func register(_ name: String, on handle: OpaquePointer, _ transform: @escaping @Sendable (String) -> String?) {
        let box = Unmanaged.passRetained(Transform(transform)).toOpaque()
        sqlite3_create_function_v2(handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box, { context, _, values in
            guard let value = values?[0], let text = sqlite3_value_text(value), let data = sqlite3_user_data(context),
                  let answer = Unmanaged<Transform>.fromOpaque(data).takeUnretainedValue().body(String(cString: text)) else {
                sqlite3_result_null(context)
                return
            }
            sqlite3_result_text(context, answer, -1, mediaindex_sqlite_transient())
        }, nil, nil, { data in
            if let data { Unmanaged<Transform>.fromOpaque(data).release() }
        })
    }

    /// The function's body, held by the connection until it closes.
    private final class Transform: Sendable {
        let body: @Sendable (String) -> String?
        init(_ body: @escaping @Sendable (String) -> String?) { self.body = body }
    }
}
