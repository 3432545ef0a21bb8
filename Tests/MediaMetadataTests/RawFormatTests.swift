import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

@Suite("Camera raws beyond the common ones")
struct RawFormatTests {
    typealias Field = Fixture.Field

    /// A TIFF-based raw as the makers write them: IFD0 with Make, Model, Orientation and a
    /// SubIFD holding the full-size CFA image (TIFF/EP; exiftool's 3FR, DCR, ERF, MEF,
    /// MOS, BAY … are this structure, told apart by extension, which we never trust).
    static func tiffRaw(make: String) -> [UInt8] {
        // Fixture.tiff lays out IFD0 then the Exif IFD; the SubIFD's offset is patched after.
        var bytes = Fixture.tiff(ifd0: [.ascii(0x010F, make), .ascii(0x0110, "Model X"), .short(0x0112, 6),
                                        .long(0x0100, 160), .long(0x0101, 120), .long(0x014A, 0)],
                                 exif: [.ascii(0x9003, "2020:01:02 03:04:05")])
        let subIFD = bytes.count
        bytes += Fixture.be16(3)
        bytes += Fixture.be16(0x0100) + Fixture.be16(4) + Fixture.be32(1) + Fixture.be32(7952)
        bytes += Fixture.be16(0x0101) + Fixture.be16(4) + Fixture.be32(1) + Fixture.be32(5304)
        bytes += Fixture.be16(0x0106) + Fixture.be16(3) + Fixture.be32(1) + Fixture.be16(32803) + [0, 0]
        bytes += Fixture.be32(0)
        // Patch the SubIFDs entry (tag 0x014A) of IFD0.
        let count = Int(bytes[8]) << 8 | Int(bytes[9])
        for i in 0..<count {
            let p = 10 + i * 12
            if bytes[p] == 0x01, bytes[p + 1] == 0x4A { bytes.replaceSubrange((p + 8)..<(p + 12), with: Fixture.be32(UInt32(subIFD))) }
        }
        return bytes
    }

    @Test("TIFF-based raws are told apart by their maker and read in full", arguments: [
        ("Hasselblad", MediaFormat.threeFR), ("KODAK", .dcr), ("EASTMAN KODAK COMPANY", .dcr), ("SEIKO EPSON CORP.", .erf),
        ("Mamiya-OP Co.,Ltd.", .mef), ("Leaf", .mos), ("CASIO COMPUTER CO.,LTD.", .bay), ("Phase One", .iiq),
        ("NIKON", .nef), ("SONY", .arw), ("Imacon", .fff),
    ])
    func tiffRaws(make: String, format: MediaFormat) throws {
        let m = try #require(try MetadataReader.read(MemoryByteSource(Self.tiffRaw(make: make))))
        #expect(m.format == format)
        #expect(m.format.isRaw)
        #expect(m.make == make && m.model == "Model X" && m.orientation == 6)
        #expect(m.captureDate?.iso8601 == "2020-01-02T03:04:05")
        // The full-size image is the SubIFD's, not IFD0's thumbnail.
        #expect(m.pixelWidth == 7952 && m.pixelHeight == 5304)
    }

    @Test("a plain TIFF from a maker that also makes raws stays a TIFF")
    func plainTIFF() throws {
        let bytes = Fixture.tiff(ifd0: [.ascii(0x010F, "SEIKO EPSON CORP."), .long(0x0100, 100), .long(0x0101, 80)])
        #expect(try MetadataReader.read(MemoryByteSource(bytes))?.format == .tiff)
    }

