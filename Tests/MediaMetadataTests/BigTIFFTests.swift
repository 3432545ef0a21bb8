import CorpusSupport
import Testing
@testable import MediaMetadata

/// BigTIFF files built in code: header `II+\0` (or `MM\0+`), offset size 8, then
/// 8-byte directory counts, 20-byte entries and 8-byte offsets.
enum BigTIFFFixture {
    struct Entry { var tag: UInt16; var type: UInt16; var count: UInt64; var bytes: [UInt8] }

    static func int(_ v: UInt64, _ width: Int, _ le: Bool) -> [UInt8] {
        let bytes = (0..<width).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        return le ? bytes : bytes.reversed()
    }

    /// IFD0 with `ifd0` entries and, when `exif` is given, an Exif IFD pointed to by an
    /// IFD8 entry; values longer than 8 bytes are stored after each directory.
    static func file(littleEndian le: Bool, ifd0: [Entry], exif: [Entry] = []) -> [UInt8] {
        func directorySize(_ entries: [Entry]) -> Int {
            8 + entries.count * 20 + 8 + entries.reduce(0) { $0 + ($1.bytes.count > 8 ? $1.bytes.count : 0) }
        }
        var ifd0 = ifd0
        let ifd0Offset = 16
        if !exif.isEmpty {
            ifd0.append(Entry(tag: 0x8769, type: 18, count: 1, bytes: []))  // placeholder, sized below
        }
        let exifOffset = ifd0Offset + directorySize(ifd0)
        ifd0 = ifd0.map { $0.tag == 0x8769 ? Entry(tag: 0x8769, type: 18, count: 1, bytes: int(UInt64(exifOffset), 8, le)) : $0 }
        var out: [UInt8] = (le ? Array("II".utf8) : Array("MM".utf8)) + int(43, 2, le) + int(8, 2, le) + int(0, 2, le)
            + int(UInt64(ifd0Offset), 8, le)
        func write(_ entries: [Entry]) {
            let start = out.count
            var dataOffset = start + 8 + entries.count * 20 + 8
            var data: [UInt8] = []
            out += int(UInt64(entries.count), 8, le)
            for e in entries.sorted(by: { $0.tag < $1.tag }) {
                out += int(UInt64(e.tag), 2, le) + int(UInt64(e.type), 2, le) + int(e.count, 8, le)
                if e.bytes.count <= 8 {
                    out += e.bytes + [UInt8](repeating: 0, count: 8 - e.bytes.count)
                } else {
                    out += int(UInt64(dataOffset), 8, le)
                    data += e.bytes
                    dataOffset += e.bytes.count
                }
            }
            out += int(0, 8, le) + data
        }
        write(ifd0)
        if !exif.isEmpty { write(exif) }
        return out
    }

    static func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let b = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt64(b.count), bytes: b)
    }

    static func camera(littleEndian le: Bool) -> [UInt8] {
        file(littleEndian: le,
             ifd0: [Entry(tag: 0x0100, type: 16, count: 1, bytes: int(6000, 8, le)),  // LONG8
                    Entry(tag: 0x0101, type: 3, count: 1, bytes: int(4000, 2, le)),
                    ascii(0x010F, "Maker"),  // inline: 6 bytes
                    ascii(0x0110, "A Model Name Longer Than Eight"),
                    Entry(tag: 0x0112, type: 3, count: 1, bytes: int(6, 2, le))],
             exif: [ascii(0x9003, "2021:05:06 07:08:09")])
    }
}

@Suite("BigTIFF")
struct BigTIFFTests {
    @Test("reads the size of every corpus BigTIFF like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("BigTIFF vs exiftool")
        let files = formatsCorpusFiles(ofTypes: ["BTF"])
        #expect(files.count >= 4)
        for file in files {
            let m = try TIFFReader.read(FileByteSource(path: file.url.path), format: .tiff).metadata
            let size = formatsReferenceImageSize(file.exiftool)
            tally.compare("width", file.path, ours: m.pixelWidth, reference: size?.0)
            tally.compare("height", file.path, ours: m.pixelHeight, reference: size?.1)
            tally.compare("make", file.path, ours: m.make, reference: file.exiftool["IFD0:Make"]?.string)
        }
        tally.printTable()
        tally.expectAgreement(minimum: 1)
    }

