/// Reads MPEG-1/2 program streams (`.mpg`, `.vob`), video elementary streams (`.m2v`)
/// and transport streams (`.ts`, `.m2ts`, `.mts`).
///
/// Only a bounded head and tail are read (`windowBytes` each): the head for the
/// stream types, the sequence header or H.264 SPS and the first timestamp, the tail
/// for the last one. Duration is the PTS span of every stream (the video's last
/// frame included), as ffprobe computes it: from the earliest first PTS of any stream
/// to the latest end.
public enum MPEGReader {
    static let windowBytes = 1 << 20
    static let maxPackets = 200_000
    /// Video elementary-stream bytes gathered from the head to find the sequence header.
    static let maxVideoBytes = 256 << 10
    static let ptsWrap: Int64 = 1 << 33

    /// What one window of packets showed.
    struct Scan {
        var minPTS: Int64?
        var maxVideoPTS: Int64?
        /// The latest PTS of the other streams (audio, subtitles, private data).
        var maxOtherPTS: Int64?
        var videoPTSs: Set<Int64> = []
        var videoBytes: [UInt8] = []
        var hasAudio = false
        var hasVideo = false
        var videoStreamType: Int?

        mutating func note(pts: Int64, video: Bool) {
            minPTS = min(minPTS ?? pts, pts)
            if video {
                maxVideoPTS = max(maxVideoPTS ?? pts, pts)
                if videoPTSs.count < 300 { videoPTSs.insert(pts) }
            } else {
                maxOtherPTS = max(maxOtherPTS ?? pts, pts)
            }
        }
    }

    // MARK: Program and elementary streams

    /// Reads a program stream, or a video elementary stream (starting with a sequence header).
    ///
    /// - Throws: `MetadataError` when the file starts with neither a pack header nor a sequence header.
    public static func readProgramStream(_ source: ByteSource) throws -> ContainerReading {
        let head = try source.read(at: 0, count: windowBytes)
        guard head.count >= 4, head[0] == 0, head[1] == 0, head[2] == 1, head[3] == 0xBA || head[3] == 0xB3 else {
            throw MetadataError.malformed("the MPEG stream starts with neither a pack header nor a sequence header")
        }
        var metadata = MediaMetadata(format: .mpegPS)
        if head[3] == 0xB3 {
            // An elementary stream has no timestamps: ffprobe estimates from the bit rate.
            metadata.hasAudio = false
            let video = describeVideo(head, streamType: nil, metadata: &metadata)
            if let bitRate = video?.bitRate, bitRate > 0 {
                metadata.durationSeconds = Double(source.size) * 8 / Double(bitRate)
            }
            return ContainerReading(metadata: metadata)
        }
        let first = scanProgramStream(head, collectVideo: true)
        var last = first
        if source.size > UInt64(head.count) {
            let tailStart = source.size - min(source.size - UInt64(head.count), UInt64(windowBytes))
            let tail = try source.read(at: tailStart, count: windowBytes)
            last = scanProgramStream(tail, collectVideo: false)
        }
        finish(&metadata, first: first, last: last, streamType: nil)
        return ContainerReading(metadata: metadata)
    }

    /// Walks pack headers and PES packets, resynchronising on the next start code after damage.
    static func scanProgramStream(_ b: [UInt8], collectVideo: Bool) -> Scan {
        var scan = Scan()
        var i = 0
        var packets = 0
        while packets < maxPackets, let start = nextStartCode(b, from: i) {
            packets += 1
            let code = b[start + 3]
            switch code {
            case 0xBA:
                guard let mode = VideoFields.u8(b, start + 4) else { return scan }
                if mode & 0xC0 == 0x40 {
                    let stuffing = (VideoFields.u8(b, start + 13) ?? 0) & 7
                    i = start + 14 + stuffing
                } else {
                    i = start + 12
                }
            case 0xB9:
                i = start + 4
            default:
                guard let length = VideoFields.be16(b, start + 4) else { return scan }
                let end = min(b.count, start + 6 + length)
                let isVideo = (0xE0...0xEF).contains(code)
                let isAudio = (0xC0...0xDF).contains(code) || code == 0xBD
                if isVideo || isAudio, let header = pesHeader(b, at: start + 6, end: end) {
                    if isVideo {
                        scan.hasVideo = true
                        if collectVideo, scan.videoBytes.count < maxVideoBytes, header.payload < end {
                            scan.videoBytes += b[header.payload..<min(end, header.payload + maxVideoBytes - scan.videoBytes.count)]
                        }
                    } else if code == 0xBD {
                        // Private stream 1: sub-stream 0x20–0x3F are DVD subtitles, 0x80–0xAF audio.
                        guard let sub = VideoFields.u8(b, header.payload), (0x80...0xAF).contains(sub) else {
                            i = max(start + 6 + length, start + 4)
                            continue
                        }
                        scan.hasAudio = true
                    } else {
                        scan.hasAudio = true
                    }
                    if let pts = header.pts { scan.note(pts: pts, video: isVideo) }
                }
                i = max(start + 6 + length, start + 4)
            }
        }
        return scan
    }

