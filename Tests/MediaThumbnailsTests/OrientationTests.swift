import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

@Suite("Thumbnail orientation")
struct OrientationTests {
    static let folder = "recurser-exif-orientation-examples"

    @Test("every EXIF orientation of the recurser set gives the same upright thumbnail",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"), arguments: ["Landscape", "Portrait"])
    func recurserSetLooksIdentical(set: String) throws {
        // Given the files of one set and exiftool's orientation for each
        let files = ThumbnailTestSupport.corpusFiles { _ in true }
            .filter { $0.hasPrefix("\(Self.folder)/\(set)_") }
        #expect(files.count >= 3, "the corpus should hold several \(set) files")
        guard let referencePath = files.first(where: { $0.hasSuffix("_1.jpg") }),
              let absolute = ThumbnailTestSupport.path(referencePath) else {
            Issue.record("no \(set)_1.jpg in the corpus"); return
        }
        let request = ThumbnailRequest(maxPixelSize: 128)
        let reference = try ThumbnailTestSupport.pixels(ofJPEG: ThumbnailGenerator.thumbnail(ofFileAt: absolute, request: request).data)

        var rotatedSeen = 0
        for file in files where file != referencePath {
            guard let path = ThumbnailTestSupport.path(file) else { continue }
            let orientation = Int(Corpus.exiftool[file]?["IFD0:Orientation"]?.number ?? 1)
            // When the thumbnail is made with the file's orientation
            let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: request)
            let pixels = try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data)
            // Then it matches the orientation-1 picture
            #expect(pixels.width == reference.width && pixels.height == reference.height,
                    "\(file) (orientation \(orientation)) is \(pixels.width)×\(pixels.height), expected \(reference.width)×\(reference.height)")
            let difference = ThumbnailTestSupport.meanAbsoluteDifference(pixels, reference)
            #expect(difference < 12, "\(file) (orientation \(orientation)) differs by \(difference) per channel")
            print("orientation \(set) \(file.split(separator: "/").last ?? ""): EXIF \(orientation), mean difference \(difference)")

            // And the comparison has teeth: without orientation, a rotated file differs.
            if (2...8).contains(orientation), let source = try? FileByteSource(path: path) {
                let unrotated = try ThumbnailGenerator.thumbnail(of: source, format: .jpeg, orientation: 1, request: request)
                let raw = try ThumbnailTestSupport.pixels(ofJPEG: unrotated.data)
                let rawDifference = ThumbnailTestSupport.meanAbsoluteDifference(raw, reference)
                #expect(rawDifference > 20, "\(file) without orientation should look different (got \(rawDifference))")
                rotatedSeen += 1
            }
        }
        #expect(rotatedSeen >= 1, "the \(set) set should contain rotated files")
    }

    @Test("the eight orientations map pixels as EXIF defines them")
    func orientationMapping() {
        // Given a 3×2 image whose pixels are numbered 0…5 in stored order
        let stored = PixelBuffer(width: 3, height: 2, channels: 1, pixels: [0, 1, 2, 3, 4, 5])
        // Then each orientation shows them in the documented order
        let expected: [Int: (Int, Int, [UInt8])] = [
            1: (3, 2, [0, 1, 2, 3, 4, 5]),
            2: (3, 2, [2, 1, 0, 5, 4, 3]),
            3: (3, 2, [5, 4, 3, 2, 1, 0]),
            4: (3, 2, [3, 4, 5, 0, 1, 2]),
            5: (2, 3, [0, 3, 1, 4, 2, 5]),
            6: (2, 3, [3, 0, 4, 1, 5, 2]),
            7: (2, 3, [5, 2, 4, 1, 3, 0]),
            8: (2, 3, [2, 5, 1, 4, 0, 3]),
        ]
        for (orientation, (w, h, pixels)) in expected.sorted(by: { $0.key < $1.key }) {
            let result = stored.oriented(orientation)
            #expect(result.width == w && result.height == h && result.pixels == pixels, "orientation \(orientation)")
        }
    }
}