    @Test("Leica's RWL is the RW2 structure with Leica's make")
    func leicaRWL() throws {
        var bytes = Fixture.tiff(ifd0: [.ascii(0x010F, "LEICA"), .ascii(0x0110, "D-LUX 7")])
        bytes[2] = 0x00; bytes[3] = 0x55  // "MM\0U"
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .rwl && m.model == "D-LUX 7")
    }

    /// Minolta MRW as exiftool's `MinoltaRaw.pm` and Dalibor Jelínek's MRW description
    /// lay it out: "\0MRM" + big-endian length, then "\0PRD" (ImageHeight at 12,
    /// ImageWidth at 14), "\0TTW" (a TIFF structure), "\0WBG".
    static func mrw() -> [UInt8] {
        func block(_ tag: String, _ data: [UInt8]) -> [UInt8] { [0] + Array(tag.utf8) + Fixture.be32(UInt32(data.count)) + data }
        var prd = Array("21860002".utf8) + Fixture.be16(1544) + Fixture.be16(2056) + Fixture.be16(1536) + Fixture.be16(2048)
        prd += [12, 12, 0x59, 0, 0, 0, 0, 1]
        let ttw = Fixture.tiff(ifd0: [.ascii(0x010F, "Minolta Co., Ltd."), .ascii(0x0110, "DiMAGE A1"), .short(0x0112, 8)],
                               exif: [.ascii(0x9003, "2004:05:06 07:08:09")])
        let blocks = block("PRD", prd) + block("TTW", ttw) + block("WBG", [0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0])
        return [0, 0x4D, 0x52, 0x4D] + Fixture.be32(UInt32(blocks.count)) + blocks + [UInt8](repeating: 0x55, count: 64)
    }

    @Test("reads a Minolta MRW: size from PRD, make, model, date and orientation from its TIFF block")
    func minoltaMRW() throws {
        let m = try #require(try MetadataReader.read(MemoryByteSource(Self.mrw())))
        #expect(m.format == .mrw && m.format.isRaw)
        #expect(m.pixelWidth == 2048 && m.pixelHeight == 1536)
        #expect(m.make == "Minolta Co., Ltd." && m.model == "DiMAGE A1" && m.orientation == 8)
        #expect(m.captureDate?.iso8601 == "2004-05-06T07:08:09")
        // Truncations and lying lengths never crash.
        let bytes = Self.mrw()
        for cut in stride(from: 0, to: bytes.count, by: 7) { _ = try? MetadataReader.read(MemoryByteSource(Array(bytes.prefix(cut)))) }
        var lying = bytes
        lying.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try MetadataReader.read(MemoryByteSource(lying))?.format == .mrw)
    }

    @Test("reads an ARRIRAW header: ARRI, model, size (little-endian, as rawloader reads it)")
    func arriraw() throws {
        var bytes = Array("ARRI".utf8) + [0x12, 0x34, 0x56, 0x78] + [UInt8](repeating: 0, count: 1024)
        bytes.replaceSubrange(20..<28, with: [0x80, 0x0B, 0, 0, 0x38, 0x06, 0, 0])  // 2944 × 1592
        bytes.replaceSubrange(668..<(668 + 11), with: Array("ALEXA Mini\0".utf8))
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .ari && m.make == "ARRI" && m.model == "ALEXA Mini")
        #expect(m.pixelWidth == 2944 && m.pixelHeight == 1592)
        #expect(m.largestPreview == nil)
    }

    @Test("reads the corpus's Kyocera raw as exiftool does (KyoceraRaw:Make, Model, DateTimeOriginal)",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func kyocera() throws {
        let path = "exiftool-t-images/t/images/KyoceraRaw.raw"
        let media = try #require(Corpus.media)
        let reference = try #require(Corpus.exiftool[path])
        let m = try #require(try MetadataReader.read(FileByteSource(path: media.appendingPathComponent(path).path)))
        #expect(m.format == .kyoceraRaw)
        #expect(m.make == reference["KyoceraRaw:Make"]?.string)
        #expect(m.model == reference["KyoceraRaw:Model"]?.string)
        #expect(m.captureDate.map(FidelityTableTests.civil) == reference["KyoceraRaw:DateTimeOriginal"]?.string)
    }

    @Test("the largest embedded preview of each corpus raw is a whole JPEG exiftool locates, and no preview where exiftool's locations hold none",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func previews() throws {
        let media = try #require(Corpus.media)
        var checked = 0, withPreview = 0
        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string, let reference = Corpus.exiftool[path], reference["ExifTool:Error"] == nil,
                  let m = try? MetadataReader.read(FileByteSource(path: media.appendingPathComponent(path).path)),
                  m.format.isRaw else { continue }
            // exiftool's JPEG locations: (start, length) pairs of every group.
            var located: [(UInt64, UInt64)] = []
            for (key, value) in reference {
                for (startName, lengthName) in [("PreviewImageStart", "PreviewImageLength"), ("JpgFromRawStart", "JpgFromRawLength"),
                                                ("ThumbnailOffset", "ThumbnailLength"), ("OtherImageStart", "OtherImageLength")]
                where key.hasSuffix(":" + startName) {
                    let group = key.dropLast(startName.count)
                    if let start = value.number, let length = reference[group + lengthName]?.number, length > 0 {
                        located.append((UInt64(start), UInt64(length)))
                    }
                }
            }
            // Only whole JPEGs count: exiftool's own test files carry placeholder text there,
            // and the corpus's pruned raws end before their previews.
            let source = try FileByteSource(path: media.appendingPathComponent(path).path)
            located = located.filter {
                $0.0 + $0.1 <= source.size && (try? source.read(at: $0.0, count: 2)) == [0xFF, 0xD8]
            }
            // An image that is a tag's own value (Panasonic's `IFD0:JpgFromRaw`, tag 0x2E)
            // has no start in exiftool's output, only its size ("(Binary data N bytes…"):
            // our preview of that size must start as a JPEG does.
            if let preview = m.largestPreview, !located.contains(where: { $0.0 == preview.offset }),
               (try? source.read(at: preview.offset, count: 2)) == [0xFF, 0xD8] {
                for (key, value) in reference {
                    guard let name = key.split(separator: ":").last,
                          ["JpgFromRaw", "PreviewImage", "ThumbnailImage", "OtherImage"].contains(String(name)),
                          reference[key.dropLast(name.count) + (name == "ThumbnailImage" ? "ThumbnailOffset" : name + "Start")] == nil,
                          let text = value.string, text.hasPrefix("(Binary data "),
                          let bytes = UInt64(text.dropFirst("(Binary data ".count).prefix(while: \.isNumber)),
                          bytes == preview.length else { continue }
                    located.append((preview.offset, bytes))
                }
            }
            checked += 1
            guard let longest = located.max(by: { $0.1 < $1.1 }) else {
                // Nothing there to show: a preview would point at bytes that are no JPEG.
                #expect(m.largestPreview == nil, "\(path): \(String(describing: m.largestPreview)), but exiftool locates no whole JPEG")
                continue
            }
            withPreview += 1
            let preview = try #require(m.largestPreview, "\(path): no preview; exiftool locates \(located)")
            #expect(located.contains { $0.0 == preview.offset && $0.1 == preview.length }, "\(path): \(preview) not in \(located)")
            #expect(preview.length * 2 >= longest.1, "\(path): \(preview.length) much shorter than \(longest.1)")
        }
        // Every raw of the corpus that exiftool reads (DNG, NEF, RW2, IIQ, X3F, CR3, RAF, …).
        #expect(checked >= 10, "\(checked) corpus raws checked")
        // Panasonic.rw2's JpgFromRaw; the other raws of the corpus are pruned or hold placeholders.
        #expect(withPreview >= 1)
        print("raw previews: \(checked) corpus raws checked, \(withPreview) with a whole JPEG preview exiftool locates")
    }
}

