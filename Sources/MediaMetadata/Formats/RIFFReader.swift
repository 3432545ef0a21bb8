/// Reads RIFF containers: AVI movies and WebP images.
///
/// Chunks are walked by their 8-byte headers; payloads are read only for the small
/// header chunks, never for `movi` (the movie data) or image bitstreams.
public enum RIFFReader {
    static let maxChunks = 10_000
    static let maxDepth = 8
    /// Header chunks (avih, strh, strf, INFO strings) larger than this are skipped.
    static let maxHeaderChunkBytes = 1 << 20
    static let maxMetadataChunkBytes = 16 << 20

    // MARK: - WebP

    /// Reads a WebP's canvas size, animation, and its EXIF and XMP chunks.
    ///
    /// - Throws: `MetadataError` when the file is not a RIFF `WEBP` or states no size.
    public static func readWebP(_ source: ByteSource) throws -> ContainerReading {
        let riffEnd = try riffHeader(source, form: "WEBP")
        var reading = ContainerReading(metadata: MediaMetadata(format: .webp))
        var frames = 0
        var animatedFlag = false
        var sawAnimation = false
        var walker = RIFFChunkWalker(source: source, start: 12, end: riffEnd)
        while let chunk = walker.next() {
            switch chunk.id {
            case "VP8X":
                let data = try source.read(at: chunk.dataOffset, count: min(chunk.size, 10))
                guard data.count == 10 else { break }
                animatedFlag = data[0] & 0x02 != 0
                reading.metadata.pixelWidth = le24(data, 4) + 1
                reading.metadata.pixelHeight = le24(data, 7) + 1
            case "VP8 " where reading.metadata.pixelWidth == nil:
                let data = try source.read(at: chunk.dataOffset, count: min(chunk.size, 10))
                // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height.
                guard data.count == 10, data[3] == 0x9D, data[4] == 0x01, data[5] == 0x2A else {
                    reading.metadata.warnings.append("the WebP VP8 frame header is malformed")
                    break
                }
                reading.metadata.pixelWidth = le16(data, 6) & 0x3FFF
                reading.metadata.pixelHeight = le16(data, 8) & 0x3FFF
            case "VP8L" where reading.metadata.pixelWidth == nil:
                let data = try source.read(at: chunk.dataOffset, count: min(chunk.size, 5))
                guard data.count == 5, data[0] == 0x2F else {
                    reading.metadata.warnings.append("the WebP VP8L header is malformed")
                    break
                }
                let bits = le32(data, 1)
                reading.metadata.pixelWidth = (bits & 0x3FFF) + 1
                reading.metadata.pixelHeight = ((bits >> 14) & 0x3FFF) + 1
            case "EXIF" where reading.exif == nil && chunk.size <= maxMetadataChunkBytes:
                let data = try source.read(at: chunk.dataOffset, count: chunk.size)
                if !data.isEmpty { reading.exif = data }
            case "XMP " where reading.xmp == nil && chunk.size <= maxMetadataChunkBytes:
                let data = try source.read(at: chunk.dataOffset, count: chunk.size)
                if !data.isEmpty { reading.xmp = data }
            case "ANIM":
                sawAnimation = true
            case "ANMF":
                sawAnimation = true
                frames += 1
            default:
                break
            }
        }
        reading.metadata.warnings += walker.warnings
        if let w = reading.metadata.pixelWidth, let h = reading.metadata.pixelHeight, w == 0 || h == 0 {
            reading.metadata.pixelWidth = nil
            reading.metadata.pixelHeight = nil
            reading.metadata.warnings.append("the WebP states a zero size")
        }
        if reading.metadata.pixelWidth == nil, reading.metadata.warnings.isEmpty {
            reading.metadata.warnings.append("the WebP has no VP8, VP8L or VP8X chunk")
        }
        if sawAnimation || animatedFlag {
            reading.metadata.frameCount = frames
            reading.metadata.isAnimated = frames > 1 || (frames == 0 && animatedFlag)
        } else {
            reading.metadata.isAnimated = false
        }
        return reading
    }

    // MARK: - AVI

    private struct AVIStream {
        var type = ""
        var handler = ""
        var scale = 0
        var rate = 0
        var length = 0
        var compression: String?
        var width: Int?
        var height: Int?
    }

