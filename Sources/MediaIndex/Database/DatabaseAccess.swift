import Foundation
import CSQLite

/// The library's single writer connection; calls are serialised.
package final class DatabaseWriter: @unchecked Sendable {
    // @unchecked: the connection is only touched inside `lock`, one caller at a time.
    private let connection: DatabaseConnection
    private let lock = NSLock()

    init(connection: DatabaseConnection) { self.connection = connection }

    /// Runs `body` with the writer connection, outside any transaction.
    package func write<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction.
    package func transaction<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try write { db in try db.inTransaction { try body(db) } }
    }
}

/// Read-only access. Each read runs in its own deferred transaction, so it sees one
/// committed state of the database and never blocks the writer (WAL).
///
/// At most `maximumConnections` connections are open at once; a read beyond them waits
/// for one to come back. A burst of concurrent reads (a server's long polls waking
/// together) must not open and close connections: SQLite keeps the descriptor of a
/// connection closed while other connections of the process hold locks on the file
/// (closing it would drop their POSIX locks), so each extra connection left a descriptor
/// open for as long as the server ran.
package final class DatabaseReader: @unchecked Sendable {
    // @unchecked: `idle` and `openCount` are only touched under `condition`.
    private let path: String
    private let condition = NSCondition()
    private var idle: [DatabaseConnection] = []
    /// Connections of the pool that exist, idle or in use.
    private var openCount = 0
    /// Databases attached to every connection, as (schema name, file path).
    private let attachments: [(schema: String, path: String)]
    /// Connections kept open between reads, and the most open at once. Opening one
    /// (schema, attachments, statement cache) costs more than a picker's first page, so a
    /// server's concurrent readers reuse theirs.
    static let maximumConnections = 16
    /// How long a read waits for a connection before it opens one beyond the pool (closed
    /// after its read): a nested read must never wait for itself.
    static let connectionWaitSeconds = 2.0

    /// - Parameter opened: a read-only connection with the `attachments` attached
    ///   already, kept as the first idle one (a command that has opened one to check the
    ///   library reads through it, instead of opening the file again).
    init(path: String, attachments: [(schema: String, path: String)] = [], opened: DatabaseConnection? = nil) {
        self.path = path
        self.attachments = attachments
        if let opened {
            idle = [opened]
            openCount = 1
        }
    }

    /// Runs `body` on a read-only connection inside a read transaction.
    package func read<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        let (connection, pooled) = try checkOut()
        defer { checkIn(connection, pooled: pooled) }
        return try connection.inTransaction(immediate: false) { try body(connection) }
    }

    /// An idle connection, a new one while the pool has room, else the first to come back
    /// (or, after `connectionWaitSeconds`, one outside the pool).
    private func checkOut() throws -> (DatabaseConnection, pooled: Bool) {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: Self.connectionWaitSeconds)
        while idle.isEmpty && openCount >= Self.maximumConnections {
            if !condition.wait(until: deadline) { break }
        }
        if let connection = idle.popLast() { condition.unlock(); return (connection, true) }
        let pooled = openCount < Self.maximumConnections
        if pooled { openCount += 1 }
        condition.unlock()
        do {
            let connection = try DatabaseConnection(path: path, readOnly: true)
            try Self.attach(attachments, to: connection)
            return (connection, pooled)
        } catch {
            if pooled { checkIn(nil, pooled: true) }
            throw error
        }
    }

    static func attach(_ attachments: [(schema: String, path: String)], to connection: DatabaseConnection) throws {
        for attachment in attachments {
            try connection.execute("ATTACH DATABASE ? AS \(attachment.schema)", [attachment.path])
        }
    }

    /// Frees the page caches of the idle connections (each may hold up to 32 MB after a
    /// burst of reads); they fill again as reads come. Wraps `sqlite3_db_release_memory`.
    func releaseIdleMemory() {
        condition.lock()
        defer { condition.unlock() }
        for connection in idle { sqlite3_db_release_memory(connection.handle) }
    }

    /// Gives a pooled connection back (nil: one that failed to open); one from outside
    /// the pool is closed.
    private func checkIn(_ connection: DatabaseConnection?, pooled: Bool) {
        guard pooled else { return }
        condition.lock()
        if let connection { idle.append(connection) } else { openCount -= 1 }
        condition.signal()
        condition.unlock()
    }
}

/// Checks that an existing file is a MediaIndex library before anything writes to it.
enum LibraryFileCheck {
    static let applicationID = 1_296_630_872  // 'MIDX'

    /// Stamps a database that has no tables yet as ours, in one transaction with the
    /// migration log's table: whatever happens after (a full disk, a kill), the file is
    /// recognised as a MediaIndex library and the next open finishes migrating it.
    static func stampIfNew(_ db: DatabaseConnection) throws {
        guard try db.scalarInt("SELECT count(*) FROM sqlite_master") == 0 else { return }
        try db.inTransaction {
            try db.execute("PRAGMA application_id = \(applicationID)")
            try db.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                )
                """)
        }
    }

    /// Throws `LibraryError.notALibrary` unless the file is empty, a fresh SQLite
    /// database with no tables, a database stamped with our application id, or (with
    /// `legacyTables`) an unstamped database whose tables are all among those: a store
    /// an earlier MediaIndex made before it stamped them.
    /// Opens the file read-only, so a foreign file is never modified.
    ///
    /// The file is read through SQLite, never with a descriptor of our own: closing any
    /// descriptor of a file drops every POSIX lock this process holds on it, so a second
    /// library opened beside a first (or a check made while connections are open) would
    /// silently release their locks, and another process could then checkpoint and reset
    /// the WAL under them (seen as SQLite errors 522 and 11). SQLite's own files keep
    /// those locks (its unix VFS defers such closes).
    static func verify(path: String, legacyTables: Set<String>? = nil) throws {
        // Plain system calls: Foundation's attributes look up the owner's name in
        // /etc/passwd, and every command that opens the library pays for it.
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        if status.st_size == 0 { return }
        let connection: DatabaseConnection
        do {
            connection = try DatabaseConnection(path: path, readOnly: true)
        } catch let error as DatabaseError {
            // Cannot open (a read-only disk where the -shm cannot be made): the open that
            // follows says so in its own words; nothing here says the file is foreign.
            if error.primaryCode == SQLITE_CANTOPEN { return }
            throw LibraryError.notALibrary(path: path, reason: error.primaryCode == 26 ? "it is not a SQLite database" : error.message)
        }
        do {
            let id = try connection.scalarInt("PRAGMA application_id") ?? 0
            if id == applicationID { return }
            let tables = try connection.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
            if id == 0 && tables == 0 { return }
            if id == 0, let legacyTables {
                let names = Set(try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
                    .compactMap { $0.string("name") })
                if !names.isEmpty && names.isSubset(of: legacyTables) { return }
            }
            throw LibraryError.notALibrary(
                path: path,
                reason: id == 0 ? "it is a SQLite database of another application" : "its application id is \(id)")
        } catch let error as DatabaseError {
            // Cannot open (a read-only disk where the -shm cannot be made): the open that
            // follows says so in its own words; nothing here says the file is foreign.
            if error.primaryCode == SQLITE_CANTOPEN { return }
            throw LibraryError.notALibrary(path: path, reason: error.primaryCode == 26 ? "it is not a SQLite database" : error.message)
        }
    }
}