    /// The offset of the next `00 00 01 xx` with xx ≥ 0xB9 (a system start code) at or after `from`.
    static func nextStartCode(_ b: [UInt8], from: Int) -> Int? {
        var i = max(0, from)
        while i + 3 < b.count {
            if b[i + 2] > 1 { i += 3; continue }
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1, b[i + 3] >= 0xB9 { return i }
            i += 1
        }
        return nil
    }

    /// The PTS and payload offset of a PES packet whose header starts at `p` (after the length).
    static func pesHeader(_ b: [UInt8], at p: Int, end: Int) -> (pts: Int64?, payload: Int)? {
        guard let first = VideoFields.u8(b, p) else { return nil }
        if first & 0xC0 == 0x80 {
            // MPEG-2: flags, header length, then the optional fields.
            guard let flags = VideoFields.u8(b, p + 1), let length = VideoFields.u8(b, p + 2) else { return nil }
            let pts = flags & 0x80 != 0 ? timestamp(b, p + 3) : nil
            return (pts, p + 3 + length)
        }
        // MPEG-1: stuffing, an optional STD buffer size, then the timestamps.
        var q = p
        var stuffing = 0
        while VideoFields.u8(b, q) == 0xFF, stuffing < 16 { q += 1; stuffing += 1 }
        guard var byte = VideoFields.u8(b, q) else { return nil }
        if byte & 0xC0 == 0x40 {
            q += 2
            guard let next = VideoFields.u8(b, q) else { return nil }
            byte = next
        }
        switch byte & 0xF0 {
        case 0x20: return (timestamp(b, q), q + 5)
        case 0x30: return (timestamp(b, q), q + 10)
        default: return (nil, q + 1)
        }
    }

    /// A 33-bit timestamp in the 5-byte PES layout, marker bits ignored.
    static func timestamp(_ b: [UInt8], _ p: Int) -> Int64? {
        guard p >= 0, p + 5 <= b.count else { return nil }
        let high = Int64((b[p] >> 1) & 0x07) << 30
        let middle = Int64(b[p + 1]) << 22 | Int64(b[p + 2] >> 1) << 15
        return high | middle | Int64(b[p + 3]) << 7 | Int64(b[p + 4] >> 1)
    }

    // MARK: Transport streams

