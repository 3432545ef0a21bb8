/// Reads Ogg (RFC 3533): the identification header of each logical stream and the
/// granule position of each stream's last page.
///
/// - Video: Theora (the Theora I specification, section 6.2: picture region, frame rate
///   FRN/FRD, pixel aspect, KFGSHIFT) and VP8 in Ogg (`OVP80`). Dirac is recognised,
///   its size is not read.
/// - Audio: Vorbis (sample rate), Opus (`OpusHead`: pre-skip; granules at 48 kHz),
///   FLAC in Ogg (STREAMINFO's sample rate) and Speex.
/// - Duration: the longest logical stream's end, from the granule position of its last
///   page (a Theora granule is the key frame number shifted by KFGSHIFT plus the frames
///   since it), which is ffprobe's `format.duration` for streams that start at zero.
///
/// Only the first pages (at most `maxLeadingPages` within `maxLeadingBytes`) and a
/// bounded tail of the file (at most `maxTailBytes`, scanned back from the end) are
/// read, never the whole file.
public enum OggReader {
    static let maxLeadingPages = 64
    static let maxLeadingBytes: UInt64 = 1 << 20
    /// The tail is read in windows of this size (two pages of the largest size fit).
    static let tailWindowBytes = 2 * 65_307
    static let maxTailBytes: UInt64 = 1 << 20

    /// One page header: RFC 3533 section 6.
    struct Page {
        var offset: UInt64
        var headerType: UInt8
        var granulePosition: Int64
        var serial: UInt32
        var headerBytes: Int
        var bodyBytes: Int
        var isBeginningOfStream: Bool { headerType & 0x02 != 0 }
    }

    /// What a logical stream's identification header says.
    enum Codec: Equatable {
        case theora(version: Int, width: Int, height: Int, frameRate: Double?, granuleShift: Int)
        case vp8(width: Int, height: Int, frameRate: Double?)
        case dirac
        case vorbis(sampleRate: Int)
        case opus(preSkip: Int)
        case flac(sampleRate: Int)
        case speex(sampleRate: Int)
        case other

        var isVideo: Bool {
            switch self {
            case .theora, .vp8, .dirac: return true
            default: return false
            }
        }

        var isAudio: Bool {
            switch self {
            case .vorbis, .opus, .flac, .speex: return true
            default: return false
            }
        }

        /// The end time of a stream whose last page has this granule position; nil when the
        /// codec's granules are not a time, or the granule is impossible.
        func endSeconds(granule: Int64) -> Double? {
            guard granule >= 0 else { return nil }
            let seconds: Double?
            switch self {
            case .theora(let version, _, _, let rate, let shift):
                guard let rate, rate > 0, shift < 63 else { return nil }
                let keyFrame = granule >> Int64(shift)
                let sinceKey = granule & ((Int64(1) << Int64(shift)) - 1)
                // Before Theora 3.2.1 granules counted frames from 0 (the key frame's index).
                let frames = Double(keyFrame) + Double(sinceKey) + (version < 0x030201 ? 1 : 0)
                seconds = frames / rate
            case .vp8(_, _, let rate):
                guard let rate, rate > 0 else { return nil }
                seconds = Double(granule >> 32) / rate
            case .vorbis(let rate), .flac(let rate), .speex(let rate):
                seconds = rate > 0 ? Double(granule) / Double(rate) : nil
            case .opus(let preSkip):
                seconds = Double(max(0, granule - Int64(preSkip))) / 48_000
            case .dirac, .other:
                seconds = nil
            }
            return seconds.flatMap { $0.isFinite ? $0 : nil }
        }
    }

    /// Reads size, frame rate, duration, codec and audio presence.
    ///
    /// - Throws: `MetadataError` when the file does not start with an Ogg page.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        var metadata = MediaMetadata(format: .ogv)
        let first = try source.read(at: 0, count: 27 + 255)
        guard page(in: first, at: 0, fileOffset: 0) != nil else {
            throw MetadataError.malformed("the first Ogg page is missing or damaged")
        }

