/// Reads Flash Video (FLV): the `onMetaData` script tag and the first video frame's header.
///
/// Only the first tags are walked; the movie's size comes from the first video frame
/// when its codec states one (VP6, Sorenson H.263), as ffprobe reads it, else from
/// `onMetaData`.
public enum FLVReader {
    static let maxTagsWalked = 64
    static let maxScriptTagBytes = 1 << 20

    /// Reads duration, size, frame rate, codec and audio presence.
    ///
    /// - Throws: `MetadataError` when the FLV header is missing.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        let head = try source.read(at: 0, count: 9)
        guard head.count == 9, head[0] == 0x46, head[1] == 0x4C, head[2] == 0x56,
              let headerSize = VideoFields.be32(head, 5) else {
            throw MetadataError.malformed("the FLV header is missing")
        }
        guard headerSize >= 9 else { throw MetadataError.malformed("the FLV header states an impossible size") }
        var metadata = MediaMetadata(format: .flv)
        let headerSaysAudio = head[4] & 0x04 != 0
        var properties: [String: AMF0Value] = [:]
        var sawAudio = false
        var sawScript = false
        var videoHeader: [UInt8]?
        var position = UInt64(headerSize) + 4  // skips PreviousTagSize0
        var walked = 0
        while walked < maxTagsWalked, position + 11 <= source.size {
            walked += 1
            let tag = try source.read(at: position, count: 11)
            guard tag.count == 11, let size = VideoFields.be24(tag, 1) else { break }
            let dataOffset = position + 11
            switch tag[0] & 0x1F {
            case 8:
                sawAudio = true
            case 9 where videoHeader == nil:
                videoHeader = try source.read(at: dataOffset, count: min(size, 64))
            case 18 where !sawScript:
                sawScript = true
                guard size <= maxScriptTagBytes else {
                    metadata.warnings.append("the FLV script tag is larger than \(maxScriptTagBytes) bytes and was not read")
                    break
                }
                let data = try source.read(at: dataOffset, count: size)
                if data.count < size { metadata.warnings.append("the FLV script tag is cut short") }
                var parser = AMF0Parser(bytes: data)
                if let name = parser.topLevelString(), name == "onMetaData" {
                    properties = parser.topLevelProperties()
                    if parser.failed { metadata.warnings.append("the FLV onMetaData tag is malformed; what precedes the fault was kept") }
                }
            default:
                break
            }
            if sawScript, sawAudio, videoHeader != nil { break }
            position = dataOffset + UInt64(size) + 4
        }

