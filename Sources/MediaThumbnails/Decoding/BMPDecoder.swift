/// Decodes Windows and OS/2 bitmaps: 1, 4, 8, 16, 24 and 32 bits per pixel; uncompressed,
/// RLE4, RLE8 and bit fields (with alpha from V4/V5 headers or ALPHABITFIELDS); bottom-up
/// and top-down rows.
///
/// Every offset, count and size comes from the file, so each is checked against the data
/// before use: a lying header gives an error, a short pixel array a partial picture with a
/// warning. Rows are shrunk into the thumbnail band by band (`BandShrinker`).
enum BMPDecoder {
    struct Decoded {
        var image: PixelBuffer
        var size: (width: Int, height: Int)
        var warnings: [String]
    }

    /// The header fields that say how pixels are stored.
    struct Header {
        var width: Int
        var height: Int
        var topDown: Bool
        var bitsPerPixel: Int
        var compression: UInt32
        var pixelOffset: Int
        /// Bit masks for 16- and 32-bit pixels (red, green, blue, alpha; 0 = absent).
        var masks: [UInt32]
        /// Palette entries as RGB.
        var palette: [(UInt8, UInt8, UInt8)]
    }

    static let rgb: UInt32 = 0, rle8: UInt32 = 1, rle4: UInt32 = 2, bitfields: UInt32 = 3, alphaBitfields: UInt32 = 6
    /// Run-length coded pictures beyond this many pixels are refused (their indices are held whole).
    static let maxRLEPixels = 64_000_000
    /// Rows decoded per band.
    static let bandRows = 64

    static func fail(_ reason: String) -> ThumbnailError { .decodeFailed("the BMP \(reason)") }

    /// Reads the file and DIB headers and the palette.
    static func header(_ data: UnsafeBufferPointer<UInt8>) throws -> Header {
        func u16(_ at: Int) throws -> Int {
            guard at >= 0, at + 2 <= data.count else { throw fail("header is cut short") }
            return Int(data[at]) | Int(data[at + 1]) << 8
        }
        func u32(_ at: Int) throws -> UInt32 {
            guard at >= 0, at + 4 <= data.count else { throw fail("header is cut short") }
            return UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24
        }
        guard data.count >= 26, data[0] == 0x42, data[1] == 0x4D else { throw fail("does not start with a BM header") }
        let pixelOffset = Int(try u32(10))
        let dibSize = Int(try u32(14))
        var width: Int, height: Int, bits: Int, compression: UInt32 = rgb, colours = 0
        let core = dibSize == 12
        if core {
            width = try u16(18); height = try u16(20); bits = try u16(24)
        } else {
            guard dibSize >= 16, dibSize <= 1024 else { throw fail("has an unknown header size of \(dibSize) bytes") }
            width = Int(Int32(bitPattern: try u32(18)))
            height = Int(Int32(bitPattern: try u32(22)))
            bits = try u16(28)
            if dibSize >= 20 { compression = try u32(30) }
            if dibSize >= 36 { colours = Int(try u32(46)) }
        }
        let topDown = height < 0
        height = abs(height)
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
            throw fail("declares an impossible size of \(width)×\(height) pixels")
        }
        guard [1, 2, 4, 8, 16, 24, 32].contains(bits) else { throw fail("has \(bits) bits per pixel, which no bitmap uses") }
        switch compression {
        case rgb, bitfields, alphaBitfields: break
        case rle8 where bits == 8, rle4 where bits == 4: break
        case 4, 5: throw ThumbnailError.unsupportedFormat("BMP files holding an embedded JPEG or PNG")
        default: throw fail("uses compression \(compression) with \(bits) bits per pixel, which is not a bitmap layout")
        }
        guard !(topDown && (compression == rle8 || compression == rle4)) else { throw fail("is run-length coded but top-down") }