        // 1. The identification headers: the first page of each logical stream (BOS pages
        // all come before any other page, RFC 3533 section 4).
        var codecs: [UInt32: Codec] = [:]
        var order: [UInt32] = []
        var position: UInt64 = 0
        var walked = 0
        while walked < maxLeadingPages, position < min(source.size, maxLeadingBytes) {
            walked += 1
            let header = try source.read(at: position, count: 27 + 255)
            guard let page = page(in: header, at: 0, fileOffset: position) else {
                metadata.warnings.append("the Ogg page at byte \(position) is damaged; the streams read so far were kept")
                break
            }
            if page.isBeginningOfStream, codecs[page.serial] == nil {
                let body = try source.read(at: position + UInt64(page.headerBytes), count: min(page.bodyBytes, 512))
                codecs[page.serial] = codec(identificationHeader: body)
                order.append(page.serial)
            } else if !page.isBeginningOfStream {
                break
            }
            position += UInt64(page.headerBytes + page.bodyBytes)
        }

        let video = order.first { codecs[$0]?.isVideo == true }
        switch video.flatMap({ codecs[$0] }) {
        case .theora(_, let width, let height, let rate, _)?:
            metadata.videoCodec = "theora"
            if width > 0, height > 0 { metadata.pixelWidth = width; metadata.pixelHeight = height }
            metadata.frameRate = rate
        case .vp8(let width, let height, let rate)?:
            metadata.videoCodec = "vp8"
            if width > 0, height > 0 { metadata.pixelWidth = width; metadata.pixelHeight = height }
            metadata.frameRate = rate
        case .dirac?:
            metadata.videoCodec = "dirac"
            metadata.warnings.append("the size of a Dirac stream in Ogg is not read")
        default:
            metadata.warnings.append("no Theora or VP8 identification header among the first Ogg pages")
        }
        metadata.hasAudio = codecs.values.contains { $0.isAudio }

