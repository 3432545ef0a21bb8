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

    static func decode(_ bytes: [UInt8], size: Int, skipLoopFilters: Bool = true, viaPlanes: Bool = true,
                       direct: Bool = true) throws -> PixelBuffer {
        try bytes.withUnsafeBufferPointer {
            try HEIFDecoder.decode($0, request: ThumbnailRequest(maxPixelSize: size), pixelLimit: ThumbnailGenerator.defaultPixelLimit,
                                   threads: 0, skipLoopFiltersWhenShrinking: skipLoopFilters, viaPlanes: viaPlanes,
                                   direct: direct).image
        }
    }

    /// Whether the primary image of `bytes` takes the direct (tile by tile) path.
    static func decodesDirectly(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { (try? HEIFDirectDecoder($0)) != nil }
    }

    /// Compares the direct path with libheif's on `bytes`, returning the mean difference.
    /// Nil when libheif cannot decode the file.
    static func compareDirect(_ file: String, _ bytes: [UInt8], size: Int, skipLoopFilters: Bool) throws -> Double? {
        guard let reference = try? decode(bytes, size: size, skipLoopFilters: skipLoopFilters, direct: false) else { return nil }
        let ours = try decode(bytes, size: size, skipLoopFilters: skipLoopFilters)
        #expect(ours.width == reference.width && ours.height == reference.height,
                "\(file): \(ours.width)×\(ours.height) vs \(reference.width)×\(reference.height)")
        return ThumbnailTestSupport.meanAbsoluteDifference(ours, reference)
    }

    @Test("a HEIC decoded tile by tile without libheif matches libheif's decode",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func directDecodeMatchesLibheif() throws {
        var compared = 0, grids = 0, rotated = 0
        for (file, bytes) in Self.corpusHEIFs() where Self.decodesDirectly(bytes) {
            // Given a HEIC whose primary image is HEVC, shrunk past its thumbnail item, filters on and off
            for skip in [false, true] {
                guard let difference = try Self.compareDirect(file, bytes, size: 512, skipLoopFilters: skip) else { continue }
                print("direct vs libheif (skip filters \(skip)): \(file): mean difference \(difference)")
                // Then the thumbnails have the same size and nearly the same colours
                #expect(difference < 1, "\(file) differs from libheif's decode by \(difference) per channel")
            }
            guard (try? Self.decode(bytes, size: 512, direct: false)) != nil else { continue }
            compared += 1
            let plan = try bytes.withUnsafeBufferPointer { try HEIFDirectDecoder($0) }
            if plan.pieces.count > 1 { grids += 1 }
            if plan.swapsAxes { rotated += 1 }
        }
        #expect(compared >= 15)
        #expect(grids >= 10)
        #expect(rotated >= 3)
    }

    @Test("a mirrored grid HEIC decoded tile by tile is mirrored as libheif mirrors it",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func directDecodeMirrors() throws {
        // Given grid HEICs whose irot box is rewritten as an imir box (same size; axis from the low bit)
        var axes: Set<UInt8> = []
        for (file, original) in Self.corpusHEIFs() where Self.decodesDirectly(original) {
            var bytes = original
            let irot = Array("irot".utf8)
            guard let at = (0..<(bytes.count - 5)).first(where: { Array(bytes[$0..<($0 + 4)]) == irot }),
                  !axes.contains(bytes[at + 4] & 1) else { continue }
            bytes.replaceSubrange(at..<(at + 4), with: Array("imir".utf8))
            // Then the direct decode matches libheif's
            guard let difference = try Self.compareDirect(file, bytes, size: 300, skipLoopFilters: true) else { continue }
            axes.insert(bytes[at + 4] & 1)
            print("direct vs libheif, mirrored (axis \(bytes[at + 4] & 1)): \(file): mean difference \(difference)")
            #expect(difference < 1, "\(file) mirrored differs by \(difference)")
            if axes.count == 2 { break }
        }
        #expect(axes.count == 2)
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
            // Without a colr box libheif 1.15 converts as full range; we follow the HEVC VUI
            // (limited range by default), as vips does (ColourAgreementTests): not comparable.
            let reading = Corpus.exiftool[file] ?? [:]
            if reading["QuickTime:ColorProfiles"] == nil && reading["ICC_Profile:ProfileDescription"] == nil { continue }
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
