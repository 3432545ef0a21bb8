import Foundation
import Testing
@testable import MediaIndex

/// What free text covers beyond the files' words (place names, the user's own words),
/// and the plans that answer a common word quickly giving the same answers as the
/// plain query.
@Suite("Search plans and coverage")
struct SearchPlanTests {
    /// 4000 synthetic assets with ten keywords and a caption each (`sunset` is in about
    /// 70% of them) and 1000 newer ones without, every seventh a burst frame that does not stand for its burst, a few hidden.
    static func seeded() throws -> SyntheticLibrary {
        let lib = try SyntheticLibrary()
        try lib.library.seedSyntheticAssets(count: 4000, batchSize: 1000, describe: true)
        // The newest thousand, an import without keywords or captions: the share is read
        // across the library, not from the newest assets alone.
        try lib.library.seedSyntheticAssets(count: 1000, batchSize: 1000, startingAt: 4000)
        try lib.library.requireWriter().write { db in
            try db.execute("UPDATE assets SET is_burst_representative = 0 WHERE id % 7 = 0")
        }
        let hidden = try lib.library.read { db in
            try db.rows("SELECT identifier FROM assets WHERE id % 50 = 3").compactMap { $0.string("identifier") }
        }
        try lib.library.blocking.setHidden(true, for: hidden.map { Asset.ID(stored: $0) })
        return lib
    }

    /// The first page, its cursor's next page, and the counts, as the plain query
    /// (every match read, then sorted) answers them, read with `LIKE` over the columns
    /// the word is in.
    static func reference(_ lib: SyntheticLibrary, like word: String, video: Bool, after: (Double, Int64)?,
                          limit: Int) throws -> (page: [String], images: Int, videos: Int) {
        try lib.library.read { db in
            var condition = """
                (a.caption LIKE ?1 OR a.keywords LIKE ?1) AND a.is_burst_representative = 1
                AND NOT EXISTS (SELECT 1 FROM userstate.asset_user_state h WHERE h.identifier = a.identifier AND h.hidden = 1)
                """
            if video { condition += " AND a.media_type = 'video'" }
            var values: [DatabaseValueConvertible] = ["%" + word + "%"]
            var page = condition
            if let after { page += " AND (a.capture_sort, a.id) < (?2, ?3)"; values += [after.0, after.1] }
            let ids = try db.rows("SELECT a.identifier FROM assets a WHERE \(page) ORDER BY a.capture_sort DESC, a.id DESC LIMIT \(limit)",
                                  values).compactMap { $0.string("identifier") }
            let counts = try db.rows("SELECT a.media_type, count(*) AS n FROM assets a WHERE \(condition) GROUP BY 1",
                                     ["%" + word + "%"])
            let n = { (type: String) in counts.first { $0.string("media_type") == type }?.int("n") ?? 0 }
            return (ids, n("image"), n("video"))
        }
    }

    @Test("a common word's first page walks the capture order and gives the plain query's pages and counts",
          arguments: ["sunset", "sunset type:video", "sunset -zzzz"])
    func commonWord(_ text: String) throws {
        let lib = try Self.seeded()
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: text)
        options.limit = 10
        let probed = try lib.library.read { db in try SearchPlan.probedPage(AssetQuery(options), db: db) }
        let video = text.contains("type:video")
        // A word in most assets walks the capture order (with a filter beside it, it may fall back).
        if !video { #expect(probed != nil) }
        let first = try lib.library.blocking.fetchAssets(options)
        let expected = try Self.reference(lib, like: "sunset", video: video, after: nil, limit: 10)
        #expect(first.assets.map(\.id.rawValue) == expected.page)
        let counts = try lib.library.blocking.countAssets(options)
        #expect(counts.images == expected.images && counts.videos == expected.videos)
        #expect(counts.images + counts.videos > (video ? 100 : 1000))

        options.after = first.nextCursor
        let last = try lib.library.read { db in
            try db.row("SELECT capture_sort, id FROM assets WHERE identifier = ?", [expected.page.last ?? ""])
        }
        let second = try Self.reference(lib, like: "sunset", video: video,
                                        after: (last?.double("capture_sort") ?? 0, last?.int64("id") ?? 0), limit: 10)
        #expect(try lib.library.blocking.fetchAssets(options).assets.map(\.id.rawValue) == second.page)
    }

