import CSQLite

/// The assets one text index query finds: a bitmap of their ids.
///
/// Walking the capture order asks, for each asset it passes, whether the words find it.
/// Asked of the text index itself, each asset costs a query: 55 µs with the index in one
/// segment and 320 µs in fourteen (a busy writer leaves many), at 382k assets. Reading
/// the query's matches once costs about 0.15 µs a match (FTS5 streams its lists), and each
/// asset is then one bit. `SearchMatchCache` keeps the sets between statements.
struct SearchMatchSet: Sendable {
    private var words: [UInt64] = []

    /// Whether the query found asset `id`.
    func contains(_ id: Int64) -> Bool {
        guard id >= 0 else { return false }
        let word = Int(id >> 6)
        return word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
    }

    mutating func insert(_ id: Int64) {
        guard id >= 0 else { return }
        let word = Int(id >> 6)
        if word >= words.count { words += Array(repeating: 0, count: max(word + 1 - words.count, words.count / 2)) }
        words[word] |= 1 << UInt64(id & 63)
    }

    mutating func remove(_ id: Int64) {
        guard id >= 0, Int(id >> 6) < words.count else { return }
        words[Int(id >> 6)] &= ~(1 << UInt64(id & 63))
    }

    /// Calls `body` with each id the set holds above `id`, in ascending order.
    func forEach(above id: Int64 = -1, _ body: (Int64) -> Void) {
        let start = Int(max(0, id + 1) >> 6)
        guard start < words.count else { return }
        for index in start..<words.count where words[index] != 0 {
            var bits = words[index]
            while bits != 0 {
                let member = Int64(index << 6 | bits.trailingZeroBitCount)
                if member > id { body(member) }
                bits &= bits - 1
            }
        }
    }

    /// The ids the set holds, in ascending order, as a JSON array (`[3,17,20]`).
    var jsonArray: String {
        var text = "[", first = true
        forEach { id in
            if !first { text += "," }
            first = false
            text += String(id)
        }
        return text + "]"
    }

    /// How many assets the set holds.
    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// How many assets this set and every one of `others` hold.
    func countInCommon(with others: [SearchMatchSet]) -> Int {
        var total = 0
        for index in words.indices {
            var word = words[index]
            for other in others { word &= index < other.words.count ? other.words[index] : 0 }
            total += word.nonzeroBitCount
        }
        return total
    }

    /// The name of the SQL function `search_matches(query, id)`: whether the text index
    /// query finds asset `id`. The first call of a statement reads the query's matches
    /// (through `SearchMatchCache`); the set is kept as the query argument's auxiliary data
    /// while the statement runs, so the query must be a bound parameter or a literal.
    static let function = "search_matches"

    /// Registers `search_matches` on a connection. Wraps `sqlite3_create_function_v2`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_function_v2(handle, function, 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, nil, { context, _, values in
            guard let context, let values, let query = values[0], let id = values[1] else { return }
            do throws(ReadError) {
                let set = try SearchMatchSet.statementSet(context, query: query)
                sqlite3_result_int(context, set.value.contains(sqlite3_value_int64(id)) ? 1 : 0)
            } catch {
                sqlite3_result_error(context, "search_matches: " + error.message, -1)
            }
        }, nil, nil, nil)
    }

    /// A set held by reference, as SQLite keeps auxiliary data.
    private final class Box {
        let value: SearchMatchSet
        init(_ value: SearchMatchSet) { self.value = value }
    }

    /// The statement's set for `query`, read on the first call.
    private static func statementSet(_ context: OpaquePointer, query: OpaquePointer) throws(ReadError) -> Box {
        if let kept = sqlite3_get_auxdata(context, 0) {
            return Unmanaged<Box>.fromOpaque(kept).takeUnretainedValue()
        }
        guard let text = sqlite3_value_text(query), let db = sqlite3_context_db_handle(context) else {
            throw ReadError(message: "the query is not text")
        }
        let box = Box(try SearchMatchCache.shared.matches(String(cString: text), db: db))
        sqlite3_set_auxdata(context, 0, Unmanaged.passRetained(box).toOpaque()) { kept in
            if let kept { Unmanaged<Box>.fromOpaque(kept).release() }
        }
        return box
    }

    /// Why a query's matches could not be read, in SQLite's words.
    struct ReadError: Error { let message: String }

    /// Every asset the text index query `query` finds, read on the connection `db`; with
    /// `above`, only those whose id is greater (FTS5 seeks its lists to it).
    static func read(_ query: String, above: Int64? = nil, db: OpaquePointer) throws(ReadError) -> SearchMatchSet {
        var set = SearchMatchSet()
        let range = above == nil ? "" : " AND rowid > ?2"
        try SQLiteRows.each("SELECT rowid FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ?1" + range,
                            query, above, db: db) { set.insert($0) }
        return set
    }
}

/// Steps a statement of the form `… ?1 … ?2` on a raw connection, for code that runs
/// inside an SQL function (where `DatabaseConnection` is not at hand).
enum SQLiteRows {
    /// Calls `row` with the first column of each row, as an integer.
    static func each(_ sql: String, _ text: String?, _ number: Int64?, db: OpaquePointer,
                     _ row: (Int64) -> Void) throws(SearchMatchSet.ReadError) {
        try step(sql, text, number, db: db) { row(sqlite3_column_int64($0, 0)) }
    }

    /// Calls `row` with the statement standing on each row, `text` bound first (if any), then `number`.
    static func step(_ sql: String, _ text: String?, _ number: Int64?, db: OpaquePointer,
                     _ row: (OpaquePointer) -> Void) throws(SearchMatchSet.ReadError) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SearchMatchSet.ReadError(message: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        if let text { sqlite3_bind_text(statement, 1, text, -1, mediaindex_sqlite_transient()) }
        if let number { sqlite3_bind_int64(statement, text == nil ? 1 : 2, number) }
        var code = sqlite3_step(statement)
        while code == SQLITE_ROW {
            row(statement)
            code = sqlite3_step(statement)
        }
        guard code == SQLITE_DONE else { throw SearchMatchSet.ReadError(message: String(cString: sqlite3_errmsg(db))) }
    }
}