@Suite("Image formats read by their headers")
struct ImageHeaderReaderTests {
    @Test("reads the pixel size of built headers", arguments: [
        (Array("P6\n# a comment\n640 480\n255\n".utf8) + [1, 2, 3], MediaFormat.netpbm, 640, 480),
        (Array("P7\nWIDTH 32\nHEIGHT 16\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8), .netpbm, 32, 16),
        (Array("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 300 +X 400\n".utf8), .radianceHDR, 400, 300),
        ([0, 0, 0, 0x0C] + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A] + ISOBMFFFixture.box("ftyp", Array("jp2 ".utf8) + [0, 0, 0, 0] + Array("jp2 ".utf8))
            + ISOBMFFFixture.box("jp2h", ISOBMFFFixture.box("ihdr", ISOBMFFFixture.be32(130) + ISOBMFFFixture.be32(200) + [0, 3, 7, 7, 0, 0])), .jpeg2000, 200, 130),
        ([0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F, 0, 0] + ISOBMFFFixture.be32(2717) + ISOBMFFFixture.be32(3701) + [UInt8](repeating: 0, count: 40), .jpeg2000, 2717, 3701),
        ([0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 32, 0] + [UInt8](repeating: 0, count: 16), .ico, 256, 256),
    ] as [([UInt8], MediaFormat, Int, Int)])
    func builtHeaders(bytes: [UInt8], format: MediaFormat, width: Int, height: Int) throws {
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == format)
        #expect(m.pixelWidth == width && m.pixelHeight == height)
    }

    @Test("truncated and lying headers give an asset of the format with a warning, never a crash")
    func hostile() throws {
        let headers: [[UInt8]] = [
            Array("P5\n".utf8), Array("#?RADIANCE\n\n-Y x +X 1\n".utf8), [0xFF, 0x4F, 0xFF, 0x51, 0, 0],
            Array("BPG".utf8) + [0xFB, 0, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], Array("FLIF".utf8) + [0x31, 1, 0xFF, 0xFF],
            Array("PGF6".utf8) + [0xFF, 0xFF, 0xFF, 0xFF], Array("AT&TFORM".utf8) + [0, 0, 0, 4] + Array("DJVU".utf8),
        ]
        for bytes in headers {
            let m = try MetadataReader.read(MemoryByteSource(bytes))
            #expect(m?.pixelWidth == nil, "\(bytes)")
            #expect(m.map { !$0.warnings.isEmpty } ?? true)
        }
    }

    @Test("an empty or one-byte file handed to each header reader is an error, never a trap (fuzz finding)")
    func emptyInput() {
        for bytes: [UInt8] in [[], [0x50], [0x50, 0x37]] {
            for format in [MediaFormat.jpeg2000, .ico, .bpg, .netpbm, .pcx, .flif, .radianceHDR, .pgf, .mrc] {
                let reading = try? ImageHeaderReader.read(MemoryByteSource(bytes), format: format)
                #expect(reading?.metadata.pixelWidth == nil, "\(format) from \(bytes)")
            }
        }
    }
}