        // 2. The last granule of each stream, from pages found scanning back from the end.
        let timed = Set(codecs.compactMap { $0.value.endSeconds(granule: 0) != nil ? $0.key : nil })
        let lastGranules = try lastGranules(source, wanted: timed)
        let ends = lastGranules.compactMap { serial, granule in codecs[serial]?.endSeconds(granule: granule) }
        if let end = ends.max() { metadata.durationSeconds = end }
        else if !timed.isEmpty { metadata.warnings.append("no Ogg page near the end of the file gives a granule position") }
        return ContainerReading(metadata: metadata)
    }

    /// The page whose header starts at `index` of `bytes` (which lie at `fileOffset`),
    /// when the capture pattern, version and segment table are all there.
    static func page(in bytes: [UInt8], at index: Int, fileOffset: UInt64) -> Page? {
        guard index >= 0, index + 27 <= bytes.count,
              bytes[index] == 0x4F, bytes[index + 1] == 0x67, bytes[index + 2] == 0x67, bytes[index + 3] == 0x53,
              bytes[index + 4] == 0,
              let granule = VideoFields.le64(bytes, index + 6),
              let serial = VideoFields.le32(bytes, index + 14) else { return nil }
        let segments = Int(bytes[index + 26])
        guard index + 27 + segments <= bytes.count else { return nil }
        let body = bytes[(index + 27)..<(index + 27 + segments)].reduce(0) { $0 + Int($1) }
        return Page(offset: fileOffset + UInt64(index), headerType: bytes[index + 5],
                    granulePosition: Int64(bitPattern: granule), serial: UInt32(truncatingIfNeeded: serial),
                    headerBytes: 27 + segments, bodyBytes: body)
    }

    /// The granule position of the last page of each stream in `wanted` that lies in the
    /// file's tail. Windows of `tailWindowBytes` are read back from the end until every
    /// wanted stream has a granule, or `maxTailBytes` are read.
    static func lastGranules(_ source: ByteSource, wanted: Set<UInt32>) throws -> [UInt32: Int64] {
        var found: [UInt32: Int64] = [:]
        guard !wanted.isEmpty else { return found }
        var windowEnd = source.size
        var scanned: UInt64 = 0
        while windowEnd > 0, scanned < maxTailBytes {
            let start = windowEnd > UInt64(tailWindowBytes) ? windowEnd - UInt64(tailWindowBytes) : 0
            // The window overlaps the next one by a page header so no header is cut in two.
            let bytes = try source.read(at: start, count: Int(min(source.size, windowEnd + 27 + 255) - start))
            var inWindow: [UInt32: Int64] = [:]
            var i = 0
            while i + 27 <= bytes.count, start + UInt64(i) < windowEnd {
                if let page = page(in: bytes, at: i, fileOffset: start), page.granulePosition != -1,
                   wanted.contains(page.serial) {
                    inWindow[page.serial] = page.granulePosition  // later pages overwrite earlier ones
                }
                i += 1
            }
            for (serial, granule) in inWindow where found[serial] == nil { found[serial] = granule }
            if found.count == wanted.count { break }
            scanned += windowEnd - start
            windowEnd = start
        }
        return found
    }

    /// Recognises a logical stream's first packet.
    static func codec(identificationHeader h: [UInt8]) -> Codec {
        func starts(_ text: [UInt8]) -> Bool { h.count >= text.count && Array(h[0..<text.count]) == text }
        if starts([0x80] + Array("theora".utf8)), h.count >= 42 {
            let version = Int(h[7]) << 16 | Int(h[8]) << 8 | Int(h[9])
            var width = (VideoFields.be16(h, 10) ?? 0) * 16, height = (VideoFields.be16(h, 12) ?? 0) * 16
            // The picture region (Theora 3.2.0 and later), as ffmpeg takes it: within one
            // macroblock of the frame.
            if let picW = VideoFields.be24(h, 14), let picH = VideoFields.be24(h, 17),
               picW <= width, picW > width - 16, picH <= height, picH > height - 16 {
                width = picW
                height = picH
            }
            let numerator = VideoFields.be32(h, 22) ?? 0, denominator = VideoFields.be32(h, 26) ?? 0
            let rate = numerator > 0 && denominator > 0 ? Double(numerator) / Double(denominator) : nil
            let shift = Int(h[40] & 0x03) << 3 | Int(h[41] >> 5)
            return .theora(version: version, width: width, height: height, frameRate: rate, granuleShift: shift)
        }
        if starts([0x4F, 0x56, 0x50, 0x38, 0x30, 0x01]), h.count >= 26 {
            let numerator = VideoFields.be32(h, 18) ?? 0, denominator = VideoFields.be32(h, 22) ?? 0
            let rate = numerator > 0 && denominator > 0 ? Double(numerator) / Double(denominator) : nil
            return .vp8(width: VideoFields.be16(h, 8) ?? 0, height: VideoFields.be16(h, 10) ?? 0, frameRate: rate)
        }
        if starts(Array("BBCD".utf8)) { return .dirac }
        if starts([0x01] + Array("vorbis".utf8)), let rate = VideoFields.le32(h, 12) { return .vorbis(sampleRate: rate) }
        if starts(Array("OpusHead".utf8)), let preSkip = VideoFields.le16(h, 10) { return .opus(preSkip: preSkip) }
        if starts([0x7F] + Array("FLAC".utf8)), h.count >= 30 {
            // The mapping header, `fLaC`, a metadata block header, then STREAMINFO: the
            // sample rate is the 20 bits after the block and frame sizes (10 bytes).
            let rate = Int(h[27]) << 12 | Int(h[28]) << 4 | Int(h[29]) >> 4
            return .flac(sampleRate: rate)
        }
        if starts(Array("Speex   ".utf8)), let rate = VideoFields.le32(h, 36) { return .speex(sampleRate: rate) }
        return .other
    }
}
