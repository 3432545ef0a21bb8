import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

/// Builds AVCHD-style transport streams byte by byte.
///
/// Sources for the layout: ISO/IEC 13818-1 (transport packets, PAT, PMT, PES headers
/// and their 33-bit PTS); the BDAV/AVCHD 192-byte source packet (a 4-byte
/// TP_extra_header — 2 bits of copy permission, 30 bits of arrival time stamp — before
/// each 188-byte packet, as `.mts`/`.m2ts` files on camcorders store them); ITU-T H.264
/// §7.3.2.1.1 (sequence parameter set) and §7.3.2.3 / Annex D.1.6 (SEI, user data
/// unregistered); exiftool's `H264.pm` and its "H264 Tags" documentation for the MDPM
/// records (UUID 17ee8c60-f84d-11d9-8cd6-0800200c9a66 + "MDPM", a count, then 5-byte
/// entries: 0x18/0x19 the date with its zone byte, 0xE0 the maker code, 0xE4–0xE6
/// Sony's model, 0xB1–0xB8 GPS).
enum CamcorderFixture {
    /// Writes bits most significant first, with unsigned Exp-Golomb codes.
    struct BitWriter {
        var bytes: [UInt8] = []
        var bit = 0
        mutating func put(_ value: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) {
                if bit == 0 { bytes.append(0) }
                if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> bit) }
                bit = (bit + 1) % 8
            }
        }
        mutating func ue(_ value: Int) {
            let code = value + 1
            let length = Int.bitWidth - code.leadingZeroBitCount
            put(0, length - 1)
            put(code, length)
        }
        mutating func trailing() { put(1, 1); while bit != 0 { put(0, 1) } }
    }

    /// A Baseline-profile SPS for `width`×`height` (multiples of 16 before the crop).
    static func sps(width: Int, height: Int) -> [UInt8] {
        var w = BitWriter()
        w.put(66, 8); w.put(0, 8); w.put(40, 8)  // profile, constraints, level
        w.ue(0); w.ue(0); w.ue(2); w.ue(1); w.put(0, 1)  // id, frame num, POC type 2, refs, gaps
        let mbWidth = (width + 15) / 16, mbHeight = (height + 15) / 16
        w.ue(mbWidth - 1); w.ue(mbHeight - 1)
        w.put(1, 1); w.put(1, 1)  // frame_mbs_only, direct_8x8
        let cropBottom = (mbHeight * 16 - height) / 2
        if cropBottom > 0 { w.put(1, 1); w.ue(0); w.ue(0); w.ue(0); w.ue(cropBottom) } else { w.put(0, 1) }
        w.put(0, 1)  // no VUI
        w.trailing()
        return [0, 0, 0, 1, 0x67] + w.bytes
    }

    struct MDPM {
        var zone: UInt8 = 0x12  // +09:00
        var date: [UInt8] = [0x20, 0x11, 0x09, 0x11, 0x17, 0x42, 0x47]  // 2011-09-11 17:42:47, BCD
        var maker: UInt16 = 0x0108  // Sony
        var model = "HDR-CX700V"
        var gps: Bool = true
    }

    /// An SEI NAL unit holding one "user data unregistered" message with the MDPM.
    static func sei(_ m: MDPM) -> [UInt8] {
        var entries: [(UInt8, [UInt8])] = []
        entries.append((0x18, [m.zone] + Array(m.date[0..<3])))
        entries.append((0x19, Array(m.date[3..<7])))
        if m.gps {
            entries.append((0xB1, [UInt8(ascii: "N"), 0, 0, 0]))
            entries.append((0xB2, [0, 35, 0, 1]))
            entries.append((0xB3, [0, 39, 0, 1]))
            entries.append((0xB4, [0x0B, 0xB8, 0, 100]))  // 3000/100 = 30 seconds
            entries.append((0xB5, [UInt8(ascii: "E"), 0, 0, 0]))
            entries.append((0xB6, [0, 139, 0, 1]))
            entries.append((0xB7, [0, 44, 0, 1]))
            entries.append((0xB8, [0, 20, 0, 1]))
        }
        entries.append((0xE0, [UInt8(m.maker >> 8), UInt8(m.maker & 0xFF), 0, 0]))
        let model = Array(m.model.utf8) + [UInt8](repeating: 0, count: 12)
        for (i, tag) in [0xE4, 0xE5, 0xE6].enumerated() { entries.append((UInt8(tag), Array(model[(i * 4)..<(i * 4 + 4)]))) }
        var payload = H264CameraMetadata.userDataUUID + Array("MDPM".utf8) + [UInt8(entries.count)]
        for (tag, data) in entries { payload += [tag] + data }
        var message: [UInt8] = [5]
        var size = payload.count
        while size >= 255 { message.append(255); size -= 255 }
        message.append(UInt8(size))
        return [0, 0, 0, 1, 0x06] + message + payload + [0x80]
    }

    static func pts(_ value: Int64, marker: UInt8 = 0x21) -> [UInt8] {
        [marker | UInt8((value >> 29) & 0x0E), UInt8((value >> 22) & 0xFF), UInt8(((value >> 14) & 0xFE) | 1),
         UInt8((value >> 7) & 0xFF), UInt8(((value << 1) & 0xFE) | 1)]
    }

    static func pes(streamID: UInt8, pts value: Int64, payload: [UInt8]) -> [UInt8] {
        let header: [UInt8] = [0x80, 0x80, 5] + pts(value)
        let length = streamID >= 0xE0 ? 0 : header.count + payload.count  // video may leave it unbounded
        return [0, 0, 1, streamID, UInt8(length >> 8), UInt8(length & 0xFF)] + header + payload
    }

    /// 188-byte packets carrying `data` on `pid`, the first with payload_unit_start.
    static func packets(pid: Int, _ data: [UInt8], counter: inout Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var rest = data[...]
        var first = true
        while !rest.isEmpty {
            let chunk = rest.prefix(184)
            rest = rest.dropFirst(chunk.count)
            var packet: [UInt8] = [0x47, UInt8((first ? 0x40 : 0) | (pid >> 8)), UInt8(pid & 0xFF)]
            if chunk.count < 184 {
                // Adaptation-field stuffing fills the packet.
                let stuffing = 184 - chunk.count - 1
                packet.append(UInt8(0x30 | (counter & 0x0F)))
                packet.append(UInt8(stuffing))
                if stuffing > 0 { packet += [0x00] + [UInt8](repeating: 0xFF, count: stuffing - 1) }
            } else {
                packet.append(UInt8(0x10 | (counter & 0x0F)))
            }
            packet += chunk
            counter += 1
            out.append(packet)
            first = false
        }
        return out
    }

    static func section(tableID: UInt8, _ body: [UInt8]) -> [UInt8] {
        let length = body.count + 5 + 4
        return [0, tableID, UInt8(0xB0 | (length >> 8)), UInt8(length & 0xFF), 0, 1, 0xC1, 0, 0] + body + [0, 0, 0, 0]
    }

    /// A stream of `frames` frames at 30000/1001 fps: PAT, PMT (H.264 on 0x1011, AC-3
    /// on 0x1100), then per frame one video PES (SPS + SEI on the first) and one audio PES.
    static func stream(frames: Int, mdpm: MDPM? = MDPM(), sourcePackets: Bool, width: Int = 1920, height: Int = 1080) -> [UInt8] {
        var counter = 0
        var all: [[UInt8]] = []
        all += packets(pid: 0, section(tableID: 0x00, [0, 1, 0xE1, 0x00]), counter: &counter)
        let pmt: [UInt8] = [0xF0, 0x01, 0xF0, 0x00,  // PCR PID, no program info
                            0x1B, 0xF0, 0x11, 0xF0, 0x00,  // H.264 on 0x1011
                            0x81, 0xF1, 0x00, 0xF0, 0x00]  // AC-3 on 0x1100
        all += packets(pid: 0x100, section(tableID: 0x02, pmt), counter: &counter)
        let start: Int64 = 90_000
        for frame in 0..<frames {
            let t = start + Int64(frame) * 3003
            var es: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0]  // access unit delimiter
            if frame == 0 {
                es += sps(width: width, height: height)
                if let mdpm { es += sei(mdpm) }
            }
            es += [0, 0, 0, 1, 0x65] + [UInt8](repeating: 0x88, count: 300)
            all += packets(pid: 0x1011, pes(streamID: 0xE0, pts: t, payload: es), counter: &counter)
            all += packets(pid: 0x1100, pes(streamID: 0xBD, pts: t, payload: [0x0B, 0x77] + [UInt8](repeating: 0, count: 60)), counter: &counter)
        }
        var out: [UInt8] = []
        for (i, packet) in all.enumerated() {
            if sourcePackets {
                let arrival = UInt32(i * 1000) & 0x3FFF_FFFF
                out += [UInt8(arrival >> 24), UInt8((arrival >> 16) & 0xFF), UInt8((arrival >> 8) & 0xFF), UInt8(arrival & 0xFF)]
            }
            out += packet
        }
        return out
    }
}

