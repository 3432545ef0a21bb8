import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

@Suite("Adjust date and time: the user's offset or zone",
       .enabled(if: Corpus.isAvailable && placesInstalled && exiftoolInstalled, "needs the corpus, the places data and exiftool"))
struct CaptureTimeSettingTests {
    /// A photo whose file says 08:30 at +09:00, and a movie whose header says 20:00 UTC, shot in Shanghai.
    static let fixtures: [(name: String, source: String, tags: [String])] = [
        ("a.jpg", "exiftool-t-images/t/images/Google.jpg",
         ["-all=", "-DateTimeOriginal=2023:07:01 08:30:00", "-OffsetTimeOriginal=+09:00"]),
        ("c.mp4", "nom-exif/testdata/meta.mp4", ["-QuickTime:CreateDate=2023:06:30 20:00:00"]),
    ]

    /// The file names of the assets whose camera day (the `local_time` wall clock) is `day`.
    static func names(on day: String, in library: MediaLibrary) throws -> Set<String> {
        var options = FetchOptions.everyAsset
        options.capturedFromLocalTime = try LocalDayTests.utc(day + "T00:00:00")
        options.capturedBeforeLocalTime = try LocalDayTests.utc(day + "T00:00:00").addingTimeInterval(86_400)
        return Set(try library.blocking.fetchAssets(options).assets.compactMap {
            $0.resources.first.map { ($0.path.displayString as NSString).lastPathComponent }
        })
    }

    static func asset(_ name: String, in library: MediaLibrary) throws -> Asset {
        try #require(try library.assets().first { $0.resources.first?.path.displayString.hasSuffix("/" + name) == true })
    }

