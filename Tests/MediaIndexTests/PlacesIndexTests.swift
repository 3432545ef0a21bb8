import CorpusSupport
import Foundation
import MediaMetadata
import MediaPlaces
import Testing
@testable import MediaIndex

/// Whether the places data are installed where indexing looks for them.
var placesInstalled: Bool { FileManager.default.fileExists(atPath: PlacesData.defaultPath) }

/// exiftool's `2023:10:06 22:53:51` (with optional sub-seconds) as seconds since 1970, read as UTC.
private func seconds(exiftool text: String) -> Double? {
    CaptureDate(exif: text).map(\.sortTimestamp)
}

/// The offset the index must find from exiftool's readings alone: `OffsetTimeOriginal`, else
/// `DateTimeOriginal` minus the GPS stamp when it lies within 2 minutes of a whole quarter hour.
private func referenceOffset(_ tags: [String: JSONValue]) -> (offset: Int, source: String)? {
    if let text = tags["ExifIFD:OffsetTimeOriginal"]?.string, let offset = CaptureDate.parseOffset(text) {
        return (offset, "exif")
    }
    guard let clock = tags["ExifIFD:DateTimeOriginal"]?.string.flatMap(seconds(exiftool:)),
          let day = tags["GPS:GPSDateStamp"]?.string, let time = tags["GPS:GPSTimeStamp"]?.string,
          let gps = seconds(exiftool: day + " " + time) else { return nil }
    let difference = clock - gps
    let quarters = (difference / 900).rounded()
    guard abs(difference - quarters * 900) <= 120, abs(quarters) <= 56 else { return nil }
    return (Int(quarters) * 900, "gps-time")
}

/// The UTC offset of an IANA zone at an instant, from Foundation's tzdata (not the places file).
private func zoneOffset(_ zone: String, at instant: Double) throws -> Int {
    try #require(TimeZone(identifier: zone)).secondsFromGMT(for: Date(timeIntervalSince1970: instant))
}

@Suite("Places and local time of indexed assets",
       .enabled(if: Corpus.isAvailable && placesInstalled, "needs the corpus and the places data (scripts/install-places-data)"))
struct PlacesIndexTests {
    /// Photos with an offset tag, and photos whose GPS stamp gives the offset, as exiftool reads them.
    static let tagged = [
        "exiftool-t-images/t/images/Google.jpg", "exiv2-test-data/test/data/2021-02-13-1929.heic",
        "ianare-exif-samples/heic/IMG_5195.HEIC", "osxphotos/tests/test-images/IMG_6161.HEIC",
        "exiftool-t-images/t/images/GoPro.jpg", "exiftool-t-images/t/images/Apple.jpg",
        "metadata-extractor-images/jpg/HTC Desire.jpg", "photoprism/assets/examples/elephants.jpg",
        "metadata-extractor-images/heic/IMG_1034.heic",
    ]

    /// Indexes corpus files, each under its own folder, and returns the assets by corpus path.
    static func index(_ paths: [String]) throws -> [String: Asset] {
        let scratch = try ScratchLibrary()
        for (number, path) in paths.enumerated() {
            try scratch.add(path, as: "\(number)/" + (path as NSString).lastPathComponent)
        }
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        var byPath: [String: Asset] = [:]
        for asset in try library.assets() {
            let folder = asset.resources.first.map { ($0.path.displayString as NSString).deletingLastPathComponent }
            if let number = folder.flatMap({ Int(($0 as NSString).lastPathComponent) }) { byPath[paths[number]] = asset }
        }
        return byPath
    }

