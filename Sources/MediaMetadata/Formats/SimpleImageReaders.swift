/// Minimal readers for PNG, GIF, BMP and WebP: the pixel size, and the EXIF and XMP
/// blocks when they sit in the first chunks.
enum SimpleImageReaders {
    /// At most this many chunks are walked before giving up on finding EXIF.
    static let maxChunks = 64

    private static func be32(_ b: [UInt8], _ at: Int) -> UInt32 { TIFFDirectoryWalker.u32(b, at, false) }
    private static func le32(_ b: [UInt8], _ at: Int) -> UInt32 { TIFFDirectoryWalker.u32(b, at, true) }
    private static func le16(_ b: [UInt8], _ at: Int) -> Int { Int(TIFFDirectoryWalker.u16(b, at, true)) }

    /// PNG: IHDR size, and an `eXIf` chunk found before the image data.
    ///
    /// - Throws: `MetadataError.truncated` when the IHDR chunk is cut short.
    static func readPNG(_ source: ByteSource) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: .png))
        let head = try source.read(at: 0, count: 33)
        guard head.count >= 24 else { throw MetadataError.truncated("the PNG ends before its IHDR chunk") }
        guard Array(head[12..<16]) == Array("IHDR".utf8) else {
            throw MetadataError.malformed("the PNG does not start with an IHDR chunk")
        }
        let w = Int(be32(head, 16)), h = Int(be32(head, 20))
        if w > 0 && h > 0 { reading.metadata.pixelWidth = w; reading.metadata.pixelHeight = h }
        var offset: UInt64 = 8
        for _ in 0..<maxChunks {
            let chunk = try source.read(at: offset, count: 8)
            guard chunk.count == 8 else { break }
            let length = UInt64(be32(chunk, 0))
            let type = String(decoding: chunk[4..<8], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { break }
            if type == "eXIf", length <= 1 << 20 {
                let payload = try source.read(at: offset + 8, count: Int(length))
                if payload.count == Int(length) { reading.exif = payload }
                break
            }
            offset += 12 + length
        }
        return reading
    }

    /// GIF: the logical screen size.
    static func readGIF(_ source: ByteSource) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: .gif))
        let head = try source.read(at: 0, count: 10)
        guard head.count == 10 else { throw MetadataError.truncated("the GIF ends before its screen descriptor") }
        let w = le16(head, 6), h = le16(head, 8)
        if w > 0 && h > 0 { reading.metadata.pixelWidth = w; reading.metadata.pixelHeight = h }
        return reading
    }

    /// BMP: the size from the DIB header (a negative height means top-down rows).
    static func readBMP(_ source: ByteSource) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: .bmp))
        let head = try source.read(at: 0, count: 26)
        guard head.count == 26 else { throw MetadataError.truncated("the BMP ends before its header") }
        let w: Int, h: Int
        if le32(head, 14) == 12 {  // BITMAPCOREHEADER: 16-bit unsigned sizes
            w = le16(head, 18); h = le16(head, 20)
        } else {
            w = Int(Int32(bitPattern: le32(head, 18)))
            h = abs(Int(Int32(bitPattern: le32(head, 22))))
        }
        if w > 0 && h > 0 { reading.metadata.pixelWidth = w; reading.metadata.pixelHeight = h }
        return reading
    }

    /// WebP: canvas size from VP8X, else the VP8/VP8L frame; EXIF and XMP chunks.
    static func readWebP(_ source: ByteSource) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: .webp))
        let riffEnd = min(UInt64(le32(try source.readExactly(at: 4, count: 4), 0)) + 8, source.size)
        var offset: UInt64 = 12
        for _ in 0..<maxChunks {
            guard offset + 8 <= riffEnd else { break }
            let header = try source.read(at: offset, count: 8)
            guard header.count == 8 else { break }
            let type = String(decoding: header[0..<4], as: UTF8.self)
            let length = UInt64(le32(header, 4))
            let dataStart = offset + 8
            switch type {
            case "VP8X":
                let d = try source.read(at: dataStart, count: 10)
                if d.count == 10 {
                    reading.metadata.pixelWidth = (Int(d[4]) | Int(d[5]) << 8 | Int(d[6]) << 16) + 1
                    reading.metadata.pixelHeight = (Int(d[7]) | Int(d[8]) << 8 | Int(d[9]) << 16) + 1
                }
            case "VP8 ":
                let d = try source.read(at: dataStart, count: 10)
                if reading.metadata.pixelWidth == nil, d.count == 10, d[3] == 0x9D, d[4] == 0x01, d[5] == 0x2A {
                    reading.metadata.pixelWidth = le16(d, 6) & 0x3FFF
                    reading.metadata.pixelHeight = le16(d, 8) & 0x3FFF
                }
            case "VP8L":
                let d = try source.read(at: dataStart, count: 5)
                if reading.metadata.pixelWidth == nil, d.count == 5, d[0] == 0x2F {
                    let bits = UInt32(d[1]) | UInt32(d[2]) << 8 | UInt32(d[3]) << 16 | UInt32(d[4]) << 24
                    reading.metadata.pixelWidth = Int(bits & 0x3FFF) + 1
                    reading.metadata.pixelHeight = Int((bits >> 14) & 0x3FFF) + 1
                }
            case "EXIF", "XMP ":
                if length <= 4 << 20 {
                    let payload = try source.read(at: dataStart, count: Int(length))
                    if payload.count == Int(length) {
                        if type == "EXIF" { reading.exif = payload } else { reading.xmp = payload }
                    }
                }
            default:
                break
            }
            offset = dataStart + length + (length & 1)
        }
        if reading.metadata.pixelWidth == nil {
            reading.metadata.warnings.append("the WebP has no readable VP8X, VP8 or VP8L chunk")
        }
        return reading
    }
}
