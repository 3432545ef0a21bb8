import Foundation
import Testing
@testable import MediaIndex

/// The counts suggestions read (`search_values`) are kept in the writer's transaction and
/// always equal the values counted afresh over every asset.
@Suite("Suggestion counts kept as assets change")
struct SuggestionCountTests {
    /// Every kept count, and every count grouped afresh from the assets, as `field value → assets`.
    static func keptAndFresh(_ lib: SyntheticLibrary) throws -> (kept: [String: Int], fresh: [String: Int]) {
        try lib.library.read { db in
            var kept: [String: Int] = [:], fresh: [String: Int] = [:]
            for row in try db.rows("SELECT field, folded, assets FROM search_values WHERE assets <> 0") {
                kept[(row.string("field") ?? "") + " " + (row.string("folded") ?? "")] = row.int("assets")
            }
            for source in SuggestionSource.all {
                for row in try db.rows(source.grouped, [0]) {
                    fresh[source.field + " " + (row.string("folded") ?? ""), default: 0] += row.int("assets") ?? 0
                }
            }
            return (kept, fresh)
        }
    }

    static func write(_ lib: SyntheticLibrary, _ sql: String) throws {
        try lib.library.requireWriter().write { db in try db.execute(sql) }
    }

    @Test("bulk seeding, single inserts, edits of every source and removals keep every count exact")
    func keptThroughChanges() throws {
        let lib = try SyntheticLibrary()
        try lib.library.seedSyntheticAssets(count: 600, batchSize: 200, describe: true)
        let seeded = try Self.keptAndFresh(lib)
        #expect(seeded.kept == seeded.fresh)
        #expect(seeded.kept.keys.contains { $0.hasPrefix("keyword ") } && seeded.kept.keys.contains { $0.hasPrefix("date ") })

        typealias R = SyntheticLibrary.Row
        try lib.insert([R(id: "one", time: 1_690_000_000, make: "NIKON CORPORATION", model: "NIKON D750", path: "/p/one.jpg"),
                        R(id: "two", time: 1_690_000_100, make: "Nikon", model: "D750", path: "/p/two.jpg")])
        try Self.write(lib, """
            UPDATE assets SET keywords = '["Sunset","Places|France|Paris"]' WHERE id % 9 = 0;
            UPDATE assets SET keywords = NULL WHERE id % 11 = 0;
            UPDATE assets SET people = '[{"name":"Zoë Martin"},{"name":"Ana"}]' WHERE id % 13 = 0;
            UPDATE assets SET make = 'Canon', model = 'Canon EOS 6D' WHERE id % 17 = 0;
            UPDATE assets SET place_locality = 'Paris', place_region = 'Île-de-France', place_country = 'France' WHERE id % 5 = 0;
            UPDATE assets SET place_locality = 'Lyon' WHERE id % 15 = 0;
            UPDATE assets SET creation_date = '1999-01-01T00:00:00' WHERE id % 19 = 0;
            DELETE FROM files WHERE asset_id % 23 = 0;
            DELETE FROM assets WHERE id % 23 = 0;
            """)
        let changed = try Self.keptAndFresh(lib)
        #expect(changed.kept == changed.fresh)
        #expect(changed.kept["country france"] ?? 0 > 50 && changed.kept["place lyon"] ?? 0 > 10)
        #expect(changed.kept["person zoe martin"] ?? 0 > 10)
        #expect(!changed.kept.values.contains { $0 < 0 })
    }

    @Test("a bulk counts an asset once for each folded value, under its first spelling in byte order; a rebuild counts the same")
    func bulkAndRebuild() throws {
        let lib = try SyntheticLibrary()
        try lib.library.seedSyntheticAssets(count: 300, batchSize: 100, describe: true)
        try lib.library.requireWriter().transaction { db in
            try SearchTextIndex.deferring(db) {
                for (n, keywords) in [#"["Zürich","zurich","ZURICH"]"#, #"["zurich"]"#, #"["Zurich","Bern"]"#, "[]", "[\"\"]"].enumerated() {
                    try db.execute("""
                        INSERT INTO assets (identifier, media_type, subtypes, creation_timestamp, keywords,
                            is_burst_representative, fingerprint, added_at, modified_at)
                        VALUES (?, 'image', 0, 1690000000, ?, 1, ?, 0, 0)
                        """, ["bulk-\(n)", keywords, "fp-bulk-\(n)"])
                }
            }
        }
        let zurich = try lib.library.read { db in
            try db.row("SELECT value, assets FROM search_values WHERE field = 'keyword' AND folded = 'zurich'")
        }
        #expect(zurich?.string("value") == "ZURICH" && zurich?.int("assets") == 3)
        let bulk = try Self.keptAndFresh(lib)
        #expect(bulk.kept == bulk.fresh)

        try lib.library.dropSearchTextUpkeep()
        try lib.library.requireWriter().write { db in try SearchTextIndex.install(db) }
        let rebuilt = try Self.keptAndFresh(lib)
        #expect(rebuilt.kept == bulk.kept)
    }

    @Test("places, countries and the makes a camera is written under are suggested with their counts")
    func placesSuggested() throws {
        let lib = try SyntheticLibrary()
        typealias R = SyntheticLibrary.Row
        try lib.insert([R(id: "a", time: 1_690_000_000, make: "NIKON CORPORATION", model: "NIKON D750", path: "/p/a.jpg"),
                        R(id: "b", time: 1_690_000_100, make: "Nikon", model: "D750", path: "/p/b.jpg"),
                        R(id: "c", time: 1_690_000_200, path: "/p/c.jpg")])
        try Self.write(lib, """
            UPDATE assets SET place_name = 'Zürich', place_locality = 'Zürich', place_region = 'Kanton Zürich', place_country = 'Switzerland'
            WHERE identifier IN ('a', 'b');
            UPDATE assets SET place_name = 'Bern', place_locality = 'Bern', place_region = 'Bern', place_country = 'Switzerland' WHERE identifier = 'c';
            """)
        let suggest = { (text: String) in try lib.library.blocking.searchSuggestions(for: text) }
        #expect(try suggest("zur").contains(SearchSuggestion(kind: .place, text: "Zürich", term: "place:Zürich", count: 2)))
        #expect(try suggest("place:be") == [SearchSuggestion(kind: .place, text: "Bern", term: "place:Bern", count: 1)])
        #expect(try suggest("country:sw") == [SearchSuggestion(kind: .place, text: "Switzerland", term: "country:Switzerland", count: 3)])
        #expect(try suggest("camera:nik").contains(SearchSuggestion(kind: .camera, text: "Nikon", term: "camera:Nikon", count: 2)))
        // The suggested terms find what they count.
        #expect(try lib.search("place:Zürich") == ["a", "b"])
        #expect(try lib.search("country:Switzerland") == ["a", "b", "c"])
    }
}
