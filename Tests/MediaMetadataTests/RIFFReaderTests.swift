import CorpusSupport
import Testing
@testable import MediaMetadata

/// ffprobe's first stream of `codecType` for a corpus path.
func ffprobeStream(_ path: String, _ codecType: String) -> JSONValue? {
    guard case .array(let streams)? = Corpus.ffprobe[path]?["streams"] else { return nil }
    return streams.first { $0["codec_type"]?.string == codecType }
}

func ffprobeHasStream(_ path: String, _ codecType: String) -> Bool? {
    guard case .array? = Corpus.ffprobe[path]?["streams"] else { return nil }
    return ffprobeStream(path, codecType) != nil
}

/// `30000/1001` as a number.
func ffprobeRate(_ value: JSONValue?) -> Double? {
    guard let text = value?.string else { return nil }
    let parts = text.split(separator: "/").compactMap { Double($0) }
    guard parts.count == 2, parts[1] != 0, parts[0] != 0 else { return nil }
    return parts[0] / parts[1]
}

func formatsRoughlyEqual(_ a: Double?, _ b: Double?, tolerance: Double) -> Bool? {
    guard let b else { return nil }
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// A RIFF file built in code from chunks (sizes computed, odd payloads padded).
func makeRIFF(form: String, chunks: [[UInt8]]) -> [UInt8] {
    let body = chunks.flatMap { $0 }
    return Array("RIFF".utf8) + riffLE32(UInt32(body.count + 4)) + Array(form.utf8) + body
}

func riffChunk(_ id: String, _ data: [UInt8]) -> [UInt8] {
    Array(id.utf8) + riffLE32(UInt32(data.count)) + data + (data.count % 2 == 1 ? [0] : [])
}

func riffList(_ type: String, _ chunks: [[UInt8]]) -> [UInt8] {
    riffChunk("LIST", Array(type.utf8) + chunks.flatMap { $0 })
}

func riffLE32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }

