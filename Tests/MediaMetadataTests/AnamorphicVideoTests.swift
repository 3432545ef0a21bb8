import Testing
@testable import MediaMetadata
import CorpusSupport
import Foundation

private typealias F = ISOBMFFFixture

/// Anamorphic video (DV, DVD, HDV and AVCHD's 1440×1080) stores non-square pixels: its
/// `pixelWidth` is the width players show it at, the coded width scaled by the pixel
/// aspect, its height kept (as ffmpeg writes a track header and exiftool reads it).
@Suite("Anamorphic video: the size shown")
struct AnamorphicVideoTests {
    @Test("an MP4's pixel aspect box (pasp 16:15) widens 720×576 to 768×576")
    func isoBMFFPixelAspect() throws {
        func movie(_ entryBoxes: [UInt8]) -> [UInt8] {
            let moov = F.box("moov", F.mvhd(timescale: 600, duration: 600)
                             + F.videoTrak(matrix: F.identityMatrix, width: 720, height: 576, timescale: 25,
                                           frames: 25, delta: 1, entryBoxes: entryBoxes))
            return F.ftyp("isom") + moov + F.box("mdat", [UInt8](repeating: 0, count: 16))
        }
        let avcC = F.box("avcC", [1, 100, 0, 40, 0xFF, 0xE0, 0x00])
        let wide = try ISOBMFFReader.read(MemoryByteSource(movie(avcC + F.box("pasp", F.be32(16) + F.be32(15)))), format: .mp4)
        #expect(wide.metadata.pixelWidth == 768 && wide.metadata.pixelHeight == 576)
        let square = try ISOBMFFReader.read(MemoryByteSource(movie(avcC + F.box("pasp", F.be32(1) + F.be32(1)))), format: .mp4)
        #expect(square.metadata.pixelWidth == 720)
        let none = try ISOBMFFReader.read(MemoryByteSource(movie(avcC)), format: .mp4)
        #expect(none.metadata.pixelWidth == 720)
        // A child box claiming more bytes than the entry holds ends the walk: the coded size stays.
        let lying = try ISOBMFFReader.read(MemoryByteSource(movie(F.be32(0x7FFF_FFFF) + F.fourCC("pasp") + F.be32(16))),
                                           format: .mp4)
        #expect(lying.metadata.pixelWidth == 720)
    }