    /// Reads an AVI's size, duration, frame rate, codec, audio presence and dates from
    /// its `hdrl` header list; never reads `movi`.
    ///
    /// - Throws: `MetadataError` when the file is not a RIFF `AVI `.
    public static func readAVI(_ source: ByteSource) throws -> ContainerReading {
        let riffEnd = try riffHeader(source, form: "AVI ")
        var reading = ContainerReading(metadata: MediaMetadata(format: .avi))
        var microsecondsPerFrame = 0
        var totalFrames = 0
        var odmlFrames: Int?
        var avihSize: (Int, Int)?
        var streams: [AVIStream] = []
        var dateText: (text: String, chunkID: String)?
        var software: String?
        var walker = RIFFChunkWalker(source: source, start: 12, end: riffEnd)
        var stack: [String] = []  // enclosing LIST types, for context

        func small(_ chunk: RIFFChunk) throws -> [UInt8] {
            guard chunk.size <= maxHeaderChunkBytes else { return [] }
            return try source.read(at: chunk.dataOffset, count: chunk.size)
        }

        // A flat walk that descends into the LISTs we care about, by pushing their bounds.
        var pending: [(walker: RIFFChunkWalker, listType: String)] = []
        while true {
            guard let chunk = walker.next() else {
                reading.metadata.warnings += walker.warnings
                guard let outer = pending.popLast() else { break }
                let left = walker.remaining
                walker = outer.walker
                walker.remaining = min(walker.remaining, left)
                stack.removeLast()
                continue
            }
            if chunk.id == "LIST" {
                guard chunk.size >= 4, pending.count < maxDepth else { continue }
                let typeBytes = try source.read(at: chunk.dataOffset, count: 4)
                guard typeBytes.count == 4 else { continue }
                let listType = String(decoding: typeBytes, as: UTF8.self)
                if listType == "movi" || listType == "rec " { continue }
                if listType == "strl" { streams.append(AVIStream()) }
                pending.append((walker, listType))
                stack.append(listType)
                walker = RIFFChunkWalker(source: source, start: chunk.dataOffset + 4,
                                     end: min(walker.end, chunk.dataOffset + UInt64(chunk.size)),
                                     sharedBudget: walker.remaining)
                continue
            }
            switch chunk.id {
            case "avih":
                let d = try small(chunk)
                guard d.count >= 40 else { break }
                microsecondsPerFrame = le32(d, 0)
                totalFrames = le32(d, 16)
                avihSize = (le32(d, 32), le32(d, 36))
            case "strh" where stack.last == "strl" && !streams.isEmpty:
                let d = try small(chunk)
                guard d.count >= 36 else { break }
                streams[streams.count - 1].type = fourCC(d, 0)
                streams[streams.count - 1].handler = fourCC(d, 4)
                streams[streams.count - 1].scale = le32(d, 20)
                streams[streams.count - 1].rate = le32(d, 24)
                streams[streams.count - 1].length = le32(d, 32)
            case "strf" where stack.last == "strl" && !streams.isEmpty:
                guard streams[streams.count - 1].type == "vids" else { break }
                let d = try small(chunk)
                guard d.count >= 20 else { break }
                streams[streams.count - 1].width = Int(Int32(bitPattern: UInt32(le32(d, 4))))
                streams[streams.count - 1].height = abs(Int(Int32(bitPattern: UInt32(le32(d, 8)))))
                streams[streams.count - 1].compression = fourCC(d, 16)
            case "dmlh":
                let d = try small(chunk)
                if d.count >= 4 { odmlFrames = le32(d, 0) }
            case "IDIT", "ICRD", "DTIM":
                guard dateText == nil else { break }
                let d = try small(chunk)
                let text = String(decoding: d.prefix(64), as: UTF8.self).trimmingSpacesAndNULs()
                if !text.isEmpty { dateText = (text, chunk.id) }
            case "ISFT":
                guard software == nil else { break }
                let d = try small(chunk)
                let text = String(decoding: d.prefix(256), as: UTF8.self).trimmingSpacesAndNULs()
                if !text.isEmpty { software = text }
            default:
                break
            }
        }

        var metadata = reading.metadata
        let video = streams.first { $0.type == "vids" }
        metadata.hasAudio = streams.contains { $0.type == "auds" }
        if let size = avihSize, size.0 > 0, size.1 > 0 {
            metadata.pixelWidth = size.0; metadata.pixelHeight = size.1
        } else if let w = video?.width, let h = video?.height, w > 0, h > 0 {
            metadata.pixelWidth = w; metadata.pixelHeight = h
        }
        if let video, video.scale > 0, video.rate > 0 {
            let fps = Double(video.rate) / Double(video.scale)
            if fps.isFinite, fps > 0, fps < 10_000 { metadata.frameRate = fps }
            if video.length > 0 { metadata.durationSeconds = Double(video.length) * Double(video.scale) / Double(video.rate) }
            // The movie lasts as long as its longest stream (what ffprobe reports): an
            // audio track often runs past the last video frame.
            let streamSeconds = streams.filter { $0.type == "auds" && $0.scale > 0 && $0.rate > 0 && $0.length > 0 }
                .map { Double($0.length) * Double($0.scale) / Double($0.rate) }
            if let video = metadata.durationSeconds, let audio = streamSeconds.max(), audio.isFinite,
               audio > video, audio < video * 1.5 + 1 {
                metadata.durationSeconds = audio
            }
        } else if microsecondsPerFrame > 0 {
            metadata.frameRate = 1e6 / Double(microsecondsPerFrame)
        }
        if microsecondsPerFrame > 0 {
            // The avih frame count covers only the first RIFF of an OpenDML file.
            let frames = max(totalFrames, odmlFrames ?? 0)
            let fallback = Double(frames) * Double(microsecondsPerFrame) / 1e6
            if metadata.durationSeconds == nil, frames > 0 { metadata.durationSeconds = fallback }
        }
        if let video {
            let code = (video.compression?.isEmpty == false ? video.compression : nil) ?? video.handler
            metadata.videoCodec = aviCodecName(code)
        }
        metadata.software = software
        if let dateText, let date = parseAVIDate(dateText.text) {
            metadata.captureDate = date
            metadata.captureDateSource = switch dateText.chunkID {
            case "IDIT": .aviIDIT
            case "ICRD": .aviICRD
            default: .aviDTIM
            }
        }
        reading.metadata = metadata
        return reading
    }

