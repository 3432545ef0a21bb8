@testable import MediaMetadata
import Testing

/// Inputs that crashed or hung a fuzz target (scripts/fuzz), kept as specifications.
///
/// To add one: base64 the artifact (`base64 -w0 /tmp/mediaindex-fuzz/artifacts/<target>-crash-…`)
/// and add a case to `regressions` naming the target and the fixed file. None has been
/// found yet (see docs/robustness.md); the seeds below are the hostile shapes each
/// target starts from, replayed through the same entry points as the fuzzers.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    struct Regression: Sendable, CustomStringConvertible {
        var target: String
        var bytes: [UInt8]
        var description: String { "\(target), \(bytes.count) bytes" }
    }

    static let regressions: [Regression] = {
        let targets = ["exif", "jpeg", "tiff", "isobmff", "matroska", "riff-avi", "riff-webp", "png", "gif", "bmp", "xmp", "metadata-reader"]
        let shapes: [[UInt8]] = [
            [],
            [0xFF],
            [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x02],                                       // empty APP1
            Array("II*\0".utf8) + [0xFF, 0xFF, 0xFF, 0xFF],                              // IFD far past the end
            Array("MM\0*".utf8) + [0, 0, 0, 8, 0xFF, 0xFF],                              // 65535 entries, none present
            [0, 0, 0, 1] + Array("ftypheic".utf8) + [0, 0, 0, 0, 0, 0, 0, 0xFF],         // 64-bit box size, all ones
            [0, 0, 0, 0] + Array("moov".utf8),                                          // size 0: "to the end"
            [0x1A, 0x45, 0xDF, 0xA3, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],     // EBML unknown size
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("AVI LIST".utf8) + [0, 0, 0, 0],
            Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WEBPVP8X".utf8) + [0xFF, 0xFF, 0xFF, 0xFF],
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFF, 0xFF, 0xFF] + Array("zTXt".utf8),
            Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0x21, 0xFF, 0xFF],
            Array("BM".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF],
            Array("<x:xmpmeta><rdf:RDF><rdf:Description><a><b><c>".utf8) + Array(repeating: UInt8(ascii: "<"), count: 64),
        ]
        return targets.flatMap { target in shapes.map { Regression(target: target, bytes: $0) } }
    }()

    @Test("each fuzz target's entry point returns or throws MetadataError on hostile input", arguments: regressions)
    func replay(_ regression: Regression) {
        let source = MemoryByteSource(regression.bytes)
        var metadata = MediaMetadata(format: .jpeg)
        do {
            switch regression.target {
            case "exif": ExifDecoder.apply(exif: regression.bytes, to: &metadata)
            case "jpeg": _ = try JPEGReader.read(source)
            case "tiff":
                _ = try? TIFFReader.read(source, format: .dng)
                if let walker = try? TIFFDirectoryWalker(source: source) { _ = try walker.exifDirectories() }
            case "isobmff":
                _ = try? ISOBMFFReader.read(source, format: .heic)
                _ = try ISOBMFFReader.read(source, format: .quickTime)
            case "matroska": _ = try MatroskaReader.read(source)
            case "riff-avi": _ = try RIFFReader.readAVI(source)
            case "riff-webp": _ = try RIFFReader.readWebP(source)
            case "png": _ = try PNGReader.read(source)
            case "gif": _ = try GIFReader.read(source)
            case "bmp": _ = try BMPReader.read(source)
            case "xmp":
                XMPReader.apply(regression.bytes, to: &metadata)
                _ = try XMPReader.readSidecar(source)
            default: _ = try MetadataReader.read(source)
            }
        } catch is MetadataError {
        } catch {
            Issue.record("\(regression): threw \(error), not a MetadataError")
        }
    }
}