    /// Reads a transport stream (188-byte packets, or 192 with a timecode prefix).
    ///
    /// - Throws: `MetadataError` when no packet size gives a run of sync bytes.
    public static func readTransportStream(_ source: ByteSource) throws -> ContainerReading {
        let head = try source.read(at: 0, count: windowBytes)
        guard let (packetSize, syncOffset) = packetLayout(head) else {
            throw MetadataError.malformed("the transport stream has no run of sync bytes")
        }
        var metadata = MediaMetadata(format: .mpegTS)
        let streams = programStreams(head, packetSize: packetSize, syncOffset: syncOffset)
        if streams.isEmpty { metadata.warnings.append("the transport stream's program map table was not found in its first megabyte") }
        let videoPID = streams.first { videoCodec(streamType: $0.type) != nil }
        let first = scanTransportStream(head, packetSize: packetSize, syncOffset: syncOffset, streams: streams, collectVideo: true)
        var last = first
        if source.size > UInt64(head.count) {
            var tailStart = source.size - min(source.size - UInt64(head.count), UInt64(windowBytes))
            // Keep packet alignment from the start of the file.
            tailStart -= tailStart % UInt64(packetSize)
            let tail = try source.read(at: tailStart, count: windowBytes)
            last = scanTransportStream(tail, packetSize: packetSize, syncOffset: syncOffset, streams: streams, collectVideo: false)
        }
        finish(&metadata, first: first, last: last, streamType: videoPID?.type)
        if videoPID?.type == 0x1B, let camera = H264CameraMetadata.find(inElementaryStream: first.videoBytes) {
            // AVCHD: the camera's own date, make, model and place, from the H.264 SEI.
            if let date = camera.captureDate {
                metadata.captureDate = date
                metadata.captureDateSource = .h264CameraMetadata
            }
            metadata.make = camera.make
            metadata.model = camera.model
            metadata.location = camera.location
        }
        return ContainerReading(metadata: metadata)
    }

    /// The packet size and the sync byte's offset in each packet.
    static func packetLayout(_ b: [UInt8]) -> (Int, Int)? {
        for (size, offset) in [(188, 0), (192, 4), (204, 0)] {
            let runs = min(5, (b.count - offset) / size)
            guard runs >= 2 else { continue }
            if (0..<runs).allSatisfy({ b[offset + $0 * size] == 0x47 }) { return (size, offset) }
        }
        return nil
    }

    struct ElementaryStream { var pid: Int; var type: Int }

    /// The first program's elementary streams, from the PAT and PMT in the head.
    static func programStreams(_ b: [UInt8], packetSize: Int, syncOffset: Int) -> [ElementaryStream] {
        var pmtPID: Int?
        var p = syncOffset
        while p + 188 <= b.count {
            defer { p += packetSize }
            guard b[p] == 0x47, b[p + 1] & 0x40 != 0 else { continue }  // sync, payload unit start
            let pid = Int(b[p + 1] & 0x1F) << 8 | Int(b[p + 2])
            guard let payload = payloadStart(b, packet: p) else { continue }
            let pointer = Int(b[payload])
            let section = payload + 1 + pointer
            guard section + 8 <= p + 188, let length = VideoFields.be16(b, section + 1).map({ $0 & 0x0FFF }) else { continue }
            let sectionEnd = min(section + 3 + length - 4, p + 188)  // without the CRC
            if pid == 0, b[section] == 0x00, pmtPID == nil {
                var e = section + 8
                while e + 4 <= sectionEnd {
                    let program = Int(b[e]) << 8 | Int(b[e + 1])
                    if program != 0 { pmtPID = Int(b[e + 2] & 0x1F) << 8 | Int(b[e + 3]); break }
                    e += 4
                }
            } else if let pmtPID, pid == pmtPID, b[section] == 0x02 {
                guard let infoLength = VideoFields.be16(b, section + 10).map({ $0 & 0x0FFF }) else { continue }
                var e = section + 12 + infoLength
                var streams: [ElementaryStream] = []
                while e + 5 <= sectionEnd, streams.count < 64 {
                    let type = Int(b[e])
                    let esPID = Int(b[e + 1] & 0x1F) << 8 | Int(b[e + 2])
                    let esInfo = Int(b[e + 3] & 0x0F) << 8 | Int(b[e + 4])
                    var streamType = type
                    if type == 0x06 {
                        // Private data: AC-3, E-AC-3 and DTS descriptors mark audio.
                        var d = e + 5
                        while d + 2 <= min(e + 5 + esInfo, sectionEnd) {
                            if [0x6A, 0x7A, 0x7B, 0x05].contains(b[d]) { streamType = 0x81; break }
                            d += 2 + Int(b[d + 1])
                        }
                    }
                    streams.append(ElementaryStream(pid: esPID, type: streamType))
                    e += 5 + esInfo
                }
                return streams
            }
        }
        return []
    }

    /// The offset of a packet's payload, after any adaptation field; nil without one.
    static func payloadStart(_ b: [UInt8], packet p: Int) -> Int? {
        let control = (b[p + 3] >> 4) & 3
        guard control & 1 != 0 else { return nil }
        var start = p + 4
        if control & 2 != 0 { start += 1 + Int(b[p + 4]) }
        return start < p + 188 ? start : nil
    }