    @Test("an offset tag, or GPS time against the camera clock, gives the offset exiftool's readings give")
    func offsetFromTagsAndGPSTime() throws {
        let assets = try Self.index(Self.tagged)
        for path in Self.tagged {
            let tags = try #require(Corpus.exiftool[path], "\(path)")
            let expected = try #require(referenceOffset(tags), "\(path)")
            let asset = try #require(assets[path], "\(path)")
            #expect(asset.captureTime?.offsetSeconds == expected.offset, "\(path)")
            #expect(asset.captureOffsetSource?.rawValue == expected.source, "\(path)")
            // Shown as recorded: the camera's wall clock, with the offset.
            let clock = try #require(tags["ExifIFD:DateTimeOriginal"]?.string.flatMap(seconds(exiftool:)))
            let recorded = try #require(asset.captureTime?.wallClock)
            #expect(recorded.utcOffsetSeconds == expected.offset, "\(path)")
            #expect(abs(recorded.sortTimestamp + Double(expected.offset) - clock) < 1, "\(path)")
            #expect(abs((asset.creationDate?.timeIntervalSince1970 ?? 0) - (clock - Double(expected.offset))) < 1, "\(path)")
        }
    }

    /// Photos without an offset tag or a usable GPS stamp, and videos whose movie header records
    /// UTC: their country (a fact of the coordinates exiftool reads) and zone.
    static let placed: [(path: String, country: String, zone: String)] = [
        ("ianare-exif-samples/jpg/gps/DSCN0012.jpg", "IT", "Europe/Rome"),
        ("photoprism/assets/examples/beach_sand.jpg", "ZA", "Africa/Johannesburg"),
        ("photoprism/assets/examples/building_mono.jpg", "DE", "Europe/Berlin"),
        ("metadata-extractor-images/mp4/with-gps.mp4", "GB", "Europe/London"),
        ("nom-exif/testdata/meta.mp4", "CN", "Asia/Shanghai"),
    ]

    @Test("without an offset tag the position's zone gives the offset; videos recording UTC get their local time")
    func offsetFromPlace() throws {
        let assets = try Self.index(Self.placed.map(\.path))
        for (path, country, zone) in Self.placed {
            let tags = try #require(Corpus.exiftool[path], "\(path)")
            let asset = try #require(assets[path], "\(path)")
            #expect(asset.place?.countryCode == country, "\(path)")
            #expect(asset.place?.country != nil && asset.place?.name != nil, "\(path)")
            #expect(asset.timeZone == zone, "\(path)")
            #expect(asset.captureOffsetSource == .place, "\(path)")
            let latitude = try #require(tags["Composite:GPSLatitude"]?.number)
            #expect(abs((asset.location?.latitude ?? 0) - latitude) < 1e-4, "\(path)")
            if let video = tags["QuickTime:CreateDate"]?.string, tags["ExifIFD:DateTimeOriginal"] == nil {
                // The movie header's UTC instant is kept; the wall clock is the zone's.
                let instant = try #require(seconds(exiftool: video))
                let offset = try zoneOffset(zone, at: instant)
                #expect(asset.captureTime?.offsetSeconds == offset, "\(path)")
                #expect(abs((asset.creationDate?.timeIntervalSince1970 ?? 0) - instant) < 1, "\(path)")
                let recorded = try #require(asset.captureTime?.wallClock)
                #expect(abs(recorded.sortTimestamp + Double(offset) - (instant + Double(offset))) < 1, "\(path)")
                #expect(recorded.utcOffsetSeconds == offset, "\(path)")
            } else {
                let clock = try #require(tags["ExifIFD:DateTimeOriginal"]?.string.flatMap(seconds(exiftool:)))
                let offset = try zoneOffset(zone, at: clock - 7200)
                #expect(asset.captureTime?.offsetSeconds == offset, "\(path)")
                #expect(abs((asset.creationDate?.timeIntervalSince1970 ?? 0) - (clock - Double(offset))) < 1, "\(path)")
            }
        }
    }

    @Test("a position of exactly 0,0 with nothing else is no position: no place, and the time stays floating")
    func nullIsland() throws {
        let path = "metadata-extractor-images/jpg/Samsung GT-I9000 (Galaxy S).jpg"
        let asset = try #require(try Self.index([path])[path])
        #expect(asset.place == nil)
        #expect(asset.timeZone == nil)
        #expect(asset.captureOffsetSource == CaptureOffsetSource.none)
        #expect(asset.captureTime?.offsetSeconds == nil)
        let clock = try #require(Corpus.exiftool[path]?["ExifIFD:DateTimeOriginal"]?.string)
        #expect(asset.captureTime?.iso8601 == CaptureDate(exif: clock)?.iso8601)
    }
}

