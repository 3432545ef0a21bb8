import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// The key asset and date range each folder album keeps in `folder_stats` (migration
/// 10), against the same facts computed afresh from `assets`.
@Suite("Folder album keys")
struct FolderAlbumKeyTests {
    /// Per folder: key id, key identifier, key capture, first dated capture.
    struct FolderKey: Equatable, CustomStringConvertible {
        var keyID: Int64?
        var keyIdentifier: String?
        var keyCapture: Double?
        var firstCapture: Double?
        var description: String {
            "key \(keyID.map(String.init) ?? "nil")/\(keyIdentifier ?? "nil")@\(keyCapture.map { "\($0)" } ?? "nil") first \(firstCapture.map { "\($0)" } ?? "nil")"
        }
    }

    /// What the triggers keep, for folders that hold listed assets or still have a key.
    static func kept(_ db: DatabaseConnection) throws -> [Int64: FolderKey] {
        var result: [Int64: FolderKey] = [:]
        for row in try db.rows("""
            SELECT folder_id, key_id, key_identifier, key_capture, first_capture FROM folder_stats
            WHERE images + videos > 0 OR key_id IS NOT NULL OR first_capture IS NOT NULL
            """) {
            guard let folder = row.int64("folder_id") else { continue }
            result[folder] = FolderKey(keyID: row.int64("key_id"), keyIdentifier: row.string("key_identifier"),
                                       keyCapture: row.double("key_capture"), firstCapture: row.double("first_capture"))
        }
        return result
    }

    /// The straightforward computation: a window over every listed asset, grouped by folder.
    static func computed(_ db: DatabaseConnection) throws -> [Int64: FolderKey] {
        var result: [Int64: FolderKey] = [:]
        for row in try db.rows("""
            SELECT k.folder_id, k.id, k.identifier, k.capture_sort, f.first FROM (
                SELECT folder_id, id, identifier, capture_sort,
                    row_number() OVER (PARTITION BY folder_id ORDER BY capture_sort DESC, id DESC) AS rank
                FROM assets WHERE folder_id IS NOT NULL AND is_burst_representative = 1) k
            JOIN (SELECT folder_id, min(CASE WHEN creation_timestamp IS NOT NULL THEN creation_timestamp END) AS first
                  FROM assets WHERE folder_id IS NOT NULL AND is_burst_representative = 1 GROUP BY folder_id) f
                ON f.folder_id = k.folder_id
            WHERE k.rank = 1
            """) {
            guard let folder = row.int64("folder_id") else { continue }
            result[folder] = FolderKey(keyID: row.int64("id"), keyIdentifier: row.string("identifier"),
                                       keyCapture: row.double("capture_sort"), firstCapture: row.double("first"))
        }
        return result
    }

    /// A reproducible sequence of edits (SplitMix64).
    struct Random {
        var generator: SplitMix64
        init(state: UInt64) { generator = SplitMix64(seed: state) }
        mutating func next(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
    }

    @Test("kept keys and date ranges equal a fresh computation through inserts, deletes, moves, date edits and burst changes")
    func keptEqualsComputed() throws {
        let lib = try SyntheticLibrary()
        typealias R = SyntheticLibrary.Row
        let folders = ["/photos/a", "/photos/b", "/photos/c", "/photos/d"]
        var random = Random(state: 10)
        // Few distinct times, so equal capture dates (the id breaks the tie) and undated assets are common.
        func time() -> Double? { random.next(5) == 0 ? nil : Double(100 * random.next(8)) }
        var made = 0
        func newRows(_ count: Int) -> [R] {
            (0..<count).map { _ in
                made += 1
                return R(id: "asset\(made)", time: time(), representative: random.next(6) != 0,
                         path: folders[random.next(folders.count)] + "/IMG_\(made).JPG")
            }
        }
        try lib.insert(newRows(40))
        let writer = try lib.library.requireWriter()
        var checked = 0
        func check(_ stage: String) throws {
            let (kept, computed) = try writer.write { db in (try Self.kept(db), try Self.computed(db)) }
            #expect(!computed.isEmpty)
            for folder in Set(kept.keys).union(computed.keys) {
                // A folder left without listed assets keeps no key.
                let expected = computed[folder] ?? FolderKey()
                #expect(kept[folder] ?? FolderKey() == expected, "\(stage): folder \(folder)")
            }
            checked += 1
        }
        try check("inserted")
        for step in 0..<300 {
            let ids = try writer.write { db in try db.rows("SELECT id FROM assets ORDER BY id").compactMap { $0.int64("id") } }
            guard !ids.isEmpty else { try lib.insert(newRows(5)); continue }
            let target = ids[random.next(ids.count)]
            let operation = random.next(6)
            switch operation {
            case 0:
                try writer.transaction { db in
                    try db.execute("DELETE FROM files WHERE asset_id = ?", [target])
                    try db.execute("DELETE FROM assets WHERE id = ?", [target])
                }
            case 1:
                // A move on disk: the file's path changes, the file trigger sets the folder.
                let folder = folders[random.next(folders.count)]
                try writer.transaction { db in
                    try db.execute("UPDATE files SET path = ? WHERE asset_id = ?",
                                   [Array((folder + "/moved\(step).JPG").utf8), target])
                }
            case 2:
                let newTime = time()
                try writer.transaction { db in
                    try db.execute("UPDATE assets SET creation_timestamp = ? WHERE id = ?", [newTime, target])
                }
            case 3:
                try writer.transaction { db in
                    try db.execute("UPDATE assets SET is_burst_representative = 1 - is_burst_representative WHERE id = ?",
                                   [target])
                }
            case 4:
                try lib.insert(newRows(1 + random.next(3)))
            default:
                // Several changes in one statement, as a batch would make them.
                let newTime = time()
                try writer.transaction { db in
                    try db.execute("UPDATE assets SET creation_timestamp = ?, is_burst_representative = 1 WHERE id % 7 = ?",
                                   [newTime, target % 7])
                }
            }
            try check("step \(step), operation \(operation)")
        }
        #expect(checked == 301)
    }

