import Foundation
import Testing
@testable import MediaIndex

/// A fresh temporary folder, removed when the value is released.
final class TemporaryFolder {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "mediaindex-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
}

@Suite("Schema migrations")
struct MigrationTests {
    @Test("a new library has every embedded migration applied, in order")
    func freshLibrary() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let versions = try library.read { db in
            try db.rows("SELECT version FROM schema_migrations ORDER BY version").compactMap { $0.int("version") }
        }
        #expect(versions == EmbeddedMigrations.all.map(\.version))
        #expect(versions.first == 1 && versions == versions.sorted())
        #expect(EmbeddedMigrations.all.first?.name == "initial")
        let appID = try library.read { db in try db.scalarInt("PRAGMA application_id") }
        #expect(appID == LibraryFileCheck.applicationID)
        let journal = try library.read { db in try db.row("PRAGMA journal_mode")?.string("journal_mode") }
        #expect(journal == "wal")
    }

    /// A library as schema version 1 left it, with rows in every table.
    static let versionOneLibrary = """
        PRAGMA application_id = 1296630872;
        CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
        CREATE TABLE roots (id INTEGER PRIMARY KEY, path BLOB NOT NULL UNIQUE, added_at REAL NOT NULL, last_indexed_at REAL);
        CREATE TABLE assets (id INTEGER PRIMARY KEY, identifier TEXT NOT NULL UNIQUE,
            media_type TEXT NOT NULL CHECK (media_type IN ('image', 'video')), subtypes INTEGER NOT NULL DEFAULT 0,
            creation_date TEXT, creation_timestamp REAL, pixel_width INTEGER, pixel_height INTEGER, orientation INTEGER,
            duration REAL, frame_rate REAL, video_codec TEXT, has_audio INTEGER, latitude REAL, longitude REAL,
            altitude REAL, make TEXT, model TEXT, software TEXT, lens_make TEXT, lens_model TEXT, focal_length REAL,
            f_number REAL, exposure_time REAL, iso INTEGER, flash INTEGER, content_identifier TEXT,
            burst_identifier TEXT, fingerprint TEXT NOT NULL, revision INTEGER NOT NULL DEFAULT 1,
            added_at REAL NOT NULL, modified_at REAL NOT NULL);
        CREATE INDEX assets_by_creation ON assets (creation_timestamp DESC, id DESC);
        CREATE INDEX assets_by_content_identifier ON assets (content_identifier) WHERE content_identifier IS NOT NULL;
        CREATE INDEX assets_by_fingerprint ON assets (fingerprint);
        CREATE TABLE files (id INTEGER PRIMARY KEY, root_id INTEGER NOT NULL REFERENCES roots (id) ON DELETE CASCADE,
            path BLOB NOT NULL UNIQUE, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('media', 'error', 'ignored')), format TEXT, fingerprint TEXT,
            error TEXT, asset_id INTEGER REFERENCES assets (id) ON DELETE SET NULL, role TEXT, metadata TEXT,
            indexed_at REAL NOT NULL);
        CREATE INDEX files_by_root ON files (root_id);
        CREATE INDEX files_by_asset ON files (asset_id) WHERE asset_id IS NOT NULL;
        CREATE INDEX files_by_status ON files (status) WHERE status <> 'media';
        INSERT INTO schema_migrations (version, name) VALUES (1, 'initial');
        INSERT INTO roots VALUES (1, X'2F70686F746F73', 1700000000, 1700000100);
        INSERT INTO assets (id, identifier, media_type, creation_date, creation_timestamp, pixel_width, pixel_height,
            make, model, fingerprint, added_at, modified_at)
            VALUES (1, '0123456789abc', 'image', '2023-11-01T15:11:17+01:00', 1698847877, 4080, 3072,
                    'Google', 'Pixel 8 Pro', '00112233445566ff', 1700000000, 1700000000);
        INSERT INTO files (root_id, path, size, mtime_ns, inode, status, format, fingerprint, asset_id, role, indexed_at)
            VALUES (1, X'2F70686F746F732F612E6A7067', 267463, 1, 2, 'media', 'jpeg', '00112233445566ff', 1, 'photo', 1700000000);
        INSERT INTO files (root_id, path, size, mtime_ns, inode, status, error, indexed_at)
            VALUES (1, X'2F70686F746F732F622E6A7067', 0, 1, 3, 'error', 'the file is empty', 1700000000);
        """

    @Test("a library made by schema version 1 migrates without losing rows")
    func migratesOlderLibrary() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("lib"))
        try FileManager.default.createDirectory(atPath: location.directory, withIntermediateDirectories: true)
        do {
            let old = try DatabaseConnection(path: location.databasePath, readOnly: false, create: true)
            try old.execute(Self.versionOneLibrary)
        }
        let library = try MediaLibrary(location: location)
        let asset = try #require(try library.blocking.asset(id: "0123456789abc"))
        #expect(asset.make == "Google")
        #expect(asset.captureTime?.iso8601 == "2023-11-01T15:11:17+01:00")
        #expect(asset.resources.map(\.path.displayString) == ["/photos/a.jpg"])
        #expect(try library.blocking.errors().map(\.message) == ["the file is empty"])
        #expect(try library.blocking.roots().map(\.path.displayString) == ["/photos"])
        let versions = try library.read { db in try db.rows("SELECT version FROM schema_migrations").count }
        #expect(versions == EmbeddedMigrations.all.count)
    }

    @Test("a library migrated past a lower number (0015 without 0014) gets it when opened, read-only open too")
    func lowerMigrationMergedLater() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("lib"))
        try FileManager.default.createDirectory(atPath: location.directory, withIntermediateDirectories: true)
        let missing = try #require(EmbeddedMigrations.all.first { $0.name == "layouts" }?.version)
        let newer = try #require(EmbeddedMigrations.all.first { $0.name == "takeout" }?.version)
        #expect(missing < newer)
        do {
            // As a build with the Takeout migration but not the layouts one left it.
            let old = try DatabaseConnection(path: location.databasePath, readOnly: false, create: true)
            try LibraryFileCheck.stampIfNew(old)
            let without = DatabaseMigrator(migrations: EmbeddedMigrations.all.filter { $0.version != missing })
            try without.migrate(old)
            #expect(try without.appliedVersions(old).max() == DatabaseMigrator().latestVersion)
            try old.execute("""
                INSERT INTO roots (id, path, added_at, last_indexed_at) VALUES (1, X'2F70686F746F73', 1700000000, 1700000100);
                INSERT INTO assets (id, identifier, media_type, fingerprint, added_at, modified_at)
                    VALUES (1, '0123456789abc', 'image', '00112233445566ff', 1700000000, 1700000000);
                INSERT INTO files (root_id, path, size, mtime_ns, inode, status, format, fingerprint, asset_id, role, indexed_at)
                    VALUES (1, CAST('/photos/IMG_1234.JPG' AS BLOB), 267463, 1, 2, 'media', 'jpeg', '00112233445566ff', 1, 'photo', 1700000000);
                INSERT INTO files (root_id, path, size, mtime_ns, inode, status, indexed_at)
                    VALUES (1, CAST('/photos/IMG_1234.AAE' AS BLOB), 900, 1, 3, 'ignored', 1700000000);
                INSERT INTO files (root_id, path, size, mtime_ns, inode, status, asset_id, role, metadata, indexed_at)
                    VALUES (1, CAST('/photos/IMG_1234.JPG.json' AS BLOB), 700, 1, 4, 'ignored', 1, 'takeoutMetadata', '{}', 1700000000);
                """)
        }
        #expect(try DatabaseMigrator().isBehind(DatabaseConnection(path: location.databasePath, readOnly: true)))

        // Opening the existing library (as `mediaindex list` does) applies the lower migration.
        let library = try MediaLibrary(location: location, mode: .existing)
        let versions = try library.read { db in
            try db.rows("SELECT version FROM schema_migrations ORDER BY version").compactMap { $0.int("version") }
        }
        #expect(versions == EmbeddedMigrations.all.map(\.version))
        let asset = try #require(try library.blocking.asset(id: "0123456789abc"))
        #expect(asset.hasAdjustments == false)
        #expect(Set(asset.resources.map(\.type)) == [.photo, .takeoutMetadata])
        // The migration's own work happened: the `.AAE` it used to ignore is read again.
        let aaeStat = try library.read { db in
            try db.scalarInt("SELECT mtime_ns FROM files WHERE path = CAST('/photos/IMG_1234.AAE' AS BLOB)")
        }
        #expect(aaeStat == -1)
        #expect(try !DatabaseMigrator().isBehind(DatabaseConnection(path: location.databasePath, readOnly: true)))
    }

    @Test("a library from before schema 16 gets the pairing values of its media rows as columns, from their JSON")
    func pairingValuesBackfilled() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("lib"))
        try FileManager.default.createDirectory(atPath: location.directory, withIntermediateDirectories: true)
        let columns = try #require(EmbeddedMigrations.all.first { $0.name == "file_pairing_values" }?.version)
        do {
            let old = try DatabaseConnection(path: location.databasePath, readOnly: false, create: true)
            try LibraryFileCheck.stampIfNew(old)
            try DatabaseMigrator(migrations: EmbeddedMigrations.all.filter { $0.version < columns }).migrate(old)
            try old.execute("""
                INSERT INTO roots (id, path, added_at, last_indexed_at) VALUES (1, X'2F70686F746F73', 1700000000, 1700000100);
                INSERT INTO files (root_id, path, size, mtime_ns, inode, status, format, metadata, indexed_at) VALUES
                    (1, CAST('/photos/IMG_1.HEIC' AS BLOB), 1, 1, 2, 'media', 'heic',
                     '{"contentIdentifier":"5A2F-11","format":"heic"}', 1700000000),
                    (1, CAST('/photos/IMG_1.MOV' AS BLOB), 1, 1, 3, 'media', 'mov',
                     '{"contentIdentifier":"5A2F-11","durationSeconds":2.5,"format":"mov"}', 1700000000),
                    (1, CAST('/photos/IMG_2.JPG' AS BLOB), 1, 1, 4, 'media', 'jpeg', '{"contentIdentifier":""}', 1700000000),
                    (1, CAST('/photos/bad.JPG' AS BLOB), 1, 1, 5, 'media', 'jpeg', 'not JSON', 1700000000),
                    (1, CAST('/photos/IMG_1.xmp' AS BLOB), 1, 1, 6, 'ignored', NULL,
                     '{"contentIdentifier":"not media"}', 1700000000);
                """)
        }
        let library = try MediaLibrary(location: location, mode: .existing)
        let rows = try library.read { db in
            try db.rows("SELECT path, content_identifier, duration_seconds FROM files ORDER BY inode").map {
                (String(decoding: $0.blob("path") ?? [], as: UTF8.self), $0.string("content_identifier"), $0.double("duration_seconds"))
            }
        }
        #expect(rows.map(\.0) == ["/photos/IMG_1.HEIC", "/photos/IMG_1.MOV", "/photos/IMG_2.JPG", "/photos/bad.JPG", "/photos/IMG_1.xmp"])
        #expect(rows.map(\.1) == ["5A2F-11", "5A2F-11", nil, nil, nil])
        #expect(rows.map(\.2) == [nil, 2.5, nil, nil, nil])
    }

    @Test("a failing migration leaves the database as it was")
    func failingMigrationRollsBack() throws {
        let folder = TemporaryFolder()
        let db = try DatabaseConnection(path: folder.file("x.sqlite"), readOnly: false, create: true)
        let migrator = DatabaseMigrator(migrations: [
            SchemaMigration(version: 1, name: "good", sql: "CREATE TABLE a (x INTEGER);"),
            SchemaMigration(version: 2, name: "bad", sql: "CREATE TABLE b (y INTEGER); INSERT INTO nowhere VALUES (1);"),
        ])
        #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(try migrator.appliedVersions(db) == [1])
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
    }

    @Test("a library from a newer schema is refused")
    func newerSchemaIsRefused() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("lib"))
        _ = try MediaLibrary(location: location)
        do {
            let db = try DatabaseConnection(path: location.databasePath, readOnly: false)
            try db.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'future')")
        }
        #expect(throws: LibraryError.self) { try MediaLibrary(location: location) }
    }
}