/// Runs exiftool on a fixture (it must succeed).
func writeTags(_ arguments: [String], to path: String) throws {
    let outcome = try ExternalTool.outcome("exiftool", ["-q", "-q", "-overwrite_original"] + arguments + [path])
    try #require(outcome.exitStatus == 0, "exiftool \(arguments.joined(separator: " ")) failed: \(outcome.standardErrorText)")
}

/// Copies each corpus file into the scratch library under its name, writes its tags with
/// exiftool, indexes, and returns the library with its assets by file name.
func indexFixtures(_ fixtures: [(name: String, source: String, tags: [String])],
                           in scratch: ScratchLibrary) throws -> (MediaLibrary, [String: Asset]) {
    for fixture in fixtures {
        try scratch.add(fixture.source, as: fixture.name)
        try writeTags(fixture.tags, to: scratch.root + "/" + fixture.name)
    }
    let library = try scratch.open()
    try library.blocking.index(roots: [PathBytes(scratch.root)])
    var byName: [String: Asset] = [:]
    for asset in try library.assets() {
        if let path = asset.resources.first?.path.displayString { byName[(path as NSString).lastPathComponent] = asset }
    }
    return (library, byName)
}

/// Whether exiftool is on the path, to write the fixtures.
let exiftoolInstalled = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
    .contains { FileManager.default.isExecutableFile(atPath: String($0) + "/exiftool") }

@Suite("Days are the camera's days",
       .enabled(if: Corpus.isAvailable && placesInstalled && exiftoolInstalled, "needs the corpus, the places data and exiftool"))
struct LocalDayTests {
    /// Seconds since 1970 of a UTC wall clock, by Foundation.
    static func utc(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        return try #require(formatter.date(from: text + "Z"))
    }

    @Test("offset tags, GPS-only photos, UTC videos and floating times each fall on the day their camera showed")
    func mixedSet() throws {
        let scratch = try ScratchLibrary()
        let photo = "exiftool-t-images/t/images/Google.jpg", video = "nom-exif/testdata/meta.mp4"
        // 08:30 in Tokyo is 23:30 UTC the day before: a UTC day would file each on 30 June.
        let fixtures: [(name: String, source: String, tags: [String])] = [
            ("tagged/a.jpg", photo, ["-all=", "-DateTimeOriginal=2023:07:01 08:30:00", "-OffsetTimeOriginal=+09:00"]),
            ("gps/b.jpg", photo, ["-all=", "-DateTimeOriginal=2023:07:01 08:30:00", "-GPSLatitude=35.6812",
                                  "-GPSLatitudeRef=N", "-GPSLongitude=139.7671", "-GPSLongitudeRef=E"]),
            // A movie header's UTC 20:00 in Shanghai (+08:00) is 04:00 on 1 July there.
            ("video/c.mp4", video, ["-QuickTime:CreateDate=2023:06:30 20:00:00"]),
            ("floating/d.jpg", photo, ["-all=", "-DateTimeOriginal=2023:07:05 01:00:00"]),
            // A compact camera beside the phone: within 2 hours of the Tokyo photos, which agree.
            ("compact/e.jpg", photo, ["-all=", "-DateTimeOriginal=2023:07:01 09:15:00"]),
        ]
        let (library, byName) = try indexFixtures(fixtures, in: scratch)
        let a = try #require(byName["a.jpg"]), b = try #require(byName["b.jpg"]), c = try #require(byName["c.mp4"])
        let d = try #require(byName["d.jpg"]), e = try #require(byName["e.jpg"])
        #expect(a.captureTime?.iso8601 == "2023-07-01T08:30:00+09:00" && a.captureOffsetSource == .exif)
        #expect(b.captureTime?.iso8601 == "2023-07-01T08:30:00+09:00" && b.captureOffsetSource == .place)
        #expect(b.timeZone == "Asia/Tokyo" && b.place?.countryCode == "JP")
        #expect(c.captureTime?.iso8601 == "2023-07-01T04:00:00+08:00" && c.captureOffsetSource == .place)
        #expect(d.captureTime?.iso8601 == "2023-07-05T01:00:00" && d.captureOffsetSource == CaptureOffsetSource.none)
        #expect(e.captureTime?.iso8601 == "2023-07-01T09:15:00+09:00" && e.captureOffsetSource == .neighbour)
        // Sorting is by the true instant.
        #expect(a.creationDate == (try Self.utc("2023-06-30T23:30:00")))
        #expect(c.creationDate == (try Self.utc("2023-06-30T20:00:00")))

        func day(_ text: String) throws -> Set<String> {
            var options = FetchOptions.everyAsset
            options.capturedFromLocalTime = try Self.utc(text + "T00:00:00")
            options.capturedBeforeLocalTime = try Self.utc(text + "T00:00:00").addingTimeInterval(86_400)
            return Set(try library.blocking.fetchAssets(options).assets.compactMap {
                $0.resources.first.map { ($0.path.displayString as NSString).lastPathComponent }
            })
        }
        #expect(try day("2023-07-01") == ["a.jpg", "b.jpg", "c.mp4", "e.jpg"])
        #expect(try day("2023-06-30").isEmpty)
        #expect(try day("2023-07-05") == ["d.jpg"])
    }
}

