import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// The text index stores no copy of the text and is kept exactly: FTS5's own check
/// compares it with the words computed from the assets after every kind of change.
@Suite("The text index holds no copy of the text and follows every change")
struct SearchTextIndexTests {
    /// FTS5's `integrity-check` against the external content (the view): throws when a
    /// word of an asset is missing from the index or the index holds one no asset has.
    static func check(_ db: DatabaseConnection) throws {
        try db.execute("INSERT INTO \(SearchTextIndex.table) (\(SearchTextIndex.table), rank) VALUES ('integrity-check', 1)")
    }

    static func words(_ library: MediaLibrary, _ queries: [String]) throws -> [String: [String]] {
        var answers: [String: [String]] = [:]
        for query in queries {
            var options = FetchOptions.everyAsset
            options.search = try SearchQuery(parsing: query)
            answers[query] = try library.blocking.fetchAssets(options).assets.map(\.id.rawValue)
        }
        return answers
    }

    @Test("no stored copy: the index reads its words from the assets through a view")
    func noCopy() throws {
        let lib = try SyntheticLibrary()
        try lib.insert([SyntheticLibrary.Row(id: "a", time: 1_690_000_000, make: "Canon", model: "Canon EOS 6D",
                                             path: "/photos/Zürich.jpg")])
        try lib.library.requireWriter().write { db in
            let tables = try db.rows("SELECT name FROM sqlite_master WHERE name LIKE 'asset_text%' ORDER BY name")
                .compactMap { $0.string("name") }
            #expect(!tables.contains("asset_text_content"))
            #expect(!tables.contains("asset_text_docsize"))
            #expect(tables.contains(SearchTextIndex.source))
            try Self.check(db)
        }
    }

    @Test("renames, edits, deletions and edits that change nothing keep the index exact")
    func exactAfterChanges() throws {
        let lib = try SyntheticLibrary()
        typealias R = SyntheticLibrary.Row
        try lib.insert([
            R(id: "zurich", time: 1_690_000_000, make: "NIKON CORPORATION", model: "NIKON D750", path: "/photos/Zürich.jpg"),
            R(id: "tokyo", time: 1_690_100_000, make: "Canon", model: "Canon EOS 6D", path: "/photos/東京タワー.jpg"),
            R(id: "beach", type: "video", time: 1_690_200_000, path: "/photos/beach walk.mp4", format: "mp4"),
        ])
        let writer = try lib.library.requireWriter()
        func segments() throws -> [String] {
            try lib.library.read { db in try db.rows("SELECT id, hex(block) AS b FROM asset_text_data ORDER BY id").map {
                "\($0.int("id") ?? 0):\($0.string("b") ?? "")"
            } }
        }
        try writer.transaction { db in
            try db.execute("UPDATE files SET path = ? WHERE path = ?", [Array("/photos/Genève.jpg".utf8), Array("/photos/Zürich.jpg".utf8)])
            try db.execute("UPDATE assets SET make = 'SONY', model = 'ILCE-7M3', caption = 'Sunset', keyword_key = '|sea|' WHERE identifier = 'tokyo'")
            try db.execute("UPDATE assets SET place_name = 'Biarritz', place_country = 'France' WHERE identifier = 'beach'")
            try Self.check(db)
        }
        #expect(try lib.search("geneve") == ["zurich"])
        #expect(try lib.search("zurich").isEmpty)
        #expect(try lib.search("camera:sony sunset keyword:sea") == ["tokyo"])
        #expect(try lib.search("camera:canon").isEmpty)
        #expect(try lib.search("france type:video") == ["beach"])
        // An update that leaves every source column as it was writes nothing to the index.
        let before = try segments()
        try writer.transaction { db in
            try db.execute("UPDATE assets SET caption = caption, make = make, pixel_width = 640")
        }
        #expect(try segments() == before)
        try lib.delete("beach")
        #expect(try lib.search("biarritz").isEmpty)
        try writer.transaction { db in try Self.check(db) }
    }

