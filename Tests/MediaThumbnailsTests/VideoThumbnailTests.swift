import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

@Suite("Video poster frames")
struct VideoThumbnailTests {
    @Test("a corpus movie gets a poster frame of the requested size",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"),
          .enabled(if: ThumbnailGenerator.canMakeVideoThumbnails, "ffmpeg is not installed: video thumbnails are skipped"))
    func posterFrames() throws {
        let videos = ThumbnailTestSupport.manifestEntries.filter { $0.categories.contains("video") && !$0.categories.contains("corrupted") }
        var made = 0, rotatedChecked = 0
        for entry in videos.prefix(12) {
            guard let path = ThumbnailTestSupport.path(entry.path) else { continue }
            do {
                let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 160))
                guard case .videoFrame = thumbnail.path else { Issue.record("\(entry.path) took \(thumbnail.path)"); continue }
                #expect(max(thumbnail.width, thumbnail.height) <= 160)
                made += 1
                // A stream rotated by 90° by its display matrix comes out portrait.
                if case .array(let streams)? = Corpus.ffprobe[entry.path]?["streams"],
                   let video = streams.first(where: { $0["codec_type"]?.string == "video" }),
                   let w = video["width"]?.number, let h = video["height"]?.number, w > h,
                   case .array(let sideData)? = video["side_data_list"],
                   let rotation = sideData.compactMap({ $0["rotation"]?.number }).first, abs(rotation) == 90 {
                    #expect(thumbnail.height > thumbnail.width, "\(entry.path) is rotated 90° but came out landscape")
                    rotatedChecked += 1
                }
            } catch {
                print("no poster frame: \(entry.path): \(error)")
            }
        }
        print("video: \(made) poster frames made of \(min(12, videos.count)); \(rotatedChecked) rotated movies checked")
        #expect(made >= 1)
    }

    @Test("an anamorphic movie's poster frame has the shape players show, as its pixelWidth says",
          .enabled(if: ThumbnailGenerator.canMakeVideoThumbnails, "ffmpeg is not installed: video thumbnails are skipped"),
          arguments: [("64/45", 1024), ("16/15", 768), ("1/1", 720)])
    func anamorphicPosterFrame(sar: String, shownWidth: Int) throws {
        // A PAL 720×576 movie written by ffmpeg with this pixel aspect (its `pasp` box).
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mediaindex-anamorphic-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ffmpeg = try #require(VideoFrameExtractor.ffmpegPath)
        let outcome = try ExternalTool.outcome(ffmpeg, [
            "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=720x576:rate=25", "-t", "0.2",
            "-vf", "setsar=\(sar)", "-c:v", "mpeg4", "-y", path,
        ], timeoutSeconds: 60)
        #expect(outcome.exitStatus == 0, "\(outcome.standardErrorText)")
        let metadata = try #require(try MetadataReader.read(FileByteSource(path: path)))
        #expect(metadata.pixelWidth == shownWidth && metadata.pixelHeight == 576)
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        let expected = ThumbnailGeometry.scaledSize(width: shownWidth, height: 576, request: ThumbnailRequest(maxPixelSize: 256))
        #expect(abs(thumbnail.width - expected.width) <= 1 && abs(thumbnail.height - expected.height) <= 1,
                "\(sar): \(thumbnail.width)×\(thumbnail.height), shown as \(expected.width)×\(expected.height)")
    }

    /// Runs ffmpeg with `arguments` (after `-nostdin -loglevel error`), requiring success.
    static func ffmpeg(_ arguments: [String]) throws {
        let ffmpeg = try #require(VideoFrameExtractor.ffmpegPath)
        let outcome = try ExternalTool.outcome(ffmpeg, ["-nostdin", "-loglevel", "error"] + arguments, timeoutSeconds: 120)
        try #require(outcome.exitStatus == 0, "ffmpeg \(arguments): \(outcome.standardErrorText)")
    }

    @Test("an HDR movie (HLG or PQ, BT.2020) is tone-mapped to SDR: its poster frame is the picture's SDR rendering",
          .enabled(if: ThumbnailGenerator.canMakeVideoThumbnails, "ffmpeg is not installed: video thumbnails are skipped"),
          .enabled(if: VideoFrameExtractor.canToneMap, "this ffmpeg has no zscale or tonemap filter"),
          arguments: [("arib-std-b67", 18, "mov"), ("smpte2084", 16, "mp4")])
    func hdrPosterFrame(transfer: String, code: Int, container: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mediaindex-hdr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sdr = folder.appendingPathComponent("sdr.mp4").path, hdr = folder.appendingPathComponent("hdr.\(container)").path
        // The same colour bars as SDR H.264, and as 10-bit HEVC in BT.2020 with this transfer,
        // its white at BT.2408's 203 cd/m², tagged as a camera tags it.
        let bars = ["-f", "lavfi", "-i", "smptebars=size=640x360:rate=25", "-t", "0.2"]
        try Self.ffmpeg(bars + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-y", sdr])
        try Self.ffmpeg(bars + ["-vf", "zscale=tin=bt709:pin=bt709:min=bt709:t=\(transfer):p=bt2020:m=bt2020nc:r=tv:npl=203,format=yuv420p10le",
                                "-c:v", "libx265", "-x265-params", "log-level=error", "-color_primaries", "bt2020",
                                "-color_trc", transfer, "-colorspace", "bt2020nc", "-tag:v", "hvc1", "-y", hdr])
        let colour = try #require(try MetadataReader.read(FileByteSource(path: hdr))?.videoColour)
        #expect(colour == CodedVideoColour(primaries: 9, transfer: code, matrix: 9) && colour.isHDR)

        let request = ThumbnailRequest(maxPixelSize: 128, format: .jpeg(quality: 100))
        let reference = try ThumbnailTestSupport.pixels(ofJPEG: ThumbnailGenerator.thumbnail(ofFileAt: sdr, request: request).data)
        let toneMapped = try ThumbnailTestSupport.pixels(ofJPEG: ThumbnailGenerator.thumbnail(ofFileAt: hdr, request: request).data)
        let untouched = try VideoFrameExtractor.frame(pathBytes: Array(hdr.utf8), seconds: 0, request: request).image
        let mapped = ColourAgreementTests.blockDifference(toneMapped, reference)
        let raw = ColourAgreementTests.blockDifference(untouched, reference)
        print("\(transfer): tone-mapped poster frame \(mapped) levels from the SDR bars, the HDR signal as it is \(raw)")
        #expect(mapped <= 15, "\(transfer): \(mapped) levels from the SDR rendering")
        #expect(raw > 25, "\(transfer): the untouched HDR signal is only \(raw) levels from SDR: the test would not see a missing tone map")
    }

    @Test("the poster time is the live still time, else 10 % in, at most 1 s")
    func posterTime() {
        #expect(VideoFrameExtractor.posterTime(stillTime: 1.5, duration: 3) == 1.5)
        #expect(abs(VideoFrameExtractor.posterTime(stillTime: nil, duration: 3) - 0.3) < 1e-9)
        #expect(VideoFrameExtractor.posterTime(stillTime: nil, duration: 60) == 1)
        #expect(VideoFrameExtractor.posterTime(stillTime: nil, duration: nil) == 1)
    }
}

