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
            #expect(asset.captureOffsetSeconds == expected.offset, "\(path)")
            #expect(asset.captureOffsetSource?.rawValue == expected.source, "\(path)")
            // Shown as recorded: the camera's wall clock, with the offset.
            let clock = try #require(tags["ExifIFD:DateTimeOriginal"]?.string.flatMap(seconds(exiftool:)))
            let recorded = try #require(asset.creationDateText.flatMap(CaptureDate.init(recordedText:)))
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
                #expect(asset.captureOffsetSeconds == offset, "\(path)")
                #expect(abs((asset.creationDate?.timeIntervalSince1970 ?? 0) - instant) < 1, "\(path)")
                let recorded = try #require(asset.creationDateText.flatMap(CaptureDate.init(recordedText:)))
                #expect(abs(recorded.sortTimestamp + Double(offset) - (instant + Double(offset))) < 1, "\(path)")
                #expect(recorded.utcOffsetSeconds == offset, "\(path)")
            } else {
                let clock = try #require(tags["ExifIFD:DateTimeOriginal"]?.string.flatMap(seconds(exiftool:)))
                let offset = try zoneOffset(zone, at: clock - 7200)
                #expect(asset.captureOffsetSeconds == offset, "\(path)")
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
        #expect(asset.captureOffsetSeconds == nil)
        let clock = try #require(Corpus.exiftool[path]?["ExifIFD:DateTimeOriginal"]?.string)
        #expect(asset.creationDateText == CaptureDate(exif: clock)?.iso8601)
    }
}
