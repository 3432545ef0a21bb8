import CorpusSupport
import Foundation
import LoopbackHTTPClient
@testable import MediaIndex
import Testing
@testable import MediaIndexServer
#if canImport(Glibc)
import Glibc
#endif

/// A served library of the files given (corpus files copied, or files a closure writes
/// into the root), with its own cache folder.
final class RenditionFixture: @unchecked Sendable {
    let directory = NSTemporaryDirectory() + "mediaindex-renditions-" + UUID().uuidString
    var root: String { directory + "/Pictures" }
    let library: MediaLibrary
    let server: MediaIndexServer

    init(corpus: [String: String], make: (String) throws -> Void = { _ in }) throws {
        try FileManager.default.createDirectory(atPath: directory + "/Pictures", withIntermediateDirectories: true)
        for (name, relative) in corpus {
            try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + relative, toPath: directory + "/Pictures/" + name)
        }
        try make(directory + "/Pictures")
        library = try MediaLibrary(location: LibraryLocation(directory: directory + "/library"),
                                   cache: ThumbnailCache(directory: URL(fileURLWithPath: directory + "/cache")))
        _ = try library.blocking.index(roots: [PathBytes(directory + "/Pictures")])
        let policy = AccessPolicy(address: ListenAddress(host: "127.0.0.1", port: 0, isIPv6: false), token: ServeToken.random(),
                                  allowedOrigin: nil)
        server = try MediaIndexServer(configuration: MediaIndexAPI.Configuration(library: library, policy: policy,
                                                                                isReadOnly: false, watcherState: { [] }))
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> LoopbackResponse {
        try LoopbackClient.send(port: server.address.port, path: path, headers: headers, timeout: 300)
    }

    /// The identifier of the asset whose primary file is named `name`.
    func id(_ name: String) throws -> String {
        let assets = try library.blocking.fetchAssets(FetchOptions.everyAsset).assets
        let asset = assets.first { $0.primaryResource.map { MediaIndexAPI.fileName($0.path) == name } ?? false }
        return try require(asset, "no asset has the file \(name)").id.rawValue
    }

    /// Asks until the rendition is no longer being made (202), at most `seconds`.
    func waitForRendition(_ path: String, seconds: Double = 300) throws -> LoopbackResponse {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let response = try get(path)
            if response.status != 202 || Date() > deadline { return response }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }
}