        var masks: [UInt32] = [0, 0, 0, 0]
        if compression == bitfields || compression == alphaBitfields {
            guard bits == 16 || bits == 32 else { throw fail("has bit fields with \(bits) bits per pixel") }
            // In the header from V2 (52 bytes) on; after a 40-byte header otherwise.
            let at = 14 + 40
            masks[0] = try u32(at); masks[1] = try u32(at + 4); masks[2] = try u32(at + 8)
            if compression == alphaBitfields || dibSize >= 56 { masks[3] = try u32(at + 12) }
        } else if bits == 16 {
            masks = [0x7C00, 0x03E0, 0x001F, 0]
        } else if bits == 32 {
            // The fourth byte is "reserved", yet icon-style writers keep alpha there: it is
            // read as alpha, and a picture whose fourth bytes are all zero is opaque (as
            // browsers decide).
            masks = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000]
        }

        var palette: [(UInt8, UInt8, UInt8)] = []
        if bits <= 8 {
            let entrySize = core ? 3 : 4
            var paletteStart = 14 + dibSize
            if dibSize == 40 && (compression == bitfields || compression == alphaBitfields) {
                paletteStart += compression == alphaBitfields ? 16 : 12
            }
            let declared = colours > 0 ? min(colours, 1 << bits) : 1 << bits
            // Entries that would overlap the pixels or lie past the end are absent (black).
            let room = max(0, (min(pixelOffset, data.count) - paletteStart) / entrySize)
            let count = min(declared, room)
            for i in 0..<count {
                let at = paletteStart + i * entrySize
                palette.append((data[at + 2], data[at + 1], data[at]))
            }
            while palette.count < 1 << bits { palette.append((0, 0, 0)) }
        }
        guard pixelOffset > 14, pixelOffset < data.count else { throw fail("has its pixels outside the file") }
        return Header(width: width, height: height, topDown: topDown, bitsPerPixel: bits, compression: compression,
                      pixelOffset: pixelOffset, masks: masks, palette: palette)
    }

    /// Decodes `data` into a picture of about the thumbnail's size.
    ///
    /// - Throws: `ThumbnailError.imageTooLarge` from the header, `.decodeFailed` for a header
    ///   that is not a bitmap's, `.unsupportedFormat` for embedded JPEG or PNG.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, pixelLimit: Int) throws -> Decoded {
        let header = try header(data)
        let width = header.width, height = header.height
        guard width * height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: width, height: height, limit: pixelLimit)
        }
        let hasAlpha = header.masks[3] != 0
        let channels = hasAlpha ? 4 : 3
        let target = ThumbnailGeometry.scaledSize(width: width, height: height, request: request)
        var shrinker = BandShrinker(width: width, height: height, target: target, channels: channels)
        var warnings: [String] = []
        var anyAlpha = false

        if header.compression == rle8 || header.compression == rle4 {
            // The indices are held whole (runs and deltas jump about), one byte a pixel.
            guard width * height <= maxRLEPixels else {
                throw ThumbnailError.imageTooLarge(width: width, height: height, limit: maxRLEPixels)
            }
            var indices = [UInt8](repeating: 0, count: width * height)
            if !decodeRLE(data, header: header, into: &indices) {
                warnings.append("the BMP's run-length data ends early or is damaged; the rest is black")
            }
            var band = [UInt8](repeating: 0, count: width * bandRows * 3)
            var y = 0
            while y < height {
                let rows = min(bandRows, height - y)
                for r in 0..<rows {
                    // RLE rows are stored bottom-up.
                    let stored = height - 1 - (y + r)
                    for x in 0..<width {
                        let colour = header.palette[Int(indices[stored * width + x])]
                        let o = (r * width + x) * 3
                        band[o] = colour.0; band[o + 1] = colour.1; band[o + 2] = colour.2
                    }
                }
                band.withUnsafeBytes { shrinker.add($0, y: y, width: width, rows: rows, rowBytes: width * 3, sourceChannels: 3) }
                y += rows
            }
        } else {
            let (rowBytes, overflow) = (width * header.bitsPerPixel).addingReportingOverflow(31)
            guard !overflow else { throw fail("declares rows too long to hold") }
            let stride = rowBytes / 32 * 4
            let available = data.count - header.pixelOffset
            let rowsPresent = min(height, available / stride)
            guard rowsPresent > 0 else { throw fail("has no pixel rows after its header") }
            if rowsPresent < height { warnings.append("the BMP's pixels are cut short after \(rowsPresent) of \(height) rows") }
            let shifts = header.masks.map(MaskField.init)
            var band = [UInt8](repeating: 0, count: width * bandRows * channels)
            var y = 0
            while y < height {
                let rows = min(bandRows, height - y)
                for r in 0..<rows {
                    let displayed = y + r
                    let stored = header.topDown ? displayed : height - 1 - displayed
                    let o = r * width * channels
                    guard stored < rowsPresent else {
                        for i in 0..<(width * channels) { band[o + i] = 0 }
                        continue
                    }
                    let line = header.pixelOffset + stored * stride
                    anyAlpha = decodeRow(data, at: line, header: header, fields: shifts, into: &band, offset: o,
                                         channels: channels) || anyAlpha
                }
                band.withUnsafeBytes {
                    shrinker.add($0, y: y, width: width, rows: rows, rowBytes: width * channels, sourceChannels: channels)
                }
                y += rows
            }
        }
        var image = shrinker.image
        // An alpha mask over all-zero alpha is an opaque picture written by a tool that fills none.
        if hasAlpha && !anyAlpha {
            for i in 0..<(image.width * image.height) { image.pixels[i * 4 + 3] = 255 }
        }
        return Decoded(image: image, size: (width, height), warnings: warnings)
    }

    /// A bit mask as a shift and a width, and how to scale its values to 8 bits.
    struct MaskField {
        let mask: UInt32, shift: UInt32, maximum: UInt32
        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask == 0 ? 0 : (mask >> shift)
        }
        @inline(__always) func value(_ pixel: UInt32) -> UInt8 {
            guard maximum > 0 else { return 0 }
            let v = (pixel & mask) >> shift
            return UInt8(truncatingIfNeeded: (UInt64(v) * 255 + UInt64(maximum) / 2) / UInt64(maximum))
        }
    }

    /// One stored row into `band` at `offset`; returns whether any alpha value is not zero.
    private static func decodeRow(_ data: UnsafeBufferPointer<UInt8>, at line: Int, header: Header, fields: [MaskField],
                                  into band: inout [UInt8], offset o: Int, channels: Int) -> Bool {
        let width = header.width
        var anyAlpha = false
        switch header.bitsPerPixel {
        case 1, 2, 4, 8:
            let bits = header.bitsPerPixel, perByte = 8 / bits, mask = (1 << bits) - 1
            for x in 0..<width {
                let byte = Int(data[line + x / perByte])
                let index = (byte >> (8 - bits * (x % perByte + 1))) & mask
                let colour = header.palette[index]
                let d = o + x * channels
                band[d] = colour.0; band[d + 1] = colour.1; band[d + 2] = colour.2
            }
        case 24:
            for x in 0..<width {
                let s = line + x * 3, d = o + x * channels
                band[d] = data[s + 2]; band[d + 1] = data[s + 1]; band[d + 2] = data[s]
            }
        default:  // 16 or 32, through the masks
            let bytes = header.bitsPerPixel / 8
            for x in 0..<width {
                let s = line + x * bytes
                var pixel = UInt32(data[s]) | UInt32(data[s + 1]) << 8
                if bytes == 4 { pixel |= UInt32(data[s + 2]) << 16 | UInt32(data[s + 3]) << 24 }
                let d = o + x * channels
                band[d] = fields[0].value(pixel); band[d + 1] = fields[1].value(pixel); band[d + 2] = fields[2].value(pixel)
                if channels == 4 {
                    let alpha = fields[3].value(pixel)
                    band[d + 3] = alpha
                    anyAlpha = anyAlpha || alpha != 0
                }
            }
        }
        return anyAlpha
    }

    /// Expands RLE8/RLE4 data into palette indices, rows bottom-up as stored. Returns false
    /// when the data ends before its end-of-bitmap code or breaks its own rules.
    static func decodeRLE(_ data: UnsafeBufferPointer<UInt8>, header: Header, into indices: inout [UInt8]) -> Bool {
        let width = header.width, height = header.height, four = header.compression == rle4
        var p = header.pixelOffset, x = 0, y = 0
        func put(_ index: UInt8) {
            if x < width && y < height { indices[y * width + x] = index }
            x += 1
        }
        while p + 1 < data.count {
            let count = Int(data[p]), value = data[p + 1]
            p += 2
            if count > 0 {
                for i in 0..<count {
                    put(four ? (i % 2 == 0 ? value >> 4 : value & 0x0F) : value)
                }
                continue
            }
            switch value {
            case 0: x = 0; y += 1                   // end of line
            case 1: return true                     // end of bitmap
            case 2:                                 // delta
                guard p + 1 < data.count else { return false }
                x += Int(data[p]); y += Int(data[p + 1]); p += 2
            default:                                // absolute run of `value` pixels
                let n = Int(value)
                let bytes = four ? (n + 1) / 2 : n
                guard p + bytes <= data.count else { return false }
                for i in 0..<n {
                    let byte = data[p + (four ? i / 2 : i)]
                    put(four ? (i % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                }
                p += bytes + (bytes & 1)            // runs are padded to 16 bits
            }
            if y >= height { return true }
        }
        return false
    }
}
