import CorpusSupport
import Testing
@testable import MediaMetadata

/// JPEG XL codestreams and containers built in code.
enum JXLFixture {
    /// Writes bits least-significant first, as JPEG XL does.
    struct BitWriter {
        var bytes: [UInt8] = []
        var bitCount = 0
        mutating func write(_ value: UInt64, _ count: Int) {
            for i in 0..<count {
                if bitCount % 8 == 0 { bytes.append(0) }
                if value >> UInt64(i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1) << UInt8(bitCount % 8) }
                bitCount += 1
            }
        }
    }

    /// `FF 0A`, a SizeHeader with explicit 30-bit dimensions (or a ratio), and the start
    /// of ImageMetadata carrying `orientation`.
    static func codestream(width: UInt64, height: UInt64, ratio: UInt64 = 0, orientation: Int = 1) -> [UInt8] {
        var w = BitWriter()
        w.write(0, 1)  // not div8
        w.write(3, 2); w.write(height - 1, 30)
        w.write(ratio, 3)
        if ratio == 0 { w.write(3, 2); w.write(width - 1, 30) }
        w.write(0, 1)  // all_default = false
        w.write(1, 1)  // extra_fields
        w.write(UInt64(orientation - 1), 3)
        return [0xFF, 0x0A] + w.bytes + [0, 0, 0, 0]
    }

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        Fixture.be32(UInt32(body.count + 8)) + Array(type.utf8) + body
    }

    /// A container: signature, `ftyp`, the given boxes.
    static func container(_ boxes: [[UInt8]]) -> [UInt8] {
        JXLReader.containerSignature + box("ftyp", Array("jxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8)) + boxes.flatMap { $0 }
    }

    static var camera: [UInt8] {
        let exif = Fixture.tiff(ifd0: [.ascii(0x010F, "NIKON CORPORATION"), .ascii(0x0110, "NIKON D1X"), .short(0x0112, 1)],
                                exif: [.ascii(0x9003, "2004:06:21 23:37:53")])
        let stream = codestream(width: 200, height: 130, orientation: 6)
        return container([
            box("Exif", Fixture.be32(0) + exif),
            box("xml ", Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)),
            box("brob", Array("jumb".utf8) + [1, 2, 3]),
            // The codestream split over two parts, cut inside the size header.
            box("jxlp", Fixture.be32(0) + Array(stream.prefix(5))),
            box("jxlp", Fixture.be32(0x8000_0001) + Array(stream.dropFirst(5))),
        ])
    }
}

@Suite("JPEG XL reader")
struct JXLReaderTests {
    @Test("reads the size of every corpus JPEG XL, and the Exif box's make, model and date, like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("JPEG XL vs exiftool")
        let files = formatsCorpusFiles(ofTypes: ["JXL", "JXL Codestream"])
        #expect(files.count >= 3)
        for file in files {
            let m = try #require(try MetadataReader.read(FileByteSource(path: file.url.path)))
            let size = formatsReferenceImageSize(file.exiftool)
            tally.compare("width", file.path, ours: m.pixelWidth, reference: size?.0)
            tally.compare("height", file.path, ours: m.pixelHeight, reference: size?.1)
            tally.compare("make", file.path, ours: m.make, reference: file.exiftool["IFD0:Make"]?.string)
            tally.compare("model", file.path, ours: m.model, reference: file.exiftool["IFD0:Model"]?.string)
            let date = file.exiftool["ExifIFD:DateTimeOriginal"]?.string.flatMap { CaptureDate(exif: $0) }
            tally.compare("date", file.path, ours: m.captureDate.map { FidelityTableTests.civil($0) },
                          reference: date.map { FidelityTableTests.civil($0) })
            tally.compare("orientation", file.path, ours: m.orientation,
                          reference: file.exiftool["IFD0:Orientation"]?.number.map { Int($0) })
        }
        tally.printTable()
        tally.expectAgreement(minimum: 1)
    }