@Suite("Library file check")
struct LibraryFileCheckTests {
    private func sha(_ path: String) throws -> UInt64 {
        XXHash64.hash([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test("a picture named library.sqlite is refused and left untouched")
    func pictureIsNotALibrary() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("lib"))
        try FileManager.default.createDirectory(atPath: location.directory, withIntermediateDirectories: true)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 200)
        try Data(jpeg).write(to: URL(fileURLWithPath: location.databasePath))
        let before = try sha(location.databasePath)
        let error = #expect(throws: LibraryError.self) { try MediaLibrary(location: location) }
        #expect(error?.description.contains("is not a MediaIndex library (it is not a SQLite database)") == true)
        #expect(try sha(location.databasePath) == before)
        #expect(!FileManager.default.fileExists(atPath: location.databasePath + "-wal"))
    }

    @Test("another application's SQLite database is refused and left untouched")
    func foreignDatabaseIsRefused() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("lib"))
        try FileManager.default.createDirectory(atPath: location.directory, withIntermediateDirectories: true)
        do {
            let other = try DatabaseConnection(path: location.databasePath, readOnly: false, create: true)
            try other.execute("PRAGMA journal_mode = DELETE; CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x');")
        }
        let before = try sha(location.databasePath)
        let error = #expect(throws: LibraryError.self) { try MediaLibrary(location: location) }
        #expect(error?.description.contains("SQLite database of another application") == true)
        #expect(try sha(location.databasePath) == before)
    }

    @Test("a library path that is a file is refused")
    func libraryPathIsAFile() throws {
        let folder = TemporaryFolder()
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder.file("notes.txt")))
        #expect(throws: LibraryError.libraryPathIsAFile(path: folder.file("notes.txt"))) {
            try MediaLibrary(location: LibraryLocation(directory: folder.file("notes.txt")))
        }
    }

    @Test("reading a library that does not exist says so and creates nothing")
    func missingLibrary() throws {
        let folder = TemporaryFolder()
        #expect(throws: LibraryError.noLibrary(path: folder.file("none"))) {
            try MediaLibrary(location: LibraryLocation(directory: folder.file("none")), mode: .readOnly)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("none")))
    }
}

@Suite("Library location")
struct LibraryLocationTests {
    @Test("the flag wins, then MEDIAINDEX_LIBRARY, then XDG_DATA_HOME, then ~/.local/share")
    func resolutionOrder() {
        let env = ["MEDIAINDEX_LIBRARY": "/env/lib", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]
        #expect(LibraryLocation.resolve(explicit: "/flag", environment: env).directory == "/flag")
        #expect(LibraryLocation.resolve(explicit: nil, environment: env).directory == "/env/lib")
        #expect(LibraryLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]).directory
                == "/xdg/mediaindex")
        #expect(LibraryLocation.resolve(explicit: nil, environment: ["HOME": "/home/u"]).directory
                == "/home/u/.local/share/mediaindex")
    }
}
