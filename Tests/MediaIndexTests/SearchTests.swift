import Foundation
import Testing
@testable import MediaIndex

/// Assets whose names, cameras, lenses, dates and sizes differ one fact at a time.
private func searchFixture() throws -> SyntheticLibrary {
    let lib = try SyntheticLibrary()
    typealias R = SyntheticLibrary.Row
    try lib.insert([
        R(id: "zurich", time: 1_690_000_000, make: "NIKON CORPORATION", model: "NIKON D750",
          path: "/photos/Zürich Sommer.jpg"),
        R(id: "tokyo", time: 1_690_100_000, width: 2000, make: "Canon", model: "Canon EOS 6D",
          path: "/photos/東京タワー.jpg"),
        R(id: "dog", time: 1_690_200_000, make: "Apple", model: "iPhone 12", path: "/photos/running_dog.heic",
          format: "heic"),
        R(id: "clip", type: "video", time: 1_690_300_000, width: 1920, height: 1080, duration: 8,
          make: "Apple", model: "iPhone 12", path: "/photos/IMG_0042.MOV", format: "mov"),
        R(id: "long", type: "video", time: 1_690_400_000, width: 3840, height: 2160, duration: 95,
          path: "/photos/beach walk.mp4", format: "mp4"),
        R(id: "shot", subtypes: .screenshot, time: 1_690_500_000, width: 1170, height: 2532,
          path: "/photos/Screenshot beach.png", format: "png"),
    ])
    try lib.library.requireWriter().transaction { db in
        // Local dates as files write them: the clip's is still July where it was taken,
        // though its instant is 1 August in UTC.
        for (id, date, lens, rating) in [
            ("zurich", "2023-07-22T06:13:20+02:00", "AF-S NIKKOR 24-70mm f/2.8E", 5),
            ("tokyo", "2023-07-23T19:00:00+09:00", "EF50mm f/1.8 STM", 3),
            ("dog", "2023-07-24T13:00:00", nil, 4),
            ("clip", "2023-07-31T23:30:00-05:00", nil, nil),
            ("long", "2023-08-02T10:00:00+00:00", nil, 1),
        ] as [(String, String, String?, Int?)] {
            try db.execute("""
                UPDATE assets SET creation_date = ?, creation_timestamp = unixepoch(?), lens_model = ?, rating = ?
                WHERE identifier = ?
                """, [date, date, lens, rating, id])
        }
    }
    return lib
}

extension SyntheticLibrary {
    func search(_ text: String) throws -> Set<String> {
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: text)
        return Set(try library.blocking.fetchAssets(options).assets.map(\.id.rawValue))
    }
}

@Suite("Search")
struct SearchTests {
    static let cases: [(String, Set<String>)] = [
        // Case, accents and English word forms are folded.
        ("zurich", ["zurich"]), ("ZÜRICH", ["zurich"]), ("sommer", ["zurich"]), ("run", ["dog"]), ("runs", ["dog"]),
        // The word being typed matches as a prefix; a finished word (space after) does not.
        ("zur", ["zurich"]), ("zur ", []), ("img_00", ["clip"]),
        // CJK without spaces: any run of its characters.
        ("東京", ["tokyo"]), ("京タ", ["tokyo"]), ("タワー", ["tokyo"]), ("京都", []),
        // Phrases keep their order.
        ("\"beach walk\"", ["long"]), ("\"walk beach\"", []),
        // Camera names as `cameras` normalises them; lenses.
        ("camera:nikon", ["zurich"]), ("camera:\"EOS 6D\"", ["tokyo"]), ("nikon", ["zurich"]), ("lens:nikkor", ["zurich"]),
        ("lens:50mm", ["tokyo"]), ("d750", ["zurich"]), ("camera:d7", ["zurich"]), ("iphone12", ["dog", "clip"]),
        // AND, OR, negation, grouping.
        ("beach", ["long", "shot"]), ("beach -is:screenshot", ["long"]), ("beach -screenshot", ["long"]),
        ("zurich OR dog", ["zurich", "dog"]), ("(zurich OR dog) camera:apple", ["dog"]), ("-type:video -beach", ["zurich", "tokyo", "dog"]),
        // Kinds: every filter name, and everyday ones.
        ("type:video", ["clip", "long"]), ("is:screenshot", ["shot"]), ("type:photo camera:apple", ["dog"]),
        ("is:screenshots", ["shot"]),
        // Numbers.
        ("width:>3000", ["zurich", "dog", "long"]), ("width:1920..2000", ["clip", "tokyo"]), ("duration:<10", ["clip"]),
        ("duration:>=95", ["long"]), ("rating:>=4", ["zurich", "dog"]), ("-rating:>=4", ["tokyo", "clip", "long", "shot"]),
        // Local calendar dates, as the file wrote them.
        ("date:2023-07", ["zurich", "tokyo", "dog", "clip"]), ("date:2023-08", ["long"]),
        ("date:2023-07-23..2023-07-24", ["tokyo", "dog"]), ("date:2023", ["zurich", "tokyo", "dog", "clip", "long"]),
        // Extensions and formats.
        ("ext:mov", ["clip"]), ("ext:.HEIC", ["dog"]), ("format:png", ["shot"]),
    ]

