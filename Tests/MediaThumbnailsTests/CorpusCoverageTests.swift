import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

@Suite("Thumbnails of the whole corpus")
struct CorpusCoverageTests {
    @Test("every supported corpus image gets a thumbnail of the requested size; the rest a readable reason",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func everyImage() throws {
        let request = ThumbnailRequest(maxPixelSize: 256)
        var made: [String: Int] = [:], failed: [String: Int] = [:], unsupported: [String: Int] = [:]
        for entry in ThumbnailTestSupport.manifestEntries {
            guard let path = ThumbnailTestSupport.path(entry.path),
                  let source = try? FileByteSource(path: path),
                  let format = try? MetadataReader.detectFormat(source), format.mediaType == .image else { continue }
            let key = format.rawValue
            let reading = Corpus.exiftool[entry.path]
            do {
                let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: request)
                made[key, default: 0] += 1
                // The longer side is the request, or the picture's own when smaller.
                let longer = max(thumbnail.width, thumbnail.height)
                if case .rawEmbeddedPreview(let w, let h) = thumbnail.path {
                    #expect(longer == min(256, max(w, h)), "\(entry.path)")
                } else if let w = reading?["File:ImageWidth"]?.number, let h = reading?["File:ImageHeight"]?.number,
                          format != .heic, format != .heif, format != .avif {
                    // HEIF's File:ImageWidth is the un-rotated ispe size; the longer side is the same.
                    #expect(longer == min(256, Int(max(w, h))), "\(entry.path): \(thumbnail.width)×\(thumbnail.height) from \(Int(w))×\(Int(h))")
                } else {
                    #expect(longer <= 256 && longer > 0)
                }
                #expect(thumbnail.data.starts(with: [0xFF, 0xD8]))
            } catch let error as ThumbnailError {
                // A reason is always a readable sentence.
                #expect(!error.description.isEmpty)
                if case .unsupportedFormat = error { unsupported[key, default: 0] += 1 } else { failed[key, default: 0] += 1 }
                print("no thumbnail: \(entry.path) [\(key)]: \(error)")
            }
        }
        print("thumbnails made per format: \(made.sorted { $0.key < $1.key })")
        print("decode failures per format: \(failed.sorted { $0.key < $1.key })")
        print("unsupported per format: \(unsupported.sorted { $0.key < $1.key })")
        // Floors measured on this corpus; the failures left are damaged files and
        // libheif 1.15 rejections, each printed above with its reason.
        #expect((made["jpeg"] ?? 0) >= 290)
        #expect((made["png"] ?? 0) >= 44)
        #expect((made["heic"] ?? 0) >= 22)
        #expect((made["gif"] ?? 0) >= 11)
        #expect((made["webp"] ?? 0) >= 13)
        // The fifth, a 10-bit 20-megapixel AVIF, is refused: beyond the AV1 decoding budget.
        #expect((made["avif"] ?? 0) >= 4)
        #expect((made["tiff"] ?? 0) >= 27)
        #expect((made["bmp"] ?? 0) >= 3)
        #expect((made["jxl"] ?? 0) >= 2)
        // Every format the indexer records as an image has a decoder, except raws without an
        // embedded preview and the formats docs/thumbnails.md lists as not decoded.
        let undecoded = unsupported.filter { entry in
            guard let format = MediaFormat(rawValue: entry.key) else { return true }
            return !format.isRaw && ThumbnailGenerator.formatsWithoutDecoder[format] == nil
        }
        #expect(undecoded.isEmpty, "no decoder for: \(undecoded)")
    }
}
