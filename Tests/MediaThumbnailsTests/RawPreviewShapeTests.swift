import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// A raw's embedded preview stands in for the raw only when it has the raw's shape: a
/// placeholder, a letterboxed 4:3 preview of a 3:2 raw or an icon is another picture.
@Suite("Raw preview shape")
struct RawPreviewShapeTests {
    /// A DNG built in code: IFD0 (a reduced image, NewSubfileType 1) holds `previews[0]`
    /// through JPEGInterchangeFormat, a SubIFD the raw's CFA data size (`rawSize`, no
    /// pixels), and each further preview sits in the next IFD of the chain.
    static func dng(rawSize: (width: Int, height: Int), previews: [[UInt8]]) -> [UInt8] {
        typealias Entry = (tag: UInt16, type: UInt16, count: UInt32, value: UInt32)
        let long: UInt16 = 4, short: UInt16 = 3, byte: UInt16 = 1
        func directorySize(_ count: Int) -> Int { 2 + 12 * count + 4 }
        let ifd0Count = 6, subCount = 5, chainCount = 3
        let ifd0 = 8, sub = ifd0 + directorySize(ifd0Count)
        var next = sub + directorySize(subCount)
        var chain: [Int] = []
        for _ in previews.dropFirst() { chain.append(next); next += directorySize(chainCount) }
        var jpegOffsets: [Int] = []
        for preview in previews { jpegOffsets.append(next); next += preview.count }

        var out: [UInt8] = [0x49, 0x49, 42, 0]
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(shift)) & 0xFF)) } }
        func directory(_ entries: [Entry], next: Int) {
            u16(UInt16(entries.count))
            for e in entries.sorted(by: { $0.tag < $1.tag }) {
                u16(e.tag); u16(e.type); u32(e.count)
                if e.type == short && e.count == 1 { u16(UInt16(e.value)); u16(0) } else { u32(e.value) }
            }
            u32(UInt32(next))
        }
        u32(UInt32(ifd0))
        directory([(0x00FE, long, 1, 1), (0x014A, long, 1, UInt32(sub)),
                   (0x0201, long, 1, UInt32(jpegOffsets[0])), (0x0202, long, 1, UInt32(previews[0].count)),
                   (0xC612, byte, 4, 0x0000_0401),  // DNGVersion 1.4.0.0
                   (0x0112, short, 1, 1)], next: chain.first ?? 0)
        directory([(0x00FE, long, 1, 0), (0x0100, long, 1, UInt32(rawSize.width)), (0x0101, long, 1, UInt32(rawSize.height)),
                   (0x0103, short, 1, 1), (0x0106, short, 1, 32803)], next: 0)
        for (index, offset) in chain.enumerated() {
            _ = offset
            directory([(0x00FE, long, 1, 1), (0x0201, long, 1, UInt32(jpegOffsets[index + 1])),
                       (0x0202, long, 1, UInt32(previews[index + 1].count))],
                      next: index + 1 < chain.count ? chain[index + 1] : 0)
        }
        for preview in previews { out += preview }
        return out
    }

    /// A grey JPEG of this size.
    static func jpeg(_ width: Int, _ height: Int) throws -> [UInt8] {
        try ThumbnailEncoder.encode(PixelBuffer(width: width, height: height, channels: 3,
                                                pixels: [UInt8](repeating: 128, count: width * height * 3)),
                                    as: .jpeg(quality: 80))
    }

    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("raw-preview-shape-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a 3:2 raw whose only preview is an 8×8 placeholder gets no thumbnail, and the reason names the file, the preview and the raw's shape")
    func placeholderIsRefused() throws {
        let path = try Self.write(Self.dng(rawSize: (3000, 2000), previews: [Self.jpeg(8, 8)]), name: "placeholder.dng")
        #expect(try MetadataReader.detectFormat(FileByteSource(path: path)) == .dng)
        let error = #expect(throws: ThumbnailError.self) {
            try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        }
        #expect(error?.description == "cannot make thumbnails of placeholder.dng: the only embedded preview is 8×8, not the raw's 3:2 shape (3000×2000); raw sensor data is not decoded")
        // .fast has nothing to show at once either.
        #expect(try ThumbnailGenerator.embeddedThumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256)) == nil)
    }

    @Test("a 3:2 raw with a 3:2 preview gets its thumbnail from that preview")
    func matchingPreviewIsUsed() throws {
        let path = try Self.write(Self.dng(rawSize: (3000, 2000), previews: [Self.jpeg(600, 400)]), name: "matching.dng")
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        #expect(thumbnail.path == .rawEmbeddedPreview(width: 600, height: 400))
        #expect((thumbnail.width, thumbnail.height) == (256, 171))
    }

    @Test("when the largest preview is a 4:3 letterbox of a 3:2 raw, the next preview, of the raw's shape, is used")
    func nextCandidateAfterRefusal() throws {
        let path = try Self.write(Self.dng(rawSize: (3000, 2000), previews: [Self.jpeg(640, 480), Self.jpeg(600, 400)]),
                                  name: "letterboxed.dng")
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        #expect(thumbnail.path == .rawEmbeddedPreview(width: 600, height: 400))
        #expect((thumbnail.width, thumbnail.height) == (256, 171))
    }

    @Test("a preview a few pixels off the raw's recorded size (sensor borders) is the same picture")
    func sensorBordersAreTolerated() throws {
        // Canon's CR3 writes a 1624×1080 preview of 5472×3648; a CRW records a 2376×1728 sensor for 2272×1704.
        let cr3Like = try Self.write(Self.dng(rawSize: (5472, 3648), previews: [Self.jpeg(1624, 1080)]), name: "cr3-like.dng")
        #expect(try ThumbnailGenerator.thumbnail(ofFileAt: cr3Like, request: ThumbnailRequest(maxPixelSize: 256)).path
                == .rawEmbeddedPreview(width: 1624, height: 1080))
        let crwLike = try Self.write(Self.dng(rawSize: (2376, 1728), previews: [Self.jpeg(568, 426)]), name: "crw-like.dng")
        #expect(try ThumbnailGenerator.thumbnail(ofFileAt: crwLike, request: ThumbnailRequest(maxPixelSize: 256)).path
                == .rawEmbeddedPreview(width: 568, height: 426))
    }

    @Test("when every preview has another shape, the reason lists them")
    func allRefusedAreListed() throws {
        let path = try Self.write(Self.dng(rawSize: (3000, 2000), previews: [Self.jpeg(640, 480), Self.jpeg(160, 90)]),
                                  name: "others.dng")
        let error = #expect(throws: ThumbnailError.self) {
            try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        }
        #expect(error?.description == "cannot make thumbnails of others.dng: none of the embedded previews (640×480, 160×90) has the raw's 3:2 shape (3000×2000); raw sensor data is not decoded")
    }

    @Test("the corpus raws whose only preview is exiftool's 8×8 placeholder are refused with the file and exiftool's sizes",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"),
          arguments: [("exiftool-t-images/t/images/Panasonic.rw2", "Composite:ImageWidth", "Composite:ImageHeight"),
                      ("exiftool-t-images/t/images/SigmaDP2.x3f", "ExifIFD:ExifImageWidth", "ExifIFD:ExifImageHeight")])
    func corpusPlaceholders(relative: String, widthTag: String, heightTag: String) throws {
        let path = try #require(ThumbnailTestSupport.path(relative))
        let tags = try #require(Corpus.exiftool[relative])
        // exiftool reads the embedded JPEG's frame as the file's image size: 8×8.
        let preview = (Int(tags["File:ImageWidth"]?.number ?? 0), Int(tags["File:ImageHeight"]?.number ?? 0))
        let raw = (Int(tags[widthTag]?.number ?? 0), Int(tags[heightTag]?.number ?? 0))
        #expect(preview == (8, 8))
        let error = #expect(throws: ThumbnailError.self) {
            try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        }
        let name = String(relative.split(separator: "/").last!)
        let reason = error?.description ?? ""
        #expect(reason.contains("\(name): the only embedded preview is \(preview.0)×\(preview.1), not the raw's"), "\(reason)")
        #expect(reason.contains("(\(raw.0)×\(raw.1))"), "\(reason)")
        print("refused: \(reason)")
    }
}
