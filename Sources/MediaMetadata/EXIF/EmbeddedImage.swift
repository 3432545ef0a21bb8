/// A JPEG stored inside another file by the camera or the writer: the EXIF thumbnail,
/// a raw's preview, a TIFF's JPEG-compressed reduced image.
///
/// Only where its bytes are is known here, as the file's directories state it; the
/// JPEG itself is not checked (a stated length may be a lie: readers bound it).
public struct EmbeddedImage: Sendable, Hashable {
    /// Which structure points at the image.
    public enum Kind: String, Sendable, Hashable {
        /// IFD1's `JPEGInterchangeFormat` in the EXIF block: the camera's thumbnail.
        case exifThumbnail
        /// `JPEGInterchangeFormat` of another directory (IFD0 or a SubIFD of a raw).
        case directoryJPEG
        /// The single strip of a JPEG-compressed directory (Compression 6 or 7).
        case jpegStrip
        /// Panasonic's `JpgFromRaw` (tag 0x002E).
        case jpgFromRaw
        /// The JPEG that a Fujifilm RAF's header points at.
        case rafPreview
    }

    public var kind: Kind
    /// Where the JPEG starts, from the start of the file.
    public var offset: UInt64
    /// Its length in bytes, as stated.
    public var length: UInt64

    public init(kind: Kind, offset: UInt64, length: UInt64) {
        self.kind = kind
        self.offset = offset
        self.length = length
    }
}

extension MetadataReader {
    /// The JPEGs embedded in a file of `format`, where its structure points at them:
    /// - JPEG: the EXIF thumbnail (IFD1), when it lies wholly inside the EXIF segment;
    /// - TIFF and TIFF-based raws: every directory's (IFD chain and SubIFDs) JPEG,
    ///   JPEG-compressed strip and Panasonic's JpgFromRaw;
    /// - RAF: the preview its header points at;
    /// - HEIF and AVIF: the EXIF thumbnail of the Exif item, when it lies wholly inside it
    ///   (thumbnail items are items: see `HEIFItems`).
    ///
    /// Other formats have none listed here.
    /// - Throws: `MetadataError.io` when a read fails; damaged structures yield fewer images.
    public static func embeddedImages(in source: ByteSource, format: MediaFormat) throws -> [EmbeddedImage] {
        switch format {
        case .jpeg:
            guard let segments = try? JPEGSegments.read(source), let block = try segments.exifBlock(in: source),
                  let walker = try? TIFFDirectoryWalker(source: source, base: block.lowerBound),
                  let thumbnail = try walker.exifThumbnail(),
                  thumbnail.length > 4, thumbnail.offset + thumbnail.length <= block.upperBound else { return [] }
            return [thumbnail]
        case .heic, .heif, .avif:
            // The Exif item (ISO/IEC 23008-12 Annex A.2.1): a 32-bit offset to the TIFF header, then the block.
            guard let items = try? HEIFItems.read(source),
                  let exif = items.items.values.filter({ $0.type == "Exif" }).min(by: { $0.id < $1.id }),
                  let ranges = try? items.fileRanges(of: exif.id, fileSize: source.size), ranges.count == 1,
                  let block = ranges.first, block.count > 4 else { return [] }
            let header = try source.read(at: block.lowerBound, count: 4)
            guard header.count == 4 else { return [] }
            let tiff = block.lowerBound + 4 + UInt64(TIFFDirectoryWalker.u32(header, 0, false))
            guard tiff < block.upperBound, let walker = try? TIFFDirectoryWalker(source: source, base: tiff),
                  let thumbnail = try? walker.exifThumbnail(),
                  thumbnail.length > 4, thumbnail.offset + thumbnail.length <= block.upperBound else { return [] }
            return [thumbnail]
        case .raf:
            // RAF header: big-endian JPEG offset and length at 84 and 88.
            let header = try source.read(at: 84, count: 8)
            guard header.count == 8 else { return [] }
            let offset = UInt64(TIFFDirectoryWalker.u32(header, 0, false)), length = UInt64(TIFFDirectoryWalker.u32(header, 4, false))
            guard offset > 0, length > 0 else { return [] }
            return [EmbeddedImage(kind: .rafPreview, offset: offset, length: length)]
        case .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .srw, .iiq:
            guard let walker = try? TIFFDirectoryWalker(source: source) else { return [] }
            return try walker.embeddedImages()
        default:
            return []
        }
    }
}