@Suite("AVCHD and camcorder transport streams")
struct CamcorderVideoTests {
    @Test("reads an AVCHD .MTS of 192-byte source packets: size, rate, codec, audio, duration, and the MDPM's date, make, model and place",
          arguments: [true, false])
    func avchd(sourcePackets: Bool) throws {
        // Given 60 frames at 29.97 fps written as a Sony camcorder writes them,
        let bytes = CamcorderFixture.stream(frames: 60, sourcePackets: sourcePackets)
        // when read by content alone,
        let m = try #require(try MetadataReader.read(MemoryByteSource(bytes)))
        // then it is a transport stream with the stream's facts,
        #expect(m.format == .mpegTS)
        #expect(m.pixelWidth == 1920 && m.pixelHeight == 1080)
        #expect(m.videoCodec == "h264" && m.hasAudio == true)
        #expect(abs((m.frameRate ?? 0) - 30000.0 / 1001) < 0.001)
        // the duration is the PTS span plus one frame, as ffprobe computes it,
        #expect(abs((m.durationSeconds ?? 0) - 60 * 3003 / 90_000.0) < 0.001)
        // and the camera's facts come from the MDPM (exiftool: H264:DateTimeOriginal
        // "2011:09:11 17:42:47+09:00", H264:Make "Sony", H264:Model).
        #expect(m.captureDate?.iso8601 == "2011-09-11T17:42:47+09:00")
        #expect(m.captureDateSource == .h264CameraMetadata)
        #expect(m.make == "Sony" && m.model == "HDR-CX700V")
        let place = try #require(m.location)
        #expect(abs(place.latitude - (35 + 39 / 60.0 + 30 / 3600.0)) < 1e-9)
        #expect(abs(place.longitude - (139 + 44 / 60.0 + 20 / 3600.0)) < 1e-9)
    }

