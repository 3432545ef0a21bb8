import CSQLite

/// The assets one text index query finds, read once into a bitmap of their ids.
///
/// Walking the capture order asks, for each asset it passes, whether the words find it.
/// Asked of the text index itself, each asset costs a query: 55 µs with the index in one
/// segment and 320 µs in fourteen (a busy writer leaves many), at 382k assets. Reading
/// the query's matches once costs about 0.15 µs a match (FTS5 streams its lists), and each
/// asset is then one bit.
final class SearchMatchSet {
    private var words: [UInt64] = []

    /// Whether the query found asset `id`.
    func contains(_ id: Int64) -> Bool {
        guard id >= 0 else { return false }
        let word = Int(id >> 6)
        return word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
    }

    private func insert(_ id: Int64) {
        guard id >= 0 else { return }
        let word = Int(id >> 6)
        if word >= words.count { words += Array(repeating: 0, count: max(word + 1 - words.count, words.count / 2)) }
        words[word] |= 1 << UInt64(id & 63)
    }

    /// The name of the SQL function `search_matches(query, id)`: whether the text index
    /// query finds asset `id`. The first call of a statement reads the query's matches; the
    /// set is kept as the query argument's auxiliary data while the statement runs, so the
    /// query must be a bound parameter or a literal.
    static let function = "search_matches"

    /// Registers `search_matches` on a connection. Wraps `sqlite3_create_function_v2`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_function_v2(handle, function, 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, nil, { context, _, values in
            guard let context, let values, let query = values[0], let id = values[1] else { return }
            do throws(ReadError) {
                let set = try SearchMatchSet.matchSet(context, query: query)
                sqlite3_result_int(context, set.contains(sqlite3_value_int64(id)) ? 1 : 0)
            } catch {
                sqlite3_result_error(context, "search_matches: " + error.message, -1)
            }
        }, nil, nil, nil)
    }

    /// The statement's set for `query`, read on the first call.
    private static func matchSet(_ context: OpaquePointer, query: OpaquePointer) throws(ReadError) -> SearchMatchSet {
        if let kept = sqlite3_get_auxdata(context, 0) {
            return Unmanaged<SearchMatchSet>.fromOpaque(kept).takeUnretainedValue()
        }
        guard let text = sqlite3_value_text(query) else { throw ReadError(message: "the query is not text") }
        let set = try read(String(cString: text), db: sqlite3_context_db_handle(context))
        sqlite3_set_auxdata(context, 0, Unmanaged.passRetained(set).toOpaque()) { kept in
            if let kept { Unmanaged<SearchMatchSet>.fromOpaque(kept).release() }
        }
        return set
    }

    /// Why a query's matches could not be read, in SQLite's words.
    struct ReadError: Error { let message: String }

    /// Every asset the text index query `query` finds, read on the connection `db`.
    static func read(_ query: String, db: OpaquePointer?) throws(ReadError) -> SearchMatchSet {
        var statement: OpaquePointer?
        let sql = "SELECT rowid FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ?1"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw ReadError(message: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, query, -1, mediaindex_sqlite_transient())
        let set = SearchMatchSet()
        var code = sqlite3_step(statement)
        while code == SQLITE_ROW {
            set.insert(sqlite3_column_int64(statement, 0))
            code = sqlite3_step(statement)
        }
        guard code == SQLITE_DONE else { throw ReadError(message: String(cString: sqlite3_errmsg(db))) }
        return set
    }
}