    @Test("a Matroska track's DisplayWidth × DisplayHeight sets the shape shown")
    func matroskaDisplaySize() throws {
        func file(_ display: [UInt8]) throws -> MediaMetadata {
            let video = ebml(MKV.video, ebmlUInt(MKV.pixelWidth, 720) + ebmlUInt(MKV.pixelHeight, 576) + display)
            let track = ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 1) + ebmlString(MKV.codecID, "V_MPEG4/ISO/AVC") + video)
            return try MatroskaReader.read(MemoryByteSource(makeMatroska(docType: "matroska", segment: ebml(MKV.tracks, track))))
                .metadata
        }
        let shown = try file(ebmlUInt(MKV.displayWidth, 1024) + ebmlUInt(MKV.displayHeight, 576))
        #expect(shown.pixelWidth == 1024 && shown.pixelHeight == 576)
        // DisplayUnit 3: the two numbers are an aspect ratio.
        let ratio = try file(ebmlUInt(MKV.displayWidth, 16) + ebmlUInt(MKV.displayHeight, 9) + ebmlUInt(MKV.displayUnit, 3))
        #expect(ratio.pixelWidth == 1024)
        // DisplayUnit 4 (unknown) says nothing of the shape.
        let unknown = try file(ebmlUInt(MKV.displayWidth, 16) + ebmlUInt(MKV.displayHeight, 9) + ebmlUInt(MKV.displayUnit, 4))
        #expect(unknown.pixelWidth == 720)
        #expect(try file([]).pixelWidth == 720)
    }

    /// An H.264 SPS (after the NAL header byte), baseline, 4:2:0, with a VUI aspect ratio
    /// (`aspect_ratio_idc`, and `sar` when it is 255) or without a VUI.
    static func sps(widthMBs: Int, heightMBs: Int, cropBottom: Int, aspectIDC: Int?, sar: (Int, Int) = (0, 0)) -> [UInt8] {
        var w = BitWriter()
        w.put(66, 8); w.put(0, 8); w.put(40, 8); w.ue(0)    // baseline, level 4, SPS 0
        w.ue(0); w.ue(2); w.ue(1); w.put(0, 1)              // frame num bits, POC type 2, 1 ref, no gaps
        w.ue(widthMBs - 1); w.ue(heightMBs - 1)
        w.put(1, 1); w.put(1, 1); w.put(cropBottom > 0 ? 1 : 0, 1)
        if cropBottom > 0 { w.ue(0); w.ue(0); w.ue(0); w.ue(cropBottom / 2) }
        if let aspectIDC {
            w.put(1, 1); w.put(1, 1); w.put(aspectIDC, 8)   // VUI, aspect ratio info
            if aspectIDC == 255 { w.put(sar.0, 16); w.put(sar.1, 16) }
            w.put(0, 8)                                     // no other VUI fields
        } else {
            w.put(0, 1)
        }
        w.put(1, 1)
        let rbsp = w.bytes
        // Emulation prevention: 00 00 followed by 00…03 gets a 03 between.
        var nal: [UInt8] = [], zeros = 0
        for byte in rbsp {
            if zeros >= 2, byte <= 3 { nal.append(3); zeros = 0 }
            nal.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return nal
    }

    @Test("an H.264 SPS's VUI aspect: HDV and AVCHD's 1440×1080 of 4:3 is 1920 wide, PAL's 720×576 of 64:45 1024",
          arguments: [(90, 68, 8, 14, (0, 0), 1920, 1080), (45, 36, 0, 255, (64, 45), 1024, 576),
                      (120, 68, 8, 1, (0, 0), 1920, 1080), (45, 36, 0, nil, (0, 0), 720, 576),
                      (45, 36, 0, 0, (0, 0), 720, 576)] as [(Int, Int, Int, Int?, (Int, Int), Int, Int)])
    func h264SampleAspect(widthMBs: Int, heightMBs: Int, cropBottom: Int, idc: Int?, sar: (Int, Int),
                          width: Int, height: Int) throws {
        let nal = Self.sps(widthMBs: widthMBs, heightMBs: heightMBs, cropBottom: cropBottom, aspectIDC: idc, sar: sar)
        var m = MediaMetadata(format: .mpegTS)
        MPEGReader.describeVideo([0, 0, 0, 1, 0x67] + nal, streamType: 0x1B, metadata: &m)
        #expect(m.pixelWidth == width && m.pixelHeight == height, "idc \(String(describing: idc))")
    }

    @Test("an MPEG-2 sequence header's display aspect (16:9) widens a DVD's 720×576 to 1024")
    func mpeg2DisplayAspect() {
        func stream(aspect: Int, extended: Bool) -> [UInt8] {
            var w = BitWriter()
            w.put(720, 12); w.put(576, 12); w.put(aspect, 4); w.put(3, 4); w.put(0x3FFFF, 18); w.put(1, 1); w.put(112, 10)
            w.put(0, 3)
            if extended {  // sequence extension: id 1, Main@Main, progressive, 4:2:0, no size or rate extension
                w.put(1, 4); w.put(0x48, 8); w.put(1, 1); w.put(1, 2); w.put(0, 2); w.put(0, 2); w.put(0, 12); w.put(1, 1)
                w.put(0, 8); w.put(0, 1); w.put(0, 2); w.put(0, 5)
            }
            let bytes = w.bytes
            return [0, 0, 1, 0xB3] + bytes.prefix(8) + (extended ? [0, 0, 1, 0xB5] + bytes.dropFirst(8) : []) + [0, 0, 1, 0x00]
        }
        var wide = MediaMetadata(format: .mpegPS)
        MPEGReader.describeVideo(stream(aspect: 3, extended: true), streamType: 2, metadata: &wide)
        #expect(wide.videoCodec == "mpeg2video" && wide.pixelWidth == 1024 && wide.pixelHeight == 576)
        var standard = MediaMetadata(format: .mpegPS)
        MPEGReader.describeVideo(stream(aspect: 2, extended: true), streamType: 2, metadata: &standard)
        #expect(standard.pixelWidth == 768)
        // MPEG-1's code is a pixel aspect of another table, not read: the coded width stays.
        var mpeg1 = MediaMetadata(format: .mpegPS)
        MPEGReader.describeVideo(stream(aspect: 3, extended: false), streamType: nil, metadata: &mpeg1)
        #expect(mpeg1.videoCodec == "mpeg1video" && mpeg1.pixelWidth == 720)
    }

    @Test("a pixel aspect beyond 16:1 either way, or with a zero, is a lying field and is ignored")
    func lyingAspect() {
        #expect(VideoFields.displayWidth(codedWidth: 720, pixelAspect: (1, 1000)) == 720)
        #expect(VideoFields.displayWidth(codedWidth: 720, pixelAspect: (1000, 1)) == 720)
        #expect(VideoFields.displayWidth(codedWidth: 720, pixelAspect: (0, 1)) == 720)
        #expect(VideoFields.displayWidth(codedWidth: 720, pixelAspect: nil) == 720)
        #expect(VideoFields.displayWidth(codedWidth: 720, pixelAspect: (32, 27)) == 853)
    }
}

