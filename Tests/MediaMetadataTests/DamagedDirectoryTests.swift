import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

@Suite("One damaged directory never loses the others")
struct DamagedDirectoryTests {
    /// A camera EXIF block (big-endian TIFF) whose pointer tag `pointerTag` in the
    /// directory that holds it is made to point at `target`.
    static func exif(pointing pointerTag: UInt16, at target: UInt32, inExif: Bool = false, extraExif: [Fixture.Field] = []) -> [UInt8] {
        var ifd0: [Fixture.Field] = [.ascii(0x010F, "Canon"), .ascii(0x0110, "Canon EOS 5D"), .short(0x0112, 6)]
        var exif: [Fixture.Field] = [.ascii(0x9003, "2006:03:04 05:06:07")] + extraExif
        if inExif { exif.append(.long(pointerTag, 0)) } else if pointerTag != 0x8825 { ifd0.append(.long(pointerTag, 0)) }
        let gps: [Fixture.Field] = pointerTag == 0x8825 ? [.ascii(0x0001, "N")] : []
        var bytes = Fixture.tiff(ifd0: ifd0, exif: exif, gps: gps)
        // Find the pointer entry and aim it at the target.
        var i = 8
        while i + 12 <= bytes.count {
            if bytes[i] == UInt8(pointerTag >> 8), bytes[i + 1] == UInt8(pointerTag & 0xFF), bytes[i + 2] == 0, bytes[i + 3] == 4 {
                bytes.replaceSubrange((i + 8)..<(i + 12), with: Fixture.be32(target))
                break
            }
            i += 2
        }
        return bytes
    }

    @Test("a JPEG whose GPS, Interop or IFD1 directory is broken keeps its date, make, model and orientation",
          arguments: [
            ("GPS past the end", UInt16(0x8825), UInt32(0x7FFF_0000), false),
            ("GPS inside IFD0", 0x8825, 9, false),
            ("Interop past the end", 0xA005, 0x00FF_FFFF, true),
            ("Interop at odd garbage", 0xA005, 3, true),
          ] as [(String, UInt16, UInt32, Bool)])
    func brokenPointer(name: String, tag: UInt16, target: UInt32, inExif: Bool) throws {
        let block = Self.exif(pointing: tag, at: target, inExif: inExif)
        let m = try #require(try MetadataReader.read(MemoryByteSource(Fixture.jpeg(exif: block))), "\(name)")
        #expect(m.captureDate?.iso8601 == "2006-03-04T05:06:07", "\(name)")
        #expect(m.make == "Canon" && m.model == "Canon EOS 5D" && m.orientation == 6, "\(name)")
    }

    @Test("a GPS directory that claims 0xFFFF entries loses only the GPS")
    func hugeGPSDirectory() throws {
        var block = Self.exif(pointing: 0x8825, at: 0)
        let target = UInt32(block.count)
        block += Fixture.be16(0xFFFF) + [UInt8](repeating: 0xAB, count: 40)
        block = Self.exif(pointing: 0x8825, at: target) + Array(block[Int(target)...])
        let m = try #require(try MetadataReader.read(MemoryByteSource(Fixture.jpeg(exif: block))))
        #expect(m.captureDate?.iso8601 == "2006-03-04T05:06:07")
        #expect(m.location == nil && m.make == "Canon")
    }

    @Test("a maker note of garbage and a broken IFD1 keep everything else")
    func makerNoteAndIFD1() throws {
        let garbage = Fixture.Field(tag: 0x927C, type: 7, count: 64, bytes: [UInt8](repeating: 0xFF, count: 64))
        var block = Self.exif(pointing: 0x8825, at: 0x7FFF_0000, extraExif: [garbage])
        // IFD0's next-directory pointer (IFD1) aimed past the end.
        let count = Int(block[8]) << 8 | Int(block[9])
        block.replaceSubrange((10 + count * 12)..<(14 + count * 12), with: Fixture.be32(0x0FFF_FFFF))
        let m = try #require(try MetadataReader.read(MemoryByteSource(Fixture.jpeg(exif: block))))
        #expect(m.captureDate?.iso8601 == "2006-03-04T05:06:07" && m.make == "Canon" && m.orientation == 6)
    }

    /// exiftool's warnings that name a damaged directory or entry.
    static func warnsAboutDirectory(_ text: String) -> Bool {
        ["IFD", "directory", "MakerNotes", "maker notes", "entry", "Bad offset", "Bad format", "Invalid size"].contains { text.contains($0) }
    }

    @Test("on every corpus file where exiftool warns about a directory, every field exiftool still read agrees",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusWarnings() throws {
        let media = try #require(Corpus.media)
        var files = 0, compared = 0
        var disagreements: [String] = []
        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string, let reference = Corpus.exiftool[path], reference["ExifTool:Error"] == nil,
                  let warning = reference["ExifTool:Warning"]?.string, Self.warnsAboutDirectory(warning),
                  let mime = entry["mime"]?.string, mime.hasPrefix("image/") else { continue }
            files += 1
            let ours = try MetadataReader.read(FileByteSource(path: media.appendingPathComponent(path).path))
            #expect(ours != nil, "\(path) (\(warning)) is not an asset")
            let deliberate = FidelityTableTests.deliberateDisagreements[path] ?? [:]
            if deliberate["captureDate"] == nil, let date = FidelityTableTests.referenceDate(reference, isMovie: false) {
                compared += 1
                if ours?.captureDate.map(FidelityTableTests.civil) != date.civil { disagreements.append("\(path): date \(String(describing: ours?.captureDate)) vs \(date.civil)") }
            }
            for (field, key, value) in [("make", "IFD0:Make", ours?.make), ("model", "IFD0:Model", ours?.model)] where deliberate[field] == nil {
                if let expected = reference[key]?.string?.trimmingSpacesAndNULs(), !expected.isEmpty {
                    compared += 1
                    if value != expected { disagreements.append("\(path): \(field) \(value ?? "nil") vs \(expected)") }
                }
            }
            if let o = reference["IFD0:Orientation"]?.number, (1...8).contains(Int(o)), deliberate["orientation"] == nil {
                compared += 1
                if (ours?.orientation ?? 1) != Int(o) { disagreements.append("\(path): orientation \(ours?.orientation ?? 1) vs \(Int(o))") }
            }
            if let lat = reference["Composite:GPSLatitude"]?.number, let lon = reference["Composite:GPSLongitude"]?.number {
                compared += 1
                if let l = ours?.location, abs(l.latitude - lat) < 1e-5, abs(l.longitude - lon) < 1e-5 {} else {
                    disagreements.append("\(path): GPS \(String(describing: ours?.location)) vs \(lat),\(lon)")
                }
            }
        }
        print("files with a directory warning: \(files), fields compared: \(compared), disagreements: \(disagreements)")
        #expect(files >= 20)
        #expect(disagreements.isEmpty)
    }
}
