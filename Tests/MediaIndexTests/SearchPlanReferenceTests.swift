import CSQLite
import Foundation
import Testing
@testable import MediaIndex

/// Every plan a search's page or count may take (the rare word read from the text index
/// first, the common word's walk of the capture order, the counts from the text index)
/// against a brute-force reference: every asset read, its words split in Swift, the
/// query's test applied to each and the survivors kept in the order SQL sorts all assets.
@Suite("Search plans against a brute-force reference")
struct SearchPlanReferenceTests {
    /// One asset as the reference sees it.
    struct Item {
        var id: Int64
        var identifier: String
        var video: Bool
        var make: String
        /// Its words as the index splits them (file name, camera, keywords, caption, place), lowercased.
        var words: [String]
        /// Its keywords' paths, folded, as `|a|b|`.
        var keywordPaths: [String]
        var shown: Bool
        /// Its length in seconds, nil for none.
        var duration: Double?
        /// Its local capture time as the file wrote it (`2019-07-01T…`).
        var creationDate: String
    }

    /// A query with the reference's test of an asset.
    struct Case: CustomStringConvertible, Sendable {
        var query: String
        var test: @Sendable (Item) -> Bool
        var description: String { query }
    }

    /// Whether `item`'s words hold `phrase` (folded words in a row), the last one as a
    /// prefix when `prefix`.
    static func has(_ phrase: String, prefix: Bool = false) -> @Sendable (Item) -> Bool {
        let wanted = tokens(phrase)
        return { item in
            guard item.words.count >= wanted.count else { return false }
            for start in 0...(item.words.count - wanted.count) {
                let matched = wanted.indices.allSatisfy { offset in
                    let word = item.words[start + offset]
                    return prefix && offset == wanted.count - 1 ? word.hasPrefix(wanted[offset]) : word == wanted[offset]
                }
                if matched { return true }
            }
            return false
        }
    }

