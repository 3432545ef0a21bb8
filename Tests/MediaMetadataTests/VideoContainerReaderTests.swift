import CorpusSupport
import Testing
@testable import MediaMetadata

/// Reads a corpus file through `MetadataReader` (detection + container reader).
private func readCorpus(_ path: String) throws -> MediaMetadata? {
    guard let media = Corpus.media else { return nil }
    return try MetadataReader.read(FileByteSource(path: media.appendingPathComponent(path).path))
}

/// The movie-level facts ffprobe states for a corpus file, for comparison.
private struct ProbeFacts {
    var width: Int?, height: Int?, duration: Double?, frameRate: Double?, codec: String?, hasAudio: Bool?

    init(_ path: String) {
        let video = ffprobeStream(path, "video")
        // The width shown: the coded width scaled by the sample aspect, as players show it.
        let aspect = video?["sample_aspect_ratio"]?.string?.split(separator: ":").compactMap { Double($0) }
        let scale = aspect.flatMap { $0.count == 2 && $0[0] > 0 && $0[1] > 0 ? $0[0] / $0[1] : nil } ?? 1
        width = video?["width"]?.number.map { Int(($0 * scale).rounded()) }
        height = video?["height"]?.number.map { Int($0) }
        duration = Corpus.ffprobe[path]?["format"]?["duration"]?.number
        frameRate = ffprobeRate(video?["avg_frame_rate"])
        codec = video?["codec_name"]?.string
        hasAudio = ffprobeHasStream(path, "audio")
    }
}

private func expectAgreesWithFFprobe(_ path: String, _ m: MediaMetadata) {
    let probe = ProbeFacts(path)
    #expect(probe.width != nil, "ffprobe has no video stream for \(path)")
    #expect(m.pixelWidth == probe.width && m.pixelHeight == probe.height,
            "\(path): ours \(String(describing: m.pixelWidth))x\(String(describing: m.pixelHeight))")
    if let duration = probe.duration {
        #expect(abs((m.durationSeconds ?? -1) - duration) <= max(0.001, duration * 0.001), "\(path): \(String(describing: m.durationSeconds))")
    }
    if let rate = probe.frameRate {
        #expect(abs((m.frameRate ?? -1) - rate) <= rate * 0.001, "\(path): \(String(describing: m.frameRate))")
    }
    #expect(m.videoCodec == probe.codec, "\(path)")
    #expect(m.hasAudio == probe.hasAudio, "\(path)")
}

@Suite("Video container readers (ASF, FLV, DV, MPEG)")
struct VideoContainerReaderTests {
    // MARK: Corpus agreement

