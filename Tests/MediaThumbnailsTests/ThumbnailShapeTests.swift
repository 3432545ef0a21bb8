import CHeif
import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// A thumbnail has the picture's displayed shape: its size with the orientation that
/// governs display applied (EXIF's; in HEIF `irot`/`imir`, else EXIF's).
@Suite("Thumbnail shape")
struct ThumbnailShapeTests {
    /// The displayed size of a corpus file, from the reference tools: exiftool's
    /// `File:ImageWidth`/`ImageHeight` (else `Composite:ImageSize`) turned by
    /// `IFD0:Orientation` 5–8. For HEIF, libheif's size of the primary image (its
    /// `irot`/`imir` applied) when the file has any (exiftool's `QuickTime:Rotation`;
    /// its value is the last item's, often a gain map's, so only its presence is used);
    /// without them the EXIF orientation applies as elsewhere, unless EXIF's own pixel size
    /// (`ExifIFD:ExifImageWidth`/`Height`) shows the coded picture already turned.
    static func displayedSize(_ tags: [String: JSONValue], format: MediaFormat, path: String) -> (width: Int, height: Int)? {
        var size: (width: Int, height: Int)?
        if let w = tags["File:ImageWidth"]?.number, let h = tags["File:ImageHeight"]?.number, w > 0, h > 0 {
            size = (Int(w), Int(h))
        } else if let text = tags["Composite:ImageSize"]?.string {
            let parts = text.split(whereSeparator: { $0 == " " || $0 == "x" }).compactMap { Int($0) }
            if parts.count == 2, parts[0] > 0, parts[1] > 0 { size = (parts[0], parts[1]) }
        }
        guard let size else { return nil }
        let orientation = Int(tags["IFD0:Orientation"]?.number ?? 1)
        if [.heic, .heif, .avif].contains(format) {
            if tags["QuickTime:Rotation"] != nil || tags.keys.contains(where: { $0.contains("Mirror") }) {
                return libheifPrimarySize(path)
            }
            if let w = tags["ExifIFD:ExifImageWidth"]?.number, let h = tags["ExifIFD:ExifImageHeight"]?.number,
               w != h, size.width != size.height, (w > h) != (size.width > size.height) {
                return size  // already turned
            }
        }
        return (5...8).contains(orientation) ? (size.height, size.width) : size
    }

    /// libheif's size of the primary image, after its transforms.
    static func libheifPrimarySize(_ path: String) -> (width: Int, height: Int)? {
        guard let data = FileManager.default.contents(atPath: path), let context = try? HEIFDecoder.Context() else { return nil }
        let bytes = [UInt8](data)
        return bytes.withUnsafeBufferPointer { buffer -> (width: Int, height: Int)? in
            guard libheif.context_read_from_memory_without_copy(context.pointer, buffer.baseAddress, buffer.count, nil).code == heif_error_Ok
            else { return nil }
            var handle: OpaquePointer?
            guard libheif.context_get_primary_image_handle(context.pointer, &handle).code == heif_error_Ok, let handle else { return nil }
            return HEIFDecoder.Handle(handle).size
        }
    }

    /// Whether `thumbnail` is `displayed` scaled to fit `maxPixelSize`, within one pixel.
    static func hasShape(_ thumbnail: (width: Int, height: Int), of displayed: (width: Int, height: Int),
                         maxPixelSize: Int) -> Bool {
        let scale = min(1, Double(maxPixelSize) / Double(max(displayed.width, displayed.height)))
        let expected = (Double(displayed.width) * scale, Double(displayed.height) * scale)
        return abs(Double(thumbnail.width) - expected.0) <= 1 && abs(Double(thumbnail.height) - expected.1) <= 1
    }

