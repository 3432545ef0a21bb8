import Foundation
import Testing
import MediaMetadata
@testable import MediaThumbnails

/// Netpbm images, built in code from the formats' specifications (netpbm.sourceforge.net's
/// pbm, pgm, ppm and pam pages), decode to their pixels.
@Suite("Netpbm decoding")
struct NetpbmDecodingTests {
    /// A 64×32 picture: the left half one colour, the right half another.
    static let width = 64, height = 32

    static func decode(_ bytes: [UInt8], size: Int = 64) throws -> (thumbnail: EncodedThumbnail, pixels: PixelBuffer) {
        let source = MemoryByteSource(bytes)
        #expect(try MetadataReader.detectFormat(source) == .netpbm)
        let request = ThumbnailRequest(maxPixelSize: size, format: .webp(quality: 90))
        let thumbnail = try ThumbnailGenerator.thumbnail(of: source, format: .netpbm, orientation: 1, request: request)
        // The pixels before encoding: what the decoder made of the raster.
        let decoded = try bytes.withUnsafeBufferPointer { try NetpbmDecoder.decode($0, request: request, pixelLimit: 1 << 30) }
        #expect(decoded.size == (width: thumbnail.width, height: thumbnail.height) || size < max(decoded.size.width, decoded.size.height))
        return (thumbnail, decoded.image)
    }

    /// The mean of the left and right quarters' first three channels.
    static func halves(_ image: PixelBuffer) -> (left: [Double], right: [Double]) {
        func mean(_ xs: Range<Int>) -> [Double] {
            var sums = [0.0, 0.0, 0.0], n = 0.0
            for y in 0..<image.height { for x in xs {
                for c in 0..<3 { sums[c] += Double(image.pixels[(y * image.width + x) * image.channels + c]) }
                n += 1
            } }
            return sums.map { $0 / n }
        }
        return (mean(0..<image.width / 4), mean(image.width * 3 / 4..<image.width))
    }

    static func close(_ a: [Double], _ b: [Double]) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= 2 } }

    static func raster(_ pixel: (Bool) -> [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<height { for x in 0..<width { out += pixel(x >= width / 2) } }
        return out
    }

    @Test("P6 and P3 (8-bit RGB, raw and plain) and 16-bit P6 give their colours at their size")
    func ppm() throws {
        let raw = Array("P6\n# made in a test\n\(Self.width) \(Self.height)\n255\n".utf8) + Self.raster { $0 ? [20, 200, 90] : [250, 10, 40] }
        let plain = Array("P3 \(Self.width) \(Self.height) 255\n".utf8)
            + Array(Self.raster { $0 ? [20, 200, 90] : [250, 10, 40] }.map { "\($0)" }.joined(separator: " ").utf8)
        // maxval 1000: 980/1000 of 255 is 249.9, 80 is 20.4, 784 is 199.9, 353 is 90.0; two big-endian bytes a sample.
        let deep = Array("P6 \(Self.width) \(Self.height) 1000\n".utf8)
            + Self.raster { $0 ? [0, 80, 3, 16, 1, 97] : [3, 212, 0, 39, 0, 157] }
        for bytes in [raw, plain, deep] {
            let (thumbnail, pixels) = try Self.decode(bytes)
            #expect((thumbnail.width, thumbnail.height) == (64, 32))
            #expect(thumbnail.warnings.isEmpty)
            let (left, right) = Self.halves(pixels)
            #expect(Self.close(left, [250, 10, 40]), "\(left)")
            #expect(Self.close(right, [20, 200, 90]), "\(right)")
        }
    }

    @Test("P5, P2 (grey) and P4, P1 (bitmaps, 1 is black) decode")
    func greyAndBitmaps() throws {
        let p5 = Array("P5 \(Self.width) \(Self.height) 255\n".utf8) + Self.raster { $0 ? [200] : [30] }
        let p2 = Array("P2\n\(Self.width) \(Self.height)\n255\n".utf8) + Array(Self.raster { $0 ? [200] : [30] }.map { "\($0) " }.joined().utf8)
        for bytes in [p5, p2] {
            let (left, right) = Self.halves(try Self.decode(bytes).pixels)
            #expect(Self.close(left, [30, 30, 30]) && Self.close(right, [200, 200, 200]), "\(left) \(right)")
        }
        // Left half black (bits 1), right half white; 64 px = 8 bytes a row.
        var p4 = Array("P4\n\(Self.width) \(Self.height)\n".utf8)
        for _ in 0..<Self.height { p4 += [UInt8](repeating: 0xFF, count: 4) + [UInt8](repeating: 0, count: 4) }
        let p1 = Array("P1 \(Self.width) \(Self.height)\n".utf8) + Array(Self.raster { $0 ? [0x30] : [0x31] })
        for bytes in [p4, p1] {
            let (left, right) = Self.halves(try Self.decode(bytes).pixels)
            #expect(Self.close(left, [0, 0, 0]) && Self.close(right, [255, 255, 255]), "\(left) \(right)")
        }
    }

    @Test("P7 (PAM) RGB_ALPHA keeps its transparency in a WebP thumbnail")
    func pam() throws {
        let bytes = Array("P7\nWIDTH \(Self.width)\nHEIGHT \(Self.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8)
            + Self.raster { $0 ? [0, 0, 255, 255] : [255, 0, 0, 0] }
        let (_, pixels) = try Self.decode(bytes)
        #expect(pixels.channels == 4)
        #expect(pixels.pixels[3] == 0)  // the left half is transparent
        #expect(Self.close(Self.halves(pixels).right, [0, 0, 255]))
    }

    @Test("a large PPM is shrunk to the thumbnail's size")
    func shrinks() throws {
        let bytes = Array("P6 1024 512 255\n".utf8) + [UInt8](repeating: 99, count: 1024 * 512 * 3)
        let (thumbnail, _) = try Self.decode(bytes, size: 256)
        #expect((thumbnail.width, thumbnail.height) == (256, 128))
    }

    @Test("hostile Netpbm headers give a readable error, a short raster a warning, never a crash")
    func hostile() throws {
        let request = ThumbnailRequest(maxPixelSize: 64)
        func attempt(_ text: String, _ tail: [UInt8] = []) -> Result<EncodedThumbnail, ThumbnailError> {
            Result { try ThumbnailGenerator.thumbnail(of: MemoryByteSource(Array(text.utf8) + tail), format: .netpbm,
                                                      orientation: 1, request: request) }
                .mapError { $0 as! ThumbnailError }
        }
        for header in ["P6 0 10 255\n", "P6 10 10 0\n", "P6 10 10 70000\n", "P6 10\n", "P6 abc 10 255\n",
                       "P6 9999999999 10 255\n", "P7\nWIDTH 4\nHEIGHT 4\nDEPTH 9\nMAXVAL 255\nENDHDR\n", "P7\nWIDTH 4\n"] {
            guard case .failure(let error) = attempt(header) else { Issue.record("\(header) decoded"); continue }
            #expect(error.description.contains("Netpbm") || error.description.contains("limit"), "\(error)")
        }
        guard case .failure(.imageTooLarge) = attempt("P6 100000 100000 255\n") else { Issue.record("no pixel limit"); return }
        let short = attempt("P6 8 8 255\n", [UInt8](repeating: 7, count: 30))
        #expect((try? short.get())?.warnings == ["the Netpbm raster ends early; the rest is black"])
    }
}