    @Test("each query finds exactly the assets its terms describe", arguments: cases)
    func finds(_ query: String, _ expected: Set<String>) throws {
        let lib = try searchFixture()
        #expect(try lib.search(query) == expected, "\(query)")
    }

    @Test("a search pages, sorts and counts as any fetch")
    func pagesAndCounts() throws {
        let lib = try searchFixture()
        var options = FetchOptions()
        options.search = try SearchQuery(parsing: "camera:apple OR beach")
        options.limit = 2
        let first = try lib.library.blocking.fetchAssets(options)
        #expect(first.assets.map(\.id.rawValue) == ["long", "clip"])
        options.after = first.nextCursor
        #expect(try lib.library.blocking.fetchAssets(options).assets.map(\.id.rawValue) == ["shot", "dog"])
        let counts = try lib.library.blocking.countAssets(options)
        #expect(counts.images == 2 && counts.videos == 2)
        options.after = nil
        options.sort = AssetSort(.fileName)
        options.limit = nil
        #expect(try lib.library.blocking.fetchAssets(options).assets.map(\.id.rawValue) == ["long", "clip", "dog", "shot"])
        #expect(try lib.library.blocking.search("camera:apple").identifiers == ["clip", "dog"])
    }

    @Test("favorites, hidden assets and albums are terms too")
    func userState() throws {
        let lib = try searchFixture()
        try lib.library.blocking.setFavorite(true, for: ["tokyo"])
        try lib.library.blocking.setHidden(true, for: ["dog"])
        let album = try lib.library.blocking.createAlbum(title: "Summer")
        _ = try lib.library.blocking.addAssets(["zurich", "dog"], toAlbum: album.id)
        #expect(try lib.search("is:favorite") == ["tokyo"])
        #expect(try lib.search("camera:apple") == ["clip"])
        #expect(try lib.search("is:hidden") == ["dog"])
        #expect(try lib.search("album:\"summer\"") == ["zurich"])
        #expect(try lib.search("album:Summer OR is:favorite") == ["zurich", "tokyo"])
        #expect(throws: SearchQueryError(column: 7, message: "no user album is titled 'Sumer'; did you mean 'Summer'?")) {
            try lib.search("album:Sumer")
        }
    }

    @Test("the text index follows renames, edits and deletions in the writer's transaction")
    func upkeep() throws {
        let lib = try searchFixture()
        try lib.library.requireWriter().transaction { db in
            try db.execute("UPDATE files SET path = ? WHERE path = ?", [Array("/photos/Genève.jpg".utf8), Array("/photos/Zürich Sommer.jpg".utf8)])
            try db.execute("UPDATE assets SET make = 'SONY', model = 'ILCE-7M3' WHERE identifier = 'tokyo'")
        }
        #expect(try lib.search("zurich").isEmpty)
        #expect(try lib.search("geneve") == ["zurich"])
        #expect(try lib.search("camera:sony") == ["tokyo"])
        #expect(try lib.search("camera:canon").isEmpty)
        try lib.delete("long")
        #expect(try lib.search("beach") == ["shot"])
        let rows = try lib.library.read { db in
            (try db.scalarInt("SELECT count(*) FROM asset_text"), try db.scalarInt("SELECT count(*) FROM assets"))
        }
        #expect(rows.0 == rows.1)
    }

    static let errors: [(String, Int, String)] = [
        ("raiting:>=4", 1, "unknown field 'raiting:'; did you mean 'rating:'?"),
        ("is:favourit", 4, "'is:' takes 'favourite' (did you mean it?) or one of photo, video, live, favorite, hidden, images, videos, livePhotos, screenshots, panoramas, screenRecordings, slomoVideos, timelapseVideos, depthEffectPhotos, bursts, cinematicVideos, spatialMedia, selfies, raw, animated, hdr, motionPhotos, edited, duplicates, similar, not 'favourit'"),
        ("width:big", 7, "'width:' takes a number of pixels with >, >=, <, <= or a range a..b, such as width:>3000, not 'big'"),
        ("date:2023-13", 6, "'date:' takes a year, month or day such as 2023, 2023-07 or 2023-07-01, or a range such as date:2023-07-01..2023-07-14, not '2023-13'"),
        ("date:2023-08..2023-07", 6, "the range '2023-08..2023-07' is empty: its start is after its end"),
        ("\"golden hour", 1, "the quote opened here is never closed; add a '\"'"),
        ("(beach OR dog", 1, "the '(' here is never closed; add a ')'"),
        ("beach)", 6, "')' closes no '('; remove it or add the '(' it closes"),
        ("beach OR", 7, "'OR' needs a term after it"),
        ("- beach", 1, "'-' needs a term right after it, such as -is:screenshot"),
        ("camera:", 1, "'camera:' needs a value right after the colon, such as camera:\"EOS 6D\""),
        ("!!", 1, "'!!' has no letter or digit to search for; put punctuation inside a quoted phrase with words"),
    ]

    @Test("a query that cannot run says where and why in one sentence", arguments: errors)
    func refuses(_ query: String, _ column: Int, _ message: String) {
        #expect(throws: SearchQueryError(column: column, message: message)) { try SearchQuery(parsing: query) }
    }

    @Test("hostile queries are bounded, never a crash or an SQL error")
    func hostile() throws {
        let lib = try searchFixture()
        #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: String(repeating: "(", count: 500)) }
        #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: String(repeating: "a ", count: 100)) }
        #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: String(repeating: "x", count: 1001)) }
        // FTS5 syntax inside words is searched as text, never read as a query operator.
        #expect(try lib.search("NEAR(beach walk) AND* \"\"\"x\"").isEmpty)
        #expect(try lib.search("camera:\"a\"\"b\"").isEmpty)
        #expect(try lib.search("").count == 6)
    }

    @Test("suggestions complete the last word with counts")
    func suggestions() throws {
        let lib = try searchFixture()
        _ = try lib.library.blocking.createAlbum(title: "Summer in Zürich")
        let suggestions = try lib.library.blocking.searchSuggestions(for: "beach ca")
        #expect(suggestions.first == SearchSuggestion(kind: .field, text: "camera:", term: "camera:", count: nil))
        #expect(suggestions.contains(SearchSuggestion(kind: .camera, text: "Canon", term: "camera:Canon", count: 1)))
        #expect(try lib.library.blocking.searchSuggestions(for: "camera:iph")
                == [SearchSuggestion(kind: .camera, text: "iPhone 12", term: "camera:\"iPhone 12\"", count: 2)])
        #expect(try lib.library.blocking.searchSuggestions(for: "202").contains(
            SearchSuggestion(kind: .year, text: "2023", term: "date:2023", count: 5)))
        #expect(try lib.library.blocking.searchSuggestions(for: "zuri").contains(
            SearchSuggestion(kind: .album, text: "Summer in Zürich", term: "album:\"Summer in Zürich\"", count: 0)))
        #expect(try lib.library.blocking.searchSuggestions(for: "beach ").isEmpty)
    }
}