        let codecID = videoHeader.flatMap { $0.first }.map { Int($0 & 0x0F) } ?? properties["videocodecid"]?.number.flatMap { (0..<256).contains($0) ? Int($0) : nil }
        if let videoHeader, let frameSize = frameSize(videoHeader) {
            metadata.pixelWidth = frameSize.width
            metadata.pixelHeight = frameSize.height
        } else if let width = properties["width"]?.number, let height = properties["height"]?.number,
                  width >= 1, height >= 1, width < 100_000, height < 100_000 {
            metadata.pixelWidth = Int(width)
            metadata.pixelHeight = Int(height)
        }
        if let codecID { metadata.videoCodec = codecName(codecID) }
        if let duration = properties["duration"]?.number, duration > 0, duration.isFinite {
            metadata.durationSeconds = duration
        }
        if let rate = (properties["framerate"] ?? properties["videoframerate"])?.number, rate > 0, rate < 10_000 {
            metadata.frameRate = rate
        }
        metadata.hasAudio = sawAudio || (headerSaysAudio && properties["hasAudio"]?.bool != false)
        return ContainerReading(metadata: metadata)
    }

    /// ffmpeg's name of an FLV video codec id.
    static func codecName(_ id: Int) -> String? {
        switch id {
        case 2: return "flv1"
        case 3: return "flashsv"
        case 4: return "vp6f"
        case 5: return "vp6a"
        case 6: return "flashsv2"
        case 7: return "h264"
        case 12: return "hevc"
        default: return nil
        }
    }

    /// The coded size stated by a key frame's header, for VP6 and Sorenson H.263.
    static func frameSize(_ tag: [UInt8]) -> (width: Int, height: Int)? {
        guard let first = tag.first else { return nil }
        switch first & 0x0F {
        case 4, 5:
            // An adjustment byte (crop right, crop bottom); VP6A adds a 3-byte alpha offset.
            guard let adjust = VideoFields.u8(tag, 1) else { return nil }
            let frame = first & 0x0F == 4 ? 2 : 5
            guard let flags = VideoFields.u8(tag, frame), flags & 0x80 == 0,  // key frame
                  let version = VideoFields.u8(tag, frame + 1) else { return nil }
            // Without a filter header, or with separated coefficients, a 2-byte offset follows.
            let extra = (flags & 1 != 0 || version & 0x06 == 0) ? 2 : 0
            guard let rows = VideoFields.u8(tag, frame + 2 + extra), let columns = VideoFields.u8(tag, frame + 3 + extra),
                  rows > 0, columns > 0 else { return nil }
            let width = columns * 16 - (adjust >> 4), height = rows * 16 - (adjust & 0x0F)
            return width > 0 && height > 0 ? (width, height) : nil
        case 2:
            var bits = VideoBitReader(bytes: Array(tag.dropFirst()))
            guard bits.read(17) == 1 else { return nil }
            _ = bits.read(5); _ = bits.read(8)  // version, temporal reference
            guard let format = bits.read(3) else { return nil }
            let size: (Int, Int)?
            switch format {
            case 0: size = bits.read(8).flatMap { w in bits.read(8).map { (w, $0) } }
            case 1: size = bits.read(16).flatMap { w in bits.read(16).map { (w, $0) } }
            case 2: size = (352, 288)
            case 3: size = (176, 144)
            case 4: size = (128, 96)
            case 5: size = (320, 240)
            case 6: size = (160, 120)
            default: size = nil
            }
            guard let size, size.0 > 0, size.1 > 0 else { return nil }
            return size
        default:
            return nil
        }
    }
}

/// A value of Adobe's Action Message Format 0, as far as `onMetaData` needs.
enum AMF0Value: Equatable {
    case number(Double)
    case bool(Bool)
    case string(String)
    case other

    var number: Double? { if case .number(let n) = self, n.isFinite { return n } else { return nil } }
    var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
}

