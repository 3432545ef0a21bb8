import Foundation
import Testing
import CorpusSupport
@testable import MediaMetadata

/// The container structure the metadata layer hands to the thumbnailer: JPEG segments,
/// embedded JPEGs, HEIF items.
@Suite("Container structure")
struct ContainerStructureTests {
    private func corpusFiles(_ matching: (String, [String: JSONValue]) -> Bool) -> [(path: String, relative: String, tags: [String: JSONValue])] {
        guard let media = Corpus.media?.path else { return [] }
        return Corpus.exiftool.filter { matching($0.key, $0.value) }.sorted { $0.key < $1.key }
            .map { (media + "/" + $0.key, $0.key, $0.value) }
    }

    @Test("walks a JPEG's segments to the scan, skipping fill bytes, and finds its EXIF block and Adobe segment")
    func jpegSegments() throws {
        // Given a JPEG with JFIF, EXIF, a fill byte before Adobe APP14, and a frame header
        let exif = Fixture.tiff(ifd0: [.short(0x0112, 6)])
        var bytes: [UInt8] = [0xFF, 0xD8] + Fixture.segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        bytes += Fixture.segment(0xE1, Array("Exif\0\0".utf8) + exif)
        bytes += [0xFF] + Fixture.segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 2])
        bytes += Fixture.sof(width: 40, height: 30) + Fixture.segment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + [0x12, 0xFF, 0xD9]
        let source = MemoryByteSource(bytes)
        // When its segments are walked
        let segments = try JPEGSegments.read(source)
        // Then each is where it stands, the walk ends at the scan, and the EXIF block is the TIFF
        #expect(segments.segments.map(\.marker) == [0xE0, 0xE1, 0xEE, 0xC0])
        #expect(segments.segments[1].payloadOffset == 2 + 18 + 4)
        #expect(segments.endMarker == 0xDA && segments.problem == nil)
        let block = try #require(try segments.exifBlock(in: source))
        #expect(Array(bytes[Int(block.lowerBound)..<Int(block.upperBound)]) == exif)
        #expect(try segments.hasAdobeSegment(in: source))
        #expect(segments.segments.last?.isFrameHeader == true)
        // And a file that is not a JPEG is refused
        #expect(throws: MetadataError.self) { try JPEGSegments.read(MemoryByteSource([0x89, 0x50, 0x4E, 0x47])) }
    }

    @Test("stops at a segment that runs past the end, keeping it, and says so")
    func truncatedSegment() throws {
        let bytes: [UInt8] = [0xFF, 0xD8] + [0xFF, 0xE1, 0x10, 0x00] + Array("Exif\0\0II".utf8)
        let segments = try JPEGSegments.read(MemoryByteSource(bytes))
        #expect(segments.segments.count == 1)
        #expect(segments.problem?.contains("runs past the end of the file") == true)
    }

    @Test("finds each corpus JPEG's EXIF thumbnail where exiftool finds it (IFD1:ThumbnailOffset and ThumbnailLength)",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func exifThumbnails() throws {
        var compared = 0
        for file in corpusFiles({ _, tags in tags["File:FileType"]?.string == "JPEG" && tags["IFD1:ThumbnailOffset"] != nil }) {
            guard let source = try? FileByteSource(path: file.path), try MetadataReader.detectFormat(source) == .jpeg,
                  let offset = file.tags["IFD1:ThumbnailOffset"]?.number, let length = file.tags["IFD1:ThumbnailLength"]?.number,
                  length > 4, UInt64(offset + length) <= source.size else { continue }  // 0–4 bytes: a placeholder, not an image
            let images = try MetadataReader.embeddedImages(in: source, format: .jpeg)
            #expect(images == [EmbeddedImage(kind: .exifThumbnail, offset: UInt64(offset), length: UInt64(length))],
                    "\(file.relative): ours \(images), exiftool \(Int(offset)) + \(Int(length))")
            compared += 1
        }
        #expect(compared >= 100)
    }

    @Test("lists every JPEG the directories of a corpus TIFF or raw point at, as exiftool does",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func rawPreviews() throws {
        // exiftool's offset/length pairs from the IFD chain and SubIFDs of JPEG-compressed
        // directories (maker-note previews, and the directories of the embedded JPEGs'
        // own EXIF, which exiftool also calls IFD1, are not the container's).
        let pairs = [("ThumbnailOffset", "ThumbnailLength"), ("PreviewImageStart", "PreviewImageLength"),
                     ("JpgFromRawStart", "JpgFromRawLength"), ("OtherImageStart", "OtherImageLength")]
        let tiffBased: Set<MediaFormat> = [.tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .srw, .iiq]
        var compared = 0
        for file in corpusFiles({ _, _ in true }) {
            guard let source = try? FileByteSource(path: file.path), let format = try? MetadataReader.detectFormat(source),
                  tiffBased.contains(format) else { continue }
            let images = try MetadataReader.embeddedImages(in: source, format: format)
            let ours = Set(images.map { [$0.offset, $0.length] })
            for (key, value) in file.tags {
                let parts = key.split(separator: ":")
                guard parts.count == 2, parts[0].hasPrefix("IFD") || parts[0].hasPrefix("SubIFD"),
                      let pair = pairs.first(where: { $0.0 == parts[1] }),
                      [6, 7, nil].contains(file.tags["\(parts[0]):Compression"]?.number.map(Int.init)),
                      let offset = value.number, let length = file.tags["\(parts[0]):\(pair.1)"]?.number, length > 0,
                      !images.contains(where: { ($0.offset..<($0.offset + $0.length)).contains(UInt64(offset)) && $0.offset != UInt64(offset) })
                else { continue }
                #expect(ours.contains([UInt64(offset), UInt64(length)]), "\(file.relative): \(key) \(Int(offset)) + \(Int(length)) not in \(ours)")
                compared += 1
            }
        }
        #expect(compared >= 4)
    }

    @Test("reads each corpus HEIF's primary item and its size as exiftool does (Meta:PrimaryItemReference, ImageSpatialExtent)",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func heifItems() throws {
        var compared = 0
        for file in corpusFiles({ _, tags in tags["Meta:PrimaryItemReference"] != nil }) {
            guard let source = try? FileByteSource(path: file.path), let items = try? HEIFItems.read(source),
                  let reference = file.tags["Meta:PrimaryItemReference"]?.number else { continue }
            #expect(items.primaryID == UInt32(reference), "\(file.relative)")
            if let extent = file.tags["QuickTime:ImageSpatialExtent"]?.string, let primary = items.primaryID,
               let size = items.spatialExtent(of: primary) {
                #expect(extent == "\(size.width) \(size.height)", "\(file.relative): ours \(size), exiftool \(extent)")
            }
            // Every range handed out for decoding lies inside the file.
            for id in items.items.keys {
                guard let ranges = try? items.fileRanges(of: id, fileSize: source.size) else { continue }
                #expect(ranges.allSatisfy { $0.upperBound <= source.size }, "\(file.relative) item \(id)")
            }
            compared += 1
        }
        #expect(compared >= 25)
    }

    @Test("maps a grid item's layout and a HEIF's irot and imir as ISO/IEC 23008-12 defines them")
    func heifGridAndTransforms() throws {
        typealias F = ISOBMFFFixture
        let grid: [UInt8] = [0, 0, 1, 2] + F.be16(3000) + F.be16(2000)  // 2 rows, 3 columns
        func file(dataStart: Int) -> [UInt8] {
            let meta = F.heifMeta(items: [(1, "grid", nil), (2, "hvc1", nil)],
                                  iloc: F.iloc([(1, dataStart, grid.count)]),
                                  properties: [F.ispe(3000, 2000), F.irot(1), F.imir(0)],
                                  associations: [(1, [1, 2, 3])], references: [])
            return F.ftyp("heic") + meta + F.box("mdat", grid)
        }
        let probe = file(dataStart: 0)
        let bytes = file(dataStart: probe.count - grid.count)
        let source = MemoryByteSource(bytes)
        let items = try HEIFItems.read(source)
        #expect(items.grid(1, source: source) == HEIFItems.Grid(rows: 2, columns: 3, width: 3000, height: 2000))
        #expect(items.grid(2, source: source) == nil)
        #expect(items.isTransformed(1) && !items.isTransformed(2))
        // A quarter turn anticlockwise, then top and bottom exchanged: EXIF 5 (transpose).
        #expect(items.orientation(of: 1) == 5)
        #expect(try items.fileRanges(of: 1, fileSize: UInt64(bytes.count)) == [UInt64(bytes.count - grid.count)..<UInt64(bytes.count)])
    }
}
