import CorpusSupport
import Testing
@testable import MediaMetadata

/// An EBML element: ID bytes as written, an 8-byte size vint, the payload.
func ebml(_ id: UInt32, _ payload: [UInt8]) -> [UInt8] {
    var idBytes: [UInt8] = []
    var v = id
    while v > 0 { idBytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
    let n = UInt64(payload.count)
    var size: [UInt8] = [0x01]
    for shift in stride(from: 48, through: 0, by: -8) { size.append(UInt8(n >> UInt64(shift) & 0xFF)) }
    return idBytes + size + payload
}

func ebmlUInt(_ id: UInt32, _ value: UInt64) -> [UInt8] {
    ebml(id, (0..<8).map { UInt8(value >> UInt64(56 - 8 * $0) & 0xFF) })
}

func ebmlString(_ id: UInt32, _ text: String) -> [UInt8] { ebml(id, Array(text.utf8)) }

/// An element of unknown size (all-ones vint).
func ebmlUnknownSize(_ id: UInt32, _ payload: [UInt8]) -> [UInt8] {
    var idBytes: [UInt8] = []
    var v = id
    while v > 0 { idBytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
    return idBytes + [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + payload
}

typealias MKV = MatroskaReader.ID

func makeMatroska(docType: String = "webm", segment: [UInt8], unknownSegmentSize: Bool = false) -> [UInt8] {
    let header = ebml(MKV.ebml, ebmlString(MKV.docType, docType))
    return header + (unknownSegmentSize ? ebmlUnknownSize(MKV.segment, segment) : ebml(MKV.segment, segment))
}

@Suite("Matroska reader")
struct MatroskaReaderTests {
    @Test("reads size, duration, codec, frame rate, audio and date of every corpus MKV/WebM like ffprobe",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("Matroska vs ffprobe")
        let files = formatsCorpusFiles(ofTypes: ["MKV", "WEBM"])
        #expect(files.count >= 4)
        for file in files {
            let m = try MatroskaReader.read(FileByteSource(path: file.url.path)).metadata
            tally.compare("format", file.path, ours: m.format.rawValue,
                          reference: file.exiftool["File:FileType"]?.string == "WEBM" ? "webm" : "mkv")
            guard let video = ffprobeStream(file.path, "video") else { continue }
            tally.compare("width", file.path, ours: m.pixelWidth, reference: video["width"]?.number.map { Int($0) })
            tally.compare("height", file.path, ours: m.pixelHeight, reference: video["height"]?.number.map { Int($0) })
            let duration = Corpus.ffprobe[file.path]?["format"]?["duration"]?.number
            if let agree = formatsRoughlyEqual(m.durationSeconds, duration, tolerance: 0.05) {
                tally.record("duration", file.path, agree: agree, detail: "ours \(m.durationSeconds ?? -1), ffprobe \(duration ?? -1)")
            }
            if let rate = ffprobeRate(video["r_frame_rate"]) {
                tally.record("frameRate", file.path, agree: abs((m.frameRate ?? 0) - rate) / rate < 0.01,
                             detail: "ours \(m.frameRate ?? -1), ffprobe \(rate)")
            }
            tally.compare("codec", file.path, ours: m.videoCodec, reference: video["codec_name"]?.string)
            tally.compare("hasAudio", file.path, ours: m.hasAudio, reference: ffprobeHasStream(file.path, "audio"))
            if let created = Corpus.ffprobe[file.path]?["format"]?["tags"]?["creation_time"]?.string {
                tally.compare("captureDate", file.path, ours: m.captureDate, reference: XMPValue.date(created))
            }
        }
        tally.printTable()
        tally.expectAgreement(deliberate: [
            "photoview/api/scanner/test_media/real_media/webm.webm":
                "its DefaultDuration is one 1 ms tick ('1000 fps', as exiftool says); ffprobe guesses 24 from the "
                + "cluster timestamps, which we never read, so we state no frame rate",
        ])
    }

    @Test("reads or rejects every corpus file of any type without crashing", .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func everyCorpusFile() {
        let result = runOnEveryCorpusFile(MatroskaReader.read)
        #expect(result.other.isEmpty)
        #expect(result.read >= 4)
    }

    @Test("reads Info, Tracks and a date from a WebM built in code")
    func builtWebM() throws {
        // 2.5 s at a 1 ms scale, as a 4-byte float; DateUTC 2023-07-14T21:30:00Z.
        let durationBits = Float(2500).bitPattern
        let dateNanoseconds = UInt64((1_689_370_200 - 978_307_200) as Int64) * 1_000_000_000
        let info = ebml(MKV.info, ebmlUInt(MKV.timestampScale, 1_000_000)
                        + ebml(MKV.duration, (0..<4).map { UInt8(durationBits >> UInt32(24 - 8 * $0) & 0xFF) })
                        + ebmlUInt(MKV.dateUTC, dateNanoseconds))
        let video = ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 1) + ebmlString(MKV.codecID, "V_VP9")
                         + ebmlUInt(MKV.defaultDuration, 33_333_333)
                         + ebml(MKV.video, ebmlUInt(MKV.pixelWidth, 1920) + ebmlUInt(MKV.pixelHeight, 1080)))
        let audio = ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 2) + ebmlString(MKV.codecID, "A_OPUS"))
        let file = makeMatroska(segment: info + ebml(MKV.tracks, video + audio) + ebmlUnknownSize(MKV.cluster, [0xA3, 0x81, 0]))
        let m = try MatroskaReader.read(MemoryByteSource(file)).metadata
        #expect(m.format == .webm)
        #expect(m.durationSeconds == 2.5)
        #expect(m.pixelWidth == 1920 && m.pixelHeight == 1080)
        #expect(m.videoCodec == "vp9")
        #expect(abs((m.frameRate ?? 0) - 30) < 0.001)
        #expect(m.hasAudio == true)
        #expect(m.captureDate?.iso8601 == "2023-07-14T21:30:00Z")
    }

    @Test("follows the SeekHead to Info and Tracks written after the clusters")
    func seekHeadAfterClusters() throws {
        let info = ebml(MKV.info, ebml(MKV.duration, Array(repeating: 0, count: 8)) + ebmlUInt(MKV.timestampScale, 1_000_000))
        let tracks = ebml(MKV.tracks, ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 1) + ebmlString(MKV.codecID, "V_MPEG4/ISO/AVC")))
        let tags = ebml(MKV.tags, ebml(MKV.tag, ebml(MKV.simpleTag, ebmlString(MKV.tagName, "DURATION") + ebmlString(MKV.tagString, "00:00:13.346000000"))))
        let cluster = ebml(MKV.cluster, [UInt8](repeating: 0xA3, count: 100))
        func seek(_ id: UInt32, _ position: Int) -> [UInt8] {
            ebml(MKV.seek, ebml(MKV.seekID, [UInt8(id >> 24), UInt8(id >> 16 & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF)])
                 + ebmlUInt(MKV.seekPosition, UInt64(position)))
        }
        // The SeekHead's own length is fixed (three seeks), so positions can be computed.
        let seekHeadLength = ebml(MKV.seekHead, seek(0, 0) + seek(0, 0) + seek(0, 0)).count
        let infoAt = seekHeadLength + cluster.count
        let tracksAt = infoAt + info.count
        let tagsAt = tracksAt + tracks.count
        let seekHead = ebml(MKV.seekHead, seek(MKV.info, infoAt) + seek(MKV.tracks, tracksAt) + seek(MKV.tags, tagsAt))
        let file = makeMatroska(docType: "matroska", segment: seekHead + cluster + info + tracks + tags)
        let m = try MatroskaReader.read(MemoryByteSource(file)).metadata
        #expect(m.format == .matroska)
        #expect(m.videoCodec == "h264")
        #expect(m.durationSeconds == 13.346)  // Info's Duration is 0: the tag's value is used
    }

    @Test("an unknown-size Segment and Cluster are handled; clusters are never walked")
    func unknownSizes() throws {
        let tracks = ebml(MKV.tracks, ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 1) + ebmlString(MKV.codecID, "V_AV1")))
        let file = makeMatroska(segment: tracks + ebmlUnknownSize(MKV.cluster, [UInt8](repeating: 0, count: 1000)),
                                unknownSegmentSize: true)
        let m = try MatroskaReader.read(MemoryByteSource(file)).metadata
        #expect(m.videoCodec == "av1")
    }

    @Test("hostile files: lying sizes, self-pointing seeks, depth bombs, truncation, never a crash")
    func hostile() throws {
        #expect(throws: MetadataError.self) { try MatroskaReader.read(MemoryByteSource([0x1A, 0x45, 0xDF, 0xA3])) }
        #expect(throws: MetadataError.self) { try MatroskaReader.read(MemoryByteSource(Array("RIFF1234WEBP".utf8))) }
        // An unknown-size EBML header.
        #expect(throws: MetadataError.self) {
            try MatroskaReader.read(MemoryByteSource(ebmlUnknownSize(MKV.ebml, ebmlString(MKV.docType, "webm"))))
        }
        // A Tracks element claiming far more than the file holds.
        let lying = makeMatroska(segment: [0x16, 0x54, 0xAE, 0x6B, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF] + [0xAE, 0x81, 0x83])
        let l = try MatroskaReader.read(MemoryByteSource(lying))
        #expect(!l.metadata.warnings.isEmpty)
        // A SeekHead pointing at itself.
        let selfSeek = ebml(MKV.seekHead, ebml(MKV.seek, ebml(MKV.seekID, [0x11, 0x4D, 0x9B, 0x74]) + ebmlUInt(MKV.seekPosition, 0)))
        _ = try MatroskaReader.read(MemoryByteSource(makeMatroska(segment: selfSeek)))
        // Video elements nested 2,000 deep inside a track entry.
        var bomb: [UInt8] = ebmlUInt(MKV.pixelWidth, 1)
        for _ in 0..<2_000 { bomb = ebmlUnknownSize(MKV.video, bomb) }
        let deep = makeMatroska(segment: ebml(MKV.tracks, ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 1) + bomb)))
        _ = try MatroskaReader.read(MemoryByteSource(deep))
        // Every truncation of a valid file.
        let valid = makeMatroska(segment: ebml(MKV.info, ebmlUInt(MKV.timestampScale, 1_000_000))
                                 + ebml(MKV.tracks, ebml(MKV.trackEntry, ebmlUInt(MKV.trackType, 1))))
        for cut in 0..<valid.count { _ = try? MatroskaReader.read(MemoryByteSource(Array(valid.prefix(cut)))) }
    }
}