@Suite("Video colour as the container declares it")
struct VideoColourTests {
    /// ffprobe's names of H.273 transfer characteristics.
    static let transferNames: [String: Int] = [
        "bt709": 1, "reserved": 3, "bt470m": 4, "bt470bg": 5, "smpte170m": 6, "smpte240m": 7, "linear": 8,
        "iec61966-2-4": 11, "iec61966-2-1": 13, "bt2020-10": 14, "bt2020-12": 15, "smpte2084": 16, "arib-std-b67": 18,
    ]

    @Test("every corpus movie whose container declares a colour declares ffprobe's transfer",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusTransfers() throws {
        var compared = 0
        for file in formatsCorpusFiles(ofTypes: ["MOV", "MP4", "M4V", "3GP", "MKV", "WEBM"]) {
            guard let colour = try? MetadataReader.read(FileByteSource(path: file.url.path))?.videoColour,
                  let name = ffprobeStream(file.path, "video")?["color_transfer"]?.string else { continue }
            #expect(colour.transfer == Self.transferNames[name], "\(file.path): ours \(colour.transfer), ffprobe \(name)")
            compared += 1
        }
        print("video colour: \(compared) corpus movies declare a transfer; all are ffprobe's")
        #expect(compared >= 1)
    }

    @Test("an MP4's colr nclx and a Matroska Colour element are read; an unknown colr type is not")
    func fixtures() throws {
        func movie(_ colr: [UInt8]) throws -> CodedVideoColour? {
            let moov = F.box("moov", F.mvhd(timescale: 600, duration: 600)
                             + F.videoTrak(matrix: F.identityMatrix, codec: "hvc1", width: 640, height: 360, timescale: 25,
                                           frames: 25, delta: 1, entryBoxes: F.box("colr", colr)))
            return try ISOBMFFReader.read(MemoryByteSource(F.ftyp("isom") + moov + F.box("mdat", [])), format: .mp4)
                .metadata.videoColour
        }
        #expect(try movie(F.fourCC("nclx") + [0, 9, 0, 18, 0, 9, 0x00]) == CodedVideoColour(primaries: 9, transfer: 18, matrix: 9))
        #expect(try movie(F.fourCC("nclc") + [0, 9, 0, 16, 0, 9]) == CodedVideoColour(primaries: 9, transfer: 16, matrix: 9))
        #expect(try movie(F.fourCC("prof") + [0, 9, 0, 16, 0, 9]) == nil)
        #expect(try movie(F.fourCC("nclx") + [0, 9]) == nil)

        let colourElement = ebml(MKV.colour, ebmlUInt(MKV.transferCharacteristics, 16) + ebmlUInt(MKV.primaries, 9))
        let video = ebml(MKV.video, ebmlUInt(MKV.pixelWidth, 640) + ebmlUInt(MKV.pixelHeight, 360) + colourElement)
        let track = ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 1) + ebmlString(MKV.codecID, "V_VP9") + video)
        let mkv = try MatroskaReader.read(MemoryByteSource(makeMatroska(segment: ebml(MKV.tracks, track)))).metadata
        // The matrix left out is unspecified (2).
        #expect(mkv.videoColour == CodedVideoColour(primaries: 9, transfer: 16, matrix: 2))
        #expect(mkv.videoColour?.isHDR == true)
    }
}