@Suite("Places filled in later", .enabled(if: Corpus.isAvailable && placesInstalled, "needs the corpus and the places data"))
struct PlacesRefillTests {
    @Test("a library indexed before places (or without the data) gets them on the next run, no file reopened")
    func refillWithoutReopening() throws {
        let scratch = try ScratchLibrary()
        let path = "ianare-exif-samples/jpg/gps/DSCN0012.jpg"
        try scratch.add(path, as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let placed = try #require(try library.assets().first)
        #expect(placed.place?.countryCode == "IT")
        // As migration 0031 leaves an older library: nothing resolved.
        try library.requireWriter().write { db in
            try db.execute("""
                UPDATE assets SET place_name = NULL, place_locality = NULL, place_subregion = NULL, place_region = NULL,
                place_region_code = NULL, place_country = NULL, place_country_code = NULL, place_geoname_id = NULL,
                time_zone = NULL, capture_offset = NULL, capture_offset_source = NULL, local_time = NULL
                """)
        }
        let token = try library.blocking.currentChangeToken()
        let summary = try library.blocking.index()
        #expect(summary.opened == 0)
        #expect(summary.placesOff == nil)
        let refilled = try #require(try library.assets().first)
        #expect(refilled.place == placed.place && refilled.timeZone == placed.timeZone)
        #expect(refilled.captureTime?.offsetSeconds == placed.captureTime?.offsetSeconds)
        #expect(refilled.captureOffsetSource == placed.captureOffsetSource)
        #expect(refilled.captureTime?.iso8601 == placed.captureTime?.iso8601)
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated])
        #expect(changes.first?.fields.contains(.place) == true)
    }
}

@Suite("Album date ranges are the camera's days (issue 35 item 12)",
       .enabled(if: Corpus.isAvailable && exiftoolInstalled, "needs the corpus and exiftool"))
