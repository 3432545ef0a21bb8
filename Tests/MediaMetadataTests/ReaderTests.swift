@testable import MediaMetadata
import Testing

@Suite("JPEGReader")
struct JPEGReaderTests {
    @Test("reads the frame size and the EXIF of a minimal JPEG")
    func minimalJPEG() throws {
        let m = try MetadataReader.read(MemoryByteSource(Fixture.jpeg(exif: Fixture.cameraTIFF)))
        #expect(m?.format == .jpeg)
        #expect(m?.pixelWidth == 100 && m?.pixelHeight == 50)  // the frame, not Exif's 4032x3024
        #expect(m?.model == "iPhone 12 Pro")
        #expect(m?.warnings == [])
    }

    @Test("keeps the EXIF of a JPEG cut off before its frame header, with a warning")
    func truncatedAfterExif() throws {
        let full = Fixture.jpeg(exif: Fixture.cameraTIFF)
        let sofAt = try #require(indexOfSOF(full))
        let m = try MetadataReader.read(MemoryByteSource(Array(full[0..<(sofAt + 3)])))
        #expect(m?.make == "Apple")
        #expect(m?.pixelWidth == 4032)  // from Exif, as no frame header survived
        #expect(m?.warnings.isEmpty == false)
    }

    @Test("a JPEG with nothing readable is still a JPEG, with a warning naming the truncation")
    func truncatedEmpty() throws {
        // Given a JPEG signature and a segment cut off in its header,
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A]
        // the JPEG reader refuses it,
        #expect(throws: MetadataError.self) { try JPEGReader.read(MemoryByteSource(bytes)) }
        // but the file is a JPEG, as exiftool reports it: an asset with its format alone.
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .jpeg && m.pixelWidth == nil)
        #expect(m.warnings.contains { $0.contains("truncated file") })
    }

    @Test("a segment whose length runs past the end gives an error or partial data, never a hang")
    func lyingSegmentLength() throws {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF] + Array("Exif\0\0".utf8) + Fixture.cameraTIFF
        bytes += [0xFF, 0xD9]
        // The EXIF is all there, so it is kept, with a warning about the segment.
        let m = try MetadataReader.read(MemoryByteSource(bytes))
        #expect(m?.make == "Apple")
        #expect(m?.warnings.isEmpty == false)
        // A zero length is impossible: an error, not a loop.
        let zero: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00, 0xFF, 0xC0]
        #expect(throws: MetadataError.self) { try JPEGReader.read(MemoryByteSource(zero)) }
        let refused = try MetadataReader.read(MemoryByteSource(zero))
        #expect(refused?.format == .jpeg && refused?.warnings.isEmpty == false)
    }

    @Test("skips fill bytes and stray data between segments")
    func fillAndStrayBytes() throws {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF, 0xFF]
        bytes += Array(Fixture.segment(0xE0, [1, 2, 3]).dropFirst(0))
        bytes += [0x00, 0x01, 0x02]  // stray
        bytes += Fixture.sof(width: 640, height: 480) + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
        let m = try MetadataReader.read(MemoryByteSource(bytes))
        #expect(m?.pixelWidth == 640 && m?.pixelHeight == 480)
    }

    private func indexOfSOF(_ bytes: [UInt8]) -> Int? {
        (0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }
    }
}

@Suite("TIFFReader")
struct TIFFReaderTests {
    @Test("reads size and EXIF from a TIFF file")
    func tiffFile() throws {
        let bytes = Fixture.tiff(ifd0: [.long(0x0100, 320), .long(0x0101, 240), .ascii(0x010F, "Canon"), .short(0x0112, 8)],
                                 exif: [.ascii(0x9003, "2001:02:03 04:05:06")])
        let m = try MetadataReader.read(MemoryByteSource(bytes))
        #expect(m?.format == .tiff)
        #expect(m?.pixelWidth == 320 && m?.pixelHeight == 240)
        #expect(m?.make == "Canon" && m?.orientation == 8)
        #expect(m?.captureDate?.iso8601 == "2001-02-03T04:05:06")
    }

