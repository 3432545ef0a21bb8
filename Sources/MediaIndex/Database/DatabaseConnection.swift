import CSQLite

/// One SQLite connection; closed when released.
///
/// Not `Sendable`: code reaches a connection through `DatabaseWriter.write` or
/// `DatabaseReader.read`, which serialise access to it.
package final class DatabaseConnection {
    let handle: OpaquePointer
    /// The database file's path, for messages.
    package let path: String
    /// Whether the connection was opened read-only.
    package let isReadOnly: Bool
    private var statementCache: [String: Statement] = [:]
    /// What a hook installed on the connection needs, kept alive as long as it
    /// (`BackgroundCheckpoint`).
    var hookContext: AnyObject?

    /// How long a connection waits on a lock held by another before failing.
    package static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Opens a connection and sets it up in one fixed order: busy timeout, foreign
    /// keys, extended result codes, then (for a writer) WAL with `synchronous = NORMAL`.
    ///
    /// - Throws: `DatabaseError` when the file cannot be opened.
    /// Wraps `sqlite3_open_v2`.
    package init(path: String, readOnly: Bool, create: Bool = false) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            if let connection { sqlite3_close_v2(connection) }
            throw DatabaseError(extendedCode: code, message: "\(message) (\(path))", path: path)
        }
        self.handle = connection
        self.path = path
        self.isReadOnly = readOnly

        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
        CameraNames.register(on: handle)
        PlaceNames.register(on: handle)
        SearchTextIndex.register(on: handle)
        SearchMatchSet.register(on: handle)
        SuggestionCatalog.register(on: handle)
        DescriptiveColumns.register(on: handle)
        try execute("PRAGMA foreign_keys = ON")
        // Reads go through the page cache of the kernel, not a copy per page: a large
        // library's queries touch many pages. Not for the writer: an index run touches
        // the whole database, and mapped pages count in its resident memory (100 MB more
        // at 100,000 files) while saving it little.
        if readOnly { try execute("PRAGMA mmap_size = 1073741824") }
        try execute("PRAGMA cache_size = -32768")
        // Statement journals, sorters and transient indices stay in memory: a statement
        // whose triggers touch more than 16 pages would otherwise spill its journal to a
        // temporary file, a page at a time, tens of writes per indexed file.
        try execute("PRAGMA temp_store = MEMORY")
        // Where a kept match set asks its query of the assets changed since (in memory).
        if readOnly { try execute(SearchTextIndex.changesStatement) }
        sqlite3_extended_result_codes(handle, 1)
        SQLProfile.install(on: handle)
        if !readOnly {
            try execute("PRAGMA journal_mode = WAL")
            try execute("PRAGMA synchronous = NORMAL")
            // After a checkpoint, shrink the WAL back to this size, so one large index
            // run does not leave a huge WAL that every later read searches through.
            try execute("PRAGMA journal_size_limit = 67108864")
        }
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements with no parameters. Wraps `sqlite3_exec`.
    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw DatabaseError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql, path: path)
        }
    }

    /// Runs one statement with parameters, ignoring rows.
    package func execute(_ sql: String, _ values: [DatabaseValueConvertible]) throws {
        try cachedStatement(sql).execute(values)
    }

    /// A prepared statement for `sql`, reused across calls.
    package func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Every row of a query.
    package func rows(_ sql: String, _ values: [DatabaseValueConvertible] = []) throws -> [Row] {
        try cachedStatement(sql).rows(values)
    }

    /// The most values one `rows(inList:_:)` statement is given: under SQLite's parameter limit.
    static let inListChunk = 500

    /// Every row of a query whose `IN (…)` list holds `values`, run a chunk of at most
    /// `inListChunk` values at a time (SQLite's parameter limit). `sql` is given the chunk's
    /// placeholders (`?,?,?`); rows come chunk after chunk, each chunk in the query's order.
    /// The full chunks' statement is cached, the last, shorter one's is not (one per length).
    package func rows(inList values: [DatabaseValueConvertible], _ sql: (_ placeholders: String) -> String) throws -> [Row] {
        var result: [Row] = []
        for start in stride(from: 0, to: values.count, by: Self.inListChunk) {
            let chunk = Array(values[start..<min(start + Self.inListChunk, values.count)])
            let text = sql(Array(repeating: "?", count: chunk.count).joined(separator: ","))
            let statement = chunk.count == Self.inListChunk ? try cachedStatement(text) : try Statement(connection: self, sql: text)
            result += try statement.rows(chunk)
        }
        return result
    }

    /// The first row of a query, or nil.
    package func row(_ sql: String, _ values: [DatabaseValueConvertible] = []) throws -> Row? {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        defer { sqlite3_reset(statement.handle) }
        return try statement.step() ? statement.currentRow() : nil
    }

    /// Whether the main schema has a table (or virtual table) named `name`.
    package func hasTable(_ name: String) throws -> Bool {
        try scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) == 1
    }

    /// The first column of the first row as an integer, or nil.
    package func scalarInt(_ sql: String, _ values: [DatabaseValueConvertible] = []) throws -> Int? {
        guard let row = try row(sql, values) else { return nil }
        switch row[0] {
        case .integer(let v): return Int(v)
        case .real(let v): return Int(v)
        default: return nil
        }
    }

    /// The rowid of the last insert. Wraps `sqlite3_last_insert_rowid`.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement. Wraps `sqlite3_changes`.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// `immediate` takes the write lock at once (`BEGIN IMMEDIATE`), so a writer never
    /// fails half-way for want of it.
    package func inTransaction<T>(immediate: Bool = true, _ body: () throws -> T) throws -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    func error(code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(extendedCode: sqlite3_extended_errcode(handle),
                      message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }
}