@Suite("Photo renditions over HTTP", .serialized)
struct PhotoRenditionRouteTests {
    @Test("compatible is the same JPEG by every name of the primary, per version, cached with ETag and Range",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"))
    func sameBytesByEveryName() throws {
        // Given an iPhone HEIC with an edit beside it (IMG_E1929.JPG joins it as fullSizePhoto)
        let fixture = try RenditionFixture(corpus: ["IMG_1929.HEIC": "exiv2-test-data/test/data/2021-02-13-1929.heic",
                                                    "IMG_E1929.JPG": "ianare-exif-samples/jpg/orientation/landscape_6.jpg"])
        let id = try fixture.id("IMG_1929.HEIC")
        let base = "/v1/assets/\(id)/resources/"
        // When the compatible rendition is asked by each name
        let byPrimary = try fixture.get(base + "primary?representation=compatible")
        #expect(byPrimary.status == 200 && byPrimary.header("Content-Type") == "image/jpeg")
        for name in ["photo", "fullSizePhoto"] {
            let other = try fixture.get(base + name + "?representation=compatible")
            #expect(other.body == byPrimary.body, "\(name) gives other bytes than primary")
        }
        // Then the default is the edit (landscape_6 upright: 600×450), and version=original the HEIC
        let original = try fixture.get(base + "photo?representation=compatible&version=original")
        #expect(original.status == 200 && original.body != byPrimary.body)
        #expect(try fixture.get(base + "fullSizePhoto?representation=compatible&version=original").body == original.body)
        #expect(Array(original.body.prefix(2)) == [0xFF, 0xD8])
        // And a repeat comes from the cache: the same entity tag, 304 and 206 on it
        let etag = try require(byPrimary.header("ETag"))
        let started = Date()
        let again = try fixture.get(base + "primary?representation=compatible")
        let elapsed = Date().timeIntervalSince(started)
        #expect(again.header("ETag") == etag && again.body == byPrimary.body)
        print("compatible JPEG repeat served in \(Int(elapsed * 1000)) ms")
        #expect(try fixture.get(base + "primary?representation=compatible", headers: ["If-None-Match": etag]).status == 304)
        let part = try fixture.get(base + "primary?representation=compatible", headers: ["Range": "bytes=0-99"])
        #expect(part.status == 206 && part.body == Array(byPrimary.body.prefix(100)))
        // And other options make another file; bad values are refused
        let srgb = try fixture.get(base + "primary?representation=compatible&version=original&colorspace=srgb&location=omit")
        #expect(srgb.status == 200 && srgb.header("ETag") != original.header("ETag"))
        #expect(try fixture.get(base + "primary?representation=compatible&version=edited").status == 400)
        #expect(try fixture.get(base + "primary?representation=compatible&colorspace=p3").status == 400)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.library.renditionCache.folderPath)
        #expect(files.filter { $0.hasSuffix(".jpg") }.count == 3, "\(files)")
    }

    @Test("the cache keeps the most recently used renditions within its size limit")
    func cacheTrimsLeastRecentlyUsed() throws {
        let directory = NSTemporaryDirectory() + "rendition-cache-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var cache = RenditionCache(cache: ThumbnailCache(directory: URL(fileURLWithPath: directory)),
                                   library: LibraryLocation(directory: directory + "/library"), sizeLimit: 2500)
        for index in 0..<3 {
            try cache.store([UInt8](repeating: UInt8(index), count: 1000), key: "key\(index)", fileExtension: "jpg")
            // Older modification times: key0 used first, key2 last.
            var times = [timespec(tv_sec: 1_000_000 + index, tv_nsec: 0), timespec(tv_sec: 1_000_000 + index, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, cache.path(key: "key\(index)", fileExtension: "jpg"), &times, 0)
        }
        #expect(cache.cachedSize(key: "key0", fileExtension: "jpg") == 1000)  // marks key0 as just used
        // 3000 bytes over a 2500 limit: the least recently used go until 80 % (2000) is left.
        #expect(cache.trim() == 1)
        #expect(cache.cachedSize(key: "key1", fileExtension: "jpg") == nil)
        #expect(cache.cachedSize(key: "key0", fileExtension: "jpg") == 1000)
        #expect(cache.cachedSize(key: "key2", fileExtension: "jpg") == 1000)
        cache.sizeLimit = 1 << 20
        #expect(cache.trim() == 0)
    }
}

/// Runs ffmpeg (or ffprobe) to completion; its standard output.
@discardableResult
func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    String(decoding: try ExternalTool.run("/usr/bin/" + tool, arguments), as: UTF8.self)
}

