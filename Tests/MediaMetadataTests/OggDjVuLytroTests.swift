import CorpusSupport
import Foundation
import Testing
@testable import MediaMetadata

// MARK: Fixtures built in code

/// Ogg pages (RFC 3533) and codec identification headers. The CRC is left zero: the
/// reader does not check it.
enum OggFixture {
    static func le(_ value: UInt64, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
    static func be(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    static func page(_ body: [UInt8], serial: UInt32, granule: Int64, headerType: UInt8 = 0, sequence: UInt32 = 0) -> [UInt8] {
        var lacing = [UInt8](repeating: 255, count: body.count / 255)
        lacing.append(UInt8(body.count % 255))
        return Array("OggS".utf8) + [0, headerType] + le(UInt64(bitPattern: granule), 8) + le(UInt64(serial), 4)
            + le(UInt64(sequence), 4) + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing + body
    }

    /// A Theora identification header (Theora I specification, section 6.2).
    static func theora(version: (UInt8, UInt8, UInt8) = (3, 2, 1), macroblocks: (Int, Int), picture: (Int, Int),
                       rate: (Int, Int), aspect: (Int, Int) = (1, 1), granuleShift: Int = 6) -> [UInt8] {
        var h: [UInt8] = [0x80] + Array("theora".utf8) + [version.0, version.1, version.2]
        h += be(macroblocks.0, 2) + be(macroblocks.1, 2) + be(picture.0, 3) + be(picture.1, 3) + [0, 0]
        h += be(rate.0, 4) + be(rate.1, 4) + be(aspect.0, 3) + be(aspect.1, 3) + [0] + be(0, 3)
        // QUAL (6 bits) = 40, KFGSHIFT (5 bits), PF (2 bits) = 0, reserved (3 bits).
        let bits = 40 << 10 | granuleShift << 5
        return h + be(bits, 2)
    }

    static func vorbis(rate: Int) -> [UInt8] {
        [0x01] + Array("vorbis".utf8) + le(0, 4) + [2] + le(UInt64(rate), 4) + le(0, 12) + [0xB8, 0x01]
    }

    static func opus(preSkip: Int) -> [UInt8] {
        Array("OpusHead".utf8) + [1, 2] + le(UInt64(preSkip), 2) + le(48_000, 4) + [0, 0, 0]
    }
}

enum DjVuFixture {
    static func chunk(_ id: String, _ data: [UInt8]) -> [UInt8] {
        Array(id.utf8) + OggFixture.be(data.count, 4) + data + (data.count % 2 == 1 ? [0] : [])
    }

    static func form(_ type: String, _ chunks: [UInt8]) -> [UInt8] { chunk("FORM", Array(type.utf8) + chunks) }

    static func info(width: Int, height: Int, flags: UInt8 = 1) -> [UInt8] {
        chunk("INFO", OggFixture.be(width, 2) + OggFixture.be(height, 2) + [24, 0, 100, 0, 22, flags])
    }

    static func file(_ form: [UInt8]) -> [UInt8] { Array("AT&T".utf8) + form }
}

enum LytroFixture {
    static func section(_ magic: String, _ data: [UInt8]) -> [UInt8] {
        let name = Array("sha1-0123456789abcdef0123456789abcdef01234567".utf8)
        var s: [UInt8] = [0x89] + Array(magic.utf8) + [0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0] + OggFixture.be(data.count, 4)
        s += name + [UInt8](repeating: 0, count: 80 - name.count) + data
        return s + [UInt8](repeating: 0, count: (16 - s.count % 16) % 16)
    }

    static func file(_ sections: [[UInt8]]) -> [UInt8] {
        [0x89, 0x4C, 0x46, 0x50, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 1, 0, 0, 0, 0] + sections.flatMap { $0 }
    }
}

private func readCorpusFile(_ path: String) throws -> MediaMetadata? {
    guard let media = Corpus.media else { return nil }
    return try MetadataReader.read(FileByteSource(path: media.appendingPathComponent(path).path))
}

// MARK: Ogg

@Suite("Ogg reader: Theora video, audio streams, duration from the last granule")
struct OggReaderTests {
    @Test("reads the corpus Theora file as ffprobe and exiftool do: picture size, frame rate, duration",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusTheora() throws {
        let path = "photoview/api/scanner/test_media/real_media/ogg.ogg"
        let m = try #require(try readCorpusFile(path))
        let exif = try #require(Corpus.exiftool[path])
        let probe = try #require(Corpus.ffprobe[path])
        #expect(m.format == .ogv)
        #expect(m.pixelWidth == exif["Theora:ImageWidth"]?.number.map { Int($0) })
        #expect(m.pixelHeight == exif["Theora:ImageHeight"]?.number.map { Int($0) })
        let rate = try #require(exif["Theora:FrameRate"]?.number)
        #expect(abs((m.frameRate ?? 0) - rate) < 1e-5)
        let duration = try #require(probe["format"]?["duration"]?.number)
        #expect(abs((m.durationSeconds ?? 0) - duration) <= 0.001, "\(String(describing: m.durationSeconds))")
        #expect(m.videoCodec == "theora")
        #expect(m.hasAudio == false)
    }

    @Test("takes the picture region, FRN/FRD and the granule of the last page, counted with KFGSHIFT")
    func builtTheora() throws {
        // 40×23 macroblocks (640×368) holding a 640×360 picture, 30000/1001 fps; the last
        // page's granule says key frame 96, 3 frames later (granule shift 6): frame 99 of
        // a 3.2.1 stream is the 99th frame.
        let header = OggFixture.theora(macroblocks: (40, 23), picture: (640, 360), rate: (30000, 1001))
        let bytes = OggFixture.page(header, serial: 7, granule: 0, headerType: 2)
            + OggFixture.page([UInt8](repeating: 0xAA, count: 600), serial: 7, granule: 0, sequence: 1)
            + OggFixture.page([UInt8](repeating: 0xBB, count: 300), serial: 7, granule: 96 << 6 | 3, headerType: 4, sequence: 2)
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .ogv)
        #expect(m.pixelWidth == 640 && m.pixelHeight == 360)
        #expect(abs((m.frameRate ?? 0) - 30000.0 / 1001) < 1e-9)
        #expect(abs((m.durationSeconds ?? 0) - 99 * 1001.0 / 30000) < 1e-9)
    }

    @Test("counts a Theora 3.2.0 granule from frame zero, as its encoder wrote it")
    func theora320() throws {
        let header = OggFixture.theora(version: (3, 2, 0), macroblocks: (20, 15), picture: (320, 240), rate: (25, 1))
        let bytes = OggFixture.page(header, serial: 1, granule: 0, headerType: 2)
            + OggFixture.page([1, 2, 3], serial: 1, granule: 64 << 6 | 55, headerType: 4, sequence: 1)
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.durationSeconds == 120.0 / 25)  // key frame index 64 → frame 65, + 55
    }

    @Test("the duration is the longest stream's: Vorbis samples at its rate, Opus at 48 kHz less the pre-skip")
    func audioStreams() throws {
        let video = OggFixture.theora(macroblocks: (4, 3), picture: (64, 48), rate: (25, 1))
        // Video ends at 50 frames (2 s); Vorbis at 132300 samples of 44.1 kHz (3 s).
        let withVorbis = OggFixture.page(video, serial: 1, granule: 0, headerType: 2)
            + OggFixture.page(OggFixture.vorbis(rate: 44_100), serial: 2, granule: 0, headerType: 2)
            + OggFixture.page([0], serial: 2, granule: 132_300, headerType: 4, sequence: 1)
            + OggFixture.page([0], serial: 1, granule: 50 << 6, headerType: 4, sequence: 1)
        let m = try #require(try MetadataReader.read(MemoryByteSource(withVorbis)))
        #expect(m.hasAudio == true)
        #expect(m.durationSeconds == 3)
        // Opus: 312 samples of pre-skip, then 2.5 s.
        let withOpus = OggFixture.page(video, serial: 1, granule: 0, headerType: 2)
            + OggFixture.page(OggFixture.opus(preSkip: 312), serial: 9, granule: 0, headerType: 2)
            + OggFixture.page([0], serial: 1, granule: 25 << 6, headerType: 4, sequence: 1)
            + OggFixture.page([0], serial: 9, granule: 120_312, headerType: 4, sequence: 1)
        let o = try #require(try MetadataReader.read(MemoryByteSource(withOpus)))
        #expect(o.durationSeconds == 2.5)
        // Audio-only Ogg is not an image or video, but the reader reads its duration.
        let vorbisOnly = OggFixture.page(OggFixture.vorbis(rate: 48_000), serial: 3, granule: 0, headerType: 2)
            + OggFixture.page([0], serial: 3, granule: 96_000, headerType: 4, sequence: 1)
        #expect(try MetadataReader.read(MemoryByteSource(vorbisOnly)) == nil)
        #expect(try OggReader.read(MemoryByteSource(vorbisOnly)).metadata.durationSeconds == 2)
    }

    @Test("finds the last page by scanning back from the end, within a bound, past garbage")
    func lastPageScan() throws {
        let header = OggFixture.theora(macroblocks: (4, 3), picture: (64, 48), rate: (10, 1))
        let filler = [UInt8](repeating: 0x4F, count: 300_000)  // 'O' bytes, never a page
        let bytes = OggFixture.page(header, serial: 5, granule: 0, headerType: 2)
            + filler + OggFixture.page([0], serial: 5, granule: 30 << 6, sequence: 1) + [UInt8](repeating: 0, count: 1000)
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.durationSeconds == 3)
        // The last page lies beyond the tail bound: no duration, a warning, the rest kept.
        let far = OggFixture.page(header, serial: 5, granule: 0, headerType: 2) + OggFixture.page([0], serial: 5, granule: 30 << 6, sequence: 1)
            + [UInt8](repeating: 0, count: Int(OggReader.maxTailBytes) + 200_000)
        let f = try #require(try MetadataReader.read(MemoryByteSource(far)))
        #expect(f.durationSeconds == nil)
        #expect(f.pixelWidth == 64)
        #expect(f.warnings.contains { $0.contains("granule") })
    }