    @Test("reads the zone byte's sign and half hour, and Panasonic's maker code without a model")
    func zoneAndMaker() throws {
        var mdpm = CamcorderFixture.MDPM()
        mdpm.zone = 0x20 | (3 << 1) | 0x01  // −03:30
        mdpm.maker = 0x0103
        mdpm.gps = false
        let m = try #require(try MetadataReader.read(MemoryByteSource(CamcorderFixture.stream(frames: 4, mdpm: mdpm, sourcePackets: true))))
        #expect(m.captureDate?.utcOffsetSeconds == -(3 * 3600 + 30 * 60))
        // exiftool reads the model (0xE4) for Sony only.
        #expect(m.make == "Panasonic" && m.model == nil && m.location == nil)
    }

    @Test("a stream without MDPM has no camera facts, and its other facts are still read")
    func withoutMDPM() throws {
        let m = try #require(try MetadataReader.read(MemoryByteSource(CamcorderFixture.stream(frames: 4, mdpm: nil, sourcePackets: false,
                                                                                               width: 1280, height: 720))))
        #expect(m.pixelWidth == 1280 && m.pixelHeight == 720)
        #expect(m.captureDate == nil && m.make == nil)
    }

    @Test("hostile MDPM: out-of-order tags, bad BCD, lying sizes and counts give no date, never a crash")
    func hostileMDPM() {
        let uuid = H264CameraMetadata.userDataUUID + Array("MDPM".utf8)
        // Out of order: 0x19 before 0x18 stops the walk (as exiftool's warning says).
        #expect(H264CameraMetadata.parseMDPM([2, 0x19, 1, 2, 3, 4, 0x18, 0x12, 0x20, 0x11, 0x09]) == nil)
        // Not BCD.
        #expect(H264CameraMetadata.date([0x12, 0x2A, 0x11, 0x09, 0x11, 0x17, 0x42, 0x47]) == nil)
        // A count of 255 with three bytes behind it; a message size past the end.
        #expect(H264CameraMetadata.parseMDPM([255, 0x18, 0]) == nil)
        #expect(H264CameraMetadata.parseSEI([5, 200] + uuid) == nil)
        #expect(H264CameraMetadata.parseSEI([0xFF, 0xFF, 0xFF]) == nil)
        for cut in 0..<40 {
            _ = H264CameraMetadata.find(inElementaryStream: Array(CamcorderFixture.sei(.init()).prefix(cut)))
        }
    }

    @Test("the AVCHD index files (INDEX.BDM, MOVIEOBJ.BDM, PLAYLIST/*.MPL, CLIPINF/*.CPI) are not media")
    func indexFilesAreSkipped() throws {
        // Their type indicators, from the AVCHD/Blu-ray BDMV structure: "INDX", "MOBJ",
        // "MPLS", "HDMV", each followed by a version ("0100" on AVCHD).
        for magic in ["INDX0100", "MOBJ0100", "MPLS0100", "HDMV0100", "INDX0200", "MPLS0200"] {
            let bytes = Array(magic.utf8) + [UInt8](repeating: 0, count: 120)
            #expect(try MetadataReader.read(MemoryByteSource(bytes)) == nil, "\(magic)")
        }
    }
}

