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
    /// The version `setUp` brings the store to (`PRAGMA userstate.user_version`).
    /// 2 added `imported_favorites`; 3 the user's own `rating` and `keywords` (a JSON
    /// array of keyword paths) beside `title` and `caption`.
    static let version = 3

    /// A write that changes nothing: the first statement of every user-state transaction,
    /// so the write lock of user-state.sqlite is taken (waiting up to the busy timeout)
    /// before any read starts a snapshot that could not be upgraded.
    static let writeLockStatement = "UPDATE \(schema).asset_user_state SET modified_at = modified_at WHERE 0"

    /// The tables an unstamped store of an earlier MediaIndex holds (and the ones this
    /// version adds: a store holding only these is ours).
    static let tables: Set<String> = ["asset_user_state", "albums", "album_assets", "imported_favorites"]

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
        let current = try db.scalarInt("PRAGMA \(schema).user_version") ?? 0
        if current > version {
            throw LibraryError.io("the user state \(path) was written by a newer MediaIndex (version \(current)); update MediaIndex")
        }
        guard current < version else { return }
        try db.inTransaction {
            try db.execute("""
                CREATE TABLE IF NOT EXISTS \(schema).asset_user_state (
                    identifier  TEXT PRIMARY KEY,
                    favorite    INTEGER NOT NULL DEFAULT 0,
                    hidden      INTEGER NOT NULL DEFAULT 0,
                    title       TEXT,
                    caption     TEXT,
                    modified_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS \(schema).user_state_favorites ON asset_user_state (identifier) WHERE favorite = 1;
                CREATE INDEX IF NOT EXISTS \(schema).user_state_hidden ON asset_user_state (identifier) WHERE hidden = 1;
                CREATE TABLE IF NOT EXISTS \(schema).albums (
                    id          INTEGER PRIMARY KEY,
                    identifier  TEXT NOT NULL UNIQUE,
                    title       TEXT NOT NULL,
                    key_asset   TEXT,
                    created_at  REAL NOT NULL,
                    modified_at REAL NOT NULL
                );
                CREATE TABLE IF NOT EXISTS \(schema).album_assets (
                    album_id         INTEGER NOT NULL REFERENCES albums (id) ON DELETE CASCADE,
                    asset_identifier TEXT NOT NULL,
                    position         INTEGER NOT NULL,
                    added_at         REAL NOT NULL,
                    PRIMARY KEY (album_id, asset_identifier)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX IF NOT EXISTS \(schema).album_assets_by_position ON album_assets (album_id, position);
                CREATE INDEX IF NOT EXISTS \(schema).album_assets_by_asset ON album_assets (asset_identifier);
                CREATE TABLE IF NOT EXISTS \(schema).imported_favorites (
                    identifier TEXT PRIMARY KEY,
                    applied_at REAL NOT NULL
                ) WITHOUT ROWID;
                """)
            try addDescriptionColumns(db)
            try db.execute("PRAGMA \(schema).user_version = \(version)")
        }
    }

    /// Adds version 3's columns to a store made before them.
    private static func addDescriptionColumns(_ db: DatabaseConnection) throws {
        let existing = Set(try db.rows("SELECT name FROM \(schema).pragma_table_info('asset_user_state')").compactMap { $0.string("name") })
        for (column, type) in [("rating", "INTEGER"), ("keywords", "TEXT")] where !existing.contains(column) {
            try db.execute("ALTER TABLE \(schema).asset_user_state ADD COLUMN \(column) \(type)")
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