    /// The displayed size of a raw from exiftool: `Composite:ImageSize` (exiftool's
    /// picture size, crop-aware for Fuji and Canon) turned by `IFD0:Orientation` 5–8; nil
    /// when exiftool read no size, or only a placeholder smaller than the thumbnail made
    /// (an 8×8 stand-in IFD, as in Sigma's X3F), which is not the picture's.
    static func rawDisplayedSize(_ tags: [String: JSONValue], thumbnail: (width: Int, height: Int)) -> (width: Int, height: Int)? {
        guard let text = tags["Composite:ImageSize"]?.string else { return nil }
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "x" }).compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0,
              max(parts[0], parts[1]) >= max(thumbnail.width, thumbnail.height) else { return nil }
        let orientation = Int(tags["IFD0:Orientation"]?.number ?? 1)
        return (5...8).contains(orientation) ? (parts[1], parts[0]) : (parts[0], parts[1])
    }

    /// One corpus image to check: where it is, exiftool's reading, its manifest categories.
    struct CorpusImage {
        var relative: String
        var path: String
        var tags: [String: JSONValue]
        var categories: [String]
    }

    /// Every image of the corpus: the real files (manifest) and the synthetic ones.
    static var corpusImages: [CorpusImage] {
        var images = ThumbnailTestSupport.manifestEntries.compactMap { entry -> CorpusImage? in
            guard let path = ThumbnailTestSupport.path(entry.path) else { return nil }
            return CorpusImage(relative: entry.path, path: path, tags: Corpus.exiftool[entry.path] ?? [:],
                               categories: entry.categories)
        }
        if let synthetic = Corpus.synthetic {
            for (relative, tags) in Corpus.syntheticExiftool.sorted(by: { $0.key < $1.key }) {
                images.append(CorpusImage(relative: "synthetic/" + relative,
                                          path: synthetic.appendingPathComponent(relative).path, tags: tags,
                                          categories: ["synthetic"]))
            }
        }
        return images
    }

    @Test("every thumbnail made from a corpus image, real or synthetic, raws included, has the displayed aspect ratio of exiftool's size within one pixel",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func everyThumbnailKeepsTheDisplayedShape() throws {
        let request = ThumbnailRequest(maxPixelSize: 256)
        var checked = 0, oriented = 0, heifs = 0, raws = 0, synthetic = 0
        var wrong: [String] = [], unreferenced: [String] = [], refused: [String] = []
        for image in Self.corpusImages {
            guard let source = try? FileByteSource(path: image.path),
                  let format = try? MetadataReader.detectFormat(source), format.mediaType == .image else { continue }
            let thumbnail: EncodedThumbnail
            do { thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: image.path, request: request) } catch {
                // No thumbnail is no wrong shape; a raw refused for its previews' shape says which file and why.
                let reason = "\(error)"
                if format.isRaw, reason.contains("embedded preview") {
                    #expect(reason.contains(String(image.relative.split(separator: "/").last!)), "\(image.relative): \(reason)")
                    refused.append("\(image.relative): \(reason)")
                }
                continue
            }
            // Every thumbnail made is checked: one without a reference size is listed, not skipped silently.
            let made = (width: thumbnail.width, height: thumbnail.height)
            guard let displayed = format.isRaw ? Self.rawDisplayedSize(image.tags, thumbnail: made)
                    : Self.displayedSize(image.tags, format: format, path: image.path) else {
                unreferenced.append("\(image.relative) [\(format.rawValue)]: \(made.width)×\(made.height)")
                continue
            }
            checked += 1
            if image.categories.contains(where: { $0.hasPrefix("orientation") }) { oriented += 1 }
            if [.heic, .heif, .avif].contains(format) { heifs += 1 }
            if format.isRaw { raws += 1 }
            if image.categories == ["synthetic"] { synthetic += 1 }
            // A raw's camera-made preview may be smaller than asked: its shape is what counts.
            let longest = format.isRaw && thumbnail.path != .fullDecode ? max(made.width, made.height) : 256
            if !Self.hasShape(made, of: displayed, maxPixelSize: longest) {
                wrong.append("\(image.relative): \(made.width)×\(made.height) for \(displayed.width)×\(displayed.height) (\(thumbnail.path))")
            }
        }
        for line in wrong { print("wrong shape: \(line)") }
        for line in unreferenced { print("no size from exiftool: \(line)") }
        for line in refused { print("refused: \(line)") }
        #expect(wrong.isEmpty, "\(wrong.count) thumbnails have another shape than their picture")
        print("shape: \(checked) thumbnails checked, \(oriented) from the orientation sets, \(heifs) HEIF, \(raws) raw (\(refused.count) more refused), \(synthetic) synthetic; \(unreferenced.count) without an exiftool size")
        #expect(checked > 370)
        #expect(oriented >= 40)
        #expect(heifs >= 25)
        // Every corpus raw with a preview is either thumbnailed in its shape or refused with its reason.
        #expect(raws + refused.count >= 5)
        #expect(synthetic >= 8)
        // exiftool reads a size for nearly every picture we decode; the few it does not are listed above.
        #expect(unreferenced.count <= 5)
    }

    @Test("the thumbnails that were the wrong shape: Samsung S24 FE HEIC, Canon.HIF, Sony.HIF",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"),
          arguments: ["metadata-extractor-images/heic/Issue 437 (dotnet).heic", "exiv2-test-data/test/data/Canon.HIF",
                      "exiv2-test-data/test/data/Sony.HIF"])
    func formerlyWrongShapes(relative: String) throws {
        let path = try #require(ThumbnailTestSupport.path(relative))
        let tags = try #require(Corpus.exiftool[relative])
        let source = try FileByteSource(path: path)
        let format = try #require(try MetadataReader.detectFormat(source))
        let displayed = try #require(Self.displayedSize(tags, format: format, path: path))
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        #expect(Self.hasShape((thumbnail.width, thumbnail.height), of: displayed, maxPixelSize: 256),
                "\(relative): \(thumbnail.width)×\(thumbnail.height) for \(displayed.width)×\(displayed.height)")
    }

    @Test("every corpus HEIF's displayed size (pixelWidth/pixelHeight after orientation) is the reference's, EXIF never applied on top of irot",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func heifDisplayedSize() throws {
        var checked = 0, rotated = 0, exifOnly = 0
        for (relative, tags) in Corpus.exiftool.sorted(by: { $0.key < $1.key }) {
            guard let path = ThumbnailTestSupport.path(relative), let source = try? FileByteSource(path: path),
                  let format = try? MetadataReader.detectFormat(source), [.heic, .heif, .avif].contains(format),
                  let metadata = try? MetadataReader.read(source), let ours = metadata.displaySize,
                  let reference = Self.displayedSize(tags, format: format, path: path) else { continue }
            #expect(ours == reference, "\(relative): ours \(ours.width)×\(ours.height), reference \(reference.width)×\(reference.height)")
            checked += 1
            if tags["QuickTime:Rotation"] != nil, let w = tags["File:ImageWidth"]?.number, Int(w) != reference.width { rotated += 1 }
            if tags["QuickTime:Rotation"] == nil, (5...8).contains(Int(tags["IFD0:Orientation"]?.number ?? 1)) { exifOnly += 1 }
        }
        print("HEIF displayed sizes: \(checked) checked, \(rotated) turned by irot, \(exifOnly) with only an EXIF orientation")
        #expect(checked >= 30)
        #expect(rotated >= 5)
        #expect(exifOnly >= 3)
    }
}
