import Testing
@testable import MediaIndex

@Suite("MediaFilter grammar")
struct MediaFilterGrammarTests {
    /// Expression → the filter it means.
    static let valid: [(String, MediaFilter)] = [
        ("images", .images),
        ("videos", .videos),
        ("livePhotos", .livePhotos),
        ("LIVEPHOTOS", .livePhotos),
        ("screenshots", .screenshots),
        ("panoramas", .panoramas),
        ("screenRecordings", .screenRecordings),
        ("slomoVideos", .slomoVideos),
        ("timelapseVideos", .timelapseVideos),
        ("depthEffectPhotos", .depthEffectPhotos),
        ("bursts", .bursts),
        ("cinematicVideos", .cinematicVideos),
        ("spatialMedia", .spatialMedia),
        ("selfies", .selfies),
        ("raw", .raw),
        ("animated", .animated),
        ("hdr", .hdr),
        ("motionPhotos", .motionPhotos),
        ("images & !screenshots", .all(of: [.images, .not(.screenshots)])),
        ("any(livePhotos, videos)", .any(of: [.livePhotos, .videos])),
        ("not(screenshots)", .not(.screenshots)),
        ("all(images, panoramas)", .all(of: [.images, .panoramas])),
        ("images | videos & hdr", .any(of: [.images, .all(of: [.videos, .hdr])])),
        ("(images | videos) & hdr", .all(of: [.any(of: [.images, .videos]), .hdr])),
        ("!!raw", .not(.not(.raw))),
        ("  images  ", .images),
        ("any(images)", .images),
        ("not(any(selfies, raw))", .not(.any(of: [.selfies, .raw]))),
        ("all(any(images,videos),!bursts)", .all(of: [.any(of: [.images, .videos]), .not(.bursts)])),
        ("ANY ( hdr , raw )", .any(of: [.hdr, .raw])),
    ]

    /// Malformed expression → the column the error must name, and a word it must say.
    static let malformed: [(String, Int, String)] = [
        ("", 1, "empty"),
        ("   ", 4, "empty"),
        ("imagez", 1, "did you mean 'images'"),
        ("images &", 9, "ends"),
        ("images & & videos", 10, "found '&'"),
        ("(images", 1, "')'"),  // at the unclosed '(', where the mistake is (issue 13)
        ("images)", 7, "found ')'"),
        ("any(images", 4, "')'"),
        ("any(images,)", 12, "found ')'"),
        ("not(images, videos)", 1, "exactly one"),
        ("foo(images)", 1, "not a function"),
        ("any", 4, "'('"),
        ("images videos", 8, "found 'v'"),
        ("images; drop table assets", 7, "found ';'"),
        ("!", 2, "ends"),
        ("42", 1, "found '4'"),
        (String(repeating: "(", count: 100) + "images" + String(repeating: ")", count: 100), 65, "nested"),
    ]

    @Test("parses every valid expression to the filter it means", arguments: valid)
    func parsesValid(_ text: String, _ expected: MediaFilter) throws {
        #expect(try MediaFilter(parsing: text) == expected)
    }

    @Test("rejects malformed input naming the column and what was expected", arguments: malformed)
    func rejectsMalformed(_ text: String, _ column: Int, _ mention: String) {
        do {
            let parsed = try MediaFilter(parsing: text)
            Issue.record("'\(text)' parsed as \(parsed)")
        } catch let error as MediaFilterParseError {
            #expect(error.column == column, "\(error)")
            #expect(error.description.contains(mention), "\(error)")
            #expect(error.description.contains("column \(column)"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("description reads back as the same filter")
    func roundTrip() throws {
        for (_, filter) in Self.valid {
            #expect(try MediaFilter(parsing: filter.description) == filter)
        }
    }

    @Test("the default filter and any union of images and videos need no SQL; subtypes test their bit")
    func compilesToSQL() {
        #expect(MediaFilter.default.sqlCondition().sql == "1")
        #expect(MediaFilter.any(of: [.videos, .any(of: [.images])]).sqlCondition().sql == "1")
        #expect(MediaFilter.not(.default).sqlCondition().sql == "0")
        #expect(MediaFilter.livePhotos.sqlCondition().sql == "(a.subtypes & 2) <> 0")
        #expect(MediaFilter.all(of: [.images, .not(.screenshots)]).sqlCondition().sql
                == "(a.media_type = 'image' AND NOT (a.subtypes & 8) <> 0)")
    }
}
