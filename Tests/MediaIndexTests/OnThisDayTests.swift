import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// A UTC instant written as `2026-07-01T12:00:00`.
private func instant(_ text: String) throws -> Date { try LocalDayTests.utc(text) }

@Suite("On This Day is the camera's calendar day (issue 31)",
       .enabled(if: Corpus.isAvailable && placesInstalled && exiftoolInstalled, "needs the corpus, the places data and exiftool"))
struct OnThisDayTests {
    static let photo = "exiftool-t-images/t/images/Google.jpg", video = "nom-exif/testdata/meta.mp4"

    /// Around 1 July in earlier years: Tokyo and Los Angeles photos just before and after
    /// midnight, a floating time, a UTC video placed in Shanghai, a 29 February and one this year.
    static let fixtures: [(name: String, source: String, tags: [String])] = [
        // 23:30 in Tokyo is 14:30 UTC; 00:30 the next day is 15:30 UTC: one UTC day, two camera days.
        ("late.jpg", photo, ["-all=", "-DateTimeOriginal=2023:07:01 23:30:00", "-OffsetTimeOriginal=+09:00"]),
        ("early.jpg", photo, ["-all=", "-DateTimeOriginal=2023:07:02 00:30:00", "-OffsetTimeOriginal=+09:00"]),
        // 23:30 on 30 June in Los Angeles is 06:30 UTC on 1 July: not 1 July's.
        ("west-late.jpg", photo, ["-all=", "-DateTimeOriginal=2022:06:30 23:30:00", "-OffsetTimeOriginal=-07:00"]),
        ("west-early.jpg", photo, ["-all=", "-DateTimeOriginal=2022:07:01 00:30:00", "-OffsetTimeOriginal=-07:00"]),
        ("floating.jpg", photo, ["-all=", "-DateTimeOriginal=2021:07:01 23:30:00"]),
        // The movie header's UTC 20:00 on 30 June is 04:00 on 1 July in Shanghai, where it was taken.
        ("video.mp4", video, ["-QuickTime:CreateDate=2023:06:30 20:00:00"]),
        ("leap.jpg", photo, ["-all=", "-DateTimeOriginal=2020:02:29 12:00:00"]),
        ("eve.jpg", photo, ["-all=", "-DateTimeOriginal=2019:02:28 12:00:00"]),
        ("this-year.jpg", photo, ["-all=", "-DateTimeOriginal=2026:07:01 12:00:00"]),
    ]

    static func names(_ assets: [Asset]) -> Set<String> {
        Set(assets.compactMap { $0.resources.first.map { ($0.path.displayString as NSString).lastPathComponent } })
    }

    @Test("a month-day lists the camera's days of earlier years; counts equal listings; every sort pages")
    func monthDay() throws {
        let scratch = try ScratchLibrary()
        let (library, byName) = try indexFixtures(Self.fixtures, in: scratch)
        #expect(byName["video.mp4"]?.captureTime?.iso8601 == "2023-07-01T04:00:00+08:00")
        let now = try instant("2026-07-15T12:00:00")
        func listed(_ text: String, now: Date) throws -> Set<String> {
            var options = FetchOptions.everyAsset
            options.onThisDay = try #require(OnThisDay(text, now: now))
            let all = try library.blocking.fetchAssets(options).assets
            #expect(try library.blocking.countAssets(options).total == all.count)
            for key in AssetSortKey.allCases where key != .albumOrder {
                for ascending in [true, false] {
                    var paged = options, seen: [Asset.ID] = []
                    paged.sort = AssetSort(key, ascending: ascending)
                    paged.limit = 1
                    while true {
                        let page = try library.blocking.fetchAssets(paged)
                        seen += page.assets.map(\.id)
                        guard let next = page.nextCursor, seen.count <= all.count else { break }
                        paged.after = next
                    }
                    #expect(seen.count == all.count && Set(seen) == Set(all.map(\.id)), "sort \(key) ascending \(ascending)")
                }
            }
            return Self.names(all)
        }
        #expect(try listed("07-01", now: now) == ["late.jpg", "west-early.jpg", "floating.jpg", "video.mp4"])
        #expect(try listed("07-02", now: now) == ["early.jpg"])
        #expect(try listed("06-30", now: now) == ["west-late.jpg"])
        // 2026 has no 29 February: 28 February shows it; a leap year keeps them apart.
        #expect(try listed("02-28", now: now) == ["leap.jpg", "eve.jpg"])
        #expect(try listed("02-28", now: try instant("2028-07-15T12:00:00")) == ["eve.jpg"])
        #expect(try listed("02-29", now: now) == ["leap.jpg"])
        // The search term takes the same day (in the years before this machine's).
        var search = FetchOptions.everyAsset
        search.search = try SearchQuery(parsing: "on:07-01")
        #expect(Self.names(try library.blocking.fetchAssets(search).assets) == ["late.jpg", "west-early.jpg", "floating.jpg", "video.mp4"])
        #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: "on:02-30") }
        // Only earlier years: in 2027 this year's photo is a memory too.
        #expect(try listed("07-01", now: try instant("2027-01-01T12:00:00")).contains("this-year.jpg"))
    }

    @Test("today is this machine's local day: the same instant is 30 June in Los Angeles and 1 July on Kiritimati")
    func todayByZone() throws {
        let scratch = try ScratchLibrary()
        let (library, _) = try indexFixtures(Self.fixtures, in: scratch)
        let now = try instant("2026-06-30T12:00:00")
        func today(in zone: String) throws -> Set<String> {
            var options = FetchOptions.everyAsset
            options.onThisDay = OnThisDay(today: now, timeZone: try #require(TimeZone(identifier: zone)))
            #expect(OnThisDay("today", now: now, timeZone: try #require(TimeZone(identifier: zone))) == options.onThisDay)
            return Self.names(try library.blocking.fetchAssets(options).assets)
        }
        #expect(try today(in: "America/Los_Angeles") == ["west-late.jpg"])
        #expect(try today(in: "Pacific/Kiritimati") == ["late.jpg", "west-early.jpg", "floating.jpg", "video.mp4"])
    }

    @Test("the smart album On This Day holds today's memories with their count, and is left out when empty")
    func smartAlbum() throws {
        let scratch = try ScratchLibrary()
        // Today on this machine's calendar (TZ), three years ago (four for 29 February).
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.year, .month, .day], from: Date())
        let (year, month, day) = try (#require(parts.year), #require(parts.month), #require(parts.day))
        let past = String(format: "%04d:%02d:%02d 12:00:00", year - (month == 2 && day == 29 ? 4 : 3), month, day)
        let (library, _) = try indexFixtures([("memory.jpg", Self.photo, ["-all=", "-DateTimeOriginal=" + past])], in: scratch)
        var albums = try library.blocking.fetchAlbums()
        let album = try #require(albums.first { $0.id == AlbumScope.smart(.onThisDay).id })
        #expect(album.title == "On This Day" && album.count == 1)
        var options = FetchOptions()
        options.album = .smart(.onThisDay)
        #expect(try library.blocking.fetchAssets(options).assets.count == album.count)
        // Gone, it leaves the album, which is then not listed.
        try FileManager.default.removeItem(atPath: scratch.root + "/memory.jpg")
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        albums = try library.blocking.fetchAlbums()
        #expect(!albums.contains { $0.id == AlbumScope.smart(.onThisDay).id })
    }
}