    @Test("the walk answers as the plain query for keywords, several words and filters beside them",
          arguments: ["keyword:places", "keyword:places camera:canon", "sunset forest", "sunset camera:canon -type:video"])
    func sameAsPlain(_ text: String) throws {
        let lib = try Self.seeded()
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: text)
        options.limit = 10
        try lib.library.read { db in
            let query = try AssetQuery(options)
            let probed = try SearchPlan.probedPage(query, db: db)
            let (sql, values) = query.pageSQL()
            let plain = try db.rows(sql, values).map { $0.int64("row_id") }
            if !text.contains("camera") { #expect(probed != nil) }
            if let probed { #expect(probed.map { $0.int64("row_id") } == plain) }
            #expect(plain.count == 11)
        }
    }

    @Test("counts of words alone come from the text index, burst frames and hidden assets left out")
    func counts() throws {
        let lib = try Self.seeded()
        for word in ["sunset", "forest", "screenshot"] {
            var options = FetchOptions()
            options.search = try SearchQuery(parsing: word)
            let plan = try lib.library.read { db in try SearchPlan.counting(AssetQuery(options), db: db) }
            guard case .counted = plan else { Issue.record("\(word) was not counted from the text index alone"); continue }
            let counts = try lib.library.blocking.countAssets(options)
            let like = word == "screenshot" ? nil : try Self.reference(lib, like: word, video: false, after: nil, limit: 1)
            if let like { #expect(counts.images == like.images && counts.videos == like.videos, "\(word)") }
            // The same count through the plain query (a second term the index does not hold).
            options.search = try SearchQuery(parsing: word + " width:>0")
            #expect(try lib.library.blocking.countAssets(options) == counts, "\(word)")
        }
    }

    @Test("free text finds the place an asset was taken, at every level, and follows a refill")
    func placeNames() throws {
        let lib = try SyntheticLibrary()
        try lib.insert([
            .init(id: "lake", time: 1_690_000_000, lat: 47.37, lon: 8.54, path: "/p/IMG_1.jpg"),
            .init(id: "tower", time: 1_690_100_000, lat: 35.66, lon: 139.75, path: "/p/IMG_2.jpg"),
        ])
        try lib.library.requireWriter().write { db in
            try db.execute("""
                UPDATE assets SET place_name = 'Zürich', place_locality = 'Zürich', place_region = 'Zurich',
                    place_country = 'Switzerland', place_country_code = 'CH' WHERE identifier = 'lake'
                """)
            try db.execute("""
                UPDATE assets SET place_name = 'Minato', place_locality = 'Minato', place_region = 'Tokyo',
                    place_country = 'Japan', place_country_code = 'JP' WHERE identifier = 'tower'
                """)
        }
        #expect(try lib.search("zurich") == ["lake"])
        #expect(try lib.search("switzerland") == ["lake"])
        #expect(try lib.search("tokyo minato") == ["tower"])
        #expect(try lib.search("japan OR switzerland") == ["lake", "tower"])
        try lib.library.requireWriter().write { db in
            try db.execute("""
                UPDATE assets SET place_name = 'Kyoto', place_locality = 'Kyoto', place_region = 'Kyoto'
                WHERE identifier = 'tower'
                """)
        }
        #expect(try lib.search("tokyo").isEmpty)
        #expect(try lib.search("kyoto japan") == ["tower"])
    }

    @Test("free text finds the user's own title, caption and keywords, alone or beside the file's words")
    func usersOwnWords() throws {
        let lib = try SyntheticLibrary()
        try lib.insert([
            .init(id: "a", time: 1_690_000_000, path: "/p/Harbour.jpg"),
            .init(id: "b", time: 1_690_100_000, path: "/p/Harbour night.jpg"),
            .init(id: "c", time: 1_690_200_000, path: "/p/Field.jpg"),
        ])
        try lib.library.blocking.setUserDescription(
            UserDescriptionEdit(title: .set("Golden hour"), keywords: .set(["Trips|Ísland"])), for: ["a"])
        try lib.library.blocking.setUserDescription(UserDescriptionEdit(caption: .set("Golden fields")), for: ["c"])
        #expect(try lib.search("golden") == ["a", "c"])
        #expect(try lib.search("island") == ["a"])
        #expect(try lib.search("trips") == ["a"])
        #expect(try lib.search("golden harbour") == ["a"])
        #expect(try lib.search("harbour -golden") == ["b"])
        #expect(try lib.search("harbour -night") == ["a"])
        #expect(try lib.search("gold") == ["a", "c"])
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: "golden")
        #expect(try lib.library.blocking.countAssets(options).images == 2)
        try lib.library.blocking.setUserDescription(UserDescriptionEdit(title: .clear, keywords: .clear), for: ["a"])
        #expect(try lib.search("golden") == ["c"])
        #expect(try lib.search("island").isEmpty)
    }

    @Test("a query's match set holds exactly the assets the text index finds, and a malformed query is a readable error")
    func matchSet() throws {
        let lib = try Self.seeded()
        try lib.library.read { db in
            for match in ["\"sunset\"", "\"sun\"*", "keywords : \" places \"", "\"sunset\" AND \"forest\"", "\"zzzz\""] {
                let found = Set(try db.rows("SELECT rowid FROM asset_text WHERE asset_text MATCH ?", [match])
                    .compactMap { $0.int64("rowid") })
                let tested = Set(try db.rows("SELECT id FROM assets WHERE search_matches(?, id)", [match])
                    .compactMap { $0.int64("id") })
                #expect(tested == found, "\(match)")
                #expect(match == "\"zzzz\"" || found.count > 100, "\(match) finds too few to test the set")
            }
            #expect {
                try db.rows("SELECT id FROM assets WHERE search_matches(?, id)", ["\"unclosed"])
            } throws: { error in
                "\(error)".contains("search_matches: unterminated string")
            }
        }
    }