@Suite("Live-photo still time")
struct LivePhotoStillTimeTests {
    @Test("a live movie's still-image time is its still-image-time track's leading empty edit, as exiftool's durations give it",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func stillTime() throws {
        // exiftool writes some durations as text.
        func seconds(_ value: JSONValue?) -> Double? { value?.number ?? value?.string.flatMap(Double.init) }
        var checked = 0
        for (relative, reading) in Corpus.exiftool {
            // exiftool: that track's TrackDuration (edit list) less its MediaDuration (the one sample).
            guard let track = (1...8).first(where: { reading["Track\($0):MetaFormat"]?.string == "mebx"
                                                     && seconds(reading["Track\($0):MediaDuration"]) ?? 1 < 0.05 }),
                  let trackDuration = seconds(reading["Track\(track):TrackDuration"]),
                  let mediaDuration = seconds(reading["Track\(track):MediaDuration"]),
                  let path = ThumbnailTestSupport.path(relative),
                  let source = try? FileByteSource(path: path),
                  let metadata = try? MetadataReader.read(source), metadata.hasStillImageTime == true else { continue }
            let expected = trackDuration - mediaDuration
            let seconds = try #require(metadata.stillImageTimeSeconds, "\(relative)")
            #expect(abs(seconds - expected) < 0.01, "\(relative): \(seconds) s, exiftool's durations give \(expected) s")
            checked += 1
        }
        #expect(checked >= 1)
    }
}

@Suite("Video frames leave no file behind")
struct VideoFrameFileTests {
    @Test("a poster frame comes back through a pipe: no frame file appears in the temporary folder",
          .enabled(if: ThumbnailGenerator.canMakeVideoThumbnails, "ffmpeg is not installed: video thumbnails are skipped"))
    func noFrameFile() throws {
        let folder = NSTemporaryDirectory()
        let movie = folder + "/mediaindex-pipe-test-\(UUID().uuidString).mp4"
        defer { try? FileManager.default.removeItem(atPath: movie) }
        let ffmpeg = try #require(VideoFrameExtractor.ffmpegPath)
        let made = try ExternalTool.outcome(ffmpeg, [
            "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=1920x1080:rate=25", "-t", "0.2",
            "-c:v", "mpeg4", "-y", movie,
        ], timeoutSeconds: 60)
        #expect(made.exitStatus == 0)

        // A watcher lists the folder as fast as it can while frames are extracted.
        let seen = LockedFlag()
        let done = LockedFlag()
        let watcher = Thread {
            while !done.value {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if names.contains(where: { $0.hasPrefix("mediaindex-frame-") }) { seen.set() }
            }
        }
        watcher.start()
        for _ in 0..<5 {
            let frame = try VideoFrameExtractor.frame(pathBytes: Array(movie.utf8), seconds: 0.1,
                                                      request: ThumbnailRequest(maxPixelSize: 1024))
            #expect(frame.image.width == 1920 && frame.image.height == 1080)
        }
        done.set()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(!seen.value, "a frame file appeared in \(folder)")
    }

    @Test("frames a killed process left behind are removed, and nothing else")
    func leftoversRemoved() throws {
        let folder = NSTemporaryDirectory() + "/mediaindex-leftovers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let leftover = folder + "/mediaindex-frame-\(UUID().uuidString).ppm"
        let kept = [folder + "/mediaindex-frame-notes.ppm", folder + "/holiday.ppm"]
        for path in [leftover] + kept { FileManager.default.createFile(atPath: path, contents: Data("P6".utf8)) }
        let link = folder + "/mediaindex-frame-\(UUID().uuidString).ppm"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: kept[1])

        #expect(VideoFrameExtractor.removeLeftoverFrames(in: folder) == 1)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(kept.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil, "a link is never followed or removed")
    }
}

/// A flag set by one thread and read by another.
final class LockedFlag: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored = false
    var value: Bool { lock.lock(); defer { lock.unlock() }; return stored }
    func set() { lock.lock(); stored = true; lock.unlock() }
}