    static func tokens(_ text: String) -> [String] {
        SearchTextIndex.words(text).lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    static func keyword(_ needle: String) -> @Sendable (Item) -> Bool {
        { item in item.keywordPaths.contains { $0.contains("|" + needle + "|") } }
    }

    /// The queries: a query ending in a word (no space after it) matches that word as a prefix.
    static let cases: [Case] = [
        Case(query: "sunset ", test: has("sunset")),
        Case(query: "sun", test: has("sun", prefix: true)),
        // Typed words (prefixes) whose whole words are common: `sunset` has no longer
        // word; `a` (in every caption) also finds `at` and `Apple` in assets without one.
        Case(query: "sunset", test: has("sunset", prefix: true)),
        Case(query: "a", test: has("a", prefix: true)),
        Case(query: "screenshot ", test: has("screenshot")),
        Case(query: "city5", test: has("city5", prefix: true)),
        Case(query: "sunset forest ", test: { has("sunset")($0) && has("forest")($0) }),
        Case(query: "sunset -forest ", test: { has("sunset")($0) && !has("forest")($0) }),
        Case(query: "-sunset ", test: { !has("sunset")($0) }),
        Case(query: "sunset OR screenshot ", test: { has("sunset")($0) || has("screenshot")($0) }),
        Case(query: "screenshot OR city5 ", test: { has("screenshot")($0) || has("city5")($0) }),
        Case(query: "sunset camera:canon ", test: { has("sunset")($0) && $0.make == "canon" }),
        Case(query: "screenshot type:video ", test: { has("screenshot")($0) && $0.video }),
        Case(query: "sunset -type:video ", test: { has("sunset")($0) && !$0.video }),
        // `type:video` beside words becomes the `kind` column's list, intersected with theirs.
        Case(query: "sunset type:video ", test: { has("sunset")($0) && $0.video }),
        Case(query: "keyword:mountain3 type:video", test: { keyword("mountain3")($0) && $0.video }),
        Case(query: "keyword:places ", test: keyword("places")),
        Case(query: "keyword:places camera:canon ", test: { keyword("places")($0) && $0.make == "canon" }),
        Case(query: "keyword:mountain3 ", test: keyword("mountain3")),
        Case(query: "forest keyword:beach ", test: { has("forest")($0) && keyword("beach")($0) }),
        // A negated term's SQL opens parentheses of its own before its list (`NOT coalesce(((`):
        // the list stays under the NOT, and a word after it still drives.
        Case(query: "-keyword:mountain3 ", test: { !keyword("mountain3")($0) }),
        Case(query: "forest -keyword:beach ", test: { has("forest")($0) && !keyword("beach")($0) }),
        Case(query: "-keyword:beach sunset ", test: { !keyword("beach")($0) && has("sunset")($0) }),
        // A range every match is in (`assets_by_duration`, `assets_by_capture`) drives the
        // count where it holds fewer entries than the rarest list.
        Case(query: "sunset type:video duration:<10 ", test: { has("sunset")($0) && $0.video && ($0.duration ?? 99) < 10 }),
        Case(query: "-sunset duration:<10 ", test: { !has("sunset")($0) && ($0.duration ?? 99) < 10 }),
        Case(query: "sunset duration:5..20 ", test: { has("sunset")($0) && (5...20).contains($0.duration ?? -1) }),
        Case(query: "sunset date:2019 ", test: { has("sunset")($0) && $0.creationDate.hasPrefix("2019") }),
        Case(query: "forest -date:2019 duration:>30 ",
             test: { has("forest")($0) && !$0.creationDate.hasPrefix("2019") && ($0.duration ?? -1) > 30 }),
    ]

    static let sorts: [AssetSort] = AssetSortKey.allCases.filter { $0 != .albumOrder }.flatMap {
        [AssetSort($0), AssetSort($0, ascending: !$0.defaultAscending)]
    }

    /// Every asset with its words, and the library (`SearchPlanTests.seeded()`: 4000 with
    /// words, 1000 newer without, burst frames and hidden assets).
    static func fixture() throws -> (SyntheticLibrary, [Int64: Item]) {
        let lib = try SearchPlanTests.seeded()
        let items = try lib.library.read { db in
            try db.rows("""
                SELECT a.id, a.identifier, a.media_type, a.make, a.model, a.file_name, a.keywords, a.caption,
                    a.duration, a.creation_date,
                    coalesce(a.place_name, '') || ' ' || coalesce(a.place_locality, '') || ' '
                        || coalesce(a.place_subregion, '') || ' ' || coalesce(a.place_region, '') || ' '
                        || coalesce(a.place_country, '') AS place,
                    a.is_burst_representative = 1 AND coalesce(h.hidden, 0) = 0 AS shown
                FROM assets a LEFT JOIN userstate.asset_user_state h ON h.identifier = a.identifier
                """).map { row -> Item in
                let keywords = (try? JSONDecoder().decode([String].self, from: Data((row.string("keywords") ?? "[]").utf8))) ?? []
                let text = [row.string("file_name") ?? "", row.string("make") ?? "", row.string("model") ?? "",
                            keywords.joined(separator: " "), row.string("caption") ?? "", row.string("place") ?? ""]
                    .joined(separator: " ")
                return Item(id: row.int64("id") ?? 0, identifier: row.string("identifier") ?? "",
                            video: row.string("media_type") == "video", make: (row.string("make") ?? "").lowercased(),
                            words: tokens(text),
                            keywordPaths: keywords.map { "|" + $0.lowercased().split(separator: "|").joined(separator: "|") + "|" },
                            shown: row.int("shown") == 1, duration: row.double("duration"),
                            creationDate: row.string("creation_date") ?? "")
            }
        }
        return (lib, Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) }))
    }

    /// The reference: every asset's id in `sort`'s order (as SQL sorts the whole table),
    /// kept when shown and passing `test`.
    static func reference(_ lib: SyntheticLibrary, _ items: [Int64: Item], sort: AssetSort,
                          test: (Item) -> Bool) throws -> [String] {
        let column = AssetQuery.sortColumn(sort.key), direction = sort.ascending ? "ASC" : "DESC"
        let order = try lib.library.read { db in
            try db.rows("SELECT a.id FROM assets a ORDER BY \(column) \(direction), a.id \(direction)")
                .compactMap { $0.int64("id") }
        }
        return order.compactMap { items[$0] }.filter { $0.shown && test($0) }.map(\.identifier)
    }

    @Test("pages in every order and the counts equal the reference", arguments: cases)
    func matchesReference(_ searchCase: Case) throws {
        let (lib, items) = try Self.fixture()
        for sort in Self.sorts {
            let expected = try Self.reference(lib, items, sort: sort, test: searchCase.test)
            var options = FetchOptions()
            options.search = try SearchQuery(parsing: searchCase.query)
            options.sort = sort
            options.limit = 25
            // Three pages, each from the last one's cursor.
            var found: [String] = []
            for _ in 0..<3 {
                let page = try lib.library.blocking.fetchAssets(options)
                found += page.assets.map(\.id.rawValue)
                guard let next = page.nextCursor else { break }
                options.after = next
            }
            #expect(found == Array(expected.prefix(75)), "\(searchCase.query) \(sort)")
        }
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: searchCase.query)
        let counts = try lib.library.blocking.countAssets(options)
        let expected = try Self.reference(lib, items, sort: .newestFirst, test: searchCase.test)
        let videoIdentifiers = Set(items.values.filter(\.video).map(\.identifier))
        let videos = expected.filter(videoIdentifiers.contains).count
        #expect(counts.videos == videos && counts.images == expected.count - videos, "\(searchCase.query)")
        #expect(!expected.isEmpty, "\(searchCase.query) finds nothing: the case tests no plan")
    }

    @Test("a count is driven by a range's index where it holds fewer entries than the rarest list")
    func rangeDrivesCount() throws {
        let (lib, _) = try Self.fixture()
        // A range that is nothing more is read in the sets alone (nil: no query runs).
        for (query, index) in [("sunset duration:<10", nil), ("sunset date:2019", "assets_by_capture"),
                               ("screenshot duration:<60", "none")] {
            var options = FetchOptions()
            options.search = try SearchQuery(parsing: query)
            let plan = try lib.library.read { db in try SearchPlan.counting(AssetQuery(options), db: db) }
            switch plan {
            case .counted: #expect(index == nil, "\(query) was counted in the sets")
            case .query(let counting): #expect((counting.countingIndex ?? "none") == index, "\(query)")
            }
        }
    }

    @Test("a range too wide to drive the count is read once, not again by the counting query")
    func tooWideRangeReadOnce() throws {
        let (lib, _) = try Self.fixture()
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: "screenshot duration:<60")
        let statements = StatementLog()
        let plan = try lib.library.read { db in
            try statements.recording(on: db.handle) { try SearchPlan.counting(AssetQuery(options), db: db) }
        }
        guard case .query(let counting) = plan else { Issue.record("counted in the sets"); return }
        #expect(counting.countingIndex == nil)
        #expect(statements.sql.filter { $0.contains("INDEXED BY assets_by_duration") }.count == 1, "\(statements.sql)")
    }

    @Test("a rare word's page in capture order comes from its kept order: the matches' keys are read once, then not again")
    func keptOrderPage() throws {
        let (lib, _) = try Self.fixture()
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: "screenshot")
        options.limit = 25
        let keysSQL = "SELECT a.id, \(AssetQuery.sortColumn(.captureDate)) FROM assets a WHERE"
        let keysRead = { (sql: [String]) in sql.filter { $0.hasPrefix(keysSQL) }.count }
        for expected in [1, 0] {
            let statements = StatementLog()
            let page = try lib.library.read { db in
                try statements.recording(on: db.handle) { try SearchPlan.probedPage(AssetQuery(options), db: db) }
            }
            #expect(page?.isEmpty == false)
            #expect(keysRead(statements.sql) == expected, "\(statements.sql)")
        }
    }

    /// The SQL of every statement a connection starts while `recording` runs.
    final class StatementLog: @unchecked Sendable {
        // @unchecked: written only by the trace callback, on the recording thread.
        var sql: [String] = []

        func recording<T>(on handle: OpaquePointer, _ body: () throws -> T) rethrows -> T {
            sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
                guard let context, let statement, let text = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
                Unmanaged<StatementLog>.fromOpaque(context).takeUnretainedValue().sql.append(String(cString: text))
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
            defer { sqlite3_trace_v2(handle, 0, nil, nil) }
            return try body()
        }
    }

    @Test("a rare word is read from the text index, a common one walks the capture order")
    func planChoice() throws {
        let (lib, _) = try Self.fixture()
        // 5000 assets, pages of 25: walking wins past √(ratio · 26 · 5000) matches.
        try lib.library.read { db in
            let threshold = SearchPlan.walkThreshold(limit: 25, assets: 5000)
            for prefix in [false, true] {
                for (word, common) in [("sunset", true), ("screenshot", false)] {
                    let count = try SearchPlan.matchCount("\"\(word)\"" + (prefix ? "*" : ""), upTo: threshold, db: db)
                    #expect((count >= threshold) == common, "\(word): \(count) of at most \(threshold)")
                }
            }
        }
    }
}