@Suite("Sony XAVC clip sidecar")
struct SonyClipMetadataTests {
    /// The shape of the `C0001M01.XML` that Sony XAVC S / XAVC HS cameras write
    /// (namespace `urn:schemas-professionalDisc:nonRealTimeMeta:ver.2.00`; elements
    /// `CreationDate`, `Device`, `AcquisitionRecord/Group[@name="ExifGPS"]/Item`, as read
    /// by the published converters of these files).
    static let sample = """
    <?xml version="1.0" encoding="UTF-8"?>
    <NonRealTimeMeta xmlns="urn:schemas-professionalDisc:nonRealTimeMeta:ver.2.00" xmlns:lib="urn:schemas-professionalDisc:lib:ver.2.00" lastUpdate="2019-08-03T15:20:07+02:00">
    \t<TargetMaterial umidRef="060A2B340101010501010D4313000000C0FFEE"/>
    \t<Duration value="1508"/>
    \t<CreationDate value="2019-08-03T15:19:16+02:00"/>
    \t<VideoFormat><VideoFrame videoCodec="AVC_3840_2160_HP@L51" captureFps="25p" formatFps="25p"/><VideoLayout pixel="3840" numOfVerticalLine="2160" aspectRatio="16:9"/></VideoFormat>
    \t<Device manufacturer="Sony" modelName="ILCE-7M3" serialNo="1234567"/>
    \t<AcquisitionRecord>
    \t\t<Group name="ExifGPS">
    \t\t\t<Item name="LatitudeRef" value="N"/>
    \t\t\t<Item name="Latitude" value="47:22:36.120"/>
    \t\t\t<Item name="LongitudeRef" value="E"/>
    \t\t\t<Item name="Longitude" value="8:32:24.600"/>
    \t\t\t<Item name="Status" value="A"/>
    \t\t</Group>
    \t</AcquisitionRecord>
    </NonRealTimeMeta>
    """

