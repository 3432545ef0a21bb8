import CorpusSupport
import Foundation
import Testing
@testable import MediaMetadata

/// Per-field agreement of our readings with a reference tool, printed as a table.
struct FormatsAgreementTally {
    struct Row { var agree = 0; var total = 0; var misses: [String] = [] }
    let title: String
    private(set) var rows: [String: Row] = [:]
    private var order: [String] = []

    init(_ title: String) { self.title = title }

    /// Records one comparison; skipped when the reference has no value.
    mutating func compare<T: Equatable>(_ field: String, _ file: String, ours: T?, reference: T?) {
        guard let reference else { return }
        record(field, file, agree: ours == reference, detail: "ours \(ours.map { "\($0)" } ?? "nil"), reference \(reference)")
    }

    mutating func record(_ field: String, _ file: String, agree: Bool, detail: String) {
        if rows[field] == nil { rows[field] = Row(); order.append(field) }
        rows[field]!.total += 1
        if agree { rows[field]!.agree += 1 } else { rows[field]!.misses.append("\(file): \(detail)") }
    }

    func printTable() {
        print("== \(title): agreement with the reference ==")
        for field in order {
            guard let row = rows[field] else { continue }
            let rate = row.total == 0 ? 1 : Double(row.agree) / Double(row.total)
            print("  \(field): \(row.agree)/\(row.total) (\(String(format: "%.1f", rate * 100))%)")
            for miss in row.misses { print("    - \(miss)") }
        }
    }

    /// Expects each field to agree on at least `minimum` of the files, after removing
    /// the deliberate disagreements (`file` paths, each with its reason).
    func expectAgreement(minimum: Double = 0.95, deliberate: [String: String] = [:]) {
        for field in order {
            guard let row = rows[field] else { continue }
            let unexplained = row.misses.filter { miss in !deliberate.keys.contains { miss.hasPrefix($0 + ":") } }
            let total = row.total - (row.misses.count - unexplained.count)
            guard total > 0 else { continue }
            let rate = Double(total - unexplained.count) / Double(total)
            #expect(rate >= minimum, "\(title) \(field): \(total - unexplained.count)/\(total) agree; \(unexplained)")
        }
    }
}

/// Corpus files exiftool typed as one of `types`, with their exiftool readings.
func formatsCorpusFiles(ofTypes types: Set<String>) -> [(path: String, url: URL, exiftool: [String: JSONValue])] {
    guard let media = Corpus.media else { return [] }
    return Corpus.manifest.compactMap { entry in
        guard let type = entry["exiftool_file_type"]?.string, types.contains(type),
              let path = entry["path"]?.string else { return nil }
        return (path, media.appendingPathComponent(path), Corpus.exiftool[path] ?? [:])
    }
}

/// `Composite:ImageSize` ("W H") as numbers.
func formatsReferenceImageSize(_ tags: [String: JSONValue]) -> (Int, Int)? {
    guard let text = tags["Composite:ImageSize"]?.string else { return nil }
    let parts = text.split(separator: " ").compactMap { Int($0) }
    return parts.count == 2 ? (parts[0], parts[1]) : nil
}

func formatsHasGroup(_ tags: [String: JSONValue], _ prefix: String) -> Bool {
    tags.keys.contains { $0.hasPrefix(prefix) }
}

/// A PNG built in code: signature plus chunks (CRCs are not checked by the reader).
func makePNG(width: UInt32 = 4, height: UInt32 = 3, chunks: [(String, [UInt8])]) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    var out = PNGReader.signature
    let ihdr = be(width) + be(height) + [8, 6, 0, 0, 0]
    for (type, data) in [("IHDR", ihdr)] + chunks {
        out += be(UInt32(data.count)) + Array(type.utf8) + data + [0, 0, 0, 0]
    }
    return out
}

/// Runs a reader over every corpus file, whatever its type (the corrupted and
/// mislabelled ones included): it must return or throw `MetadataError`, never crash.
func runOnEveryCorpusFile(_ reader: (ByteSource) throws -> ContainerReading) -> (read: Int, rejected: Int, other: [String]) {
    guard let media = Corpus.media else { return (0, 0, []) }
    var read = 0, rejected = 0
    var other: [String] = []
    for entry in Corpus.manifest {
        guard let path = entry["path"]?.string,
              let source = try? FileByteSource(path: media.appendingPathComponent(path).path) else { continue }
        do {
            _ = try reader(source)
            read += 1
        } catch is MetadataError {
            rejected += 1
        } catch {
            other.append("\(path): \(error)")
        }
    }
    return (read, rejected, other)
}

/// Every prefix of `bytes`, fed to `read`: never a crash, only results or `MetadataError`.
func readEveryTruncation(_ bytes: [UInt8], _ read: (ByteSource) throws -> ContainerReading) {
    for cut in 0..<bytes.count {
        do { _ = try read(MemoryByteSource(Array(bytes.prefix(cut)))) } catch {
            #expect(error is MetadataError)
        }
    }
}

