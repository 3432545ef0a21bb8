import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// The user state's schema, as MediaIndex wrote it before its migrations moved to
/// `Migrations/user-state/`: one inline script, stamped with `PRAGMA user_version`.
private enum StampedUserState {
    static let version1 = """
        CREATE TABLE asset_user_state (
            identifier TEXT PRIMARY KEY, favorite INTEGER NOT NULL DEFAULT 0, hidden INTEGER NOT NULL DEFAULT 0,
            title TEXT, caption TEXT, modified_at REAL NOT NULL) WITHOUT ROWID;
        CREATE INDEX user_state_favorites ON asset_user_state (identifier) WHERE favorite = 1;
        CREATE INDEX user_state_hidden ON asset_user_state (identifier) WHERE hidden = 1;
        CREATE TABLE albums (
            id INTEGER PRIMARY KEY, identifier TEXT NOT NULL UNIQUE, title TEXT NOT NULL, key_asset TEXT,
            created_at REAL NOT NULL, modified_at REAL NOT NULL);
        CREATE TABLE album_assets (
            album_id INTEGER NOT NULL REFERENCES albums (id) ON DELETE CASCADE, asset_identifier TEXT NOT NULL,
            position INTEGER NOT NULL, added_at REAL NOT NULL, PRIMARY KEY (album_id, asset_identifier)) WITHOUT ROWID;
        CREATE UNIQUE INDEX album_assets_by_position ON album_assets (album_id, position);
        CREATE INDEX album_assets_by_asset ON album_assets (asset_identifier);
        """
    static let version3 = version1 + """
        CREATE TABLE imported_favorites (identifier TEXT PRIMARY KEY, applied_at REAL NOT NULL) WITHOUT ROWID;
        ALTER TABLE asset_user_state ADD COLUMN rating INTEGER;
        ALTER TABLE asset_user_state ADD COLUMN keywords TEXT;
        """

    /// A library whose user state is replaced by one made with `script` at `version`,
    /// holding a favorite and a user album of one asset.
    static func library(script: String, version: Int, in folder: TemporaryFolder) throws -> LibraryLocation {
        let location = LibraryLocation(directory: folder.file("library"))
        _ = try MediaLibrary(location: location)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location.userStatePath + suffix) }
        let store = try DatabaseConnection(path: location.userStatePath, readOnly: false, create: true)
        try store.execute(script)
        try store.execute("""
            INSERT INTO asset_user_state (identifier, favorite, hidden, title, modified_at) VALUES ('asset1', 1, 0, 'Kept', 1);
            INSERT INTO albums (id, identifier, title, created_at, modified_at) VALUES (1, 'album1', 'Trip', 1, 1);
            INSERT INTO album_assets (album_id, asset_identifier, position, added_at) VALUES (1, 'asset1', 0, 1);
            PRAGMA application_id = \(LibraryFileCheck.applicationID);
            PRAGMA user_version = \(version);
            """)
        return location
    }
}

@Suite("The user state's migrations: Migrations/user-state/, one migrator, stores of earlier versions upgraded in place")
struct UserStateMigrationTests {
    /// The number of the last file in `Migrations/user-state/`: every store ends there.
    static let latest: Int = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Migrations/user-state").standardized.path
        let numbers = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".sql") }.compactMap { Int($0.prefix(4)) }
        return numbers.max() ?? 0
    }()

    private func recorded(_ library: MediaLibrary) throws -> [Int] {
        try library.read { db in
            try db.rows("SELECT version FROM userstate.schema_migrations ORDER BY version").compactMap { $0.int("version") }
        }
    }

    private func columns(_ library: MediaLibrary) throws -> Set<String> {
        try library.read { db in
            Set(try db.rows("SELECT name FROM userstate.pragma_table_info('asset_user_state')").compactMap { $0.string("name") })
        }
    }

    @Test("a new store records every user-state migration in its own version table, none in the library's")
    func newStore() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        #expect(try recorded(library) == EmbeddedMigrations.userState.map(\.version))
        #expect(try recorded(library) == Array(stride(from: 1, through: Self.latest, by: 1)))
        let libraryVersions = try library.read { db in
            try db.rows("SELECT version FROM main.schema_migrations").compactMap { $0.int("version") }
        }
        #expect(libraryVersions == EmbeddedMigrations.all.map(\.version))
        #expect(try library.read { db in try db.scalarInt("PRAGMA userstate.user_version") } == UserStateStore.version)
    }

    @Test("a store made by the schema before (user_version 3) is adopted as it is: its marks and albums kept")
    func stampedVersion3() async throws {
        let folder = TemporaryFolder()
        let location = try StampedUserState.library(script: StampedUserState.version3, version: 3, in: folder)
        let library = try MediaLibrary(location: location)
        #expect(try recorded(library) == Array(stride(from: 1, through: Self.latest, by: 1)))
        #expect(try library.read { db in
            try db.scalarInt("SELECT favorite FROM userstate.asset_user_state WHERE identifier = 'asset1'")
        } == 1)
        #expect(try library.blocking.fetchAlbums().contains { $0.title == "Trip" && $0.kind == .user })
    }

    @Test("a version 1 store gains imported_favorites, rating and keywords, and keeps its rows")
    func stampedVersion1() throws {
        let folder = TemporaryFolder()
        let location = try StampedUserState.library(script: StampedUserState.version1, version: 1, in: folder)
        let library = try MediaLibrary(location: location)
        #expect(try recorded(library) == Array(stride(from: 1, through: Self.latest, by: 1)))
        #expect(try columns(library).isSuperset(of: ["rating", "keywords", "title", "caption"]))
        #expect(try library.read { db in
            try db.scalarInt("SELECT count(*) FROM userstate.sqlite_master WHERE name = 'imported_favorites'")
        } == 1)
        #expect(try library.read { db in
            try db.row("SELECT title FROM userstate.asset_user_state WHERE identifier = 'asset1'")?.string("title")
        } == "Kept")
    }

    @Test("a store a newer MediaIndex migrated is refused, naming the store")
    func newerStore() throws {
        let folder = TemporaryFolder()
        let location = try StampedUserState.library(script: StampedUserState.version3, version: 3, in: folder)
        _ = try MediaLibrary(location: location)
        do {
            let store = try DatabaseConnection(path: location.userStatePath, readOnly: false)
            try store.execute("INSERT INTO schema_migrations (version, name) VALUES (99, 'from_the_future')")
        }
        #expect {
            _ = try MediaLibrary(location: location)
        } throws: { error in
            guard case LibraryError.newerSchema(let path, let found, let known)? = error as? LibraryError else { return false }
            return path == location.userStatePath && found == 99 && known == UserStateStore.version
        }
    }

    @Test("the tables a store's migrations create are read word by word: virtual ones with their shadow tables, any case, IF NOT EXISTS, a schema")
    func createdTables() throws {
        let found = UserStateStore.createdTables("""
            create table a (x); CREATE VIRTUAL TABLE userstate.t USING fts5(y);
            CREATE TABLE IF NOT EXISTS b (z); CREATE INDEX c ON a (x); CREATE TRIGGER d AFTER INSERT ON a BEGIN SELECT 1; END;
            """)
        #expect(found.map(\.name) == ["a", "t", "b"] && found.map(\.virtual) == [false, true, false])
        #expect(UserStateStore.tables.isSuperset(of: ["schema_migrations", "asset_user_state", "user_text", "user_text_data"]))
    }
}