    @Test("reads the creation date with its offset, make, model and GPS")
    func readsSidecar() throws {
        let clip = try #require(SonyClipMetadata.parse(Array(Self.sample.utf8)))
        #expect(clip.captureDate?.iso8601 == "2019-08-03T15:19:16+02:00")
        #expect(clip.make == "Sony" && clip.model == "ILCE-7M3")
        let place = try #require(clip.location)
        #expect(abs(place.latitude - (47 + 22 / 60.0 + 36.12 / 3600)) < 1e-9)
        #expect(abs(place.longitude - (8 + 32 / 60.0 + 24.6 / 3600)) < 1e-9)
        // It fills only what the clip lacks.
        var movie = MediaMetadata(format: .mp4)
        movie.make = "SONY"
        clip.apply(to: &movie)
        #expect(movie.make == "SONY" && movie.model == "ILCE-7M3" && movie.captureDateSource == .sonyClipXML)
    }

    @Test("a void GPS fix, a truncated document and other XML give what they can, never a crash")
    func hostileSidecars() {
        let void = Self.sample.split(separator: "\n").map { $0.contains("\"Status\"") ? "<Item name=\"Status\" value=\"V\"/>" : String($0) }.joined(separator: "\n")
        #expect(SonyClipMetadata.parse(Array(void.utf8))?.location == nil)
        let bytes = Array(Self.sample.utf8)
        for cut in stride(from: 0, to: bytes.count, by: 37) { _ = SonyClipMetadata.parse(Array(bytes.prefix(cut))) }
        #expect(SonyClipMetadata.parse(Array("<x:xmpmeta/>".utf8)) == nil)
        #expect(SonyClipMetadata.parse([0xFF, 0xFE, 0x00]) == nil)
    }
}

@Suite("ISO-BMFF by structure, and zero durations")
struct ISOBMFFStructureTests {
    typealias F = ISOBMFFFixture

    @Test("a movie with an unknown major and compatible brand is read as MP4")
    func unknownBrand() throws {
        // Given an ftyp naming only brands no registry lists, then a valid moov,
        let ftyp = F.box("ftyp", F.fourCC("qq  ") + F.be32(0) + F.fourCC("zzzz"))
        let moov = F.box("moov", F.mvhd(timescale: 600, duration: 1200)
                         + F.videoTrak(matrix: F.identityMatrix, width: 640, height: 480, timescale: 600, frames: 60, delta: 20))
        let m = try #require(try MetadataReader.read(MemoryByteSource(ftyp + moov)))
        // then the boxes decide: a movie.
        #expect(m.format == .mp4)
        #expect(m.durationSeconds == 2 && m.pixelWidth == 640)
        // A file that starts straight with a known top-level box is read too.
        let bare = try #require(try MetadataReader.read(MemoryByteSource(F.box("free", [0, 0, 0, 0]) + moov)))
        #expect(bare.format == .quickTime && bare.durationSeconds == 2)
    }

    @Test("an image file with unknown brands and a meta box is HEIF")
    func unknownBrandImage() throws {
        let bytes = F.box("ftyp", F.fourCC("abcd") + F.be32(0) + F.fourCC("abcd")) + F.fullBox("meta", F.fullBox("hdlr", F.be32(0) + F.fourCC("pict") + [UInt8](repeating: 0, count: 13)))
        #expect(try MetadataReader.detectFormat(MemoryByteSource(bytes)) == .heif)
    }

