/// Decodes a Windows icon (`.ico`) or cursor (`.cur`): the largest picture its directory
/// lists, a PNG or a bitmap without its file header.
///
/// The directory's own sizes are one byte each (0 standing for 256 or more) and writers
/// get them wrong, so pictures are compared by their own headers: PNG's IHDR, the bitmap's
/// DIB header (whose height counts the AND mask below the colours, so it is halved).
/// A bitmap's colours go through `BMPDecoder` behind a file header made here; a 32-bit
/// one's fourth bytes are its alpha, as `BMPDecoder` reads them. The 1-bit AND mask of
/// older, paletted icons is not applied: their transparent corners show their colour.
enum IconDecoder {
    /// One picture of the directory: where its bytes are, its size and depth from its own header.
    struct Entry: Equatable {
        var range: Range<Int>
        var width: Int, height: Int
        var bitsPerPixel: Int
        var isPNG: Bool
    }

    /// Directories listing more are refused (the field is 16 bits; real icons list under 20).
    static let maxEntries = 512

    static func fail(_ reason: String) -> ThumbnailError { .decodeFailed("the icon \(reason)") }

    /// The pictures the directory lists whose bytes lie inside the file and start with a
    /// PNG signature or a DIB header, in directory order.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` when the header is not an icon's or cursor's.
    static func entries(_ data: UnsafeBufferPointer<UInt8>) throws -> [Entry] {
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard data.count >= 6, u16(0) == 0, u16(2) == 1 || u16(2) == 2 else { throw fail("header is not an icon's or a cursor's") }
        let count = u16(4)
        guard count > 0, count <= maxEntries else { throw fail("directory lists \(count) pictures") }
        var entries: [Entry] = []
        for index in 0..<count {
            let at = 6 + 16 * index
            guard at + 16 <= data.count else { break }
            let length = u32(at + 8), offset = u32(at + 12)
            guard length >= 40, offset >= 6, offset <= data.count, length <= data.count - offset else { continue }
            let range = offset..<(offset + length)
            if data[offset] == 0x89, data[offset + 1] == 0x50, data[offset + 2] == 0x4E, data[offset + 3] == 0x47 {
                // IHDR: width and height, big-endian, at 16 and 20; the bit depth at 24.
                let be = { (i: Int) in Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3]) }
                guard length >= 26 else { continue }
                entries.append(Entry(range: range, width: be(offset + 16), height: be(offset + 20),
                                     bitsPerPixel: Int(data[offset + 24]) * 4, isPNG: true))
            } else if u32(offset) >= 40, u32(offset) <= 124 {
                let height = Int(Int32(truncatingIfNeeded: u32(offset + 8)))
                entries.append(Entry(range: range, width: Int(Int32(truncatingIfNeeded: u32(offset + 4))),
                                     height: abs(height) / 2, bitsPerPixel: u16(offset + 14), isPNG: false))
            }
        }
        return entries.filter { $0.width > 0 && $0.height > 0 }
    }

    /// The largest entry (by pixels, then depth); nil for none.
    static func largest(_ entries: [Entry]) -> Entry? {
        entries.max { ($0.width * $0.height, $0.bitsPerPixel) < ($1.width * $1.height, $1.bitsPerPixel) }
    }

    /// Decodes the largest picture, shrunk towards `request`.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` for a header that is not an icon's, a
    ///   directory without a readable picture, or a picture its decoder refuses;
    ///   `.imageTooLarge` beyond `pixelLimit`.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest,
                       pixelLimit: Int) throws -> (image: PixelBuffer, warnings: [String], colour: ColourSpace) {
        guard let entry = largest(try entries(data)) else { throw fail("lists no picture that lies inside the file") }
        guard entry.width * entry.height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: entry.width, height: entry.height, limit: pixelLimit)
        }
        let picture = UnsafeBufferPointer(rebasing: data[entry.range])
        if entry.isPNG {
            return (try PNGDecoder.decode(picture, pixelLimit: pixelLimit), [], PNGDecoder.colourSpace(picture))
        }
        let bitmap = bitmapFile(picture, height: entry.height)
        let decoded = try bitmap.withUnsafeBufferPointer { try BMPDecoder.decode($0, request: request, pixelLimit: pixelLimit) }
        return (decoded.image, decoded.warnings, .sRGB)
    }

    /// A BMP file of an icon's bitmap: a 14-byte file header pointing past the DIB header
    /// and palette, and the DIB's height made the colour picture's alone.
    static func bitmapFile(_ dib: UnsafeBufferPointer<UInt8>, height: Int) -> [UInt8] {
        func u32(_ at: Int) -> Int { Int(dib[at]) | Int(dib[at + 1]) << 8 | Int(dib[at + 2]) << 16 | Int(dib[at + 3]) << 24 }
        let headerSize = u32(0)
        let bits = Int(dib[14]) | Int(dib[15]) << 8
        let declaredColours = u32(32)
        let paletteEntries = bits <= 8 ? (declaredColours > 0 ? min(declaredColours, 1 << bits) : 1 << bits) : 0
        let compression = u32(16)
        let masks = headerSize == 40 && (compression == 3 || compression == 6) ? (compression == 6 ? 16 : 12) : 0
        let pixelOffset = 14 + headerSize + masks + paletteEntries * 4
        let fileSize = 14 + dib.count
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var file: [UInt8] = [0x42, 0x4D] + le32(fileSize) + [0, 0, 0, 0] + le32(pixelOffset) + Array(dib)
        // The DIB's height (at 8 in it) counted the AND mask too; the sign (top-down) is kept.
        let signedHeight = Int32(truncatingIfNeeded: u32(8)) < 0 ? -height : height
        file.replaceSubrange((14 + 8)..<(14 + 12), with: le32(signedHeight))
        return file
    }
}
