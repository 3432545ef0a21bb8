import CorpusSupport
import Foundation
import MediaPlaces
import Testing
@testable import MediaIndexCLI

/// The great-circle distance in metres (haversine, the Earth's mean radius).
private func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let radians = Double.pi / 180
    let dLat = (b.0 - a.0) * radians, dLon = (b.1 - a.1) * radians
    let h = pow(sin(dLat / 2), 2) + cos(a.0 * radians) * cos(b.0 * radians) * pow(sin(dLon / 2), 2)
    return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
}

private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

@Suite("Places albums, --near --within and adjust-time from the command line",
       .enabled(if: Corpus.isAvailable && FileManager.default.fileExists(atPath: PlacesData.defaultPath)
                && FileManager.default.isExecutableFile(atPath: ExternalTool.exiftool),
                "needs the corpus, the places data and exiftool"))
struct PlaceAlbumCommandTests {
    static let points = [("tokyo.jpg", 35.6812, 139.7671), ("yokohama.jpg", 35.4437, 139.6380),
                         ("osaka.jpg", 34.7025, 135.4959), ("paris.jpg", 48.8566, 2.3522)]

    /// Photos at the points, written with exiftool, indexed into `folder/library`; exiftool's readings of their positions.
    static func index(in folder: String) async throws -> [String: (Double, Double)] {
        let root = folder + "/photos"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (name, latitude, longitude) in points {
            try FileManager.default.copyItem(atPath: Corpus.media!.path + "/exiftool-t-images/t/images/Google.jpg",
                                            toPath: root + "/" + name)
            try ExternalTool.run(ExternalTool.exiftool, ["-q", "-q", "-overwrite_original", "-all=",
                                                     "-DateTimeOriginal=2023:07:01 12:00:00", "-OffsetTimeOriginal=+09:00",
                                                     "-GPSLatitude=\(latitude)", "-GPSLatitudeRef=N",
                                                     "-GPSLongitude=\(longitude)", "-GPSLongitudeRef=E", root + "/" + name])
        }
        let indexed = await mediaindex(["index", root], folder: folder)
        try #require(indexed.code == 0, "\(indexed.err)")
        let rows = try #require(try json(String(decoding: ExternalTool.run(ExternalTool.exiftool, [
            "-j", "-n", "-Composite:GPSLatitude", "-Composite:GPSLongitude", root]), as: UTF8.self)) as? [[String: Any]])
        var positions: [String: (Double, Double)] = [:]
        for row in rows {
            if let path = row["SourceFile"] as? String, let lat = row["GPSLatitude"] as? Double, let lon = row["GPSLongitude"] as? Double {
                positions[(path as NSString).lastPathComponent] = (lat, lon)
            }
        }
        return positions
    }

    static func total(_ arguments: [String], _ folder: String) async throws -> Int {
        let result = await mediaindex(["assets", "--count", "--json"] + arguments, folder: folder)
        try #require(result.code == 0, "\(arguments): \(result.err)")
        return try #require((try json(result.out) as? [String: Any])?["total"] as? Int)
    }

    @Test("--near LAT,LON --within KM finds what lies within that many km of exiftool's positions, as --near LAT,LON,METRES does")
    func within() async throws {
        let folder = NSTemporaryDirectory() + "mediaindex-places-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let positions = try await Self.index(in: folder)
        #expect(positions.count == Self.points.count)
        let tokyo = (35.6812, 139.7671)
        for kilometres in [1.0, 30, 450, 10_000] {
            let expected = positions.values.filter { metres($0, tokyo) <= kilometres * 1000 }.count
            #expect(try await Self.total(["--near", "35.6812,139.7671", "--within", String(kilometres)], folder) == expected,
                    "\(kilometres) km")
            #expect(try await Self.total(["--near", "35.6812,139.7671,\(kilometres * 1000)"], folder) == expected)
        }
        for (arguments, words) in [(["--within", "5"], "needs --near"), (["--near", "35,139"], "needs --within"),
                                   (["--near", "35,139,100", "--within", "5"], "goes with --near LAT,LON")] {
            let refused = await mediaindex(["assets"] + arguments, folder: folder)
            #expect(refused.code == 64 && refused.err.contains(words), "\(arguments): \(refused.err)")
        }
    }

    @Test("albums lists Places and its countries, --in a country its regions; --album counts as --country does")
    func albums() async throws {
        let folder = NSTemporaryDirectory() + "mediaindex-places-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let positions = try await Self.index(in: folder)
        let places = try PlacesData(path: PlacesData.defaultPath)
        let reference = try positions.values.map { places.lookup(try Coordinate(latitude: $0.0, longitude: $0.1)).place }
        let listed = try #require(try json(await mediaindex(["albums", "--json"], folder: folder).out) as? [[String: Any]])
        let family = listed.filter { $0["kind"] as? String == "place" }
        #expect(family.first?["id"] as? String == "place" && family.first?["count"] as? Int == reference.count)
        #expect(Set(family.dropFirst().compactMap { $0["id"] as? String }) == Set(reference.compactMap { $0.countryCode.map { "place." + $0 } }))
        let japan = try #require(try json(await mediaindex(["albums", "--in", "place.JP", "--json"], folder: folder).out) as? [[String: Any]])
        let inJapan = reference.filter { $0.countryCode == "JP" }
        #expect(Set(japan.compactMap { $0["id"] as? String }) == Set(inJapan.map { "place.JP." + ($0.regionCode ?? "-") }))
        #expect(japan.compactMap { $0["count"] as? Int }.reduce(0, +) == inJapan.count)
        #expect(try await Self.total(["--album", "place.JP"], folder) == (try await Self.total(["--country", "Japan"], folder)))
        for region in japan {
            let id = try #require(region["id"] as? String)
            #expect(try await Self.total(["--album", id], folder) == region["count"] as? Int)
        }
        let refused = await mediaindex(["albums", "--in", "smart.recents"], folder: folder)
        #expect(refused.code == 64)
    }

    @Test("adjust-time sets an offset that wins over the file's, and --reset gives the file's back")
    func adjustTime() async throws {
        let folder = NSTemporaryDirectory() + "mediaindex-places-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await Self.index(in: folder)
        let page = try #require(try json(await mediaindex(["assets", "--json", "--country", "FR"], folder: folder).out) as? [String: Any])
        let id = try #require(((page["assets"] as? [[String: Any]])?.first)?["id"] as? String)
        func shown() async throws -> [String: Any] {
            try #require(try json(await mediaindex(["show", "--json", id], folder: folder).out) as? [String: Any])
        }
        #expect(await mediaindex(["adjust-time", id, "--zone", "Europe/Paris"], folder: folder).code == 0)
        var asset = try await shown()
        // 12:00 on the camera's clock, in Paris in July: +02:00.
        #expect(asset["creationDate"] as? String == "2023-07-01T12:00:00+02:00" && asset["captureOffsetSource"] as? String == "user")
        #expect(await mediaindex(["adjust-time", id, "--reset"], folder: folder).code == 0)
        asset = try await shown()
        #expect(asset["creationDate"] as? String == "2023-07-01T12:00:00+09:00" && asset["captureOffsetSource"] as? String == "exif")
        let refused = await mediaindex(["adjust-time", id, "--offset", "+09:00", "--zone", "Asia/Tokyo"], folder: folder)
        #expect(refused.code == 64 && refused.err.contains("one of"))
    }
}