    static func scanTransportStream(_ b: [UInt8], packetSize: Int, syncOffset: Int, streams: [ElementaryStream],
                                    collectVideo: Bool) -> Scan {
        var scan = Scan()
        let types = Dictionary(streams.map { ($0.pid, $0.type) }, uniquingKeysWith: { first, _ in first })
        var p = syncOffset
        var collecting = false
        var videoPID: Int?
        for stream in streams where videoCodec(streamType: stream.type) != nil { videoPID = stream.pid; break }
        while p + 188 <= b.count {
            defer { p += packetSize }
            guard b[p] == 0x47 else { continue }
            let pid = Int(b[p + 1] & 0x1F) << 8 | Int(b[p + 2])
            guard let type = types[pid], let payload = payloadStart(b, packet: p) else { continue }
            let isVideo = pid == videoPID
            if isVideo { scan.hasVideo = true; scan.videoStreamType = type } else if isAudioStreamType(type) { scan.hasAudio = true }
            let packetEnd = p + 188
            var esStart = payload
            if b[p + 1] & 0x40 != 0 {
                guard payload + 6 <= packetEnd, b[payload] == 0, b[payload + 1] == 0, b[payload + 2] == 1,
                      let header = pesHeader(b, at: payload + 6, end: packetEnd) else { continue }
                // MPEG audio's PES stream ids: audio whatever the PMT's type (AAC and MP2 as
                // private streams, type 0x06, in ffmpeg's .m2ts).
                if !isVideo, (0xC0...0xDF).contains(b[payload + 3]) { scan.hasAudio = true }
                // Every stream's timestamps count, as in ffprobe's span.
                if let pts = header.pts { scan.note(pts: pts, video: isVideo) }
                esStart = header.payload
                if isVideo { collecting = collectVideo }
            }
            if isVideo, collecting, scan.videoBytes.count < maxVideoBytes, esStart < packetEnd {
                scan.videoBytes += b[esStart..<packetEnd]
            }
        }
        return scan
    }

    static func isAudioStreamType(_ type: Int) -> Bool {
        [0x03, 0x04, 0x0F, 0x11, 0x1C, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0xA1, 0xA2].contains(type)
    }

    static func videoCodec(streamType: Int) -> String? {
        switch streamType {
        case 0x01: return "mpeg1video"
        case 0x02: return "mpeg2video"
        case 0x10: return "mpeg4"
        case 0x1B: return "h264"
        case 0x24: return "hevc"
        case 0xEA: return "vc1"
        default: return nil
        }
    }

    // MARK: Shared

    /// Fills the metadata from the head's and tail's scans.
    static func finish(_ metadata: inout MediaMetadata, first: Scan, last: Scan, streamType: Int?) {
        metadata.hasAudio = first.hasAudio
        let video = describeVideo(first.videoBytes, streamType: streamType, metadata: &metadata)
        if metadata.frameRate == nil, first.videoPTSs.count >= 3,
           let low = first.videoPTSs.min(), let high = first.videoPTSs.max(), high > low {
            let fps = Double(first.videoPTSs.count - 1) * 90_000 / Double(high - low)
            if fps.isFinite, fps > 0, fps < 1_000 { metadata.frameRate = VideoFields.snappedFrameRate(fps) }
        }
        guard let start = first.minPTS else { return }
        var end: Int64?
        if var videoEnd = last.maxVideoPTS {
            if let fps = metadata.frameRate ?? video?.frameRate, fps > 0 { videoEnd += Int64((90_000 / fps).rounded()) }
            end = videoEnd
        }
        if let otherEnd = last.maxOtherPTS { end = max(end ?? otherEnd, otherEnd) }
        guard var end else { return }
        if end < start { end += ptsWrap }  // the 33-bit clock wrapped once
        let seconds = Double(end - start) / 90_000
        if seconds > 0, seconds < 1e7 { metadata.durationSeconds = seconds }
    }

    struct VideoDescription { var frameRate: Double?; var bitRate: Int? }

