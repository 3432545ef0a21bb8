import CorpusSupport
import Testing
@testable import MediaMetadata

/// Sigma X3F files built in code.
enum X3FFixture {
    /// A `SECp` property section with UTF-16LE names and values.
    static func properties(_ pairs: [(String, String)]) -> [UInt8] {
        var chars: [UInt16] = []
        var entries: [UInt8] = []
        for (name, value) in pairs {
            entries += riffLE32(UInt32(chars.count))
            chars += Array(name.utf16) + [0]
            entries += riffLE32(UInt32(chars.count))
            chars += Array(value.utf16) + [0]
        }
        return Array("SECp".utf8) + riffLE32(0x0002_0000) + riffLE32(UInt32(pairs.count)) + riffLE32(0) + riffLE32(0)
            + riffLE32(UInt32(chars.count)) + entries + chars.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    /// Header (version 2.2, width, height), the sections, then the `SECd` directory and
    /// its offset.
    static func file(width: UInt32 = 2268, height: UInt32 = 1512, sections: [(String, [UInt8])]) -> [UInt8] {
        var out = Array("FOVb".utf8) + riffLE32(0x0002_0002) + [UInt8](repeating: 0x30, count: 16) + riffLE32(0)
            + riffLE32(width) + riffLE32(height) + riffLE32(0) + [UInt8](repeating: 0, count: 32)
        var directory = Array("SECd".utf8) + riffLE32(0x0002_0000) + riffLE32(UInt32(sections.count))
        for (type, bytes) in sections {
            directory += riffLE32(UInt32(out.count)) + riffLE32(UInt32(bytes.count)) + Array(type.utf8)
            out += bytes
        }
        let directoryOffset = out.count
        return out + directory + riffLE32(UInt32(directoryOffset))
    }

    static var sd10: [UInt8] {
        file(sections: [("PROP", properties([("CAMMANUF", "SIGMA"), ("CAMMODEL", "SIGMA SD10"), ("TIME", "978309395")]))])
    }
}

@Suite("X3F reader (Sigma)")
struct X3FReaderTests {
    @Test("reads make, model, size and date of every corpus X3F like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("X3F vs exiftool")
        let files = formatsCorpusFiles(ofTypes: ["X3F"])
        #expect(files.count >= 2)
        for file in files {
            let m = try #require(try MetadataReader.read(FileByteSource(path: file.url.path)))
            tally.compare("make", file.path, ours: m.make, reference: file.exiftool["SigmaRaw:Make"]?.string)
            tally.compare("model", file.path, ours: m.model, reference: file.exiftool["SigmaRaw:Model"]?.string)
            // The raw's own size (the Composite size of exiftool's DP2 sample is its placeholder JPEG's).
            tally.compare("width", file.path, ours: m.pixelWidth, reference: file.exiftool["SigmaRaw:ImageWidth"]?.number.map { Int($0) })
            tally.compare("height", file.path, ours: m.pixelHeight, reference: file.exiftool["SigmaRaw:ImageHeight"]?.number.map { Int($0) })
            let date = file.exiftool["SigmaRaw:DateTimeOriginal"]?.string.flatMap { CaptureDate(exif: $0) }
            tally.compare("date", file.path, ours: m.captureDate, reference: date)
            // The DP2's embedded JPEG carries EXIF: its DateTimeOriginal must agree too.
            if let exifDate = file.exiftool["ExifIFD:DateTimeOriginal"]?.string.flatMap({ CaptureDate(exif: $0) }) {
                tally.compare("EXIF date", file.path, ours: m.captureDate, reference: exifDate)
                tally.compare("EXIF make", file.path, ours: m.make, reference: file.exiftool["IFD0:Make"]?.string)
            }
        }
        tally.printTable()
        tally.expectAgreement(minimum: 1)
    }