/// A bounded AMF0 parser: nesting depth, value count and string lengths are capped,
/// and every read is checked against the end of the tag.
struct AMF0Parser {
    static let maxDepth = 16
    static let maxValues = 100_000
    let bytes: [UInt8]
    var position = 0
    var valuesRead = 0
    /// Set when the data ended early or held an unknown type.
    var failed = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The first value, when it is a string (the script tag's name).
    mutating func topLevelString() -> String? {
        guard let value = readValue(depth: 0, keep: true), case .string(let name) = value else { return nil }
        return name
    }

    /// The properties of the object or ECMA array that follows the name: numbers,
    /// booleans and strings only; nested values are skipped.
    mutating func topLevelProperties() -> [String: AMF0Value] {
        guard let marker = VideoFields.u8(bytes, position) else { failed = true; return [:] }
        var result: [String: AMF0Value] = [:]
        switch marker {
        case 0x03:
            position += 1
        case 0x08:
            position += 5  // the count is only a hint; the end marker ends the array
        default:
            failed = true
            return [:]
        }
        while !failed, let key = readKey() {
            guard let value = readValue(depth: 1, keep: true) else { failed = true; break }
            if result[key] == nil { result[key] = value }
        }
        return result
    }

    /// A property name; nil at the object-end marker (empty name, 0x09) or the end.
    private mutating func readKey() -> String? {
        guard let length = VideoFields.be16(bytes, position) else { failed = true; return nil }
        if length == 0, VideoFields.u8(bytes, position + 2) == 0x09 {
            position += 3
            return nil
        }
        guard position + 2 + length <= bytes.count else { failed = true; return nil }
        let text = String(decoding: bytes[(position + 2)..<(position + 2 + length)], as: UTF8.self)
        position += 2 + length
        return text
    }

    private mutating func readString(lengthBytes: Int) -> String? {
        let length = lengthBytes == 2 ? VideoFields.be16(bytes, position) : VideoFields.be32(bytes, position)
        guard let length, position + lengthBytes + length <= bytes.count else { failed = true; return nil }
        let start = position + lengthBytes
        position = start + length
        return String(decoding: bytes[start..<(start + length)], as: UTF8.self)
    }

    /// Reads one value; nested ones are walked and dropped (`.other`).
    private mutating func readValue(depth: Int, keep: Bool) -> AMF0Value? {
        valuesRead += 1
        guard depth <= Self.maxDepth, valuesRead <= Self.maxValues, let marker = VideoFields.u8(bytes, position) else {
            failed = true
            return nil
        }
        position += 1
        switch marker {
        case 0x00:
            guard position + 8 <= bytes.count else { failed = true; return nil }
            var bits: UInt64 = 0
            for i in 0..<8 { bits = bits << 8 | UInt64(bytes[position + i]) }
            position += 8
            return .number(Double(bitPattern: bits))
        case 0x01:
            guard let b = VideoFields.u8(bytes, position) else { failed = true; return nil }
            position += 1
            return .bool(b != 0)
        case 0x02:
            return readString(lengthBytes: 2).map { .string($0) }
        case 0x0C, 0x0F:
            return readString(lengthBytes: 4).map { keep ? .string($0) : .other }
        case 0x05, 0x06, 0x0D:
            return .other
        case 0x07:
            position += 2
            guard position <= bytes.count else { failed = true; return nil }
            return .other
        case 0x0B:
            position += 10  // a double, then a 16-bit time zone
            guard position <= bytes.count else { failed = true; return nil }
            return .other
        case 0x03, 0x08, 0x10:
            if marker == 0x08 { position += 4 }
            if marker == 0x10 { guard readString(lengthBytes: 2) != nil else { return nil } }
            while !failed, readKey() != nil {
                guard readValue(depth: depth + 1, keep: false) != nil else { failed = true; return nil }
            }
            return failed ? nil : .other
        case 0x0A:
            guard let count = VideoFields.be32(bytes, position) else { failed = true; return nil }
            position += 4
            // Each value takes at least one byte: a count beyond the bytes left is a lie.
            guard count <= bytes.count - position else { failed = true; return nil }
            for _ in 0..<count {
                guard readValue(depth: depth + 1, keep: false) != nil else { failed = true; return nil }
            }
            return .other
        default:
            failed = true
            return nil
        }
    }
}

/// Reads big-endian bit fields from bytes in memory.
struct VideoBitReader {
    let bytes: [UInt8]
    var bitPosition = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var bitsLeft: Int { bytes.count * 8 - bitPosition }

    /// The next `count` bits (at most 32) as an unsigned value; nil past the end.
    mutating func read(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, count <= bitsLeft else { return nil }
        var value = 0
        for _ in 0..<count {
            let byte = bytes[bitPosition >> 3]
            value = value << 1 | Int((byte >> (7 - UInt8(bitPosition & 7))) & 1)
            bitPosition += 1
        }
        return value
    }

    /// An unsigned Exp-Golomb code (H.264 `ue(v)`); nil past the end or beyond 31 bits.
    mutating func readExpGolomb() -> Int? {
        var zeros = 0
        while true {
            guard let bit = read(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = read(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// A signed Exp-Golomb code (`se(v)`).
    mutating func readSignedExpGolomb() -> Int? {
        guard let code = readExpGolomb() else { return nil }
        return code & 1 == 1 ? (code + 1) / 2 : -(code / 2)
    }
}