/// ffprobe's reading of a file: its streams and format.
func probe(_ path: String) throws -> [String: Any] {
    let text = try runTool("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", path])
    return try require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Suite("Video renditions over HTTP", .serialized,
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg is not installed"))
struct VideoRenditionRouteTests {
    /// Short test-made clips (160×120, 1 s, with a tone) in the codecs browsers cannot play,
    /// one browsers can, and one cut off after its header.
    static func makeClips(in folder: String) throws {
        let source = ["-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:d=1:r=10", "-f", "lavfi", "-i", "sine=d=1"]
        try runTool("ffmpeg", source + ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                                        "-tag:v", "hvc1", "-c:a", "aac", "-movflags", "+faststart", folder + "/hevc.mp4"])
        try runTool("ffmpeg", source + ["-c:v", "mpeg4", "-c:a", "libmp3lame", folder + "/mpeg4.avi"])
        try runTool("ffmpeg", source + ["-c:v", "mjpeg", "-c:a", "pcm_s16le", folder + "/mjpeg.avi"])
        try runTool("ffmpeg", source + ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                                        "-movflags", "+faststart", folder + "/h264.mp4"])
        // The header whole, the media data cut off: it indexes as a video, nothing decodes.
        let whole = try Data(contentsOf: URL(fileURLWithPath: folder + "/hevc.mp4"))
        let mdat = try require(whole.range(of: Data("mdat".utf8))).lowerBound
        try whole.prefix(mdat + 64).write(to: URL(fileURLWithPath: folder + "/broken.mp4"))
    }

    /// Where a box type first occurs in a file.
    static func offset(of box: String, in bytes: [UInt8]) -> Int? {
        Data(bytes).range(of: Data(box.utf8))?.lowerBound
    }

    @Test("HEVC, MPEG-4 Part 2 and MJPEG become H.264/AAC MP4 with faststart; H.264 MP4 is served as it is; a cut-off file is 422")
    func transcodesWhatBrowsersCannotPlay() throws {
        let fixture = try RenditionFixture(corpus: Corpus.isAvailable
            ? ["rotated-hevc.mov": "photoprism/pkg/media/video/testdata/quicktime-hvc1.mov"] : [:], make: Self.makeClips)
        var names = ["hevc.mp4", "mpeg4.avi", "mjpeg.avi"]
        if Corpus.isAvailable { names.append("rotated-hevc.mov") }
        for name in names {
            let path = "/v1/assets/\(try fixture.id(name))/resources/primary?representation=compatible"
            // When the rendition is first asked for, it is being made: 202 with progress
            let first = try fixture.get(path)
            #expect(first.status == 202 || first.status == 200, "\(name): \(first.status) \(first.text)")
            if first.status == 202 {
                #expect(first.header("Retry-After") != nil)
                #expect((first.json as? [String: Any])?["state"] as? String == "making")
            }
            // Then it is served as H.264 and AAC in an MP4 whose index comes first
            let done = try fixture.waitForRendition(path)
            #expect(done.status == 200 && done.header("Content-Type") == "video/mp4", "\(name): \(done.status) \(done.text.prefix(300))")
            guard done.status == 200 else { continue }
            let output = fixture.directory + "/out-\(name).mp4"
            try Data(done.body).write(to: URL(fileURLWithPath: output))
            let reading = try probe(output), original = try probe(fixture.root + "/" + name)
            let streams = reading["streams"] as? [[String: Any]] ?? []
            let video = try require(streams.first { $0["codec_type"] as? String == "video" })
            #expect(video["codec_name"] as? String == "h264" && video["pix_fmt"] as? String == "yuv420p", "\(name)")
            let hadAudio = (original["streams"] as? [[String: Any]] ?? []).contains { $0["codec_type"] as? String == "audio" }
            #expect(streams.contains { $0["codec_name"] as? String == "aac" } == hadAudio, "\(name): audio")
            #expect(try #require(Self.offset(of: "moov", in: done.body)) < Self.offset(of: "mdat", in: done.body) ?? 0, "\(name): faststart")
            // And upright: the source's displayed size (its rotation applied), with no rotation left
            let source = try require((original["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == "video" })
            let rotation = ((source["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first).map { abs($0) % 180 } ?? 0
            let (width, height) = (source["width"] as? Int ?? 0, source["height"] as? Int ?? 0)
            let expected = rotation == 90 ? (height, width) : (width, height)
            #expect(video["width"] as? Int == expected.0 && video["height"] as? Int == expected.1,
                    "\(name): \(String(describing: video["width"]))×\(String(describing: video["height"])), expected \(expected)")
            #expect((video["side_data_list"] as? [[String: Any]])?.contains { $0["rotation"] != nil } != true, "\(name): rotation left")
            let part = try fixture.get(path, headers: ["Range": "bytes=0-9"])
            #expect(part.status == 206 && part.body == Array(done.body.prefix(10)))
        }
        let h264 = try fixture.get("/v1/assets/\(try fixture.id("h264.mp4"))/resources/primary?representation=compatible")
        #expect(h264.status == 200)
        #expect(h264.body == Array(try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/h264.mp4"))))
        let broken = try fixture.waitForRendition("/v1/assets/\(try fixture.id("broken.mp4"))/resources/primary?representation=compatible")
        #expect(broken.status == 422 && broken.errorCode == "unconvertible", "\(broken.status) \(broken.text)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.library.renditionCache.folderPath)
            .filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("without ffmpeg the answer is 415 naming it; beyond the concurrent limit 503")
    func missingFFmpegAndBusy() throws {
        let fixture = try RenditionFixture(corpus: [:], make: Self.makeClips)
        let hevc = "/v1/assets/\(try fixture.id("hevc.mp4"))/resources/primary?representation=compatible"
        let mpeg4 = "/v1/assets/\(try fixture.id("mpeg4.avi"))/resources/primary?representation=compatible"
        let directory = fixture.library.location.directory
        MediaLibrary.videoFramesDisabledForTesting.withLock { _ = $0.insert(directory) }
        let refused = try fixture.get(hevc)
        MediaLibrary.videoFramesDisabledForTesting.withLock { _ = $0.remove(directory) }
        #expect(refused.status == 415 && refused.errorCode == "needsFFmpeg")
        #expect(refused.errorMessage?.contains("ffmpeg") == true)

        let jobs = VideoRenditionJobs.shared
        let limit = jobs.maxConcurrent
        jobs.maxConcurrent = 1
        defer { jobs.maxConcurrent = limit }
        #expect(try fixture.get(hevc).status == 202)
        let busy = try fixture.get(mpeg4)
        #expect(busy.status == 503 && busy.header("Retry-After") != nil, "\(busy.status) \(busy.text)")
        #expect(try fixture.waitForRendition(hevc).status == 200)
        #expect(try fixture.waitForRendition(mpeg4).status == 200)
    }

    @Test("a motion photo's embedded movie: Samsung's HEVC becomes H.264 of exiftool's extracted movie's size and length; Google's H.264 is served as it is",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func embeddedVideo() throws {
        let fixture = try RenditionFixture(corpus: ["samsung.heic": "immich-test-assets/formats/motionphoto/samsung-one-ui-6.heic",
                                                    "pixel.jpg": "nom-exif/testdata/motion_photo_pixel_synth.jpg"])
        // The reference: the movie exiftool extracts (QuickTime:MotionPhotoVideo), as ffprobe reads it.
        let extracted = fixture.directory + "/exiftool-motion.mp4"
        try ExternalTool.run("/usr/bin/exiftool", ["-b", "-QuickTime:MotionPhotoVideo", fixture.root + "/samsung.heic"])
            .write(to: URL(fileURLWithPath: extracted))
        let reference = try require((try probe(extracted)["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == "video" })
        #expect(reference["codec_name"] as? String == "hevc")
        let rotation = ((reference["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first).map { abs($0) % 180 } ?? 0
        let (width, height) = (reference["width"] as? Int ?? 0, reference["height"] as? Int ?? 0)
        let expected = rotation == 90 ? (height, width) : (width, height)

        let path = "/v1/assets/\(try fixture.id("samsung.heic"))/resources/embeddedVideo?representation=compatible"
        let done = try fixture.waitForRendition(path, seconds: 600)
        #expect(done.status == 200 && done.header("Content-Type") == "video/mp4", "\(done.status) \(done.text.prefix(300))")
        let output = fixture.directory + "/out-samsung.mp4"
        try Data(done.body).write(to: URL(fileURLWithPath: output))
        let reading = try probe(output)
        let video = try require((reading["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == "video" })
        #expect(video["codec_name"] as? String == "h264" && video["pix_fmt"] as? String == "yuv420p")
        #expect(video["width"] as? Int == expected.0 && video["height"] as? Int == expected.1,
                "\(String(describing: video["width"]))×\(String(describing: video["height"])), expected \(expected)")
        let seconds = { (probe: [String: Any]) in Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? -1 }
        #expect(abs(seconds(reading) - seconds(try probe(extracted))) < 0.15, "\(seconds(reading)) s")
        #expect(try fixture.get(path).header("ETag") == done.header("ETag"))

        // Google's layout (MotionPhotoOffset: the movie is the file's last bytes), H.264: its bytes as they are.
        let pixel = try fixture.get("/v1/assets/\(try fixture.id("pixel.jpg"))/resources/embeddedVideo?representation=compatible")
        let file = try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/pixel.jpg"))
        #expect(pixel.status == 200 && pixel.body == Array(file.suffix(2745)), "\(pixel.status) \(pixel.body.count) bytes")
    }
}