    /// Maps an AVI FourCC to the codec name ffmpeg uses, or the FourCC itself.
    static func aviCodecName(_ fourCC: String) -> String? {
        let code = fourCC.trimmingSpacesAndNULs()
        guard !code.isEmpty else { return nil }
        switch code.uppercased() {
        case "H264", "X264", "AVC1", "DAVC", "VSSH": return "h264"
        case "HEVC", "H265", "HVC1", "X265": return "hevc"
        case "MJPG", "AVRN", "LJPG", "JPGL", "DMB1": return "mjpeg"
        case "XVID", "DIVX", "DX50", "FMP4", "MP4V", "3IV2", "M4S2": return "mpeg4"
        case "DIV3", "MP43": return "msmpeg4v3"
        case "IV41": return "indeo4"
        case "IV50": return "indeo5"
        case "CVID": return "cinepak"
        case "VP80": return "vp8"
        case "VP90": return "vp9"
        case "AV01": return "av1"
        case "DVSD", "DV25", "DVHD": return "dvvideo"
        case "MPG2": return "mpeg2video"
        default: return code.lowercased()
        }
    }

    /// `IDIT`/`ICRD` dates: `Mon Mar 12 10:30:00 2007`, or `2007-03-12 10:30:00`,
    /// or `2007:03:12 10:30:00`; nil when unrecognised.
    static func parseAVIDate(_ text: String) -> CaptureDate? {
        if let date = CaptureDate(exif: text) { return date }
        let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard words.count >= 5,
              let month = months.firstIndex(of: words[1].prefix(3).uppercased()),
              let day = Int(words[2]), let year = Int(words[4]) else { return nil }
        let time = words[3].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (1...31).contains(day), (1...9999).contains(year),
              (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2]) else { return nil }
        return CaptureDate(year: year, month: month + 1, day: day, hour: time[0], minute: time[1], second: time[2])
    }

    // MARK: - Chunks

    /// Checks `RIFF` + size + form; returns the end of the RIFF payload, clamped.
    private static func riffHeader(_ source: ByteSource, form: String) throws -> UInt64 {
        let head = try source.read(at: 0, count: 12)
        guard head.count == 12, String(decoding: head[0..<4], as: UTF8.self) == "RIFF" else {
            throw MetadataError.malformed("the RIFF header is missing")
        }
        guard String(decoding: head[8..<12], as: UTF8.self) == form else {
            throw MetadataError.malformed("the RIFF form is not '\(form)'")
        }
        // A RIFF size of 0 or one past the end is common in files still being written;
        // the file size bounds the walk either way.
        let declared = UInt64(le32(head, 4)) + 8
        return declared > 12 ? min(declared, source.size) : source.size
    }
}

struct RIFFChunk {
    var id: String
    var size: Int
    var dataOffset: UInt64
}

/// Walks chunk headers between two offsets; sizes are padded to even and clamped
/// to the end, and every step advances at least 8 bytes.
struct RIFFChunkWalker {
    let source: ByteSource
    var position: UInt64
    let end: UInt64
    /// Chunks left to visit, shared down nested lists so a file cannot make us walk forever.
    var remaining: Int
    var warnings: [String] = []

    init(source: ByteSource, start: UInt64, end: UInt64, sharedBudget: Int = RIFFReader.maxChunks) {
        self.source = source; self.position = start; self.end = min(end, source.size); self.remaining = sharedBudget
    }

    mutating func next() -> RIFFChunk? {
        guard position + 8 <= end, remaining > 0 else {
            if remaining <= 0 { warnings.append("the RIFF file has too many chunks; the rest were not read") }
            return nil
        }
        remaining -= 1
        guard let header = try? source.read(at: position, count: 8), header.count == 8 else { return nil }
        let id = String(decoding: header[0..<4], as: UTF8.self)
        let declared = UInt64(le32(header, 4))
        let dataOffset = position + 8
        var size = declared
        if dataOffset + declared > end {
            warnings.append("the RIFF chunk '\(id)' at offset \(position) runs past its container")
            size = end - dataOffset
        }
        position = dataOffset + size + (size & 1)
        return RIFFChunk(id: id, size: Int(size), dataOffset: dataOffset)
    }
}

private func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
private func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
private func le32(_ b: [UInt8], _ i: Int) -> Int {
    Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
}
private func fourCC(_ b: [UInt8], _ i: Int) -> String {
    String(decoding: b[i..<(i + 4)].map { (0x20...0x7E).contains($0) ? $0 : 0x20 }, as: UTF8.self)
}