extension TIFFDirectoryWalker {
    /// Directories visited in total (IFD chain and SubIFDs); real files have under ten.
    static let maxDirectoriesForImages = 32
    /// SubIFDs followed from one directory.
    static let maxSubIFDsForImages = 16

    private static let jpegInterchangeFormat: UInt16 = 0x0201
    private static let jpegInterchangeFormatLength: UInt16 = 0x0202
    private static let compression: UInt16 = 0x0103
    private static let stripOffsets: UInt16 = 0x0111
    private static let stripByteCounts: UInt16 = 0x0117
    private static let jpgFromRaw: UInt16 = 0x002E

    /// The EXIF thumbnail: IFD1's `JPEGInterchangeFormat`, as an offset in the source.
    func exifThumbnail() throws -> EmbeddedImage? {
        var warnings: [String] = []
        let ifd0 = try directory(at: firstDirectoryOffset, warnings: &warnings)
        guard ifd0.next != 0 else { return nil }
        let ifd1 = try directory(at: ifd0.next, warnings: &warnings)
        return try interchangeFormat(in: ifd1.entries, kind: .exifThumbnail)
    }

    /// Every JPEG the directories point at, breadth first from IFD0.
    func embeddedImages() throws -> [EmbeddedImage] {
        var found: [EmbeddedImage] = []
        var queue: [UInt64] = [firstDirectoryOffset]
        var visited: Set<UInt64> = []
        var warnings: [String] = []
        while !queue.isEmpty, visited.count < Self.maxDirectoriesForImages {
            let offset = queue.removeFirst()
            guard offset != 0, visited.insert(offset).inserted else { continue }
            let (entries, next) = try directory(at: offset, warnings: &warnings)
            if let image = try interchangeFormat(in: entries, kind: .directoryJPEG) { found.append(image) }
            let values = try self.values(of: entries, wanted: [Self.compression])
            if let compression = values[Self.compression]?.integer(), compression == 6 || compression == 7,
               let strips = entries.first(where: { $0.tag == Self.stripOffsets }), strips.count == 1,
               let counts = entries.first(where: { $0.tag == Self.stripByteCounts }), counts.count == 1,
               let start = try value(of: strips)?.integer(), let length = try value(of: counts)?.integer(), length > 0 {
                found.append(EmbeddedImage(kind: .jpegStrip, offset: base + UInt64(start), length: UInt64(length)))
            }
            // JpgFromRaw is an UNDEFINED value holding the JPEG itself.
            if let entry = entries.first(where: { $0.tag == Self.jpgFromRaw }), entry.count > 4, entry.field.count >= 4 {
                let start = UInt64(TIFFDirectoryWalker.u32(entry.field, 0, littleEndian))
                found.append(EmbeddedImage(kind: .jpgFromRaw, offset: base + start, length: entry.count))
            }
            if let entry = entries.first(where: { $0.tag == ExifTag.subIFDs }), let list = try value(of: entry) {
                for index in 0..<min(list.count, Self.maxSubIFDsForImages) {
                    if let sub = list.integer(at: index), sub > 0 { queue.append(UInt64(sub)) }
                }
            }
            if next != 0 { queue.append(next) }
        }
        return found
    }

    /// A directory's `JPEGInterchangeFormat` and its length, as an offset in the source.
    private func interchangeFormat(in entries: [Entry], kind: EmbeddedImage.Kind) throws -> EmbeddedImage? {
        let values = try self.values(of: entries, wanted: [Self.jpegInterchangeFormat, Self.jpegInterchangeFormatLength])
        guard let start = values[Self.jpegInterchangeFormat]?.integer(),
              let length = values[Self.jpegInterchangeFormatLength]?.integer(), start > 0, length > 0 else { return nil }
        return EmbeddedImage(kind: kind, offset: base + UInt64(start), length: UInt64(length))
    }
}