    @Test("a movie holding sound alone (an .m4a with an isom brand) is an audio file, not media; with a video track it is a movie")
    func audioOnlyMovie() throws {
        let sound = F.box("moov", F.mvhd(timescale: 600, duration: 1200) + F.soundTrak())
        #expect(try MetadataReader.read(MemoryByteSource(F.ftyp("isom") + sound)) == nil)
        let movie = F.box("moov", F.mvhd(timescale: 600, duration: 1200) + F.soundTrak()
                          + F.videoTrak(matrix: F.identityMatrix, width: 640, height: 480, timescale: 30, frames: 60, delta: 1))
        let m = try #require(try MetadataReader.read(MemoryByteSource(F.ftyp("isom") + movie)))
        #expect(m.pixelWidth == 640 && m.hasAudio == true)
        // A movie whose tracks cannot be read at all is still a movie (with what could be read).
        let unread = try #require(try MetadataReader.read(MemoryByteSource(F.ftyp("isom") + F.box("moov", F.mvhd(timescale: 600, duration: 1200)))))
        #expect(unread.format == .mp4)
    }

    @Test("a movie header that says 0 gives a duration of 0, as ffprobe reports, not nil")
    func zeroDuration() throws {
        let moov = F.box("moov", F.mvhd(timescale: 600, duration: 0)
                         + F.videoTrak(matrix: F.identityMatrix, width: 640, height: 480, timescale: 600, frames: 0, delta: 1))
        let m = try #require(try MetadataReader.read(MemoryByteSource(F.ftyp("isom") + moov)))
        #expect(m.durationSeconds == 0)
        // A fragmented movie's empty header is not a length of zero.
        let fragmented = F.box("moov", F.mvhd(timescale: 600, duration: 0) + F.box("mvex", []))
        let f = try #require(try MetadataReader.read(MemoryByteSource(F.ftyp("isom") + fragmented)))
        #expect(f.durationSeconds == nil)
    }

    @Test("an MP4 with neither moov nor meta is still an MP4 (exiftool reports it so), with a warning")
    func noMovieBox() throws {
        let m = try #require(try MetadataReader.read(MemoryByteSource(F.ftyp("isom") + F.box("mdat", [1, 2, 3]))))
        #expect(m.format == .mp4 && m.warnings.contains { $0.contains("moov") })
    }
}

/// Transport streams written by ffmpeg as AVCHD cameras write them, measured by ffprobe.
@Suite("Transport stream durations against ffprobe",
       .enabled(if: TransportStreamReference.toolsInstalled, "ffmpeg and ffprobe are not installed"))
struct TransportStreamDurationTests {
    @Test("the duration is the PTS span of every stream, audio starting first included, within 0.1% of ffprobe's",
          arguments: [("ac3", "m2ts"), ("aac", "m2ts"), ("mp2", "m2ts"), ("mp2", "ts"), ("eac3", "ts")])
    func durationMatchesFFprobe(audio: String, container: String) throws {
        let path = NSTemporaryDirectory() + "/mediaindex-avchd-\(UUID().uuidString).\(container == "m2ts" ? "MTS" : "ts")"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 2 s of 29.97 fps H.264 and 48 kHz audio, as an AVCHD camcorder records (192-byte packets for .MTS).
        var arguments = ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30000/1001",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "2",
                         "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", audio, "-f", "mpegts"]
        if container == "m2ts" { arguments += ["-mpegts_m2ts_mode", "1"] }
        try TransportStreamReference.run("ffmpeg", arguments + ["-y", path])
        let reference = try #require(Double(try TransportStreamReference.run("ffprobe", [
            "-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", path,
        ]).trimmingCharacters(in: .whitespacesAndNewlines)))

        let m = try #require(try MetadataReader.read(FileByteSource(path: path)))
        let duration = try #require(m.durationSeconds)
        #expect(abs(duration - reference) <= reference * 0.001, "\(audio): \(duration) s, ffprobe \(reference) s")
    }
}

/// Runs the reference tools for the tests above.
enum TransportStreamReference {
    static func path(_ tool: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/"].map { $0 + tool }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var toolsInstalled: Bool { path("ffmpeg") != nil && path("ffprobe") != nil }

    /// Runs `tool`, requiring exit 0; returns its standard output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let outcome = try ExternalTool.outcome(try #require(path(tool)), arguments)
        #expect(outcome.exitStatus == 0, "\(tool) \(arguments.joined(separator: " ")): \(outcome.standardErrorText)")
        return outcome.standardOutputText
    }
}
