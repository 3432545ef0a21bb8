import Foundation

/// The user's own data: favorites, hidden assets, titles and captions, user albums;
/// and which assets an import's favorite mark has been applied to
/// (`imported_favorites`: a Google Takeout `favorited` sets the favorite once, never again).
///
/// It lives in `user-state.sqlite` beside `library.sqlite`, attached to every
/// connection as the schema `userstate`, and is keyed by asset identifier, never by
/// row id. Identifiers come from content, so they are the same after a re-index, a
/// move or a rebuild; deleting `library.sqlite` to rebuild it from the files loses
/// nothing the user made.
enum UserStateStore {
    /// The schema name the store is attached under.
    static let schema = "userstate"
    /// The store's migrations (`Migrations/user-state/`), applied by the library's migrator
    /// with their own `userstate.schema_migrations`.
    static let migrator = DatabaseMigrator(migrations: EmbeddedMigrations.userState, schema: schema)
    /// The version `attachAndSetUp` brings the store to. It is also written to
    /// `PRAGMA userstate.user_version`, which MediaIndex read before the version table
    /// (1: favorites, hidden and albums; 2 `imported_favorites`; 3 `rating` and `keywords`;
    /// 4 the `latitude` and `longitude` that resolving duplicates copies onto the keeper),
    /// so an older build still refuses a newer store.
    static var version: Int { migrator.latestVersion }

    /// A write that changes nothing: the first statement of every user-state transaction,
    /// so the write lock of user-state.sqlite is taken (waiting up to the busy timeout)
    /// before any read starts a snapshot that could not be upgraded.
    static let writeLockStatement = "UPDATE \(schema).asset_user_state SET modified_at = modified_at WHERE 0"

    /// The tables the store's migrations create, with an FTS5 table's shadow tables and the
    /// migrator's own: a store holding only these is ours, stamped or not.
    static let tables: Set<String> = {
        var names: Set<String> = ["schema_migrations"]
        for migration in migrator.migrations {
            for (name, virtual) in createdTables(migration.sql) {
                names.insert(name)
                if virtual { names.formUnion(["data", "idx", "content", "docsize", "config"].map { name + "_" + $0 }) }
            }
        }
        return names
    }()

    /// The tables `sql` creates (`CREATE [VIRTUAL] TABLE [IF NOT EXISTS] [schema.]name`), each
    /// with whether it is virtual. Read word by word: a regular expression would load ICU's
    /// tables on every command's start (4 ms).
    static func createdTables(_ sql: String) -> [(name: String, virtual: Bool)] {
        let words = sql.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }.map(String.init)
        var found: [(String, Bool)] = []
        var index = 0
        while index < words.count {
            defer { index += 1 }
            guard words[index].uppercased() == "CREATE" else { continue }
            var next = index + 1
            let virtual = next < words.count && words[next].uppercased() == "VIRTUAL"
            if virtual { next += 1 }
            guard next < words.count, words[next].uppercased() == "TABLE" else { continue }
            next += 1
            if next + 2 < words.count, words[next].uppercased() == "IF", words[next + 1].uppercased() == "NOT",
               words[next + 2].uppercased() == "EXISTS" { next += 3 }
            guard next < words.count, let name = words[next].split(separator: ".").last else { continue }
            found.append((String(name), virtual))
            index = next
        }
        return found
    }

    /// Refuses a `user-state.sqlite` that another application made, as the library
    /// check refuses a foreign `library.sqlite`: it is left untouched.
    ///
    /// - Throws: `LibraryError.notALibrary`.
    static func verify(path: String) throws {
        try LibraryFileCheck.verify(path: path, legacyTables: tables)
    }

    /// Attaches the store to a writer connection, creating and upgrading it.
    static func attachAndSetUp(_ db: DatabaseConnection, path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            // Owner-only, like the library: SQLite gives its -wal and -shm the same mode.
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        try db.execute("ATTACH DATABASE ? AS \(schema)", [path])
        try db.execute("PRAGMA \(schema).journal_mode = WAL")
        try db.execute("PRAGMA \(schema).synchronous = NORMAL")
        // Checkpoints of user-state.sqlite run beside its writes, never inside one.
        BackgroundCheckpoint.install(on: db, schema: schema, path: path)
        if try db.scalarInt("PRAGMA \(schema).application_id") != LibraryFileCheck.applicationID {
            try db.execute("PRAGMA \(schema).application_id = \(LibraryFileCheck.applicationID)")
        }
        try migrator.adoptStampedVersion(try db.scalarInt("PRAGMA \(schema).user_version") ?? 0, db)
        try migrator.migrate(db)
        if try db.scalarInt("PRAGMA \(schema).user_version") != version {
            try db.execute("PRAGMA \(schema).user_version = \(version)")
        }
    }

    /// Makes sure the store exists for a read-only open: creates it when the folder
    /// is writable, so read-only connections can attach it.
    static func ensureExists(path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let directory = (path as NSString).deletingLastPathComponent
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw LibraryError.io("the user state \(path) is missing and its folder is read-only; open the library once with write access")
        }
        let connection = try DatabaseConnection(path: ":memory:", readOnly: false, create: true)
        try attachAndSetUp(connection, path: path)
    }
}

extension LibraryLocation {
    /// The user-state database (favorites, hidden, user albums), kept apart from
    /// `library.sqlite` so a rebuild of the index keeps it.
    public var userStatePath: String { directory + "/user-state.sqlite" }
}