    @Test("reads the header size and the PROP section of an X3F built in code")
    func builtX3F() throws {
        let m = try #require(try MetadataReader.read(MemoryByteSource(X3FFixture.sd10)))
        #expect(m.format == .x3f)
        #expect(m.pixelWidth == 2268 && m.pixelHeight == 1512)
        #expect(m.make == "SIGMA" && m.model == "SIGMA SD10")
        #expect(m.captureDate == CaptureDate(year: 2001, month: 1, day: 1, hour: 0, minute: 36, second: 35))
        #expect(m.captureDateSource == .x3fPropertyTime)
        #expect(m.warnings.isEmpty, "\(m.warnings)")
    }

    @Test("reads the EXIF of the full-size JPEG section (SECi version 2.0, type 2, format 18)")
    func embeddedJPEG() throws {
        let exif = Fixture.tiff(ifd0: [.ascii(0x010F, "SIGMA"), .ascii(0x0110, "SIGMA DP2")],
                                exif: [.ascii(0x9003, "2009:11:28 13:05:20")])
        let jpeg: [UInt8] = [0xFF, 0xD8] + Fixture.segment(0xE1, Array("Exif\0\0".utf8) + exif)
            + Fixture.sof(width: 8, height: 8) + [0xFF, 0xD9]
        let section = Array("SECi".utf8) + [0, 0, 2, 0] + riffLE32(2) + riffLE32(18) + riffLE32(640) + riffLE32(480) + riffLE32(0) + jpeg
        let m = try #require(try MetadataReader.read(MemoryByteSource(X3FFixture.file(width: 2640, height: 1760, sections: [("IMA2", section)]))))
        #expect(m.make == "SIGMA" && m.model == "SIGMA DP2")
        #expect(m.pixelWidth == 2640 && m.pixelHeight == 1760)  // the raw's, not the JPEG's
        #expect(m.captureDate == CaptureDate(year: 2009, month: 11, day: 28, hour: 13, minute: 5, second: 20))
        #expect(m.captureDateSource == .exifDateTimeOriginal)
    }

    @Test("every truncation of an X3F returns or throws MetadataError")
    func truncations() {
        readEveryTruncation(X3FFixture.sd10, X3FReader.read)
    }

    @Test("survives a lying directory pointer, huge counts and property positions past the characters")
    func hostile() throws {
        var lying = X3FFixture.sd10
        lying.replaceSubrange((lying.count - 4)..., with: riffLE32(0xFFFF_FFF0))
        let l = try X3FReader.read(MemoryByteSource(lying)).metadata
        #expect(l.pixelWidth == 2268 && l.make == nil)
        #expect(l.warnings.contains { $0.contains("SECd") })

        // A directory claiming 4 billion entries, and a section running past the end.
        let huge = X3FFixture.file(sections: [("PROP", X3FFixture.properties([("CAMMANUF", "SIGMA")]))])
        var patched = huge
        let directoryOffset = Int(TIFFDirectoryWalker.u32(huge, huge.count - 4, true))
        patched.replaceSubrange((directoryOffset + 8)..<(directoryOffset + 12), with: riffLE32(0xFFFF_FFFF))
        patched.replaceSubrange((directoryOffset + 16)..<(directoryOffset + 20), with: riffLE32(0x7FFF_FFFF))
        let h = try X3FReader.read(MemoryByteSource(patched)).metadata
        #expect(h.warnings.contains { $0.contains("4294967295") })
        #expect(h.warnings.contains { $0.contains("past the end") })

        // Properties: a count larger than the section, positions past the characters.
        var props = X3FFixture.properties([("CAMMANUF", "SIGMA"), ("CAMMODEL", "SD")])
        props.replaceSubrange(8..<12, with: riffLE32(0xFFFF_FFFF))
        var m = MediaMetadata(format: .x3f)
        X3FReader.readProperties(props, into: &m)
        #expect(m.warnings.contains { $0.contains("claims 4294967295") })
        var bad = X3FFixture.properties([("CAMMANUF", "SIGMA")])
        bad.replaceSubrange(24..<28, with: riffLE32(0xFFFF_FFFF))
        var b = MediaMetadata(format: .x3f)
        X3FReader.readProperties(bad, into: &b)
        #expect(b.make == nil)

        #expect(throws: MetadataError.self) { try X3FReader.read(MemoryByteSource(Array("FOVb".utf8))) }
    }
}
