/// Reads a PNG's header and metadata chunks: size, APNG animation, EXIF and XMP.
///
/// Chunks are walked by their headers only; image data (`IDAT`, `fdAT`) is skipped by
/// seeking, so a large PNG costs a few small reads.
public enum PNGReader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// More chunks than this are not walked (an image split in tiny IDATs, or junk).
    static let maxChunks = 20_000
    /// Metadata chunks larger than this are skipped.
    static let maxMetadataChunkBytes = 16 << 20

    /// Reads the facts a PNG's chunks state.
    ///
    /// - Throws: `MetadataError` when the signature or the `IHDR` chunk is missing.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        let head = try source.read(at: 0, count: 33)
        guard head.count >= 8, Array(head.prefix(8)) == signature else {
            throw MetadataError.malformed("the PNG signature is missing")
        }
        guard head.count >= 33 else { throw MetadataError.truncated("the PNG ends before its IHDR chunk") }
        guard String(decoding: head[12..<16], as: UTF8.self) == "IHDR", be32(head, 8) >= 13 else {
            throw MetadataError.malformed("the first PNG chunk is not a valid IHDR")
        }
        var metadata = MediaMetadata(format: .png)
        let width = be32(head, 16), height = be32(head, 20)
        if width > 0, height > 0, width <= Int32.max, height <= Int32.max {
            metadata.pixelWidth = width
            metadata.pixelHeight = height
        } else {
            metadata.warnings.append("the PNG header states an impossible size \(width)×\(height)")
        }
        var reading = ContainerReading(metadata: metadata)

        var offset: UInt64 = 8
        var chunks = 0
        var sawEnd = false
        while offset + 12 <= source.size {
            chunks += 1
            if chunks > maxChunks {
                reading.metadata.warnings.append("the PNG has more than \(maxChunks) chunks; the rest were not read")
                break
            }
            let header = try source.read(at: offset, count: 8)
            guard header.count == 8 else { break }
            let length = be32(header, 0)
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length <= 0x7FFF_FFFF else {
                reading.metadata.warnings.append("the PNG chunk '\(type)' at offset \(offset) states an impossible length")
                break
            }
            let dataStart = offset + 8
            let next = dataStart + UInt64(length) + 4
            if type == "IEND" { sawEnd = true; break }
            if next > source.size {
                reading.metadata.warnings.append("the PNG chunk '\(type)' at offset \(offset) runs past the end of the file")
            }
            if length <= maxMetadataChunkBytes {
                switch type {
                case "eXIf" where reading.exif == nil:
                    let data = try source.read(at: dataStart, count: length)
                    if !data.isEmpty { reading.exif = data }
                case "iTXt" where reading.xmp == nil:
                    let data = try source.read(at: dataStart, count: length)
                    readInternationalText(data, into: &reading)
                case "tEXt", "zTXt":
                    let data = try source.read(at: dataStart, count: length)
                    readLatinText(data, compressed: type == "zTXt", into: &reading)
                case "acTL":
                    let data = try source.read(at: dataStart, count: min(length, 8))
                    if data.count == 8 {
                        let frames = be32(data, 0)
                        reading.metadata.frameCount = frames
                        reading.metadata.isAnimated = frames > 1
                    }
                default:
                    break
                }
            }
            offset = next  // always advances by at least 12
        }
        if !sawEnd, chunks <= maxChunks {
            reading.metadata.warnings.append("the PNG ends before its IEND chunk")
        }
        if reading.metadata.isAnimated == nil { reading.metadata.isAnimated = false }
        return reading
    }

    /// `iTXt`: keyword, NUL, compression flag, method, language, NUL, translated keyword, NUL, text.
    private static func readInternationalText(_ data: [UInt8], into reading: inout ContainerReading) {
        guard let keywordEnd = data.firstIndex(of: 0), keywordEnd + 3 <= data.count else { return }
        let keyword = String(decoding: data[..<keywordEnd], as: UTF8.self)
        guard keyword == "XML:com.adobe.xmp" else { return }
        let compressed = data[keywordEnd + 1] != 0
        var cursor = keywordEnd + 3
        for _ in 0..<2 {  // language tag, translated keyword
            guard let end = data[cursor...].firstIndex(of: 0) else { return }
            cursor = end + 1
        }
        let text = Array(data[cursor...])
        if compressed {
            if let inflated = ZlibInflater.inflate(text, limit: XMPReader.maxPacketBytes) {
                reading.xmp = inflated
            } else {
                reading.metadata.warnings.append("the PNG's compressed XMP could not be inflated")
            }
        } else {
            reading.xmp = text
        }
    }

    /// ImageMagick's `Raw profile type exif` (or `APP1`): hex text after a header
    /// line `\nexif\n   LENGTH\n`.
    private static func readLatinText(_ data: [UInt8], compressed: Bool, into reading: inout ContainerReading) {
        guard reading.exif == nil || reading.xmp == nil,
              let keywordEnd = data.firstIndex(of: 0) else { return }
        let keyword = String(decoding: data[..<keywordEnd], as: UTF8.self)
        var body: [UInt8]
        if compressed {
            guard keywordEnd + 2 <= data.count else { return }
            guard keyword.hasPrefix("Raw profile type") || keyword == "XML:com.adobe.xmp" else { return }
            guard let inflated = ZlibInflater.inflate(Array(data[(keywordEnd + 2)...]), limit: 32 << 20) else {
                reading.metadata.warnings.append("the PNG's compressed '\(keyword)' text could not be inflated")
                return
            }
            body = inflated
        } else {
            body = Array(data[(keywordEnd + 1)...])
        }
        switch keyword {
        case "Raw profile type exif", "Raw profile type APP1":
            guard reading.exif == nil, let decoded = decodeRawProfile(body) else { return }
            // The APP1 flavour holds `Exif\0\0` + TIFF; the exif flavour may too.
            reading.exif = decoded
        case "Raw profile type xmp", "XML:com.adobe.xmp":
            guard reading.xmp == nil else { return }
            if keyword == "XML:com.adobe.xmp" {
                reading.xmp = body
            } else if let decoded = decodeRawProfile(body) {
                reading.xmp = decoded
            }
        default:
            break
        }
    }

    /// Decodes `\nname\n   length\nhex hex …`; nil when it is not that shape.
    static func decodeRawProfile(_ body: [UInt8]) -> [UInt8]? {
        // Skip the name line and the length line.
        var newlines = 0
        var cursor = 0
        var lengthDigits: [UInt8] = []
        while cursor < body.count, newlines < 3 {
            if body[cursor] == 0x0A { newlines += 1 }
            else if newlines == 2, (0x30...0x39).contains(body[cursor]) { lengthDigits.append(body[cursor]) }
            cursor += 1
        }
        guard newlines == 3, let declared = Int(String(decoding: lengthDigits, as: UTF8.self)), declared > 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(min(declared, body.count / 2))
        var high: UInt8?
        while cursor < body.count, out.count < declared {
            let c = body[cursor]
            cursor += 1
            let nibble: UInt8
            switch c {
            case 0x30...0x39: nibble = c - 0x30
            case 0x61...0x66: nibble = c - 0x61 + 10
            case 0x41...0x46: nibble = c - 0x41 + 10
            default: continue
            }
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return out.isEmpty ? nil : out
    }
}

private func be32(_ b: [UInt8], _ i: Int) -> Int {
    Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
}