    /// Size, frame rate and codec from an MPEG-1/2 sequence header, else an H.264 SPS.
    @discardableResult
    static func describeVideo(_ es: [UInt8], streamType: Int?, metadata: inout MediaMetadata) -> VideoDescription? {
        if let sequence = findStartCode(es, code: { $0 == 0xB3 }), sequence + 12 <= es.count {
            var bits = VideoBitReader(bytes: Array(es[(sequence + 4)..<min(es.count, sequence + 12)]))
            guard let width = bits.read(12), let height = bits.read(12), let aspectCode = bits.read(4),
                  let rateCode = bits.read(4), let bitRate = bits.read(18) else { return nil }
            let rates: [Double] = [0, 24000.0 / 1001, 24, 25, 30000.0 / 1001, 30, 50, 60000.0 / 1001, 60]
            var fps = rateCode < rates.count && rateCode > 0 ? rates[rateCode] : nil
            var fullWidth = width, fullHeight = height
            var codec = "mpeg1video"
            // A sequence extension (id 1) right after marks MPEG-2 and extends size and rate.
            if let ext = findStartCode(es, from: sequence + 12, code: { $0 == 0xB5 }), ext + 10 <= es.count, es[ext + 4] >> 4 == 1,
               ext < sequence + 4096 {
                codec = "mpeg2video"
                var e = VideoBitReader(bytes: Array(es[(ext + 4)..<(ext + 10)]))
                _ = e.read(4); _ = e.read(8); _ = e.read(1); _ = e.read(2)
                if let hx = e.read(2), let vx = e.read(2) { fullWidth |= hx << 12; fullHeight |= vx << 12 }
                _ = e.read(12); _ = e.read(1); _ = e.read(8); _ = e.read(1)
                if let n = e.read(2), let d = e.read(5), let base = fps { fps = base * Double(n + 1) / Double(d + 1) }
            }
            if fullWidth > 0, fullHeight > 0 {
                // MPEG-2's aspect_ratio_information is the display aspect (2: 4:3, 3: 16:9,
                // 4: 2.21:1): a DVD's 720×576 of 16:9 is shown 1024 wide.
                let shown: [Int: (Int, Int)] = [2: (4, 3), 3: (16, 9), 4: (221, 100)]
                let aspect = codec == "mpeg2video" ? shown[aspectCode].map { (horizontal: $0.0 * fullHeight, vertical: $0.1 * fullWidth) } : nil
                metadata.pixelWidth = VideoFields.displayWidth(codedWidth: fullWidth, pixelAspect: aspect)
                metadata.pixelHeight = fullHeight
            }
            metadata.frameRate = fps
            metadata.videoCodec = streamType.flatMap(videoCodec(streamType:)) == "mpeg1video" ? "mpeg1video" : codec
            return VideoDescription(frameRate: fps, bitRate: bitRate == 0x3FFFF ? nil : bitRate * 400)
        }
        if let streamType { metadata.videoCodec = videoCodec(streamType: streamType) }
        if streamType == 0x1B || streamType == nil,
           let sps = findStartCode(es, code: { $0 & 0x1F == 7 && $0 & 0x80 == 0 }) {
            if let size = H264SPS.size(Array(es[(sps + 4)..<min(es.count, sps + 4 + 512)])) {
                metadata.videoCodec = "h264"
                // Shown at its sample aspect: HDV and AVCHD's 1440×1080 of 4:3 as 1920×1080.
                metadata.pixelWidth = VideoFields.displayWidth(codedWidth: size.width, pixelAspect: size.sampleAspect)
                metadata.pixelHeight = size.height
            } else {
                metadata.warnings.append("the H.264 sequence parameter set could not be read; the size is unknown")
            }
        } else if streamType != nil, metadata.videoCodec != nil {
            metadata.warnings.append("the \(metadata.videoCodec ?? "video") stream's size is not read")
        }
        return nil
    }

    /// The offset of the next `00 00 01 xx` whose xx satisfies `code`.
    static func findStartCode(_ b: [UInt8], from: Int = 0, code: (UInt8) -> Bool) -> Int? {
        var i = max(0, from)
        while i + 3 < b.count {
            if b[i + 2] > 1 { i += 3; continue }
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1, code(b[i + 3]) { return i }
            i += 1
        }
        return nil
    }
}