@Suite("RIFF reader")
struct RIFFReaderTests {
    @Test("reads size, duration, frame rate, codec and audio of every corpus AVI like ffprobe",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func aviCorpusAgreement() throws {
        var tally = FormatsAgreementTally("AVI vs ffprobe")
        let files = formatsCorpusFiles(ofTypes: ["AVI"])
        #expect(files.count >= 10)
        for file in files {
            let reading: ContainerReading
            do {
                reading = try RIFFReader.readAVI(FileByteSource(path: file.url.path))
            } catch {
                tally.record("read", file.path, agree: ffprobeStream(file.path, "video") == nil, detail: "threw \(error)")
                continue
            }
            let m = reading.metadata
            guard let video = ffprobeStream(file.path, "video") else {
                // ffprobe could not read it: we must not crash, and anything we say is extra.
                continue
            }
            tally.compare("width", file.path, ours: m.pixelWidth, reference: video["width"]?.number.map { Int($0) })
            tally.compare("height", file.path, ours: m.pixelHeight, reference: video["height"]?.number.map { Int($0) })
            // The movie's duration, as for every container: its longest stream (an AVI's
            // audio often runs past the last video frame).
            let duration = Corpus.ffprobe[file.path]?["format"]?["duration"]?.number ?? video["duration"]?.number
            if let agree = formatsRoughlyEqual(m.durationSeconds, duration, tolerance: 0.05) {
                tally.record("duration", file.path, agree: agree, detail: "ours \(m.durationSeconds ?? -1), ffprobe \(duration ?? -1)")
            }
            if let agree = formatsRoughlyEqual(m.frameRate, ffprobeRate(video["r_frame_rate"]), tolerance: 0.01) {
                tally.record("frameRate", file.path, agree: agree, detail: "ours \(m.frameRate ?? -1), ffprobe \(video["r_frame_rate"]?.string ?? "")")
            }
            tally.compare("codec", file.path, ours: m.videoCodec, reference: video["codec_name"]?.string)
            tally.compare("hasAudio", file.path, ours: m.hasAudio, reference: ffprobeHasStream(file.path, "audio"))
        }
        tally.printTable()
        tally.expectAgreement()
    }

    @Test("reads size, animation, EXIF and XMP of every corpus WebP like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func webPCorpusAgreement() throws {
        var tally = FormatsAgreementTally("WebP vs exiftool")
        let files = formatsCorpusFiles(ofTypes: ["WEBP", "Extended WEBP"])
        #expect(files.count >= 15)
        for file in files {
            let reading: ContainerReading
            do {
                reading = try RIFFReader.readWebP(FileByteSource(path: file.url.path))
            } catch {
                tally.record("read", file.path, agree: formatsReferenceImageSize(file.exiftool) == nil, detail: "threw \(error)")
                continue
            }
            let size = formatsReferenceImageSize(file.exiftool).flatMap { $0.0 > 0 && $0.1 > 0 ? $0 : nil }
            tally.compare("width", file.path, ours: reading.metadata.pixelWidth, reference: size?.0)
            tally.compare("height", file.path, ours: reading.metadata.pixelHeight, reference: size?.1)
            if size != nil {
                let flags = file.exiftool["RIFF:WebP_Flags"]?.number.map { Int($0) } ?? 0
                tally.compare("isAnimated", file.path, ours: reading.metadata.isAnimated, reference: flags & 0x02 != 0)
                tally.compare("hasEXIF", file.path, ours: reading.exif != nil,
                              reference: formatsHasGroup(file.exiftool, "IFD0:") || formatsHasGroup(file.exiftool, "ExifIFD:"))
                tally.compare("hasXMP", file.path, ours: reading.xmp != nil, reference: formatsHasGroup(file.exiftool, "XMP-"))
            }
        }
        tally.printTable()
        tally.expectAgreement()
    }

    @Test("reads or rejects every corpus file of any type without crashing", .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func everyCorpusFile() {
        let avi = runOnEveryCorpusFile(RIFFReader.readAVI)
        #expect(avi.other.isEmpty)
        #expect(avi.read >= 10)
        let webP = runOnEveryCorpusFile(RIFFReader.readWebP)
        #expect(webP.other.isEmpty)
        #expect(webP.read >= 15)
    }

    @Test("reads a lossy, a lossless and an extended WebP built in code")
    func webPFlavours() throws {
        let lossy = makeRIFF(form: "WEBP", chunks: [riffChunk("VP8 ", [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01, 0, 0])])
        let l = try RIFFReader.readWebP(MemoryByteSource(lossy)).metadata
        #expect(l.pixelWidth == 640 && l.pixelHeight == 480 && l.isAnimated == false)

        // 14-bit width-1 = 399, height-1 = 299.
        let bits: UInt32 = 399 | 299 << 14
        let lossless = makeRIFF(form: "WEBP", chunks: [riffChunk("VP8L", [0x2F] + riffLE32(bits))])
        let ll = try RIFFReader.readWebP(MemoryByteSource(lossless)).metadata
        #expect(ll.pixelWidth == 400 && ll.pixelHeight == 300)

        let vp8x: [UInt8] = [0x02 | 0x08 | 0x04, 0, 0, 0, 0x1F, 0x03, 0x00, 0xFF, 0x00, 0x00]  // 800 × 256
        let exif = Array("Exif\0\0MM\0*".utf8)
        let extended = makeRIFF(form: "WEBP", chunks: [
            riffChunk("VP8X", vp8x), riffChunk("ANIM", [0, 0, 0, 0, 0, 0]),
            riffChunk("ANMF", [UInt8](repeating: 0, count: 17)), riffChunk("ANMF", [UInt8](repeating: 0, count: 16)),
            riffChunk("EXIF", exif), riffChunk("XMP ", Array("<x/>".utf8)),
        ])
        let x = try RIFFReader.readWebP(MemoryByteSource(extended))
        #expect(x.metadata.pixelWidth == 800 && x.metadata.pixelHeight == 256)
        #expect(x.metadata.isAnimated == true && x.metadata.frameCount == 2)
        #expect(x.exif == exif)
        #expect(x.xmp == Array("<x/>".utf8))
    }

    @Test("reads an AVI's headers built in code and never needs movi")
    func aviHeaders() throws {
        var avih = [UInt8](repeating: 0, count: 56)
        avih.replaceSubrange(0..<4, with: riffLE32(40_000))  // 25 fps
        avih.replaceSubrange(16..<20, with: riffLE32(50))
        avih.replaceSubrange(32..<40, with: riffLE32(320) + riffLE32(240))
        var strh = [UInt8](repeating: 0, count: 56)
        strh.replaceSubrange(0..<8, with: Array("vidsH264".utf8))
        strh.replaceSubrange(20..<28, with: riffLE32(1) + riffLE32(25))
        strh.replaceSubrange(32..<36, with: riffLE32(75))
        var strf = [UInt8](repeating: 0, count: 40)
        strf.replaceSubrange(16..<20, with: Array("H264".utf8))
        var auds = [UInt8](repeating: 0, count: 56)
        auds.replaceSubrange(0..<4, with: Array("auds".utf8))
        let avi = makeRIFF(form: "AVI ", chunks: [
            riffList("hdrl", [riffChunk("avih", avih),
                              riffList("strl", [riffChunk("strh", strh), riffChunk("strf", strf)]),
                              riffList("strl", [riffChunk("strh", auds)])]),
            riffList("INFO", [riffChunk("ISFT", Array("Camera 1.0\0".utf8)), riffChunk("ICRD", Array("2007-03-12 10:30:00".utf8))]),
            // A movi list whose size lies: it must be skipped, not read.
            Array("LIST".utf8) + riffLE32(0xFFFF_FFF0) + Array("movi".utf8),
        ])
        let m = try RIFFReader.readAVI(MemoryByteSource(avi)).metadata
        #expect(m.pixelWidth == 320 && m.pixelHeight == 240)
        #expect(m.frameRate == 25)
        #expect(m.durationSeconds == 3)
        #expect(m.videoCodec == "h264")
        #expect(m.hasAudio == true)
        #expect(m.software == "Camera 1.0")
        #expect(m.captureDate == CaptureDate(year: 2007, month: 3, day: 12, hour: 10, minute: 30, second: 0))
    }

    @Test("reads the IDIT date format 'Mon Mar 12 10:30:00 2007'")
    func iditDate() {
        #expect(RIFFReader.parseAVIDate("Mon Mar 12 10:30:00 2007\n") == CaptureDate(year: 2007, month: 3, day: 12, hour: 10, minute: 30, second: 0))
        #expect(RIFFReader.parseAVIDate("garbage") == nil)
    }

    @Test("survives lying chunk sizes, zero sizes, truncation and list bombs")
    func hostileRIFF() throws {
        // Zero-size chunks forever: bounded by the chunk budget.
        let zeros = makeRIFF(form: "WEBP", chunks: Array(repeating: riffChunk("JUNK", []), count: 20_000))
        let z = try RIFFReader.readWebP(MemoryByteSource(zeros))
        #expect(z.metadata.pixelWidth == nil)
        #expect(!z.metadata.warnings.isEmpty)
        // A chunk claiming 4 GiB.
        let lying = makeRIFF(form: "WEBP", chunks: [Array("EXIF".utf8) + riffLE32(0xFFFF_FFFF) + [1, 2, 3]])
        let l = try RIFFReader.readWebP(MemoryByteSource(lying))
        #expect(l.metadata.warnings.contains { $0.contains("runs past") })
        // Lists nested far deeper than the cap.
        var nested = riffChunk("avih", [UInt8](repeating: 0, count: 56))
        for _ in 0..<200 { nested = riffList("hdrl", [nested]) }
        _ = try RIFFReader.readAVI(MemoryByteSource(makeRIFF(form: "AVI ", chunks: [nested])))
        // Truncated anywhere: never a crash.
        let whole = makeRIFF(form: "WEBP", chunks: [riffChunk("VP8X", [0x02, 0, 0, 0, 1, 0, 0, 1, 0, 0]), riffChunk("ANMF", [1, 2, 3])])
        for cut in 0..<whole.count {
            _ = try? RIFFReader.readWebP(MemoryByteSource(Array(whole.prefix(cut))))
            _ = try? RIFFReader.readAVI(MemoryByteSource(Array(whole.prefix(cut))))
        }
        #expect(throws: MetadataError.self) { try RIFFReader.readAVI(MemoryByteSource(whole)) }
    }
}
