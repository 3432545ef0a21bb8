/// BMP: the pixel size from the DIB header. (PNG, GIF, WebP and the rest have full
/// readers of their own.)
enum BMPReader {
    private static func le32(_ b: [UInt8], _ at: Int) -> UInt32 { TIFFDirectoryWalker.u32(b, at, true) }
    private static func le16(_ b: [UInt8], _ at: Int) -> Int { Int(TIFFDirectoryWalker.u16(b, at, true)) }

    /// BMP: the size from the DIB header (a negative height means top-down rows).
    static func read(_ source: ByteSource) throws -> ContainerReading {
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
}
