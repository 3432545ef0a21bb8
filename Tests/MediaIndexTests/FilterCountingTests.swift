import Foundation
import Testing
@testable import MediaIndex
import MediaMetadata

/// Every filter, derived from `MediaFilter.named` so a new filter cannot be left out,
/// alone, negated and combined in pairs.
private let everyFilter: [MediaFilter] = {
    let leaves = MediaFilter.named.map(\.filter)
    var filters = leaves + leaves.map { MediaFilter.not($0) }
    for (i, first) in leaves.enumerated() {
        for second in leaves[(i + 1)...] {
            filters += [.all(of: [first, second]), .any(of: [first, second]), .all(of: [first, .not(second)])]
        }
    }
    return filters
}()

@Suite("Counting and paging every filter")
struct FilterCountingTests {
    /// The asset-query fixture's kinds, one of them edited (`has_adjustments`).
    static func library() throws -> SyntheticLibrary {
        let lib = try SyntheticLibrary()
        typealias R = SyntheticLibrary.Row
        try lib.insert([
            R(id: "plain", time: 100, path: "/photos/a.jpg"),
            R(id: "edited", time: 150, path: "/photos/b.jpg"),
            R(id: "live", subtypes: .livePhoto, time: 200, path: "/photos/c.heic", format: "heic"),
            R(id: "shot", subtypes: .screenshot, time: 300, path: "/photos/d.png", format: "png"),
            R(id: "movie", type: "video", time: 400, duration: 12.5, path: "/photos/e.mov", format: "mov"),
            R(id: "slomo", type: "video", subtypes: .slomoVideo, time: 500, duration: 3, path: "/photos/f.mov", format: "mov"),
            R(id: "pano", subtypes: [.panorama, .hdr], time: 600, path: "/photos/g.jpg"),
            R(id: "burst1", time: 700, burst: "B", path: "/photos/h1.jpg"),
            R(id: "burst2", time: 701, burst: "B", representative: false, path: "/photos/h2.jpg"),
            R(id: "raw", subtypes: .raw, time: 800, path: "/photos/i.nef", format: "nef"),
        ])
        try lib.library.requireWriter().write { db in
            try db.execute("UPDATE assets SET has_adjustments = 1 WHERE identifier IN ('edited', 'movie')")
            // Describing fields on a few assets, as the indexer stores them.
            let described: [(String, [String], [PersonInImage], Int?, String?, String?)] = [
                ("plain", ["Places|France|Paris", "Dog"], [PersonInImage(name: "Alice Smith")], 4, "Red", "A caption"),
                ("movie", ["Places|Italy"], [], 2, nil, "Clip"),
                ("burst2", ["Dog"], [PersonInImage(name: "Bob")], 5, "Green", nil),
                ("raw", [], [PersonInImage(name: "Alice Smith"), PersonInImage(name: "Bob")], -1, "red", nil),
            ]
            for (id, keywords, people, rating, label, caption) in described {
                try db.execute("""
                    UPDATE assets SET keywords = ?, keyword_key = ?, people = ?, people_key = ?, rating = ?, label = ?,
                        caption = ?, title = ? WHERE identifier = ?
                    """, DescriptiveColumns.keywordValues(keywords) + DescriptiveColumns.peopleValues(people)
                        + [rating, label, caption, caption, id])
            }
        }
        return lib
    }

    /// Every describing filter of `FetchOptions`, each set once.
    static let describingOptions: [(String, @Sendable (inout FetchOptions) -> Void)] = [
        ("keyword Places", { $0.keywords = ["Places"] }), ("keyword Dog", { $0.keywords = ["dog"] }),
        ("keywords Places, Dog", { $0.keywords = ["Places", "Dog"] }), ("person alice", { $0.people = ["alice"] }),
        ("person Bob", { $0.people = ["Bob"] }), ("minimumRating 2", { $0.minimumRating = 2 }),
        ("rating -1", { $0.rating = -1 }), ("label red", { $0.label = "red" }),
        ("hasCaption", { $0.hasCaption = true }), ("no caption", { $0.hasCaption = false }),
        ("hasTitle", { $0.hasTitle = true }), ("no title", { $0.hasTitle = false }),
    ]

    @Test("every describing filter, alone and with every kind filter, counts what it lists and pages every sort")
    func describingFilters() throws {
        let lib = try Self.library()
        let kinds: [MediaFilter?] = [nil] + MediaFilter.named.map(\.filter)
        for (name, set) in Self.describingOptions {
            for kind in kinds {
                var options = FetchOptions()
                options.includeAllBurstAssets = true
                options.filter = kind
                set(&options)
                let listed = try Self.expectCountsMatchListing(lib, options, "\(name), \(String(describing: kind))")
                guard kind == nil else { continue }
                #expect(!listed.isEmpty, "\(name) finds something in the fixture")
                for sort in FilterCountingTests.everySort {
                    options.sort = sort
                    try Self.expectPagesWhole(lib, options, "\(name), \(sort)")
                }
            }
        }
        func ids(_ set: (inout FetchOptions) -> Void) throws -> Set<String> {
            var options = FetchOptions.everyAsset
            set(&options)
            return Set(try lib.ids(options))
        }
        #expect(try ids { $0.keywords = ["Places"] } == ["plain", "movie"])
        #expect(try ids { $0.keywords = ["Places", "Dog"] } == ["plain"])
        #expect(try ids { $0.people = ["alice"] } == ["plain", "raw"])
        #expect(try ids { $0.minimumRating = 2 } == ["plain", "movie", "burst2"])
        #expect(try ids { $0.label = "RED" } == ["plain", "raw"])
        #expect(try ids { $0.hasCaption = true } == ["plain", "movie"])
    }

