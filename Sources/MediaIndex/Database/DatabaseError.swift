import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message, and the SQL that
/// was running. Bound values are never included.
///
/// Reads as `SQLite error 19: UNIQUE constraint failed: assets.identifier - while executing "INSERT …"`.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`).
    public let extendedCode: Int32
    /// SQLite's message, or our own when the failure is ours.
    public let message: String
    /// The statement that failed, if any.
    public let sql: String?
    /// The database file of the connection that failed, when known.
    public var path: String?

    /// The primary result code (the low byte of the extended code).
    public var primaryCode: Int32 { extendedCode & 0xFF }

    public init(extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " - while executing \"\(sql)\"" }
        return text
    }

    /// Whether the database was locked or busy past the busy timeout.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// Whether the disk or the database's page limit is full.
    public var isFull: Bool { primaryCode == SQLITE_FULL }
}