    @Test("decodes the size header: small (div8) sizes, 30-bit sizes, every aspect ratio")
    func sizeHeader() throws {
        // exiftool's 22-byte sample: 200 × 130, explicit 9-bit dimensions.
        #expect(JXLReader.decodeHeaders([0xFF, 0x0A, 0x08, 0x04, 0x8E, 0x81, 0x3C]) == .init(width: 200, height: 130, orientation: 1))
        // div8: height (5 bits + 1) × 8 = 64, ratio 0, width 8 × 32 = 256.
        var w = JXLFixture.BitWriter()
        w.write(1, 1); w.write(7, 5); w.write(0, 3); w.write(31, 5); w.write(1, 1)  // all_default
        #expect(JXLReader.decodeHeaders([0xFF, 0x0A] + w.bytes) == .init(width: 256, height: 64, orientation: 1))
        let big = JXLReader.decodeHeaders(JXLFixture.codestream(width: 100_000, height: 70_000, orientation: 8))
        #expect(big == .init(width: 100_000, height: 70_000, orientation: 8))
        let ratios: [UInt64: UInt64] = [1: 1200, 2: 1440, 3: 1600, 4: 1800, 5: 2133, 6: 1500, 7: 2400]
        for (ratio, width) in ratios {
            let h = JXLReader.decodeHeaders(JXLFixture.codestream(width: 0, height: 1200, ratio: ratio))
            #expect(h?.width == Int(width) && h?.height == 1200, "ratio \(ratio)")
        }
        #expect(JXLReader.decodeHeaders([0xFF, 0x0A, 0x06]) == nil)  // cut short
    }

    @Test("reads a container built in code: split codestream, Exif with its offset prefix, XMP; skips brob")
    func container() throws {
        let reading = try JXLReader.read(MemoryByteSource(JXLFixture.camera))
        #expect(reading.metadata.pixelWidth == 200 && reading.metadata.pixelHeight == 130)
        #expect(reading.exif?.starts(with: Array("MM".utf8)) == true)
        #expect(reading.xmp?.starts(with: Array("<x:xmpmeta".utf8)) == true)
        #expect(reading.metadata.warnings.contains { $0.contains("Brotli") && $0.contains("jumb") })
        let m = try #require(try MetadataReader.read(MemoryByteSource(JXLFixture.camera)))
        #expect(m.format == .jpegXL)
        #expect(m.make == "NIKON CORPORATION" && m.model == "NIKON D1X")
        // The codestream's orientation governs display; EXIF's 1 is ignored.
        #expect(m.orientation == 6)
        #expect(m.captureDate == CaptureDate(year: 2004, month: 6, day: 21, hour: 23, minute: 37, second: 53))
    }

    @Test("every truncation of a JPEG XL container and codestream returns or throws MetadataError")
    func truncations() {
        readEveryTruncation(JXLFixture.camera, JXLReader.read)
        readEveryTruncation(JXLFixture.codestream(width: 640, height: 480), JXLReader.read)
    }

    @Test("survives lying box sizes: below the header, 64-bit huge, an Exif offset past the box")
    func hostileBoxes() throws {
        let tooSmall = JXLFixture.container([Fixture.be32(3) + Array("jxlc".utf8)])
        let s = try JXLReader.read(MemoryByteSource(tooSmall)).metadata
        #expect(s.warnings.contains { $0.contains("impossible size") })

        let huge = JXLFixture.container([Fixture.be32(1) + Array("jxlc".utf8) + Fixture.be32(0xFFFF_FFFF) + Fixture.be32(0xFFFF_FFFF)
                                         + JXLFixture.codestream(width: 10, height: 20)])
        let h = try JXLReader.read(MemoryByteSource(huge)).metadata
        #expect(h.pixelWidth == 10 && h.pixelHeight == 20)
        #expect(h.warnings.contains { $0.contains("past the end") })

        let badExif = JXLFixture.container([JXLFixture.box("Exif", Fixture.be32(0xFFFF_FFF0) + [1, 2, 3, 4]),
                                            JXLFixture.box("jxlc", JXLFixture.codestream(width: 10, height: 20))])
        let e = try JXLReader.read(MemoryByteSource(badExif))
        #expect(e.exif == nil)
        #expect(e.metadata.warnings.contains { $0.contains("outside the box") })

        // Thousands of empty boxes: bounded by the box budget.
        let many = JXLFixture.container(Array(repeating: JXLFixture.box("free", []), count: 12_000))
        let b = try JXLReader.read(MemoryByteSource(many)).metadata
        #expect(b.warnings.contains { $0.contains("more than") })

        #expect(throws: MetadataError.self) { try JXLReader.read(MemoryByteSource([0xFF, 0x0A, 0x00])) }
    }
}
