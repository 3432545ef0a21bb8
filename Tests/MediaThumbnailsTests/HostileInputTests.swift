import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

@Suite("Thumbnails of hostile input")
struct HostileInputTests {
    static func bytes(_ relative: String) -> [UInt8]? {
        guard let path = ThumbnailTestSupport.path(relative) else { return nil }
        return FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    static func firstCorpusFile(_ predicate: ([String: JSONValue]) -> Bool) -> String? {
        ThumbnailTestSupport.corpusFiles { predicate($0) && $0["ExifTool:Error"] == nil }.first
    }

    @Test("a truncated JPEG gives a partial thumbnail with a warning, or a readable error",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func truncatedJPEG() throws {
        guard let file = Self.firstCorpusFile({ $0["File:FileType"]?.string == "JPEG" && ($0["File:ImageWidth"]?.number ?? 0) > 1000 }),
              let whole = Self.bytes(file) else { Issue.record("no large JPEG"); return }
        for fraction in [0.9, 0.5, 0.2, 0.01] {
            let cut = Array(whole.prefix(Int(Double(whole.count) * fraction)))
            do {
                let thumbnail = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(cut), format: .jpeg, orientation: 1,
                                                                 request: ThumbnailRequest(maxPixelSize: 512))
                #expect(!thumbnail.warnings.isEmpty, "a file cut at \(fraction) should report partial decoding")
                #expect(max(thumbnail.width, thumbnail.height) == 512)
            } catch let error as ThumbnailError {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test("a JPEG declaring 65000×65000 is refused before decoding",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func jpegBomb() throws {
        guard let file = Self.firstCorpusFile({ $0["File:FileType"]?.string == "JPEG" && $0["File:EncodingProcess"]?.number == 0 && $0["IFD1:ThumbnailLength"] == nil && $0["IFD0:Make"] == nil }),
              var bytes = Self.bytes(file) else { Issue.record("no baseline JPEG"); return }
        // Patch the SOF0 frame header's height and width.
        guard let sof = (2..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else { return }
        bytes[sof + 5] = 0xFD; bytes[sof + 6] = 0xE8; bytes[sof + 7] = 0xFD; bytes[sof + 8] = 0xE8
        #expect(throws: ThumbnailError.imageTooLarge(width: 65000, height: 65000, limit: ThumbnailGenerator.defaultPixelLimit)) {
            try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .jpeg, orientation: 1, request: ThumbnailRequest())
        }
    }

    /// A PNG whose header declares `width`×`height`, with a token IDAT.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        ThumbnailTestSupport.pngFile(width: width, height: height, bitDepth: 8, colourType: 2,
                                     chunks: [("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])])
    }

    @Test("a PNG declaring 100000×100000 is refused before decoding")
    func pngBomb() {
        let bytes = Self.pngHeader(width: 100_000, height: 100_000)
        #expect(throws: ThumbnailError.imageTooLarge(width: 100_000, height: 100_000, limit: ThumbnailGenerator.defaultPixelLimit)) {
            try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .png, orientation: 1, request: ThumbnailRequest())
        }
    }

    @Test("a GIF declaring a 65535×65535 screen is refused")
    func gifBomb() {
        let bytes: [UInt8] = Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0,
                                                    0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 2, 0, 0x3B]
        #expect(throws: ThumbnailError.self) {
            try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .gif, orientation: 1, request: ThumbnailRequest())
        }
    }

    @Test("a corrupt or truncated HEIC gives a readable error, never a crash",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corruptHEIC() throws {
        guard let entry = ThumbnailTestSupport.manifestEntries.first(where: { $0.categories.contains("heic") && $0.path.hasSuffix(".HEIC") }),
              let whole = Self.bytes(entry.path) else { Issue.record("no HEIC"); return }
        var scrambled = whole
        for i in stride(from: whole.count / 3, to: whole.count, by: 97) { scrambled[i] ^= 0x5A }
        for bytes in [Array(whole.prefix(whole.count / 3)), Array(whole.prefix(200)), scrambled] {
            do {
                _ = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .heic, orientation: nil,
                                                     request: ThumbnailRequest(maxPixelSize: 1024))
            } catch let error as ThumbnailError {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test("garbage in every format gives a readable error", arguments: [MediaFormat.jpeg, .png, .gif, .webp, .heic, .avif, .dng, .cr3])
    func garbage(format: MediaFormat) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(throws: ThumbnailError.self) {
            try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: format, orientation: 1, request: ThumbnailRequest())
        }
    }
}