    @Test("an offset keeps the camera's wall clock and moves the instant; a zone on a UTC movie keeps the instant and moves the wall clock")
    func setMovesTheAssets() throws {
        let scratch = try ScratchLibrary()
        let (indexed, byName) = try indexFixtures(Self.fixtures, in: scratch)
        var library = indexed
        let a = try #require(byName["a.jpg"]), c = try #require(byName["c.mp4"])
        #expect(a.captureTime?.iso8601 == "2023-07-01T08:30:00+09:00" && a.captureOffsetSource == .exif)
        #expect(c.captureTime?.iso8601 == "2023-07-01T04:00:00+08:00" && c.captureOffsetSource == .place)
        let token = try library.blocking.currentChangeToken()

        // The camera was set to Tokyo time, but the photo was taken in New York (-04:00 in July).
        try library.blocking.setCaptureTime(.offset(seconds: -4 * 3600), for: [a.id])
        try library.blocking.setCaptureTime(.zone("America/New_York"), for: [c.id])
        var adjusted = try Self.asset("a.jpg", in: library)
        #expect(adjusted.captureTime?.iso8601 == "2023-07-01T08:30:00-04:00" && adjusted.captureOffsetSource == .user)
        #expect(adjusted.captureTime?.offsetSeconds == -4 * 3600)
        #expect(adjusted.creationDate == (try LocalDayTests.utc("2023-07-01T12:30:00")))
        let movie = try Self.asset("c.mp4", in: library)
        #expect(movie.captureTime?.iso8601 == "2023-06-30T16:00:00-04:00" && movie.captureOffsetSource == .user)
        #expect(movie.creationDate == c.creationDate)
        // The movie moves to the day New York saw; the photo keeps its wall-clock day.
        #expect(try Self.names(on: "2023-06-30", in: library) == ["c.mp4"])
        #expect(try Self.names(on: "2023-07-01", in: library) == ["a.jpg"])
        // The change feed names the moved fields.
        let changes = try library.blocking.changes(since: token).changes
        for id in [a.id, c.id] {
            let fields = Set(changes.filter { $0.id == id && $0.kind == .updated }.flatMap(\.fields))
            #expect(fields.isSuperset(of: [.creationDate, .captureOffset]), "\(id): \(fields)")
        }

        // Re-indexing keeps it; so does a rebuild of library.sqlite (the setting is user state).
        try library.blocking.index()
        #expect(try Self.asset("a.jpg", in: library).captureTime?.iso8601 == "2023-07-01T08:30:00-04:00")
        library = try MediaLibrary(location: LibraryLocation(directory: scratch.folder.file("elsewhere")))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch.location.databasePath + suffix) }
        let rebuilt = try scratch.open()
        try rebuilt.blocking.index(roots: [PathBytes(scratch.root)])
        adjusted = try Self.asset("a.jpg", in: rebuilt)
        #expect(adjusted.id == a.id && adjusted.captureTime?.iso8601 == "2023-07-01T08:30:00-04:00" && adjusted.captureOffsetSource == .user)
        #expect(try Self.asset("c.mp4", in: rebuilt).captureTime?.iso8601 == "2023-06-30T16:00:00-04:00")

        // Clearing gives them back to the other rules.
        try rebuilt.blocking.setCaptureTime(nil, for: [a.id, c.id])
        #expect(try Self.asset("a.jpg", in: rebuilt).captureTime?.iso8601 == "2023-07-01T08:30:00+09:00")
        #expect(try Self.asset("a.jpg", in: rebuilt).captureOffsetSource == .exif)
        #expect(try Self.asset("c.mp4", in: rebuilt).captureTime?.iso8601 == "2023-07-01T04:00:00+08:00")
        try rebuilt.blocking.index()
        #expect(try Self.asset("c.mp4", in: rebuilt).captureOffsetSource == .place)
    }

    @Test("the neighbour rule follows what changes: a setting teaches its floating neighbour at once, a file added later on re-index, and an unchanged re-index writes nothing")
    func neighbourRuleFollowsChanges() throws {
        let photo = "exiftool-t-images/t/images/Google.jpg"
        let scratch = try ScratchLibrary()
        // Two photos from a camera with no offset, an hour apart: neither knows its offset.
        let (library, byName) = try indexFixtures([
            ("trip/f1.jpg", photo, ["-all=", "-DateTimeOriginal=2023:08:10 10:00:00"]),
            ("trip/f2.jpg", photo, ["-all=", "-DateTimeOriginal=2023:08:10 11:00:00"]),
        ], in: scratch)
        let f1 = try #require(byName["f1.jpg"]), f2 = try #require(byName["f2.jpg"])
        #expect(f1.captureOffsetSource == CaptureOffsetSource.none && f2.captureOffsetSource == CaptureOffsetSource.none)

        // The user says the first was taken at +02:00: the second learns it at once, no index run.
        try library.blocking.setCaptureTime(.offset(seconds: 2 * 3600), for: [f1.id])
        var learned = try Self.asset("f2.jpg", in: library)
        #expect(learned.captureTime?.iso8601 == "2023-08-10T11:00:00+02:00" && learned.captureOffsetSource == .neighbour)

        // An unchanged re-index keeps both and writes nothing to the feed.
        let token = try library.blocking.currentChangeToken()
        try library.blocking.index()
        #expect(try library.blocking.changes(since: token).changes.isEmpty)
        learned = try Self.asset("f2.jpg", in: library)
        #expect(learned.captureOffsetSource == .neighbour && learned.captureTime?.offsetSeconds == 2 * 3600)

        // A floating photo added later, beside a photo whose file gives its offset, learns on re-index.
        try scratch.add(photo, as: "later/g1.jpg")
        try writeTags(["-all=", "-DateTimeOriginal=2023:09:01 08:00:00", "-OffsetTimeOriginal=-05:00"],
                      to: scratch.root + "/later/g1.jpg")
        try scratch.add(photo, as: "later/g2.jpg")
        try writeTags(["-all=", "-DateTimeOriginal=2023:09:01 09:30:00"], to: scratch.root + "/later/g2.jpg")
        try library.blocking.index()
        let g2 = try Self.asset("g2.jpg", in: library)
        #expect(g2.captureTime?.iso8601 == "2023-09-01T09:30:00-05:00" && g2.captureOffsetSource == .neighbour)
    }

    @Test("an offset beyond ±14:00, or a zone tzdata does not know, is refused and nothing changes")
    func refusals() throws {
        let scratch = try ScratchLibrary()
        let (library, byName) = try indexFixtures(Array(Self.fixtures.prefix(1)), in: scratch)
        let a = try #require(byName["a.jpg"])
        #expect(throws: LibraryError.self) { try library.blocking.setCaptureTime(.offset(seconds: 15 * 3600), for: [a.id]) }
        #expect(throws: LibraryError.self) { try library.blocking.setCaptureTime(.zone("Mars/Olympus_Mons"), for: [a.id]) }
        let missing = try #require(Asset.ID("0000000000000"))
        #expect(throws: LibraryError.self) { try library.blocking.setCaptureTime(.offset(seconds: 3600), for: [a.id, missing]) }
        #expect(try Self.asset("a.jpg", in: library).captureOffsetSource == .exif)
    }
}
