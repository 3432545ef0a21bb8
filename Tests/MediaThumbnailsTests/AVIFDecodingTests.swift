import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaThumbnails

@Suite("AVIF decoding through dav1d, within the memory budget")
struct AVIFDecodingTests {
    static let tenBitFile = "immich-test-assets/formats/avif/10bit-HDR-P3-nclx.avif"

    /// `.build/debug/thumbnail-bench` beside the test bundle, else under the package root.
    static let bench: String? = {
        let beside = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("thumbnail-bench").path
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [beside, root.appendingPathComponent(".build/debug/thumbnail-bench").path]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// One 256-px thumbnail of `path` made in a fresh `thumbnail-bench --peak-of` process:
    /// its size and the process's peak resident memory (VmHWM) in MB.
    static func thumbnailInChild(_ path: String) throws -> (width: Int, height: Int, peakMB: Double)? {
        guard let bench else { return nil }
        let outcome = try ExternalTool.outcome(bench, ["--peak-of", path, "--size", "256"])
        let text = outcome.standardOutputText
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard outcome.exitStatus == 0, fields.count == 2, let kb = Double(fields[1]) else {
            Issue.record("thumbnail-bench --peak-of \(path): \(text) \(outcome.standardErrorText)")
            return nil
        }
        let size = fields[0].split(separator: "x").compactMap { Int($0) }
        guard size.count == 2 else { return nil }
        return (size[0], size[1], kb / 1024)
    }

    @Test("the 10-bit 4:4:4 AVIF of 20 megapixels gets a thumbnail of its shape, peaking under 250 MB",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func tenBitAVIFWithinBudget() throws {
        guard let path = ThumbnailTestSupport.path(Self.tenBitFile), let reading = Corpus.exiftool[Self.tenBitFile],
              let width = reading["File:ImageWidth"]?.number, let height = reading["File:ImageHeight"]?.number else {
            Issue.record("\(Self.tenBitFile) is missing from the corpus"); return
        }
        guard Self.bench != nil else {
            if Corpus.isCI { Issue.record("thumbnail-bench is not built (swift build)") }
            print("skipped: thumbnail-bench is not built (swift build)")
            return
        }
        // Given the corpus's 3681×5594 10-bit AVIF, thumbnailed alone in a fresh process
        guard let result = try Self.thumbnailInChild(path) else { return }
        print("10-bit AVIF: \(result.width)×\(result.height), peak \(Int(result.peakMB)) MB")
        // Then the thumbnail has exiftool's shape, 256 px on the longer side
        let expected = ThumbnailGeometry.scaledSize(width: Int(width), height: Int(height),
                                                    request: ThumbnailRequest(maxPixelSize: 256))
        #expect(max(result.width, result.height) == 256)
        #expect(abs(result.width - expected.width) <= 1 && abs(result.height - expected.height) <= 1,
                "\(result.width)×\(result.height), expected \(expected.width)×\(expected.height)")
        // And the process never held more than 250 MB (dav1d's one picture is 124 MB of planes)
        #expect(result.peakMB <= 250, "peak \(result.peakMB) MB")
    }

    @Test("an AVIF decoded by dav1d directly matches libheif's decode of it",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func directMatchesLibheif() throws {
        var compared = 0
        for (file, bytes) in HEIFDecodingTests.corpusHEIFs() where bytes.withUnsafeBufferPointer({ HEIFDecoder.isAV1($0) }) {
            guard HEIFDecodingTests.decodesDirectly(bytes) else { continue }
            let plan = try bytes.withUnsafeBufferPointer { try HEIFDirectDecoder($0) }
            #expect(plan.codec == .av1)
            // Filters on (the small ones are shrunk less than 4×, so they keep them anyway)
            guard let difference = try HEIFDecodingTests.compareDirect(file, bytes, size: 256, skipLoopFilters: false) else { continue }
            print("dav1d direct vs libheif: \(file): mean difference \(difference)")
            #expect(difference < 1, "\(file) differs from libheif's decode by \(difference) per channel")
            compared += 1
        }
        #expect(compared >= 3)
    }

    @Test("skipping AV1's in-loop filters on a 4×-shrunk AVIF changes the thumbnail imperceptibly",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func skippedFiltersImperceptible() throws {
        var compared = 0
        for (file, bytes) in HEIFDecodingTests.corpusHEIFs() where bytes.withUnsafeBufferPointer({ HEIFDecoder.isAV1($0) }) {
            guard HEIFDecodingTests.decodesDirectly(bytes) else { continue }
            let filtered = try HEIFDecodingTests.decode(bytes, size: 256, skipLoopFilters: false)
            let skipped = try HEIFDecodingTests.decode(bytes, size: 256, skipLoopFilters: true)
            let difference = ThumbnailTestSupport.meanAbsoluteDifference(filtered, skipped)
            print("AV1 filters skipped: \(file): mean difference \(difference)")
            #expect(difference < 1, "\(file): \(difference)")
            compared += 1
        }
        #expect(compared >= 3)
    }

    /// An AVIF container whose only item is an av01 picture of `width` × `height` declared
    /// 10-bit 4:4:4 in its av1C, with a few bytes of (undecodable) data.
    static func declaredAVIF(width: Int, height: Int) -> [UInt8] {
        func be(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((value >> (8 * (bytes - 1 - $0))) & 0xFF) } }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be(8 + payload.count, 4) + Array(type.utf8) + payload }
        func full(_ type: String, version: UInt8 = 0, _ payload: [UInt8]) -> [UInt8] { box(type, [version, 0, 0, 0] + payload) }
        let ftyp = box("ftyp", Array("avif".utf8) + be(0, 4) + Array("avifmif1miaf".utf8))
        // av1C: marker 1, version 1; main profile; 10-bit (high_bitdepth), 4:4:4 (no subsampling).
        let av1C = box("av1C", [0x81, 0x08, 0x40, 0x00])
        let properties = box("ipco", full("ispe", be(width, 4) + be(height, 4)) + av1C)
        let ipma = full("ipma", be(1, 4) + be(1, 2) + [2, 0x81, 0x82])
        let payload: [UInt8] = [0x12, 0x00, 0x0A, 0x0A, 0, 0, 0, 0, 0, 0]
        func meta(offset: Int) -> [UInt8] {
            full("meta", full("hdlr", be(0, 4) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                 + full("pitm", be(1, 2))
                 + full("iloc", [0x44, 0x00] + be(1, 2) + be(1, 2) + be(0, 2) + be(1, 2) + be(offset, 4) + be(payload.count, 4))
                 + full("iinf", be(1, 2) + full("infe", version: 2, be(1, 2) + be(0, 2) + Array("av01".utf8) + [0]))
                 + box("iprp", properties + ipma))
        }
        let head = ftyp.count + meta(offset: 0).count + 8
        return ftyp + meta(offset: head) + box("mdat", payload)
    }

    @Test("an AVIF whose one picture would need more than the decode budget is refused before decoding, with its size")
    func refusesOverBudget() throws {
        // Given an AVIF declaring one 10-bit 4:4:4 picture of 8000×6000 (288 MB of planes)
        let bytes = Self.declaredAVIF(width: 8000, height: 6000)
        let plan = try bytes.withUnsafeBufferPointer { try HEIFDirectDecoder($0) }
        #expect(plan.largestAV1PictureBytes == 8000 * 6000 * 3 * 2)
        // When it is thumbnailed
        do {
            _ = try HEIFDecodingTests.decode(bytes, size: 256)
            Issue.record("the AVIF was decoded")
        } catch let error as ThumbnailError {
            // Then it is refused with its size and the limit in pixels, a readable sentence
            guard case .imageTooLarge(let width, let height, let limit) = error else {
                Issue.record("\(error)"); return
            }
            #expect(width == 8000 && height == 6000)
            #expect(limit == HEIFDecoder.maxAV1PictureBytes / 6)
            #expect(error.description.contains("8000×6000"))
        }
    }

    @Test("an AVIF picture within the budget whose data is not AV1 fails with a reason, not a crash")
    func undecodableDataFails() throws {
        let bytes = Self.declaredAVIF(width: 64, height: 48)
        #expect(throws: ThumbnailError.self) { try HEIFDecodingTests.decode(bytes, size: 32) }
    }
}