    @Test("a directory claiming 0xFFFF entries with offsets past the end is refused, not a crash")
    func hostileDirectory() throws {
        var bytes: [UInt8] = Array("MM".utf8) + Fixture.be16(42) + Fixture.be32(8) + Fixture.be16(0xFFFF)
        // Two entries whose values point far past the end.
        bytes += Fixture.be16(0x010F) + Fixture.be16(2) + Fixture.be32(0xFFFF_FFFF) + Fixture.be32(0xFFFF_FFF0)
        bytes += Fixture.be16(0x8769) + Fixture.be16(4) + Fixture.be32(1) + Fixture.be32(0x7FFF_FFFF)
        #expect(throws: MetadataError.self) { try TIFFReader.read(MemoryByteSource(bytes), format: .tiff) }
        // The file is still a TIFF (exiftool: "Bad IFD0 directory", FileType TIFF).
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .tiff && m.make == nil && !m.warnings.isEmpty)
    }

    @Test("an Exif pointer past the end and a self-referencing next pointer still give IFD0")
    func danglingPointers() throws {
        let bytes = Fixture.tiff(ifd0: [.long(0x0100, 8), .long(0x0101, 8), .long(0x8769, 0x00FF_FFFF), .long(0x8825, 8)])
        let m = try MetadataReader.read(MemoryByteSource(bytes))
        #expect(m?.pixelWidth == 8)
        #expect(m?.warnings.isEmpty == false)
    }

    @Test("recognises a DNG by its DNGVersion tag")
    func dng() throws {
        let bytes = Fixture.tiff(ifd0: [Fixture.Field(tag: 0xC612, type: 1, count: 4, bytes: [1, 4, 0, 0]), .ascii(0x010F, "Apple")])
        #expect(try MetadataReader.detectFormat(MemoryByteSource(bytes)) == .dng)
    }
}

@Suite("FormatDetector")
struct FormatDetectorTests {
    func detect(_ bytes: [UInt8]) throws -> MediaFormat? {
        try MetadataReader.detectFormat(MemoryByteSource(bytes + [UInt8](repeating: 0, count: 64)))
    }
    func ftyp(_ major: String, _ compatible: [String] = []) -> [UInt8] {
        let brands = compatible.flatMap { Array($0.utf8) }
        return Fixture.be32(UInt32(16 + brands.count)) + Array("ftyp\(major)".utf8) + [0, 0, 0, 0] + brands
    }

    @Test("recognises ISO-BMFF brands and rejects audio-only ones")
    func isoBrands() throws {
        #expect(try detect(ftyp("heic", ["mif1", "heic"])) == .heic)
        #expect(try detect(ftyp("mif1", ["heic"])) == .heif)
        #expect(try detect(ftyp("avif", ["mif1"])) == .avif)
        #expect(try detect(ftyp("crx ")) == .cr3)
        #expect(try detect(ftyp("qt  ")) == .quickTime)
        #expect(try detect(ftyp("M4V ")) == .m4v)
        #expect(try detect(ftyp("3gp5")) == .threeGP)
        #expect(try detect(ftyp("isom", ["mp41"])) == .mp4)
        #expect(try detect(ftyp("M4A ", ["isom"])) == nil)
    }