    @Test("hostile Ogg: truncated pages, lying lacing, impossible rates and shifts give partial metadata, never a crash")
    func hostile() throws {
        let good = OggFixture.theora(macroblocks: (4, 3), picture: (64, 48), rate: (25, 1))
        let cases: [[UInt8]] = [
            Array(OggFixture.page(good, serial: 1, granule: 0, headerType: 2).prefix(30)),  // cut in the lacing
            OggFixture.page(Array(good.prefix(20)), serial: 1, granule: 0, headerType: 2),  // header cut short
            OggFixture.page(OggFixture.theora(macroblocks: (4, 3), picture: (64, 48), rate: (25, 0), granuleShift: 31), serial: 1, granule: 0, headerType: 2)
                + OggFixture.page([0], serial: 1, granule: Int64.max, sequence: 1),
            OggFixture.page(good, serial: 1, granule: 0, headerType: 2) + OggFixture.page([0], serial: 1, granule: -5, sequence: 1),
            Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0xFF, count: 21) + [255] + [UInt8](repeating: 255, count: 255),
            OggFixture.page(good, serial: 1, granule: 0, headerType: 2) + Array("OggS".utf8) + [0, 0],
        ]
        for bytes in cases {
            let reading = try OggReader.read(MemoryByteSource(bytes))
            if let d = reading.metadata.durationSeconds { #expect(d.isFinite && d >= 0) }
            if let r = reading.metadata.frameRate { #expect(r.isFinite && r > 0) }
        }
        // Not an Ogg page at all: a readable error.
        #expect(throws: MetadataError.self) { try OggReader.read(MemoryByteSource(Array("OggX".utf8) + [UInt8](repeating: 0, count: 40))) }
    }
}

// MARK: DjVu

@Suite("DjVu reader: INFO size and rotation, annotations")
struct DjVuReaderTests {
    @Test("reads the corpus multi-page document's first page as exiftool does",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusDocument() throws {
        let path = "exiftool-t-images/t/images/DjVu.djvu"
        let m = try #require(try readCorpusFile(path))
        let exif = try #require(Corpus.exiftool[path])
        #expect(m.format == .djvu)
        #expect(m.pixelWidth == exif["DjVu:ImageWidth"]?.number.map { Int($0) })
        #expect(m.pixelHeight == exif["DjVu:ImageHeight"]?.number.map { Int($0) })
        // exiftool's Orientation 0: no rotation flag.
        #expect(exif["DjVu:Orientation"]?.number == 0 && m.orientation == nil)
        // The date is in the shared component's BZZ-compressed annotations (ANTz).
        let created = try #require(exif["DjVu-Meta:CreateDate"]?.string)
        #expect(m.captureDate == CaptureDate(exif: String(created.prefix(19)), offset: String(created.dropFirst(19))))
        #expect(m.captureDateSource == .djvuMetadataCreationDate)
        #expect(m.warnings.isEmpty, "\(m.warnings)")
    }

    @Test("BZZ decoding of the corpus annotations gives exiftool's metadata and XMP; damaged BZZ gives nil, never a trap",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func bzzCorpus() throws {
        let path = "exiftool-t-images/t/images/DjVu.djvu"
        let media = try #require(Corpus.media)
        let file = try FileByteSource(path: media.appendingPathComponent(path).path)
        let all = try file.read(at: 0, count: Int(file.size))
        // Find the ANTz chunk by its id and read its stated length.
        let id = Array("ANTz".utf8)
        let at = try #require((0..<(all.count - 8)).first { Array(all[$0..<($0 + 4)]) == id })
        let length = Int(all[at + 4]) << 24 | Int(all[at + 5]) << 16 | Int(all[at + 6]) << 8 | Int(all[at + 7])
        let chunk = Array(all[(at + 8)..<(at + 8 + length)])
        let text = try #require(BZZDecoder.decode(chunk, maxOutput: 1 << 20))
        let annotations = DjVuReader.parseAnnotations(text)
        let exif = try #require(Corpus.exiftool[path])
        #expect(annotations.metadata["Author"] == exif["DjVu-Meta:Author"]?.string)
        #expect(annotations.metadata["Title"] == exif["DjVu-Meta:Title"]?.string)
        #expect(annotations.xmp?.contains(exif["XMP-dc:Rights"]?.string ?? "?") == true)
        // Every cut of the stream, and the stream with bytes flipped, decodes or fails cleanly.
        for cut in stride(from: 0, to: chunk.count, by: 37) { _ = BZZDecoder.decode(Array(chunk.prefix(cut)), maxOutput: 1 << 20) }
        for flip in stride(from: 0, to: chunk.count, by: 53) {
            var damaged = chunk
            damaged[flip] ^= 0x5A
            _ = BZZDecoder.decode(damaged, maxOutput: 1 << 20)
        }
        #expect(BZZDecoder.decode(chunk, maxOutput: 16) == nil)  // larger than allowed
    }

    @Test("BZZ: empty, constant and random input end with nil or bounded output, never a hang")
    func bzzHostile() {
        // Pseudo-random bytes from a fixed seed (xorshift), so a failure reproduces.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        var inputs: [[UInt8]] = [[], [0], [0xFF], [UInt8](repeating: 0xFF, count: 64), [UInt8](repeating: 0, count: 64)]
        for _ in 0..<50 { inputs.append((0..<(1 + Int(next() % 400))).map { _ in UInt8(truncatingIfNeeded: next()) }) }
        for bytes in inputs {
            if let out = BZZDecoder.decode(bytes, maxOutput: 4096) { #expect(out.count <= 4096) }
        }
        // A damaged ANTz chunk leaves the page's size and a warning.
        let page = DjVuFixture.file(DjVuFixture.form("DJVU", DjVuFixture.info(width: 10, height: 20)
            + DjVuFixture.chunk("ANTz", [0xFF, 0xF8, 0x51, 0xFA])))
        let m = try? MetadataReader.read(MemoryByteSource(page))
        #expect(m?.pixelWidth == 10)
        #expect(m?.warnings.contains { $0.contains("ANTz") } == true)
    }

    @Test("reads a page's size, its rotation as an EXIF orientation, and its plain-text annotations")
    func builtPage() throws {
        let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"/></rdf:RDF></x:xmpmeta>"#
        let escaped = xmp.replacingOccurrences(of: "\"", with: "\\\"")
        let annotations = "(metadata (Author \"A \\\"B\\\"\") (CreationDate \"2008-09-23T12:31:34-04:00\"))\n(xmp \"\(escaped)\")"
        let page = DjVuFixture.file(DjVuFixture.form("DJVU", DjVuFixture.info(width: 2550, height: 3300, flags: 5)
            + DjVuFixture.chunk("ANTa", Array(annotations.utf8))))
        let m = try #require(try MetadataReader.read(MemoryByteSource(page)))
        #expect(m.format == .djvu)
        #expect(m.pixelWidth == 2550 && m.pixelHeight == 3300)
        #expect(m.orientation == 6)  // DjVu 5: a quarter turn clockwise
        #expect(m.displaySize?.width == 3300)
        #expect(m.captureDate == CaptureDate(year: 2008, month: 9, day: 23, hour: 12, minute: 31, second: 34, utcOffsetSeconds: -14_400))
        #expect(m.captureDateSource == .djvuMetadataCreationDate)
        let parsed = DjVuReader.parseAnnotations(Array(annotations.utf8))
        #expect(parsed.metadata["Author"] == "A \"B\"")
        #expect(parsed.xmp == xmp)
    }

    @Test("reads the first page of a bundled document; rotation 6 and 2 are a quarter turn back and a half turn")
    func bundled() throws {
        for (flags, orientation) in [(UInt8(6), 8), (2, 3), (1, nil)] as [(UInt8, Int?)] {
            let doc = DjVuFixture.file(DjVuFixture.form("DJVM", DjVuFixture.chunk("DIRM", [0x81, 0, 2])
                + DjVuFixture.form("DJVI", DjVuFixture.chunk("ANTz", [1, 2, 3]))
                + DjVuFixture.form("DJVU", DjVuFixture.info(width: 8, height: 6, flags: flags))
                + DjVuFixture.form("DJVU", DjVuFixture.info(width: 99, height: 99))))
            let m = try #require(try MetadataReader.read(MemoryByteSource(doc)))
            #expect(m.pixelWidth == 8 && m.pixelHeight == 6)
            #expect(m.orientation == orientation)
            #expect(m.warnings.contains { $0.contains("ANTz") })
        }
    }

    @Test("hostile DjVu: lying sizes, truncation, deep nesting and no INFO give the format with a warning, never a crash")
    func hostile() throws {
        var nested = DjVuFixture.info(width: 5, height: 5)
        for _ in 0..<50 { nested = DjVuFixture.form("DJVU", nested) }
        let cases: [[UInt8]] = [
            Array("AT&TFORM".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("DJVU".utf8) + Array("INFO".utf8) + [0xFF, 0xFF, 0xFF, 0xF0, 0, 1],
            Array("AT&TFORM".utf8) + [0, 0, 0, 4] + Array("DJVM".utf8),
            Array(DjVuFixture.file(DjVuFixture.form("DJVU", DjVuFixture.info(width: 640, height: 480))).prefix(22)),
            DjVuFixture.file(nested),
            DjVuFixture.file(DjVuFixture.form("DJVU", DjVuFixture.chunk("ANTa", Array("(((((((\"\\".utf8))
                + DjVuFixture.info(width: 0, height: 0))),
        ]
        for bytes in cases {
            let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
            #expect(m.format == .djvu)
            #expect(m.pixelWidth == nil)
            #expect(!m.warnings.isEmpty)
        }
        _ = DjVuReader.parseAnnotations(Array("(metadata (a \"\\777".utf8) + [0xFF, 0x28, 0x29, 0x29, 0x29])
    }
}

// MARK: Lytro

@Suite("Lytro LFP reader: the JSON metadata sections")
struct LytroReaderTests {
    @Test("reads size, make, model and capture date as exiftool reads the corpus file",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusPicture() throws {
        let path = "exiftool-t-images/t/images/Lytro.lfp"
        let m = try #require(try readCorpusFile(path))
        let exif = try #require(Corpus.exiftool[path])
        #expect(m.format == .lytro)
        #expect(m.pixelWidth == exif["Lytro:ImageWidth"]?.number.map { Int($0) })
        #expect(m.pixelHeight == exif["Lytro:ImageHeight"]?.number.map { Int($0) })
        #expect(m.orientation == exif["Lytro:Orientation"]?.number.map { Int($0) })
        #expect(m.make == exif["Lytro:Make"]?.string)
        #expect(m.model == exif["Lytro:Model"]?.string)
        // exiftool: "2012:04:12 14:10:55.000Z".
        let text = try #require(exif["Lytro:DateTimeOriginal"]?.string)
        #expect(m.captureDate == CaptureDate(exif: String(text.prefix(19)), offset: "Z"))
        #expect(m.captureDateSource == .lytroClockZuluTime)
        #expect(m.warnings.isEmpty)
    }

    @Test("reads the fields from whichever section holds them, skipping sections that are not JSON")
    func builtSections() throws {
        let toc = Array(#"{"picture":{"frameArray":[{"frame":{"metadataRef":"sha1-x"}}]},"version":{"major":1}}"#.utf8)
        let frame = Array("{\n\t\"image\" : {\"width\" : 3280, \"height\" : 2000, \"orientation\" : 6},\n\t\"devices\" : {\"clock\" : {\"zuluTime\" : \"2013-01-02T03:04:05.250Z\"}},\n\t\"camera\" : {\"make\" : \"Lytro, Inc.\", \"model\" : \"B5\\u0031\"}\n}".utf8)
        let bytes = LytroFixture.file([LytroFixture.section("LFM", toc), LytroFixture.section("LFC", [0, 1, 2, 3, 4]),
                                       LytroFixture.section("LFC", frame)])
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .lytro)
        #expect(m.pixelWidth == 3280 && m.pixelHeight == 2000 && m.orientation == 6)
        #expect(m.make == "Lytro, Inc." && m.model == "B51")
        #expect(m.captureDate == CaptureDate(year: 2013, month: 1, day: 2, hour: 3, minute: 4, second: 5,
                                             nanosecond: 250_000_000, utcOffsetSeconds: 0))
    }

    @Test("hostile LFP: lying lengths, malformed and deeply nested JSON give the format with a warning, never a crash")
    func hostile() throws {
        let deep = Array(String(repeating: "[", count: 10_000).utf8)
        let cases: [[UInt8]] = [
            LytroFixture.file([]),
            Array(LytroFixture.file([LytroFixture.section("LFM", Array(#"{"image":{"width":5"#.utf8))]).prefix(60)),
            LytroFixture.file([LytroFixture.section("LFM", Array(#"{"image":{"width":5,"height":}}"#.utf8))]),
            LytroFixture.file([LytroFixture.section("LFM", Array("{\"a\":".utf8) + deep)]),
            LytroFixture.file([LytroFixture.section("LFM", Array(#"{"image":{"width":1e300,"height":-4}}"#.utf8))]),
            [0x89, 0x4C, 0x46, 0x50, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 1, 0, 0, 0, 0, 0x89, 0x4C, 0x46, 0x4D, 0x0D, 0x0A, 0x1A, 0x0A,
             0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0x7B, count: 100),
        ]
        for bytes in cases {
            let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
            #expect(m.format == .lytro)
            #expect(m.pixelWidth == nil)
            #expect(!m.warnings.isEmpty)
        }
        var json = TinyJSON(bytes: deep)
        #expect(json.parseDocument() == nil)
    }
}