    @Test("keyword: finds the user's own keywords beside the file's, by every plan",
          arguments: ["keyword:places", "keyword:places sunset", "keyword:zzplaces"])
    func usersOwnKeywordsInEveryPlan(_ text: String) throws {
        let lib = try Self.seeded()
        // Two of the newest assets (no keywords of their own in the file) get the user's keywords.
        let newest = try lib.library.read { db in
            try db.rows("SELECT identifier FROM assets WHERE id > 4000 AND is_burst_representative = 1 AND id % 50 <> 3 ORDER BY id DESC LIMIT 2")
                .compactMap { $0.string("identifier") }
        }
        try lib.library.blocking.setUserDescription(
            UserDescriptionEdit(caption: .set("sunset"), keywords: .set(["Places|Home", "ZZPlaces"])),
            for: newest.map { Asset.ID(stored: $0) })
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: text)
        options.limit = 10
        let page = try lib.library.blocking.fetchAssets(options).assets.map(\.id.rawValue)
        try lib.library.read { db in
            let (sql, values) = try AssetQuery(options).pageSQL()
            let plain = try db.rows(sql, values).compactMap { $0.string("identifier") }
            #expect(page == Array(plain.prefix(10)), "\(text)")
        }
        // Every plan finds the two: the whole result holds them, and their keyword alone finds them alone.
        options.limit = nil
        let all = Set(try lib.library.blocking.fetchAssets(options).assets.map(\.id.rawValue))
        #expect(all.isSuperset(of: newest), "\(text)")
        let counts = try lib.library.blocking.countAssets(options)
        #expect(counts.images + counts.videos == all.count, "\(text)")
        if text == "keyword:zzplaces" { #expect(all == Set(newest)) }
    }

    @Test("beside words, keyword: and type:video are lists of the text index, asked as one query; a negated type is not",
          arguments: [("keyword:mountain3 type:video", true), ("sunset camera:sony type:video duration:<10", true),
                      ("sunset -type:video", false), ("sunset OR type:video", false)])
    func listsAskedAsOne(_ text: String, listed: Bool) throws {
        let lib = try Self.seeded()
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: text)
        let readable = try lib.library.read { db in try SearchPlan.readable(try AssetQuery(options), db: db) }
        let sql = readable.conditions.map(\.sql).joined(separator: " AND ")
        let lists = SearchPlan.memberships(readable.conditions, negated: false)
        #expect(lists.contains { $0.contains("kind : kvideo") } == listed, "\(text): \(lists)")
        #expect(sql.contains("media_type = 'video'") != listed, "\(text): \(sql)")
        if text.hasPrefix("keyword:") { #expect(!sql.contains("instr("), "\(sql)") }
    }
}
