import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

@Suite("Thumbnail fast paths")
struct FastPathTests {
    @Test("a large JPEG is decoded at 1/8 scale by the DCT for a small thumbnail",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func bigJPEGUsesDCTScaling() throws {
        // Given a corpus JPEG at least 2000 px wide, without a usable EXIF thumbnail for 200 px
        let big = ThumbnailTestSupport.corpusFiles {
            $0["File:FileType"]?.string == "JPEG" && ($0["File:ImageWidth"]?.number ?? 0) >= 2000
                && ($0["File:ImageHeight"]?.number ?? 0) >= 1500 && $0["ExifTool:Error"] == nil
        }
        #expect(!big.isEmpty)
        var proven = 0
        for file in big.prefix(10) {
            guard let path = ThumbnailTestSupport.path(file) else { continue }
            // When a 120-px thumbnail is made (1/8 of 2000 px still covers twice that)
            guard let thumbnail = try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 120)) else { continue }
            // Then the DCT scaled by 1/8 and the result is exact
            if thumbnail.path == .jpegDCTScaled(denominator: 8) {
                #expect(max(thumbnail.width, thumbnail.height) == 120)
                proven += 1
            }
        }
        #expect(proven >= 1, "no large JPEG took the 1/8 DCT path")
        print("fast path: \(proven) of \(min(10, big.count)) large JPEGs decoded at 1/8")
    }

    @Test("a large thumbnail of a large JPEG is not DCT-scaled below the requested size",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func dctScaleNeverUndershoots() throws {
        let big = ThumbnailTestSupport.corpusFiles {
            $0["File:FileType"]?.string == "JPEG" && ($0["File:ImageWidth"]?.number ?? 0) >= 3000 && $0["ExifTool:Error"] == nil
        }
        guard let file = big.first, let path = ThumbnailTestSupport.path(file) else { return }
        let width = Int(Corpus.exiftool[file]?["File:ImageWidth"]?.number ?? 0)
        let height = Int(Corpus.exiftool[file]?["File:ImageHeight"]?.number ?? 0)
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 1000))
        #expect(max(thumbnail.width, thumbnail.height) == 1000)
        if case .jpegDCTScaled(let numerator, let denominator) = thumbnail.path {
            // The DCT leaves the area averaging a last step of at least 2× (1.5× at 1/8).
            let step = numerator * 8 == denominator ? JPEGDecoder.minimumLastStepAtOneEighth : JPEGDecoder.minimumLastStep
            #expect(Double(max(width, height) * numerator / denominator) >= 1000 * step)
        }
    }

    @Test("a JPEG whose EXIF thumbnail covers a 64-px request uses it",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func exifThumbnailIsUsed() throws {
        // Given the corpus JPEGs with an EXIF thumbnail
        let withThumbnail = ThumbnailTestSupport.corpusFiles {
            $0["File:FileType"]?.string == "JPEG" && $0["IFD1:ThumbnailLength"] != nil && $0["ExifTool:Error"] == nil
        }
        var used = 0
        for file in withThumbnail {
            guard let path = ThumbnailTestSupport.path(file),
                  let thumbnail = try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 64))
            else { continue }
            if thumbnail.path == .embeddedExifThumbnail {
                used += 1
                // Then the size is the main picture's, scaled to 64
                #expect(max(thumbnail.width, thumbnail.height) == 64, "\(file)")
            }
        }
        print("fast path: \(used) of \(withThumbnail.count) JPEGs with an EXIF thumbnail used it at 64 px")
        #expect(used >= 1)
    }

    @Test("a HEIC thumbnail item covering the request is decoded instead of the primary image",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func heifThumbnailItemIsUsed() throws {
        let heics = ThumbnailTestSupport.manifestEntries.filter { $0.categories.contains("heic") && !$0.categories.contains("corrupted") }
        var used = 0, big = 0
        for entry in heics {
            guard let path = ThumbnailTestSupport.path(entry.path),
                  let thumbnail = try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 128))
            else { continue }
            if thumbnail.path == .heifThumbnailItem {
                used += 1
                #expect(max(thumbnail.width, thumbnail.height) == 128, "\(entry.path)")
                // And a request larger than the item decodes the primary image instead
                if let large = try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 1024)),
                   large.path == .fullDecode {
                    big += 1
                }
            }
        }
        print("fast path: \(used) of \(heics.count) HEICs used a thumbnail item at 128 px; \(big) decoded the primary at 1024")
        #expect(used >= 1)
        #expect(big >= 1)
    }

    @Test("a large WebP is scaled by libwebp while decoding",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func webpScaledDecode() throws {
        let webps = ThumbnailTestSupport.corpusFiles {
            $0["File:FileType"]?.string == "WEBP" && ($0["File:ImageWidth"]?.number ?? 0) > 300
        }
        var scaled = 0
        for file in webps {
            guard let path = ThumbnailTestSupport.path(file),
                  let thumbnail = try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 64)) else { continue }
            if thumbnail.path == .webpScaledDecode { scaled += 1 }
        }
        #expect(webps.isEmpty || scaled >= 1)
    }
}
