import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

@Suite("HEIF decoding: planar RGB and our HEVC decoder")
struct HEIFDecodingTests {
    /// Corpus HEIC, HEIF and AVIF files libheif can open, with their bytes.
    static func corpusHEIFs() -> [(path: String, bytes: [UInt8])] {
        ThumbnailTestSupport.corpusFiles {
            ["HEIC", "HEIF", "AVIF"].contains($0["File:FileType"]?.string ?? "") && $0["ExifTool:Error"] == nil
        }.compactMap { file in
            guard let path = ThumbnailTestSupport.path(file), let source = try? FileByteSource(path: path),
                  let bytes = try? source.readExactly(at: 0, count: Int(source.size)) else { return nil }
            return (file, bytes)
        }
    }

    static func decode(_ bytes: [UInt8], size: Int, skipLoopFilters: Bool = true, viaPlanes: Bool = true) throws -> PixelBuffer {
        try bytes.withUnsafeBufferPointer {
            try HEIFDecoder.decode($0, request: ThumbnailRequest(maxPixelSize: size), pixelLimit: ThumbnailGenerator.defaultPixelLimit,
                                   threads: 0, skipLoopFiltersWhenShrinking: skipLoopFilters, viaPlanes: viaPlanes).image
        }
    }

    @Test("our libde265 decoder plugin is registered with libheif")
    func pluginIsRegistered() {
        #expect(HEVCDecoderPlugin.isAvailable)
    }

    @Test("shrinking libheif's RGB planes gives the colours of its interleaved RGB",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func planesMatchInterleavedRGB() throws {
        // Given every readable corpus HEIF, decoded with the loop filters on both ways
        var compared = 0
        for (file, bytes) in Self.corpusHEIFs() {
            guard let reference = try? Self.decode(bytes, size: 96, skipLoopFilters: false, viaPlanes: false) else { continue }
            // When the thumbnail is made from planar RGB instead
            let ours = try Self.decode(bytes, size: 96, skipLoopFilters: false)
            // Then it has the same size and, pixel by pixel, nearly the same colours
            #expect(ours.width == reference.width && ours.height == reference.height, "\(file)")
            let difference = ThumbnailTestSupport.meanAbsoluteDifference(ours, reference)
            let means = ThumbnailTestSupport.meanColour(ours).map { Int($0) }, referenceMeans = ThumbnailTestSupport.meanColour(reference).map { Int($0) }
            print("planar vs interleaved RGB: \(file): mean difference \(difference), mean colour \(means) vs \(referenceMeans)")
            #expect(difference < 1, "\(file) differs from libheif's RGB by \(difference) per channel")
            compared += 1
        }
        #expect(compared >= 15)
    }

    @Test("skipping deblocking and SAO on a 4×-shrunk HEIC changes the thumbnail imperceptibly",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func skippedLoopFiltersAreInvisible() throws {
        var compared = 0, changed = 0
        for (file, bytes) in Self.corpusHEIFs() where file.lowercased().hasSuffix(".heic") || file.lowercased().hasSuffix(".heif") {
            // Given a HEIC shrunk to 256 px with and without the in-loop filters
            guard let filtered = try? Self.decode(bytes, size: 256, skipLoopFilters: false) else { continue }
            let fast = try Self.decode(bytes, size: 256)
            let difference = ThumbnailTestSupport.meanAbsoluteDifference(fast, filtered)
            print("loop filters skipped: \(file): mean difference \(difference)")
            // Then the two differ by less than one level in 255 on average
            #expect(difference < 1, "\(file): \(difference)")
            compared += 1
            if difference > 0 { changed += 1 }
        }
        #expect(compared >= 10)
        // And the switch really reaches the decoder: large pictures do change a little.
        #expect(changed >= 3)
    }
}