    @Test("reads an ffmpeg-written ASF like ffprobe: size, duration without preroll, measured frame rate",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func asfAgreesWithFFprobe() throws {
        for path in ["exiv2-test-data/test/data/sample_960x540.asf", "mathiasbynens-small/WindowsMediaVideo.wmv"] {
            let m = try #require(try readCorpus(path))
            #expect(m.format == .wmv)
            expectAgreesWithFFprobe(path, m)
            // ffmpeg writes the Unix epoch as the creation date: exiftool shows a zero date, we none.
            #expect(m.captureDate == nil)
        }
    }

    @Test("reads the creation date and size of a Photo Story WMV like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func asfDateAgreesWithExiftool() throws {
        let path = "exiftool-t-images/t/images/ASF.wmv"
        let reference = try #require(Corpus.exiftool[path])
        let m = try #require(try readCorpus(path))
        #expect(m.pixelWidth == reference["ASF:ImageWidth"]?.number.map { Int($0) })
        #expect(m.pixelHeight == reference["ASF:ImageHeight"]?.number.map { Int($0) })
        let text = try #require(reference["ASF:CreationDate"]?.string)
        #expect(m.captureDate.map(FidelityTableTests.civil) == CaptureDate(exif: text).map(FidelityTableTests.civil))
        #expect(m.captureDate?.utcOffsetSeconds == 0)
        #expect(m.captureDateSource == .asfFileProperties)
        #expect(m.hasAudio == true)
        // exiftool's Duration keeps the preroll; ffprobe (and we) subtract it.
        let duration = try #require(reference["ASF:Duration"]?.number)
        let preroll = try #require(reference["ASF:Preroll"]?.number)
        #expect(abs((m.durationSeconds ?? -1) - (duration - preroll / 1000)) < 0.001)
    }

    @Test("reads an FLV's onMetaData and its first VP6 frame's size like ffprobe",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func flvAgreesWithFFprobe() throws {
        let path = "exiftool-t-images/t/images/Flash.flv"
        let m = try #require(try readCorpus(path))
        #expect(m.format == .flv)
        expectAgreesWithFFprobe(path, m)
        // onMetaData's own numbers, as exiftool reads them.
        let reference = try #require(Corpus.exiftool[path])
        #expect(m.durationSeconds == reference["Flash:Duration"]?.number)
        #expect(m.frameRate == reference["Flash:FrameRate"]?.number)
    }

    @Test("reads a PAL DV's size, rate, recording date and duration like exiftool and ffprobe",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func dvAgrees() throws {
        let path = "exiftool-t-images/t/images/DV.dv"
        let m = try #require(try readCorpus(path))
        expectAgreesWithFFprobe(path, m)
        let reference = try #require(Corpus.exiftool[path])
        // exiftool's coded width, shown at its 16:9 aspect ratio (DV:AspectRatio): 720 pixels
        // of 64:45, 1024 wide.
        #expect(reference["DV:AspectRatio"]?.string == "16:9")
        let height = try #require(reference["DV:ImageHeight"]?.number)
        #expect(m.pixelWidth == Int((height * 16 / 9).rounded()) && m.pixelHeight == Int(height))
        #expect(m.frameRate == reference["DV:FrameRate"]?.number)
        let duration = try #require(reference["DV:Duration"]?.number)
        #expect(abs((m.durationSeconds ?? -1) - duration) < 1e-9)
        let date = try #require(reference["DV:DateTimeOriginal"]?.string)
        #expect(m.captureDate == CaptureDate(exif: date))
        #expect(m.captureDateSource == .dvRecordingDate)
    }

    @Test("reads an MPEG-2 program stream's size, rate and PTS duration like ffprobe",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func mpegProgramStreamAgreesWithFFprobe() throws {
        let path = "metadata-extractor-images/m2v/sample_mpeg2.m2v"
        let m = try #require(try readCorpus(path))
        #expect(m.format == .mpegPS)
        expectAgreesWithFFprobe(path, m)
    }

    // MARK: Built fixtures

    @Test("an MPEG-2 elementary stream: size and rate from the sequence header, duration from its bit rate")
    func mpegElementaryStream() throws {
        // Given a sequence header 720x576, 4:3, 25 fps, 8 Mbit/s (20000 × 400), and an extension,
        let header: [UInt8] = [0, 0, 1, 0xB3, 0x2D, 0x02, 0x40, 0x23, 0x13, 0x88, 0x20, 0x00]
        let ext: [UInt8] = [0, 0, 1, 0xB5, 0x14, 0x8A, 0x00, 0x01, 0x00, 0x00]
        let bytes = header + ext + [UInt8](repeating: 0, count: 1_000_000 - header.count - ext.count)
        // when read,
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        // then the header's facts come back and the duration is size × 8 / bit rate.
        #expect(m.format == .mpegPS)
        // 720×576 coded, shown at the header's 4:3: 768 wide.
        #expect(m.pixelWidth == 768 && m.pixelHeight == 576)
        #expect(m.frameRate == 25)
        #expect(m.videoCodec == "mpeg2video")
        #expect(abs((m.durationSeconds ?? 0) - 1.0) < 1e-9)
    }

    @Test("a transport stream: PAT, PMT, an H.264 SPS size and the PTS span")
    func transportStream() throws {
        let bytes = Self.transportStreamFixture(firstPTS: 90_000, lastPTS: 90_000 + 9_000 * 9, frames: 10)
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        #expect(m.format == .mpegTS)
        #expect(m.videoCodec == "h264")
        #expect(m.pixelWidth == 1920 && m.pixelHeight == 1080)
        #expect(m.frameRate == 10)
        // Ten frames at 10 fps: the last starts at 0.9 s and ends at 1 s.
        #expect(abs((m.durationSeconds ?? 0) - 1.0) < 1e-9)
        #expect(m.hasAudio == false)
    }

    @Test("reads an H.264 SPS with cropping (1920x1080 coded as 1920x1088)")
    func h264SPS() {
        #expect(H264SPS.size(Self.sps1080).map { ($0.width, $0.height) } ?? (0, 0) == (1920, 1080))
        #expect(H264SPS.size(Array(Self.sps1080.prefix(4))) == nil)
    }

    @Test("AMF0 parsing keeps the properties before a fault and never loops on lies")
    func amf0Bounds() {
        // A strict array claiming 2^32-1 values inside a 20-byte tag fails fast.
        var lying = AMF0Parser(bytes: [0x02, 0x00, 0x01, 0x61, 0x08, 0, 0, 0, 1, 0x00, 0x01, 0x78, 0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00])
        #expect(lying.topLevelString() == "a")
        #expect(lying.topLevelProperties().isEmpty)
        #expect(lying.failed)
        // Deep nesting stops at the depth cap.
        let deep: [UInt8] = [0x02, 0x00, 0x01, 0x61, 0x03] + Array(repeating: [UInt8]([0x00, 0x01, 0x6B, 0x03]), count: 1000).flatMap { $0 }
        var nested = AMF0Parser(bytes: deep)
        _ = nested.topLevelString()
        _ = nested.topLevelProperties()
        #expect(nested.failed)
        // A good object: numbers, booleans and strings come back.
        let good: [UInt8] = [0x02, 0x00, 0x0A] + Array("onMetaData".utf8) + [0x08, 0, 0, 0, 2,
            0x00, 0x08] + Array("duration".utf8) + [0x00, 0x40, 0x08, 0, 0, 0, 0, 0, 0,
            0x00, 0x08] + Array("hasAudio".utf8) + [0x01, 0x01, 0x00, 0x00, 0x09]
        var parser = AMF0Parser(bytes: good)
        #expect(parser.topLevelString() == "onMetaData")
        let properties = parser.topLevelProperties()
        #expect(properties["duration"] == .number(3))
        #expect(properties["hasAudio"] == .bool(true))
        #expect(!parser.failed)
    }

    @Test("a DV header from NTSC with no VAUX says 720x480 at 29.97, shown at 4:3 (640 wide)")
    func dvNTSC() throws {
        var bytes = [UInt8](repeating: 0xFF, count: 120_000)
        bytes[0] = 0x1F; bytes[1] = 0x07; bytes[2] = 0x00; bytes[3] = 0x3F  // DSF 0: 525/60
        let m = try DVReader.read(MemoryByteSource(bytes)).metadata
        // 720 pixels of 8:9 (ffmpeg's NTSC 4:3 pixel aspect).
        #expect(m.pixelWidth == 640 && m.pixelHeight == 480)
        #expect(abs((m.frameRate ?? 0) - 30000.0 / 1001) < 1e-9)
        #expect(abs((m.durationSeconds ?? 0) - 1001.0 / 30000) < 1e-9)
        #expect(m.captureDate == nil)
    }

    // MARK: Hostile input

    @Test("every truncation of the small corpus headers reads or throws, never crashes",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func truncations() throws {
        guard let media = Corpus.media else { return }
        for path in ["exiftool-t-images/t/images/Flash.flv", "mathiasbynens-small/WindowsMediaVideo.wmv",
                     "exiftool-t-images/t/images/DV.dv", "exiftool-t-images/t/images/ASF.wmv"] {
            let source = try FileByteSource(path: media.appendingPathComponent(path).path)
            let bytes = try source.read(at: 0, count: 5_000)
            for length in 0...bytes.count {
                _ = try? MetadataReader.read(MemoryByteSource(Array(bytes.prefix(length))))
            }
        }
        let ts = Self.transportStreamFixture(firstPTS: 0, lastPTS: 9_000, frames: 2)
        for length in stride(from: 0, through: ts.count, by: 7) {
            _ = try? MPEGReader.readTransportStream(MemoryByteSource(Array(ts.prefix(length))))
        }
    }

    @Test("lying sizes and counts in ASF, FLV and MPEG give errors or warnings")
    func lyingSizes() throws {
        // An ASF header whose object size is 0xFFFFFFFFFFFFFFFF.
        var asf = ASFReader.GUID.header + [UInt8](repeating: 0xFF, count: 8) + [1, 0, 0, 0, 1, 2]
        asf += ASFReader.GUID.fileProperties + [UInt8](repeating: 0xFF, count: 8)
        let asfReading = try ASFReader.read(MemoryByteSource(asf))
        #expect(!asfReading.metadata.warnings.isEmpty)
        // An ASF header object of size 0 is refused.
        let zero = ASFReader.GUID.header + [UInt8](repeating: 0, count: 14)
        #expect(throws: MetadataError.self) { try ASFReader.read(MemoryByteSource(zero)) }
        // An FLV whose script tag claims 16 MB.
        let flv: [UInt8] = Array("FLV".utf8) + [1, 5, 0, 0, 0, 9, 0, 0, 0, 0, 18, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 2, 0]
        let flvReading = try FLVReader.read(MemoryByteSource(flv))
        #expect(!flvReading.metadata.warnings.isEmpty)
        // A program stream of packets whose lengths run past the end, and garbage between.
        var ps: [UInt8] = [0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1, 0, 0x03, 0xFF, 0xF8]
        ps += [0, 0, 1, 0xE0, 0xFF, 0xFF, 0x80, 0x80, 0x05, 0x21, 0, 1, 0, 1] + [UInt8](repeating: 0x55, count: 100)
        let psReading = try MPEGReader.readProgramStream(MemoryByteSource(ps))
        #expect(psReading.metadata.durationSeconds == nil)
        #expect(throws: MetadataError.self) { try MPEGReader.readTransportStream(MemoryByteSource([0x47, 1, 2, 3])) }
    }

    @Test("an onMetaData codec id of 1e300 without a video tag is ignored, not a trap (fuzz finding)")
    func flvHugeCodecID() throws {
        let script: [UInt8] = [0x02, 0x00, 0x0A] + Array("onMetaData".utf8) + [0x03, 0x00, 0x0C] + Array("videocodecid".utf8)
            + [0x00, 0x7E, 0x37, 0xE4, 0x3C, 0x88, 0x00, 0x75, 0x9C, 0x00, 0x00, 0x09]
        let size = script.count
        let flv: [UInt8] = Array("FLV".utf8) + [1, 1, 0, 0, 0, 9, 0, 0, 0, 0]
            + [18, UInt8(size >> 16), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF), 0, 0, 0, 0, 0, 0, 0] + script
        let m = try FLVReader.read(MemoryByteSource(flv)).metadata
        #expect(m.videoCodec == nil)
        #expect(m.warnings.isEmpty)
    }

    // MARK: Fixture builders

    /// An SPS NAL (after 00 00 01 67's header byte): High profile 1920x1088 cropped to 1080.
    static let sps1080: [UInt8] = {
        var w = BitWriter()
        w.put(100, 8); w.put(0, 8); w.put(40, 8); w.ue(0)
        w.ue(1); w.ue(0); w.ue(0); w.put(0, 1); w.put(0, 1)  // 4:2:0, 8-bit, no scaling lists
        w.ue(0); w.ue(0); w.ue(4)                            // frame num, POC type 0, POC lsb
        w.ue(4); w.put(0, 1); w.ue(119); w.ue(67)            // refs, gaps, 120 x 68 macroblocks
        w.put(1, 1); w.put(1, 1); w.put(1, 1)                // frame MBs only, direct 8x8, cropping
        w.ue(0); w.ue(0); w.ue(0); w.ue(4)                   // crop bottom 4 × 2 rows
        w.put(0, 1); w.put(1, 1)                             // no VUI, stop bit
        return w.bytes
    }()

    /// PAT, PMT (one H.264 stream on PID 0x100), then `frames` PES packets with PTS evenly spaced.
    static func transportStreamFixture(firstPTS: Int64, lastPTS: Int64, frames: Int) -> [UInt8] {
        func packet(pid: Int, start: Bool, _ payload: [UInt8]) -> [UInt8] {
            var p: [UInt8] = [0x47, UInt8((start ? 0x40 : 0) | (pid >> 8)), UInt8(pid & 0xFF), 0x10]
            p += payload.prefix(184)
            p += [UInt8](repeating: 0xFF, count: 188 - p.count)
            return p
        }
        let pat: [UInt8] = [0x00, 0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00, 0, 0, 0, 0]
        let pmt: [UInt8] = [0x00, 0x02, 0xB0, 0x12, 0x00, 0x01, 0xC1, 0x00, 0x00, 0xE1, 0x00, 0xF0, 0x00,
                            0x1B, 0xE1, 0x00, 0xF0, 0x00, 0, 0, 0, 0]
        func pts(_ value: Int64) -> [UInt8] {
            [UInt8(0x21 | ((value >> 29) & 0x0E)), UInt8((value >> 22) & 0xFF), UInt8(((value >> 14) & 0xFE) | 1),
             UInt8((value >> 7) & 0xFF), UInt8(((value << 1) & 0xFE) | 1)]
        }
        var out = packet(pid: 0, start: true, pat) + packet(pid: 0x1000, start: true, pmt)
        let step = frames > 1 ? (lastPTS - firstPTS) / Int64(frames - 1) : 0
        for frame in 0..<frames {
            var pes: [UInt8] = [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 0x05] + pts(firstPTS + Int64(frame) * step)
            if frame == 0 { pes += [0, 0, 0, 1, 0x67] + sps1080 }
            out += packet(pid: 0x100, start: true, pes)
        }
        return out
    }
}