    @Test("reads size, make, model, orientation and the Exif IFD's date in both byte orders", arguments: [true, false])
    func camera(littleEndian: Bool) throws {
        // Given a BigTIFF with LONG8 and SHORT sizes, inline and out-of-line text, an IFD8 pointer,
        let bytes = BigTIFFFixture.camera(littleEndian: littleEndian)
        // when it is read through the detector and the TIFF reader,
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        // then every field comes out.
        #expect(m.format == .tiff)
        #expect(m.pixelWidth == 6000 && m.pixelHeight == 4000)
        #expect(m.make == "Maker")
        #expect(m.model == "A Model Name Longer Than Eight")
        #expect(m.orientation == 6)
        #expect(m.captureDate == CaptureDate(year: 2021, month: 5, day: 6, hour: 7, minute: 8, second: 9))
        #expect(m.captureDateSource == .exifDateTimeOriginal)
        #expect(m.warnings.isEmpty, "\(m.warnings)")
    }

    @Test("every truncation of a BigTIFF returns or throws MetadataError")
    func truncations() {
        readEveryTruncation(BigTIFFFixture.camera(littleEndian: true)) { try TIFFReader.read($0, format: .tiff) }
    }

    @Test("survives lying counts and offsets: 2^63 entries, offsets at the end of UInt64")
    func lyingFields() throws {
        let le = true
        // A directory claiming 2^63 entries: capped, then dropped as running past the end.
        var huge = BigTIFFFixture.camera(littleEndian: le)
        huge.replaceSubrange(16..<24, with: BigTIFFFixture.int(1 << 63, 8, le))
        #expect(throws: MetadataError.self) { try TIFFReader.read(MemoryByteSource(huge), format: .tiff) }

        // IFD0 at offset 0xFFFF_FFFF_FFFF_FFF0: no overflow, a readable error.
        var far = BigTIFFFixture.camera(littleEndian: le)
        far.replaceSubrange(8..<16, with: BigTIFFFixture.int(0xFFFF_FFFF_FFFF_FFF0, 8, le))
        #expect(throws: MetadataError.self) { try TIFFReader.read(MemoryByteSource(far), format: .tiff) }

        // A value offset and a count at the end of UInt64: the value is skipped.
        let bad = BigTIFFFixture.file(littleEndian: le, ifd0: [
            BigTIFFFixture.Entry(tag: 0x0100, type: 3, count: 1, bytes: BigTIFFFixture.int(10, 2, le)),
            BigTIFFFixture.Entry(tag: 0x0101, type: 3, count: 1, bytes: BigTIFFFixture.int(20, 2, le)),
            BigTIFFFixture.Entry(tag: 0x010F, type: 2, count: 16, bytes: BigTIFFFixture.int(UInt64.max - 4, 8, le)),
            BigTIFFFixture.Entry(tag: 0x0110, type: 2, count: UInt64.max, bytes: BigTIFFFixture.int(16, 8, le)),
            BigTIFFFixture.Entry(tag: 0x8769, type: 18, count: 1, bytes: BigTIFFFixture.int(UInt64.max, 8, le)),
        ])
        let m = try TIFFReader.read(MemoryByteSource(bad), format: .tiff).metadata
        #expect(m.pixelWidth == 10 && m.pixelHeight == 20)
        #expect(m.make == nil && m.model == nil)

        // An offset size other than 8 is refused.
        var wrongSize = BigTIFFFixture.camera(littleEndian: le)
        wrongSize[4] = 4
        #expect(throws: MetadataError.self) { try TIFFReader.read(MemoryByteSource(wrongSize), format: .tiff) }
    }
}
