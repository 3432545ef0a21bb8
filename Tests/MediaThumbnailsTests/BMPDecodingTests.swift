import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// BMP: bitmaps written here in every layout the format defines, decoded at full size and
/// compared pixel for pixel; hostile headers; the corpus's BMPs against exiftool's sizes.
@Suite("BMP decoding")
struct BMPDecodingTests {
    static let width = 13, height = 7  // odd sizes: rows need padding, nibbles and bits straddle bytes

    /// The picture: a few distinct colours, so palettes of 2, 16 and 256 entries can hold it.
    static func colour(_ x: Int, _ y: Int, levels: Int) -> (UInt8, UInt8, UInt8) {
        let index = (x + y * 3) % levels
        return (UInt8(index * 255 / max(1, levels - 1)), UInt8((index * 37) % 256), UInt8(255 - index * 255 / max(1, levels - 1)))
    }

    /// A little-endian byte writer.
    struct Writer {
        var bytes: [UInt8] = []
        mutating func u16(_ v: Int) { bytes += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        mutating func u32(_ v: Int) { for s in [0, 8, 16, 24] { bytes.append(UInt8((v >> s) & 0xFF)) } }
        mutating func u32(_ v: UInt32) { u32(Int(v)) }
    }

    enum Layout { case indexed(bits: Int), rle8, rle4, rgb24, rgb16_555, bitfields16_565, rgb32, bitfields32Alpha, core24 }

