import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

/// A file's own star rating, EXIF `Rating` (0x4746) else its embedded `xmp:Rating`,
/// against exiftool's reading of the corpus.
@Suite("Star rating from the file itself")
struct RatingCorpusTests {
    @Test("each corpus file gives the rating exiftool reads from its EXIF or XMP, and none where exiftool reads none",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func agreesWithExiftool() throws {
        guard let media = Corpus.media else { return }
        var rated = 0, compared = 0
        var disagreements: [String] = []
        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string, let reference = Corpus.exiftool[path],
                  reference["ExifTool:Error"] == nil,
                  let ours = try? MetadataReader.read(FileByteSource(path: media.appendingPathComponent(path).path))
            else { continue }
            let expected = (reference["IFD0:Rating"] ?? reference["ExifIFD:Rating"] ?? reference["XMP-xmp:Rating"])?
                .number.flatMap(MediaMetadata.starRating(xmp:))
            compared += 1
            if expected != nil { rated += 1 }
            if ours.rating != expected {
                disagreements.append("\(path): ours \(ours.rating.map(String.init) ?? "none"), exiftool \(expected.map(String.init) ?? "none")")
            }
        }
        #expect(rated >= 30, "corpus files with a rating: \(rated)")
        #expect(compared >= 400, "media files compared: \(compared)")
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
    }

    @Test("an XMP rating is rounded and clamped to -1 (rejected) … 5; one that is not a number is none")
    func starRatingFromXMP() {
        #expect(MediaMetadata.starRating(xmp: 3.4) == 3)
        #expect(MediaMetadata.starRating(xmp: 4.5) == 5)
        #expect(MediaMetadata.starRating(xmp: 9) == 5)
        #expect(MediaMetadata.starRating(xmp: -7) == -1)
        #expect(MediaMetadata.starRating(xmp: .nan) == nil)
        #expect(MediaMetadata.starRating(xmp: .infinity) == nil)
    }
}