    @Test("folder albums leave hidden assets out of the key and the date range")
    func hiddenAssetsLeftOut() async throws {
        let lib = try SyntheticLibrary()
        typealias R = SyntheticLibrary.Row
        try lib.insert([
            R(id: "old", time: 100, path: "/photos/trip/old.jpg"),
            R(id: "middle", time: 200, path: "/photos/trip/middle.jpg"),
            R(id: "new", time: 300, path: "/photos/trip/new.jpg"),
            R(id: "other", time: 50, path: "/photos/home/other.jpg"),
            R(id: "alone", time: 70, path: "/photos/alone/alone.jpg"),
        ])
        func trip() async throws -> Album? {
            try await lib.library.fetchAlbums().first { $0.path?.displayString == "/photos/trip" }
        }
        let before = try #require(try await trip())
        #expect(before.keyAssetID == "new" && before.startDate == 100 && before.endDate == 300 && before.count == 3)

        try await lib.library.setHidden(true, for: ["new", "old", "alone"])
        let after = try #require(try await trip())
        #expect(after.keyAssetID == "middle" && after.startDate == 200 && after.endDate == 200 && after.count == 1)
        let albums = try await lib.library.fetchAlbums()
        // A folder whose only asset is hidden is not listed; other folders keep their kept values.
        #expect(!albums.contains { $0.path?.displayString == "/photos/alone" })
        let home = try #require(albums.first { $0.path?.displayString == "/photos/home" })
        #expect(home.keyAssetID == "other" && home.startDate == 50 && home.endDate == 50)
    }

    @Test("a folder album's parent is the nearest enclosing one, even when a sibling's name extends the parent's")
    func nestingPastSimilarNames() async throws {
        let lib = try SyntheticLibrary()
        typealias R = SyntheticLibrary.Row
        // "/photos x" sorts between "/photos" and "/photos/trip" (' ' < '/').
        try lib.insert([
            R(id: "a", time: 1, path: "/photos/a.jpg"),
            R(id: "b", time: 2, path: "/photos x/b.jpg"),
            R(id: "c", time: 3, path: "/photos/trip/c.jpg"),
            R(id: "d", time: 4, path: "/photos/trip/deep/er/d.jpg"),
        ])
        let folders = try await lib.library.fetchAlbums().filter { $0.kind == .folder }
        #expect(folders.map { $0.path?.displayString } == ["/photos", "/photos x", "/photos/trip", "/photos/trip/deep/er"])
        let byPath = Dictionary(uniqueKeysWithValues: folders.map { ($0.path?.displayString ?? "", $0) })
        #expect(byPath["/photos/trip"]?.parentID == byPath["/photos"]?.id)
        #expect(byPath["/photos x"]?.parentID == nil)
        #expect(byPath["/photos/trip/deep/er"]?.parentID == byPath["/photos/trip"]?.id)
    }

    @Test("a library made before folder album keys (schema 11) gets each folder's key and date range on migrating")
    func migrationFillsKeys() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("lib"))
        try FileManager.default.createDirectory(atPath: location.directory, withIntermediateDirectories: true)
        do {
            let old = try DatabaseConnection(path: location.databasePath, readOnly: false, create: true)
            try DatabaseMigrator(migrations: EmbeddedMigrations.all.filter { $0.version < 10 }).migrate(old)
            #expect(try DatabaseMigrator().appliedVersions(old).max() == 9)
            try old.execute("INSERT INTO roots (id, path, added_at) VALUES (1, X'2F70', 0)")
            var random = Random(state: 3)
            for n in 0..<60 {
                let time: Double? = random.next(4) == 0 ? nil : Double(random.next(10) * 10)
                try old.execute("""
                    INSERT INTO assets (identifier, media_type, creation_timestamp, is_burst_representative,
                                        fingerprint, added_at, modified_at)
                    VALUES (?, 'image', ?, ?, 'fp', 0, 0)
                    """, ["asset\(n)", time, random.next(5) != 0])
                try old.execute("""
                    INSERT INTO files (root_id, path, size, mtime_ns, inode, status, asset_id, role, indexed_at)
                    VALUES (1, ?, 0, 0, 0, 'media', ?, 'photo', 0)
                    """, [Array("/p/\(random.next(5))/\(n).jpg".utf8), old.lastInsertedRowID])
            }
        }
        let library = try MediaLibrary(location: location)
        try library.requireWriter().write { db in
            let computed = try Self.computed(db)
            #expect(computed.count == 5)
            #expect(try Self.kept(db) == computed)
        }
    }

    @Test("album ids encode paths as unpadded base64url, byte for byte as Foundation's base64 with the URL alphabet")
    func base64URL() {
        var random = Random(state: 7)
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8(random.next(256)) }
            let reference = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == reference)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}
