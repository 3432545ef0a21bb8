import Foundation
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// Helpers shared by the thumbnail suites: corpus lookup and decoding our own output.
enum ThumbnailTestSupport {
    /// The absolute path of a corpus file given relative to `media/`.
    static func path(_ relative: String) -> String? {
        Corpus.media?.appendingPathComponent(relative).path
    }

    /// Manifest entries with their categories.
    static var manifestEntries: [(path: String, categories: [String])] {
        Corpus.manifest.compactMap { entry in
            guard let path = entry["path"]?.string else { return nil }
            var categories: [String] = []
            if case .array(let values)? = entry["categories"] { categories = values.compactMap(\.string) }
            return (path, categories)
        }
    }

    /// Corpus paths (relative) whose exiftool reading satisfies `predicate`, sorted.
    static func corpusFiles(where predicate: ([String: JSONValue]) -> Bool) -> [String] {
        Corpus.exiftool.filter { predicate($0.value) }.map(\.key).sorted()
    }

    /// Decodes one of our JPEG thumbnails back to RGB pixels, with libjpeg's accurate
    /// IDCT and chroma upsampling.
    static func pixels(ofJPEG data: [UInt8]) throws -> PixelBuffer {
        try data.withUnsafeBufferPointer {
            try JPEGDecoder.decode($0, request: ThumbnailRequest(maxPixelSize: 1 << 20), pixelLimit: 1 << 30, accurate: true).image
        }
    }

    /// Mean of each RGB channel.
    static func meanColour(_ image: PixelBuffer) -> [Double] {
        var sums = [Double](repeating: 0, count: 3)
        let count = image.width * image.height
        for i in 0..<count {
            for c in 0..<3 { sums[c] += Double(image.pixels[i * image.channels + c]) }
        }
        return sums.map { $0 / Double(max(1, count)) }
    }

    /// Mean absolute difference per channel of two same-size images.
    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels else { return .infinity }
        var total = 0
        for i in 0..<a.pixels.count { total += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(total) / Double(a.pixels.count)
    }

    /// Runs a tool to completion, its output discarded; true when it exits 0.
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        (try? ExternalTool.outcome(tool, arguments))?.succeeded ?? false
    }

    /// A PNG file of the given IHDR fields and chunks between IHDR and IEND, each chunk
    /// with its CRC.
    static func pngFile(width: UInt32, height: UInt32, bitDepth: UInt8, colourType: UInt8,
                        chunks: [(type: String, body: [UInt8])]) -> [UInt8] {
        func crc32(_ data: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in data {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be(UInt32(body.count)) + typed + be(crc32(typed))
        }
        let ihdr = be(width) + be(height) + [bitDepth, colourType, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunks.flatMap { chunk($0.type, $0.body) } + chunk("IEND", [])
    }

    /// `raw` as a zlib stream of stored (uncompressed) deflate blocks, for an IDAT.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        let adler = b << 16 | a
        return out + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
    }

    /// ImageMagick's mean colour of a file (flattened on white, sRGB, 8-bit), or nil when
    /// ImageMagick is not installed.
    static func imageMagickMeanColour(_ path: String) -> [Double]? {
        let candidates = ["/usr/bin/convert", "/usr/local/bin/convert"]
        guard let convert = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        guard let outcome = try? ExternalTool.outcome(convert, [path + "[0]", "-colorspace", "sRGB", "-background", "white",
                                                                "-flatten", "-resize", "1x1!", "-depth", "8", "txt:-"])
        else { return nil }
        // "0,0: (123,45,67)  #7B2D43  srgb(...)"
        let text = outcome.standardOutputText
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0,0:") }),
              let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")") else { return nil }
        let values = line[line.index(after: open)..<close].split(separator: ",").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard values.count >= 3 else { return nil }
        if values.count == 3 || values.count == 4 { return Array(values.prefix(3)) }
        return nil
    }

    static var hasFFmpeg: Bool { ThumbnailGenerator.canMakeVideoThumbnails }
}