@Suite("mediaindex places install",
       .enabled(if: FileManager.default.fileExists(atPath: PlacesData.defaultPath)
                && FileManager.default.fileExists(atPath: (ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
                    ?? NSHomeDirectory() + "/.cache") + "/mediaindex/places-build/venv/bin/python"),
                "needs the places data and the build environment scripts/install-places-data made"))
struct PlacesInstallCommandTests {
    /// Runs `mediaindex` in-process with this environment plus `MEDIAINDEX_PLACES_DATA`.
    static func run(_ arguments: [String], data: String) async -> (code: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["MEDIAINDEX_PLACES_DATA"] = data
        let context = CommandContext.capturing(environment: environment)
        let code = await CommandRunner.run(root: MediaIndexCommand.self, arguments: arguments.map { RawArgument($0) },
                                           context: context)
        return (code, context.standardOutput.capturedText, context.standardError.capturedText)
    }

    @Test("runs install-places-data for the data file, then says where it is and the versions recorded in it")
    func install() async throws {
        let folder = NSTemporaryDirectory() + "mediaindex-places-install-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A good file is kept as it is (the script rebuilds only a missing or foreign one, or with --force).
        let data = folder + "/places.mip"
        try FileManager.default.copyItem(atPath: PlacesData.defaultPath, toPath: data)
        let result = await Self.run(["places", "install", "--json"], data: data)
        #expect(result.code == 0, "\(result.err)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(answer["path"] as? String == data)
        #expect(answer["versions"] as? [String: String] == (try PlacesData(path: data).versions))
        #expect(answer["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: data)[.size] as? Int))
        let refused = await Self.run(["places", "update"], data: data)
        #expect(refused.code == 64 && refused.err.contains("install"))
    }
}