    @Test("a deferred bulk indexes its new assets once, at its end, as they end; older ones as always")
    func deferredBulk() throws {
        let lib = try SyntheticLibrary()
        try lib.insert([SyntheticLibrary.Row(id: "old", time: 1_690_000_000, make: "Canon", model: "Canon EOS 6D",
                                             path: "/photos/old.jpg")])
        func insert(_ db: DatabaseConnection, _ id: String, caption: String) throws {
            try db.execute("""
                INSERT INTO assets (identifier, media_type, subtypes, creation_timestamp, caption, make, model,
                    is_burst_representative, fingerprint, added_at, modified_at)
                VALUES (?, 'image', 0, 1690000000, ?, 'NIKON CORPORATION', 'NIKON D750', 1, ?, 0, 0)
                """, [id, caption, "fp-" + id])
        }
        try lib.library.requireWriter().transaction { db in
            try SearchTextIndex.deferring(db) {
                try insert(db, "kept", caption: "first words")
                try db.execute("UPDATE assets SET caption = 'glacier at noon' WHERE identifier = 'kept'")
                try insert(db, "gone", caption: "glacier gone")
                try db.execute("DELETE FROM assets WHERE identifier = 'gone'")
                try db.execute("UPDATE assets SET caption = 'harbour' WHERE identifier = 'old'")
                #expect(try db.scalarInt("SELECT count(*) FROM asset_text WHERE asset_text MATCH 'glacier'") == 0)
            }
            #expect(try db.scalarInt("SELECT count(*) FROM \(SearchTextIndex.deferral)") == 0)
            try Self.check(db)
        }
        #expect(try lib.search("glacier camera:nikon") == ["kept"])
        #expect(try lib.search("first").isEmpty)
        #expect(try lib.search("harbour camera:canon") == ["old"])
    }

    static let corpusQueries = [
        "exiftool", "keyword:exiftool", "title:title", "caption", "picture", "camera:canon", "camera:nikon", "jpg",
        "\"test iptc\"", "type:video", "test OR nikon", "-keyword:test camera:canon", "日本", "東京", "ex", "d70",
    ]

    @Test("a library at the old signature (a stored copy of the text) rebuilds on open and answers the same",
          .enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.missingMessage)))
    func oldLibraryUpgrades() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("library"))
        let root = try #require(Corpus.media).appendingPathComponent("exiftool-t-images").path
        let names = SearchTextColumn.all.map(\.name).joined(separator: ", ")
        var answers: [String: [String]] = [:]
        do {
            let library = try MediaLibrary(location: location)
            try library.blocking.index(roots: [PathBytes(root)])
            try library.requireWriter().write { db in try Self.check(db) }  // after the run's deferred batches
            answers = try Self.words(library, Self.corpusQueries)
            #expect(answers.values.filter { !$0.isEmpty }.count >= 10, "the queries find corpus assets")
            // Back to stop 39's index: an ordinary FTS5 table holding a copy of every text.
            try library.requireWriter().transaction { db in
                for name in try db.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_text_%'")
                    .compactMap({ $0.string("name") }) { try db.execute("DROP TRIGGER \(name)") }
                try db.execute("DROP TABLE asset_text")
                try db.execute("CREATE VIRTUAL TABLE asset_text USING fts5(\(names), tokenize = '\(SearchTextIndex.tokenizer)', columnsize = 0)")
                try db.execute("INSERT INTO asset_text (rowid, \(names)) SELECT id, \(names) FROM \(SearchTextIndex.source)")
                try db.execute("DROP VIEW \(SearchTextIndex.source)")
                try db.execute("CREATE TRIGGER search_text_asset_deleted AFTER DELETE ON assets BEGIN DELETE FROM asset_text WHERE rowid = old.id; END")
                try db.execute("UPDATE search_text_schema SET signature = 'v1'")
            }
        }
        let library = try MediaLibrary(location: location)
        try library.requireWriter().write { db in
            #expect(try !SearchTextIndex.isBehind(db))
            #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'asset_text_content'") == 0)
            try Self.check(db)
        }
        #expect(try Self.words(library, Self.corpusQueries) == answers)
    }
}