    /// A whole file, and the picture it should decode to (RGBA).
    static func make(_ layout: Layout, topDown: Bool = false) -> (file: [UInt8], expected: [(UInt8, UInt8, UInt8, UInt8)]) {
        var expected: [(UInt8, UInt8, UInt8, UInt8)] = []
        let levels: Int
        switch layout {
        case .indexed(let bits): levels = 1 << bits
        case .rle4: levels = 16
        case .rle8: levels = 256
        default: levels = 64
        }
        var palette: [(UInt8, UInt8, UInt8)] = []
        if levels <= 256, case .indexed = layout { palette = (0..<levels).map { colour($0, 0, levels: levels) } }
        if case .rle8 = layout { palette = (0..<256).map { colour($0, 0, levels: 256) } }
        if case .rle4 = layout { palette = (0..<16).map { colour($0, 0, levels: 16) } }
        func index(_ x: Int, _ y: Int) -> Int { (x + y * 3) % levels }
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y, levels: levels)
                switch layout {
                case .rgb16_555:
                    let r = Int(c.0) >> 3, g = Int(c.1) >> 3, b = Int(c.2) >> 3
                    expected.append((UInt8((r * 255 + 15) / 31), UInt8((g * 255 + 15) / 31), UInt8((b * 255 + 15) / 31), 255))
                case .bitfields16_565:
                    let r = Int(c.0) >> 3, g = Int(c.1) >> 2, b = Int(c.2) >> 3
                    expected.append((UInt8((r * 255 + 15) / 31), UInt8((g * 255 + 31) / 63), UInt8((b * 255 + 15) / 31), 255))
                case .bitfields32Alpha: expected.append((c.0, c.1, c.2, UInt8(x * 19)))
                default: expected.append((c.0, c.1, c.2, 255))
                }
            }
        }
        // Pixel data, rows in stored order.
        var pixels: [UInt8] = []
        var compression = 0, bits = 24
        let storedRows = topDown ? Array(0..<height) : Array((0..<height).reversed())
        switch layout {
        case .rle8, .rle4:
            let four: Bool
            if case .rle4 = layout { four = true; compression = 2; bits = 4 } else { four = false; compression = 1; bits = 8 }
            for y in storedRows {
                // Alternate an encoded run (first two pixels, when equal) and an absolute run.
                let row = (0..<width).map { index($0, y) }
                var x = 0
                while x < width {
                    let n = min(width - x, 5)
                    if n >= 3 {
                        pixels += [0, UInt8(n)]
                        var run: [UInt8] = []
                        if four {
                            for i in stride(from: 0, to: n, by: 2) {
                                run.append(UInt8(row[x + i] << 4 | (i + 1 < n ? row[x + i + 1] : 0)))
                            }
                        } else {
                            run = row[x..<(x + n)].map(UInt8.init)
                        }
                        pixels += run
                        if run.count % 2 == 1 { pixels.append(0) }
                    } else {
                        for i in 0..<n {
                            pixels += [1, UInt8(four ? row[x + i] << 4 : row[x + i])]
                        }
                    }
                    x += n
                }
                pixels += [0, 0]
            }
            pixels += [0, 1]
        default:
            switch layout {
            case .indexed(let b): bits = b
            case .rgb16_555: bits = 16
            case .bitfields16_565: bits = 16; compression = 3
            case .rgb32: bits = 32
            case .bitfields32Alpha: bits = 32; compression = 3
            default: bits = 24
            }
            let stride = (width * bits + 31) / 32 * 4
            for y in storedRows {
                var row = [UInt8](repeating: 0, count: stride)
                for x in 0..<width {
                    let c = colour(x, y, levels: levels)
                    switch bits {
                    case 1, 2, 4, 8:
                        let perByte = 8 / bits
                        row[x / perByte] |= UInt8(index(x, y) << (8 - bits * (x % perByte + 1)))
                    case 16:
                        let v: Int
                        if compression == 3 { v = (Int(c.0) >> 3) << 11 | (Int(c.1) >> 2) << 5 | Int(c.2) >> 3 }
                        else { v = (Int(c.0) >> 3) << 10 | (Int(c.1) >> 3) << 5 | Int(c.2) >> 3 }
                        row[x * 2] = UInt8(v & 0xFF); row[x * 2 + 1] = UInt8(v >> 8)
                    case 24: row[x * 3] = c.2; row[x * 3 + 1] = c.1; row[x * 3 + 2] = c.0
                    default:
                        row[x * 4] = c.2; row[x * 4 + 1] = c.1; row[x * 4 + 2] = c.0
                        row[x * 4 + 3] = compression == 3 ? UInt8(x * 19) : 0
                    }
                }
                pixels += row
            }
        }
        var w = Writer()
        let core: Bool
        if case .core24 = layout { core = true } else { core = false }
        let dibSize = core ? 12 : (compression == 3 ? 124 : 40)
        let paletteBytes = palette.count * (core ? 3 : 4)
        let offset = 14 + dibSize + paletteBytes
        w.bytes += [0x42, 0x4D]; w.u32(offset + pixels.count); w.u32(0); w.u32(offset)
        w.u32(dibSize)
        if core {
            w.u16(width); w.u16(height); w.u16(1); w.u16(bits)
        } else {
            w.u32(width); w.u32(topDown ? -height : height); w.u16(1); w.u16(bits)
            w.u32(compression); w.u32(pixels.count); w.u32(2835); w.u32(2835); w.u32(palette.count); w.u32(0)
            if dibSize == 124 {
                if bits == 16 { w.u32(0xF800); w.u32(0x07E0); w.u32(0x001F); w.u32(0) }
                else { w.u32(0x00FF_0000); w.u32(0x0000_FF00); w.u32(0x0000_00FF); w.u32(0xFF00_0000 as UInt32) }
                w.bytes += [UInt8](repeating: 0, count: 124 - 56)
            }
        }
        for entry in palette { w.bytes += [entry.2, entry.1, entry.0]; if !core { w.bytes.append(0) } }
        return (w.bytes + pixels, expected)
    }

    static func decodeFullSize(_ file: [UInt8]) throws -> PixelBuffer {
        try file.withUnsafeBufferPointer {
            try BMPDecoder.decode($0, request: ThumbnailRequest(maxPixelSize: 1024), pixelLimit: 1 << 20).image
        }
    }

    static func check(_ layout: Layout, topDown: Bool = false) throws {
        let (file, expected) = make(layout, topDown: topDown)
        let image = try decodeFullSize(file)
        #expect(image.width == width && image.height == height, "\(layout)")
        var mismatches = 0
        for i in 0..<(width * height) {
            let want = expected[i]
            let c = image.channels
            let got = (image.pixels[i * c], image.pixels[i * c + 1], image.pixels[i * c + 2], c == 4 ? image.pixels[i * c + 3] : 255)
            if abs(Int(got.0) - Int(want.0)) > 1 || abs(Int(got.1) - Int(want.1)) > 1 || abs(Int(got.2) - Int(want.2)) > 1
                || abs(Int(got.3) - Int(want.3)) > 1 {
                mismatches += 1
            }
        }
        #expect(mismatches == 0, "\(layout)\(topDown ? " top-down" : ""): \(mismatches) pixels differ")
    }

    @Test("decodes 1-, 2-, 4- and 8-bit palettes, 16-bit 5-5-5, 24-bit and 32-bit, bottom-up and top-down")
    func uncompressed() throws {
        for layout in [Layout.indexed(bits: 1), .indexed(bits: 2), .indexed(bits: 4), .indexed(bits: 8), .rgb16_555, .rgb24, .rgb32] {
            try Self.check(layout)
            try Self.check(layout, topDown: true)
        }
    }

    @Test("decodes bit fields: 16-bit 5-6-5 and 32-bit with an alpha mask (V5 header)")
    func bitfields() throws {
        try Self.check(.bitfields16_565)
        try Self.check(.bitfields32Alpha)
        try Self.check(.bitfields32Alpha, topDown: true)
    }

    @Test("decodes RLE8 and RLE4, encoded and absolute runs")
    func runLength() throws {
        try Self.check(.rle8)
        try Self.check(.rle4)
    }

    @Test("decodes OS/2 bitmaps with a 12-byte core header")
    func os2() throws {
        try Self.check(.core24)
    }

    @Test("shrinks a bitmap to the requested size")
    func shrinks() throws {
        let (file, _) = Self.make(.rgb24)
        let thumbnail = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(file), format: .bmp, orientation: 1,
                                                         request: ThumbnailRequest(maxPixelSize: 6))
        #expect(thumbnail.width == 6 && thumbnail.height == 3)
    }

    @Test("hostile bitmaps give a readable error or a partial picture with a warning, never a crash")
    func hostile() throws {
        let (file, _) = Self.make(.rgb24)
        // Cut short anywhere.
        for cut in [0, 2, 14, 20, 54, 60, file.count - 5] {
            let bytes = Array(file.prefix(cut))
            do {
                let decoded = try bytes.withUnsafeBufferPointer {
                    try BMPDecoder.decode($0, request: ThumbnailRequest(maxPixelSize: 64), pixelLimit: 1 << 20)
                }
                #expect(!decoded.warnings.isEmpty, "cut at \(cut) decoded without a warning")
            } catch let error as ThumbnailError {
                #expect(error.description.contains("BMP") || error.description.contains("image"), "\(error)")
            }
        }
        // Lying sizes: a huge declared picture in a tiny file is refused before allocating.
        var huge = file
        huge.replaceSubrange(18..<26, with: [0xFF, 0xFF, 0x0F, 0x00, 0xFF, 0xFF, 0x0F, 0x00])
        #expect(throws: ThumbnailError.self) {
            try huge.withUnsafeBufferPointer { try BMPDecoder.decode($0, request: ThumbnailRequest(), pixelLimit: 200_000_000) }
        }
        // Bits per pixel no bitmap uses, a pixel offset past the end.
        var oddBits = file
        oddBits[28] = 7
        #expect(throws: ThumbnailError.self) {
            try oddBits.withUnsafeBufferPointer { try BMPDecoder.decode($0, request: ThumbnailRequest(), pixelLimit: 1 << 20) }
        }
        var farPixels = file
        farPixels.replaceSubrange(10..<14, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: ThumbnailError.self) {
            try farPixels.withUnsafeBufferPointer { try BMPDecoder.decode($0, request: ThumbnailRequest(), pixelLimit: 1 << 20) }
        }
        // RLE cut off half way gives the rows it has and a warning; a delta past the picture ends it.
        let (rle, _) = Self.make(.rle8)
        let halfway = Array(rle.prefix(rle.count - 30))
        let partial = try halfway.withUnsafeBufferPointer {
            try BMPDecoder.decode($0, request: ThumbnailRequest(maxPixelSize: 64), pixelLimit: 1 << 20)
        }
        #expect(partial.warnings.count == 1)
        var jumping = Array(rle.prefix(1078))  // headers and palette
        jumping += [0, 2, 255, 255, 5, 9, 0, 2, 3, 0]
        let jumped = try jumping.withUnsafeBufferPointer {
            try BMPDecoder.decode($0, request: ThumbnailRequest(maxPixelSize: 64), pixelLimit: 1 << 20)
        }
        #expect(jumped.image.width == Self.width)
    }

    @Test("the corpus's bitmaps get thumbnails of exiftool's size", .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpus() throws {
        var made = 0
        for entry in ThumbnailTestSupport.manifestEntries {
            guard let path = ThumbnailTestSupport.path(entry.path), let source = try? FileByteSource(path: path),
                  (try? MetadataReader.detectFormat(source)) == .bmp,
                  let reading = Corpus.exiftool[entry.path],
                  let w = reading["File:ImageWidth"]?.number, let h = reading["File:ImageHeight"]?.number else { continue }
            let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
            #expect(thumbnail.width == Int(w) && thumbnail.height == Int(h), "\(entry.path)")
            made += 1
        }
        #expect(made >= 3)
    }
}
