import CorpusSupport
import Testing
@testable import MediaMetadata

/// Canon CIFF heaps built in code (little-endian).
enum CIFFFixture {
    indirect enum Record {
        /// A value stored in the heap's data area.
        case data(UInt16, [UInt8])
        /// A value stored in the record itself (8 bytes).
        case inline(UInt16, [UInt8])
        /// A nested heap (tag type 0x2800 or 0x3000).
        case heap(UInt16, [Record])
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { riffLE32(v) }

    /// A heap: the records' data, then the table (count, 10-byte records), then the
    /// table's offset.
    static func heap(_ records: [Record]) -> [UInt8] {
        var data: [UInt8] = []
        var table: [UInt8] = le16(UInt16(records.count))
        for record in records {
            switch record {
            case .data(let tag, let bytes):
                table += le16(tag) + le32(UInt32(bytes.count)) + le32(UInt32(data.count))
                data += bytes
            case .inline(let tag, let bytes):
                table += le16(tag | 0x4000) + Array((bytes + [UInt8](repeating: 0, count: 8)).prefix(8))
            case .heap(let tag, let children):
                let child = heap(children)
                table += le16(tag) + le32(UInt32(child.count)) + le32(UInt32(data.count))
                data += child
            }
        }
        return data + table + le32(UInt32(data.count))
    }

    /// A file: the 26-byte header (`II`, length, `HEAP` + kind, version) and the root heap.
    static func file(kind: String = "CCDR", _ records: [Record]) -> [UInt8] {
        Array("II".utf8) + le32(26) + Array("HEAP\(kind)".utf8) + le32(0x0001_0002) + [UInt8](repeating: 0, count: 8)
            + heap(records)
    }

    static var powerShot: [Record] {
        [.data(0x2008, [0xFF, 0xD8, 0xFF, 0xD9]),  // a thumbnail, ignored
         .heap(0x300A, [
            .data(0x1810, le32(2272) + le32(1704) + [0, 0, 0x80, 0x3F] + le32(0)),
            .data(0x180E, le32(1_114_278_876) + le32(0) + le32(0)),  // 2005-04-23 17:54:36
            .inline(0x1817, le32(1_303_050)),
            .heap(0x2807, [.data(0x0810, Array("Owner\0".utf8)),
                           .data(0x080A, Array("Canon\0Canon PowerShot S40\0\0\0".utf8))]),
         ])]
    }
}

@Suite("CIFF reader (Canon CRW)")
struct CIFFReaderTests {
    @Test("reads make, model, size and date of every corpus CRW and CIFF JPEG like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("CIFF vs exiftool")
        let files = formatsCorpusFiles(ofTypes: ["CRW", "JPEG"]).filter {
            $0.exiftool["File:FileType"]?.string == "CRW" || formatsHasGroup($0.exiftool, "CIFF:")
        }
        #expect(files.count >= 5)
        for file in files {
            let m: MediaMetadata?
            do { m = try MetadataReader.read(FileByteSource(path: file.url.path)) } catch {
                tally.record("read", file.path, agree: !formatsHasGroup(file.exiftool, "CanonRaw:Make"), detail: "threw \(error)")
                continue
            }
            // A JPEG with both EXIF and CIFF (exiftool's own ExifTool.jpg): EXIF wins.
            let hasExif = formatsHasGroup(file.exiftool, "IFD0:")
            let group = file.exiftool["File:FileType"]?.string == "CRW" ? "CanonRaw" : hasExif ? "IFD0" : "CIFF"
            tally.compare("make", file.path, ours: m?.make, reference: file.exiftool["\(group):Make"]?.string)
            tally.compare("model", file.path, ours: m?.model, reference: file.exiftool["\(group):Model"]?.string)
            let size = formatsReferenceImageSize(file.exiftool)
            tally.compare("width", file.path, ours: m?.pixelWidth, reference: size?.0)
            tally.compare("height", file.path, ours: m?.pixelHeight, reference: size?.1)
            let dateKey = hasExif ? "ExifIFD:DateTimeOriginal" : "\(group):DateTimeOriginal"
            let date = file.exiftool[dateKey]?.string.flatMap { CaptureDate(exif: $0) }
            tally.compare("date", file.path, ours: m?.captureDate, reference: date)
        }
        tally.printTable()
        tally.expectAgreement(minimum: 1)
    }

