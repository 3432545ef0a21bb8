import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

@Suite("ISO-BMFF reader on the synthetic cases")
struct ISOBMFFSyntheticTests {
    private func read(_ path: String, format: MediaFormat) throws -> ContainerReading {
        let folder = try #require(Corpus.synthetic)
        return try ISOBMFFReader.read(FileByteSource(path: folder.appendingPathComponent(path).path), format: format)
    }

    /// `EXPECTED.json`'s `video` section.
    private var expectedVideo: [String: JSONValue] {
        guard let folder = Corpus.synthetic,
              let data = try? Data(contentsOf: folder.appendingPathComponent("EXPECTED.json")),
              let value = try? JSONDecoder().decode(JSONValue.self, from: data),
              case .object(let video)? = value["video"] else { return [:] }
        return video
    }

    @Test("a rotated MP4 with GPS: display size, place and creation date hold exactly",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func rotatedGPS() throws {
        let expected = try #require(expectedVideo["video-kinds/rotated-gps.mp4"])
        let m = try read("video-kinds/rotated-gps.mp4", format: .mp4).metadata
        #expect(m.durationSeconds == expected["durationSeconds"]?.number)
        #expect(m.displaySize?.width == expected["displayWidth"]?.number.map(Int.init))
        #expect(m.displaySize?.height == expected["displayHeight"]?.number.map(Int.init))
        #expect(m.location?.latitude == expected["latitude"]?.number)
        #expect(m.location?.longitude == expected["longitude"]?.number)
        #expect(m.captureDate?.iso8601 == expected["creationDate"]?.string)
    }

    @Test("a slow-motion MOV plays at its 240 fps capture rate",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func slowMotion() throws {
        let expected = try #require(expectedVideo["video-kinds/slomo.MOV"])
        let m = try read("video-kinds/slomo.MOV", format: .quickTime).metadata
        #expect(m.durationSeconds == expected["durationSeconds"]?.number)
        #expect(m.frameRate == expected["frameRate"]?.number)
    }

    @Test("Android slow-motion and time-lapse movies carry their capture rate",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func androidCaptureRate() throws {
        for path in ["video-kinds/android-slomo.mp4", "video-kinds/android-timelapse.mp4"] {
            let reference = try #require(Corpus.syntheticExiftool[path]?["Keys:AndroidCaptureFps"]?.number)
            let m = try read(path, format: .mp4).metadata
            #expect(m.captureFrameRate == reference, "\(path)")
        }
    }

    @Test("live-photo movies carry the content identifier exiftool reads",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func liveMovieIdentifiers() throws {
        let movies = Corpus.syntheticExiftool.keys.filter { $0.hasSuffix(".MOV") }.sorted()
        #expect(movies.count >= 5)
        for path in movies {
            let reference = Corpus.syntheticExiftool[path]?["Keys:ContentIdentifier"]?.string
            let m = try read(path, format: .quickTime).metadata
            #expect(m.contentIdentifier == reference, "\(path)")
            #expect(m.durationSeconds == Corpus.syntheticExiftool[path]?["QuickTime:Duration"]?.number, "\(path)")
        }
    }

    @Test("synthetic HEICs hand over their EXIF and XMP and report exiftool's image size",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func syntheticHEIC() throws {
        let stills = Corpus.syntheticExiftool.keys.filter { $0.hasSuffix(".HEIC") }.sorted()
        #expect(stills.count >= 3)
        for path in stills {
            let reference = try #require(Corpus.syntheticExiftool[path])
            let reading = try read(path, format: .heic)
            let size = reference["Composite:ImageSize"]?.string?.split(separator: " ").compactMap { Int($0) }
            #expect(size == [reading.metadata.pixelWidth ?? -1, reading.metadata.pixelHeight ?? -1], "\(path)")
            #expect(reading.exif != nil, "\(path)")
            #expect(reading.xmp != nil, "\(path)")
        }
    }
}