@Suite("PNG reader")
struct PNGReaderTests {
    @Test("reads size, animation, EXIF and XMP presence of every corpus PNG like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("PNG")
        let files = formatsCorpusFiles(ofTypes: ["PNG"])
        #expect(files.count >= 50)
        for file in files {
            let reading: ContainerReading
            do {
                reading = try PNGReader.read(FileByteSource(path: file.url.path))
            } catch {
                tally.record("read", file.path, agree: formatsReferenceImageSize(file.exiftool) == nil, detail: "threw \(error)")
                continue
            }
            let size = formatsReferenceImageSize(file.exiftool)
            tally.compare("width", file.path, ours: reading.metadata.pixelWidth, reference: size?.0)
            tally.compare("height", file.path, ours: reading.metadata.pixelHeight, reference: size?.1)
            let frames = file.exiftool["PNG:AnimationFrames"]?.number.map { Int($0) }
            tally.compare("animationFrames", file.path, ours: reading.metadata.frameCount ?? 1, reference: frames ?? 1)
            tally.compare("hasEXIF", file.path, ours: reading.exif != nil,
                          reference: formatsHasGroup(file.exiftool, "IFD0:") || formatsHasGroup(file.exiftool, "ExifIFD:"))
            tally.compare("hasXMP", file.path, ours: reading.xmp != nil, reference: formatsHasGroup(file.exiftool, "XMP-"))
            if let xmp = reading.xmp, let make = file.exiftool["XMP-tiff:Make"]?.string {
                tally.compare("XMP tiff:Make", file.path, ours: XMPReader.parse(xmp).make, reference: make)
            }
        }
        tally.printTable()
        tally.expectAgreement(deliberate: [:])
    }

    @Test("reads or rejects every corpus file of any type without crashing", .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func everyCorpusFile() {
        let result = runOnEveryCorpusFile(PNGReader.read)
        #expect(result.other.isEmpty)
        #expect(result.read >= 55)
    }

    @Test("every truncation of a PNG with metadata is read or rejected cleanly")
    func truncations() {
        let png = makePNG(chunks: [("acTL", [0, 0, 0, 2, 0, 0, 0, 0]), ("eXIf", Array("MM\0*\0\0\0\u{8}".utf8)),
                                   ("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0<x/>".utf8)), ("IEND", [])])
        readEveryTruncation(png, PNGReader.read)
    }

    @Test("reads IHDR size and an eXIf chunk after IDAT")
    func exifAfterImageData() throws {
        let exif: [UInt8] = Array("MM\0*".utf8) + [0, 0, 0, 8]
        let png = makePNG(width: 640, height: 480, chunks: [("IDAT", [1, 2, 3]), ("eXIf", exif), ("IEND", [])])
        let reading = try PNGReader.read(MemoryByteSource(png))
        #expect(reading.metadata.pixelWidth == 640)
        #expect(reading.metadata.pixelHeight == 480)
        #expect(reading.exif == exif)
        #expect(reading.metadata.isAnimated == false)
    }

    @Test("reads an APNG's frame count from acTL")
    func animatedPNG() throws {
        let png = makePNG(chunks: [("acTL", [0, 0, 0, 12, 0, 0, 0, 0]), ("IEND", [])])
        let reading = try PNGReader.read(MemoryByteSource(png))
        #expect(reading.metadata.isAnimated == true)
        #expect(reading.metadata.frameCount == 12)
    }

    @Test("finds XMP in iTXt, plain and zlib-compressed")
    func xmpInInternationalText() throws {
        let packet = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Make='Acme'/></rdf:RDF></x:xmpmeta>".utf8)
        let plain = makePNG(chunks: [("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + packet)])
        #expect(try PNGReader.read(MemoryByteSource(plain)).xmp == packet)
        // The same packet as a zlib stream of one stored block.
        let n = UInt16(packet.count)
        let stored: [UInt8] = [0x78, 0x01, 0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)] + packet + [0, 0, 0, 0]
        let compressed = makePNG(chunks: [("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + stored)])
        #expect(try PNGReader.read(MemoryByteSource(compressed)).xmp == packet)
    }

    @Test("decodes ImageMagick's hex 'Raw profile type exif' text")
    func rawProfileExif() throws {
        let text = "\nexif\n      10\n457869660000" + "4d4d002a\n"
        let png = makePNG(chunks: [("tEXt", Array("Raw profile type exif".utf8) + [0] + Array(text.utf8))])
        let reading = try PNGReader.read(MemoryByteSource(png))
        #expect(reading.exif == Array("Exif\0\0MM\0*".utf8))
    }

    @Test("rejects a file without the PNG signature, and a truncated header")
    func rejectsNonPNG() {
        #expect(throws: MetadataError.self) { try PNGReader.read(MemoryByteSource(Array("GIF89a".utf8))) }
        #expect(throws: MetadataError.self) { try PNGReader.read(MemoryByteSource(Array(makePNG(chunks: []).prefix(20)))) }
    }

    @Test("survives lying chunk lengths: past the end, and 0xFFFFFFFF")
    func lyingLengths() throws {
        var png = makePNG(chunks: [("tEXt", Array("Comment\0hi".utf8))])
        png += [0x7F, 0xFF, 0xFF, 0xF0] + Array("IDAT".utf8) + [1, 2, 3, 4, 5, 6, 7]
        let reading = try PNGReader.read(MemoryByteSource(png))
        #expect(reading.metadata.pixelWidth == 4)
        #expect(!reading.metadata.warnings.isEmpty)
        let huge = makePNG(chunks: []) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("eXIf".utf8) + [0, 0, 0, 0]
        let hugeReading = try PNGReader.read(MemoryByteSource(huge))
        #expect(hugeReading.exif == nil)
        #expect(!hugeReading.metadata.warnings.isEmpty)
    }

    @Test("stops walking after the chunk cap on a file of endless empty chunks")
    func chunkCap() throws {
        var png = makePNG(chunks: [])
        for _ in 0..<(PNGReader.maxChunks + 10) { png += [0, 0, 0, 0] + Array("zzZZ".utf8) + [0, 0, 0, 0] }
        let reading = try PNGReader.read(MemoryByteSource(png))
        #expect(reading.metadata.warnings.contains { $0.contains("more than") })
    }
}