/// The coded picture size of an H.264 sequence parameter set (ITU-T H.264 §7.3.2.1.1).
enum H264SPS {
    /// `rbsp` starts after the NAL header byte; nil when a field runs past the end.
    static func size(_ nal: [UInt8]) -> (width: Int, height: Int, sampleAspect: (horizontal: Int, vertical: Int)?)? {
        var r = VideoBitReader(bytes: H264NALUnit.rbsp(nal))
        guard let profile = r.read(8), r.read(16) != nil, r.readExpGolomb() != nil else { return nil }
        var chroma = 1
        var separatePlanes = false
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let c = r.readExpGolomb(), c <= 3 else { return nil }
            chroma = c
            if c == 3 { separatePlanes = r.read(1) == 1 }
            guard r.readExpGolomb() != nil, r.readExpGolomb() != nil, r.read(1) != nil,
                  let scaling = r.read(1) else { return nil }
            if scaling == 1 {
                for list in 0..<(chroma == 3 ? 12 : 8) {
                    guard let present = r.read(1) else { return nil }
                    guard present == 1 else { continue }
                    var last = 8, next = 8
                    for _ in 0..<(list < 6 ? 16 : 64) where next != 0 {
                        guard let delta = r.readSignedExpGolomb() else { return nil }
                        next = ((last + delta) % 256 + 256) % 256
                        if next != 0 { last = next }
                    }
                }
            }
        }
        guard r.readExpGolomb() != nil, let pocType = r.readExpGolomb() else { return nil }
        if pocType == 0 {
            guard r.readExpGolomb() != nil else { return nil }
        } else if pocType == 1 {
            guard r.read(1) != nil, r.readSignedExpGolomb() != nil, r.readSignedExpGolomb() != nil,
                  let cycle = r.readExpGolomb(), cycle <= 255 else { return nil }
            for _ in 0..<cycle { guard r.readSignedExpGolomb() != nil else { return nil } }
        }
        guard r.readExpGolomb() != nil, r.read(1) != nil,
              let widthMBs = r.readExpGolomb(), let heightUnits = r.readExpGolomb(),
              let frameMBsOnly = r.read(1) else { return nil }
        if frameMBsOnly == 0 { guard r.read(1) != nil else { return nil } }
        guard r.read(1) != nil, let cropping = r.read(1) else { return nil }
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if cropping == 1 {
            guard let l = r.readExpGolomb(), let rt = r.readExpGolomb(), let t = r.readExpGolomb(),
                  let b = r.readExpGolomb() else { return nil }
            crop = (l, rt, t, b)
        }
        let arrayType = separatePlanes ? 0 : chroma
        let cropX = arrayType == 0 ? 1 : (arrayType == 3 ? 1 : 2)
        let cropY = (arrayType == 1 ? 2 : 1) * (2 - frameMBsOnly)
        guard widthMBs < 1024, heightUnits < 1024 else { return nil }
        let width = (widthMBs + 1) * 16 - cropX * (crop.left + crop.right)
        let height = (2 - frameMBsOnly) * (heightUnits + 1) * 16 - cropY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else { return nil }
        return (width, height, sampleAspect(&r))
    }

    /// The VUI's sample aspect ratio (§E.1.1: `aspect_ratio_idc`, Table E-1, or 255 with
    /// `sar_width`, `sar_height`), read where the SPS's frame cropping ended; nil when the
    /// SPS has no VUI or no aspect, or it is unspecified.
    static func sampleAspect(_ r: inout VideoBitReader) -> (horizontal: Int, vertical: Int)? {
        guard r.read(1) == 1, r.read(1) == 1, let idc = r.read(8) else { return nil }
        if idc == 255 {
            guard let h = r.read(16), let v = r.read(16), h > 0, v > 0 else { return nil }
            return (h, v)
        }
        return idc >= 1 && idc <= tableE1.count ? tableE1[idc - 1] : nil
    }

    /// H.264 Table E-1, `aspect_ratio_idc` 1…16.
    static let tableE1: [(horizontal: Int, vertical: Int)] = [
        (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]
}