    @Test("every filter, alone and combined, counts what it lists", arguments: [false, true])
    func countsMatchListings(recentlyAdded: Bool) throws {
        let lib = try Self.library()
        for filter in everyFilter {
            var options = FetchOptions()
            options.filter = filter
            if recentlyAdded { options.album = .smart(.recentlyAdded) }
            try Self.expectCountsMatchListing(lib, options, "\(filter)")
        }
    }

    /// Every sort but album order, both ways.
    static let everySort = AssetSortKey.allCases.filter { $0 != .albumOrder }
        .flatMap { [AssetSort($0, ascending: true), AssetSort($0, ascending: false)] }

    /// Lists `options` and checks that its counts by kind agree with the listing; the listing.
    @discardableResult
    static func expectCountsMatchListing(_ lib: SyntheticLibrary, _ options: FetchOptions, _ comment: String) throws -> [Asset] {
        let listed = try lib.library.blocking.fetchAssets(options).assets
        let counts = try lib.library.blocking.countAssets(options)
        #expect(counts.images == listed.filter { $0.mediaType == .image }.count, "\(comment)")
        #expect(counts.videos == listed.filter { $0.mediaType == .video }.count, "\(comment)")
        return listed
    }

    /// Pages of `pageSize` give the whole listing of `options`, without a repeat or a gap.
    static func expectPagesWhole(_ lib: SyntheticLibrary, _ options: FetchOptions, pageSize: Int = 2, _ comment: String) throws {
        var options = options
        options.limit = nil
        options.after = nil
        let whole = try lib.ids(options)
        var paged: [String] = []
        options.limit = pageSize
        repeat {
            let page = try lib.library.blocking.fetchAssets(options)
            paged += page.assets.map(\.id.rawValue)
            options.after = page.nextCursor
        } while options.after != nil && paged.count <= whole.count
        #expect(paged == whole, "\(comment)")
    }

    @Test("every filter pages through every sort without a repeat or a gap")
    func pagesEverySort() throws {
        let lib = try Self.library()
        for filter in everyFilter {
            for sort in FilterCountingTests.everySort {
                var options = FetchOptions()
                options.filter = filter
                options.sort = sort
                try Self.expectPagesWhole(lib, options, "\(filter), \(sort)")
            }
        }
    }

    @Test("edited counts its two assets")
    func editedCount() throws {
        let lib = try Self.library()
        var options = FetchOptions()
        options.filter = .edited
        #expect(try lib.library.blocking.countAssets(options) == AssetCounts(images: 1, videos: 1))
    }
}

@Suite("Counting, paging and sorting the place filters")
struct PlaceFilterCountingTests {
    /// The fixture with places: two in Tokyo, one in Zürich, one at sea, the rest nowhere.
    static func library() throws -> SyntheticLibrary {
        let lib = try FilterCountingTests.library()
        try lib.library.requireWriter().write { db in
            try db.execute("""
                UPDATE assets SET place_name = 'Tokyo', place_locality = 'Tokyo', place_region = 'Tokyo',
                place_country = 'Japan', place_country_code = 'JP' WHERE identifier IN ('plain', 'movie')
                """)
            try db.execute("""
                UPDATE assets SET place_name = 'Zürich', place_locality = 'Zürich', place_region = 'Zurich',
                place_country = 'Switzerland', place_country_code = 'CH' WHERE identifier = 'live'
                """)
            try db.execute("UPDATE assets SET place_name = 'At sea' WHERE identifier = 'pano'")
        }
        return lib
    }

    static let cases: [(options: @Sendable (inout FetchOptions) -> Void, ids: Set<String>)] = [
        ({ $0.country = "jp" }, ["plain", "movie"]), ({ $0.country = "JAPAN" }, ["plain", "movie"]),
        ({ $0.country = "ch" }, ["live"]), ({ $0.country = "France" }, []),
        ({ $0.placeName = "zurich" }, ["live"]), ({ $0.placeName = "ZÜRICH" }, ["live"]),
        ({ $0.placeName = "tokyo" }, ["plain", "movie"]), ({ $0.placeName = "Japan" }, ["plain", "movie"]),
        ({ $0.placeName = "at sea" }, ["pano"]),
        ({ $0.placeName = "tokyo"; $0.filter = .videos }, ["movie"]),
        // The search terms compile to the same conditions.
        ({ $0.search = try? SearchQuery(parsing: "place:ZURICH") }, ["live"]),
        ({ $0.search = try? SearchQuery(parsing: "country:japan type:video") }, ["movie"]),
        ({ $0.search = try? SearchQuery(parsing: "city:tokyo OR country:ch") }, ["plain", "movie", "live"]),
    ]

    @Test("--country and --place find their assets, count what they list and page through every sort")
    func countsAndPages() throws {
        let lib = try Self.library()
        for (index, testCase) in Self.cases.enumerated() {
            var options = FetchOptions()
            testCase.options(&options)
            let listed = try FilterCountingTests.expectCountsMatchListing(lib, options, "case \(index)")
            #expect(Set(listed.map(\.id.rawValue)) == testCase.ids, "case \(index)")
            for sort in FilterCountingTests.everySort {
                options.sort = sort
                try FilterCountingTests.expectPagesWhole(lib, options, pageSize: 1, "case \(index), \(sort)")
            }
        }
    }
}