struct AlbumLocalDayTests {
    @Test("an album's days are its photos' wall-clock days, not their UTC or this machine's days; floating times carry no Z")
    func albumDays() throws {
        let scratch = try ScratchLibrary()
        let photo = "exiftool-t-images/t/images/Google.jpg"
        // 23:30 and 00:30 in Tokyo are 14:30 and 15:30 UTC on 1 July: one UTC day, two camera days.
        let fixtures: [(name: String, tags: [String])] = [
            ("late.jpg", ["-all=", "-DateTimeOriginal=2023:07:01 23:30:00", "-OffsetTimeOriginal=+09:00"]),
            ("early.jpg", ["-all=", "-DateTimeOriginal=2023:07:02 00:30:00", "-OffsetTimeOriginal=+09:00"]),
            ("floating.jpg", ["-all=", "-DateTimeOriginal=2023:07:05 23:30:00"]),
        ]
        let (library, byName) = try indexFixtures(fixtures.map { ($0.name, photo, $0.tags) }, in: scratch)
        let late = try #require(byName["late.jpg"]), early = try #require(byName["early.jpg"])
        let floating = try #require(byName["floating.jpg"])
        #expect(floating.captureTime?.iso8601 == "2023-07-05T23:30:00")
        #expect(floating.captureTime?.iso8601.hasSuffix("Z") == false)

        func album(_ title: String, _ assets: [Asset]) throws -> Album {
            let created = try library.blocking.createAlbum(title: title)
            _ = try library.blocking.addAssets(assets.map(\.id), toAlbum: created.id)
            return try #require(try library.blocking.fetchAlbums().first { $0.id == created.id })
        }
        let first = try album("1 July", [late])
        #expect(first.startDay == "2023-07-01" && first.endDay == "2023-07-01")
        let night = try album("Night", [late, early])
        #expect(night.startDay == "2023-07-01" && night.endDay == "2023-07-02")
        // A floating time's day is its wall clock's, whatever zone this process runs in.
        let alone = try album("Floating", [floating])
        #expect(alone.startDay == "2023-07-05" && alone.endDay == "2023-07-05")
        // The album for 1 July by the camera's day holds the 23:30 photo and not the 00:30 one.
        var options = FetchOptions.everyAsset
        options.album = .user(night.id)
        options.capturedFromLocalTime = try LocalDayTests.utc("2023-07-01T00:00:00")
        options.capturedBeforeLocalTime = try LocalDayTests.utc("2023-07-02T00:00:00")
        #expect(try library.blocking.fetchAssets(options).assets.map(\.id) == [late.id])
    }

    @Test("a folder album's days are its photos' wall-clock days, kept as assets come, go and are hidden")
    func folderAlbumDays() throws {
        let scratch = try ScratchLibrary()
        let photo = "exiftool-t-images/t/images/Google.jpg"
        let fixtures: [(name: String, tags: [String])] = [
            ("trip/late.jpg", ["-all=", "-DateTimeOriginal=2023:07:01 23:30:00", "-OffsetTimeOriginal=+09:00"]),
            ("trip/early.jpg", ["-all=", "-DateTimeOriginal=2023:07:02 00:30:00", "-OffsetTimeOriginal=+09:00"]),
        ]
        let (library, byName) = try indexFixtures(fixtures.map { ($0.name, photo, $0.tags) }, in: scratch)
        let late = try #require(byName["late.jpg"])
        func trip() throws -> Album {
            try #require(try library.blocking.fetchAlbums().first { $0.kind == .folder && $0.title == "trip" })
        }
        // One UTC day (14:30 and 15:30 on 1 July), two camera days, whatever TZ this process has.
        var album = try trip()
        #expect(album.startDay == "2023-07-01" && album.endDay == "2023-07-02")
        // A folder holding a hidden asset is reread apart, wall clocks included.
        try library.blocking.setHidden(true, for: [late.id])
        album = try trip()
        #expect(album.startDay == "2023-07-02" && album.endDay == "2023-07-02")
        try library.blocking.setHidden(false, for: [late.id])
        // The newest leaves: the triggers reread the folder's key and its wall clock.
        try FileManager.default.removeItem(atPath: scratch.root + "/trip/early.jpg")
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        album = try trip()
        #expect(album.startDay == "2023-07-01" && album.endDay == "2023-07-01")
    }
}

@Suite("An album day's text")
struct AlbumDayTextTests {
    @Test("the day of a wall clock is CaptureDate's day, written apart for speed")
    func matchesCaptureDate() {
        var generator = SystemRandomNumberGenerator()
        let edges: [Double] = [0, -1, 86_399, 86_400, -86_400, -86_401, 951_782_400, 4_107_542_399,
                               -62_135_596_800, -62_167_219_200, -62_167_219_201, 253_402_300_799, 253_402_300_800]
        let samples = edges + (0..<20_000).map { _ in Double.random(in: -7e10...3e11, using: &generator) }
        for seconds in samples {
            let expected = String(CaptureDate(timestamp: seconds.rounded(.down), utcOffsetSeconds: 0).iso8601.prefix(10))
            #expect(Album.day(ofLocalTime: seconds) == expected, "\(seconds)")
        }
        #expect(Album.day(ofLocalTime: nil) == nil && Album.day(ofLocalTime: .nan) == nil)
    }
}