    @Test("recognises images and videos by magic bytes, not names")
    func magic() throws {
        #expect(try detect([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(try detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(try detect(Array("GIF89a".utf8)) == .gif)
        #expect(try detect(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)) == .webp)
        #expect(try detect(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI ".utf8)) == .avi)
        #expect(try detect(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)) == nil)
        #expect(try detect(Array("II".utf8) + [0x2A, 0, 8, 0, 0, 0] + Array("CR".utf8)) == .cr2)
        #expect(try detect(Array("IIRO".utf8) + [8, 0, 0, 0]) == .orf)
        #expect(try detect(Array("IIU".utf8) + [0, 8, 0, 0, 0]) == .rw2)
        #expect(try detect(Array("FUJIFILMCCD-RAW 0201".utf8)) == .raf)
        #expect(try detect([0x49, 0x49, 0x1A, 0, 0, 0] + Array("HEAPCCDR".utf8)) == .crw)
        #expect(try detect([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84] + Array("webm".utf8)) == .webm)
        #expect(try detect([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x88] + Array("matroska".utf8)) == .matroska)
        #expect(try detect(Fixture.be32(8) + Array("wide".utf8)) == .quickTime)
        #expect(try detect(Array("ID3".utf8) + [4, 0]) == nil)
        #expect(try detect(Array("fLaC".utf8)) == nil)
        #expect(try detect(Array("<?xpacket begin".utf8)) == nil)
        #expect(try detect(Array("8BPS".utf8)) == nil)
    }

    @Test("Ogg is a video only with a Theora stream")
    func ogg() throws {
        let page = Array("OggS".utf8) + [UInt8](repeating: 0, count: 24)
        #expect(try detect(page + [0x80] + Array("theora".utf8)) == .ogv)
        #expect(try detect(page + [0x01] + Array("vorbis".utf8)) == nil)
        #expect(try detect(page + Array("OpusHead".utf8)) == nil)
    }

    @Test("an empty or tiny file is not media")
    func tiny() throws {
        #expect(try MetadataReader.detectFormat(MemoryByteSource([])) == nil)
        #expect(try MetadataReader.read(MemoryByteSource([0xFF])) == nil)
    }
}

@Suite("SimpleImageReaders")
struct SimpleImageReaderTests {
    @Test("reads PNG, GIF, BMP and WebP sizes")
    func sizes() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Fixture.be32(13) + Array("IHDR".utf8)
            + Fixture.be32(640) + Fixture.be32(480) + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
        #expect(try size(png) == [640, 480])
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00, 0, 0, 0]
        #expect(try size(gif) == [320, 240])
        var bmp: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0]
        bmp += [0x10, 0, 0, 0] + [0xF8, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 28)  // 16 x -8
        #expect(try size(bmp) == [16, 8])
        let vp8x: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0] + [0, 0, 0, 0] + [0x7F, 0x07, 0x00, 0x37, 0x04, 0x00]
        let webp: [UInt8] = Array("RIFF".utf8) + [UInt8(4 + vp8x.count), 0, 0, 0] + Array("WEBP".utf8) + vp8x
        #expect(try size(webp) == [1920, 1080])
        let bits: UInt32 = (99) | (49 << 14)
        let vp8l: [UInt8] = Array("VP8L".utf8) + [5, 0, 0, 0, 0x2F, UInt8(bits & 0xFF), UInt8((bits >> 8) & 0xFF),
                                                  UInt8((bits >> 16) & 0xFF), UInt8(bits >> 24), 0]
        let lossless: [UInt8] = Array("RIFF".utf8) + [UInt8(4 + vp8l.count), 0, 0, 0] + Array("WEBP".utf8) + vp8l
        #expect(try size(lossless) == [100, 50])
    }

    @Test("reads the EXIF of a PNG eXIf chunk")
    func pngExif() throws {
        let exif = Fixture.cameraTIFF
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Fixture.be32(13) + Array("IHDR".utf8)
            + Fixture.be32(2) + Fixture.be32(2) + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
        png += Fixture.be32(UInt32(exif.count)) + Array("eXIf".utf8) + exif + [0, 0, 0, 0]
        let m = try MetadataReader.read(MemoryByteSource(png))
        #expect(m?.make == "Apple")
        #expect(m?.pixelWidth == 2)
    }

    private func size(_ bytes: [UInt8]) throws -> [Int?] {
        let m = try MetadataReader.read(MemoryByteSource(bytes))
        return [m?.pixelWidth, m?.pixelHeight]
    }
}