    @Test("reads a CRW built in code: nested heaps, in-record values, make and model")
    func builtCRW() throws {
        let bytes = CIFFFixture.file(CIFFFixture.powerShot)
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .crw)
        #expect(m.make == "Canon" && m.model == "Canon PowerShot S40")
        #expect(m.pixelWidth == 2272 && m.pixelHeight == 1704)
        #expect(m.captureDate == CaptureDate(year: 2005, month: 4, day: 23, hour: 17, minute: 54, second: 36))
        #expect(m.captureDate?.utcOffsetSeconds == nil)
        #expect(m.captureDateSource == .ciffTimeStamp)
        #expect(m.warnings.isEmpty, "\(m.warnings)")
    }

    @Test("reads the CIFF heap an old PowerShot wrote into a JPEG's APP0; EXIF wins where present")
    func ciffInJPEG() throws {
        let ciff = CIFFFixture.file(kind: "JPGM", CIFFFixture.powerShot)
        func jpeg(exif: [UInt8]?) -> [UInt8] {
            var out: [UInt8] = [0xFF, 0xD8] + Fixture.segment(0xE0, ciff)
            if let exif { out += Fixture.segment(0xE1, Array("Exif\0\0".utf8) + exif) }
            return out + Fixture.sof(width: 640, height: 480) + Fixture.segment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + [0xFF, 0xD9]
        }
        let m = try #require(try MetadataReader.read(MemoryByteSource(jpeg(exif: nil))))
        #expect(m.make == "Canon" && m.model == "Canon PowerShot S40")
        #expect(m.pixelWidth == 640 && m.pixelHeight == 480)  // the frame, not the CIFF record
        #expect(m.captureDateSource == .ciffTimeStamp)

        let exif = Fixture.tiff(ifd0: [.ascii(0x010F, "Other"), .ascii(0x0110, "Camera")])
        let withExif = try #require(try MetadataReader.read(MemoryByteSource(jpeg(exif: exif))))
        #expect(withExif.make == "Other" && withExif.model == "Camera")
    }

    @Test("every truncation of a CRW returns or throws MetadataError")
    func truncations() {
        readEveryTruncation(CIFFFixture.file(CIFFFixture.powerShot), CIFFReader.read)
    }

    @Test("survives a lying table pointer, a huge record count, records outside their heap and deep nesting")
    func hostileHeaps() throws {
        // The root heap's table pointer points past the heap.
        var lying = CIFFFixture.file(CIFFFixture.powerShot)
        lying.replaceSubrange((lying.count - 4)..., with: CIFFFixture.le32(0xFFFF_FFF0))
        #expect(throws: MetadataError.self) { try CIFFReader.read(MemoryByteSource(lying)) }

        // A table claiming 65535 records holds only what fits before the pointer.
        var many = CIFFFixture.file([.data(0x080A, Array("Canon\0X\0".utf8))])
        let tableAt = 26 + 8
        many.replaceSubrange(tableAt..<(tableAt + 2), with: [0xFF, 0xFF])
        let m = try CIFFReader.read(MemoryByteSource(many)).metadata
        #expect(m.make == "Canon")
        #expect(m.warnings.contains { $0.contains("65535") })

        // A record whose data lies outside its heap: skipped with a warning.
        let outside = CIFFFixture.file([.inline(0x0000, []), .data(0x1810, CIFFFixture.le32(10) + CIFFFixture.le32(10))])
        var patched = outside
        // The second record's offset field: table at 26 + 8 data bytes, count 2, record 2 at +12, offset at +6.
        let recordAt = 26 + 8 + 2 + 10
        patched.replaceSubrange((recordAt + 6)..<(recordAt + 10), with: CIFFFixture.le32(0x7FFF_0000))
        let o = try CIFFReader.read(MemoryByteSource(patched)).metadata
        #expect(o.pixelWidth == nil)
        #expect(o.warnings.contains { $0.contains("outside its heap") })

        // Heaps nested far deeper than the cap: read to the cap, no deeper, no crash.
        var nested: [CIFFFixture.Record] = [.data(0x080A, Array("Deep\0Down\0".utf8))]
        for _ in 0..<40 { nested = [.heap(0x300A, nested)] }
        let d = try CIFFReader.read(MemoryByteSource(CIFFFixture.file(nested))).metadata
        #expect(d.make == nil)

        // Garbage after a valid header.
        #expect(throws: MetadataError.self) {
            try CIFFReader.read(MemoryByteSource(Array("II".utf8) + CIFFFixture.le32(0xFFFF_FFFF) + Array("HEAPCCDR".utf8)))
        }
    }
}
