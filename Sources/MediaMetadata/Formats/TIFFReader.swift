/// Reads TIFF and BigTIFF files and the TIFF-based camera raws (DNG, CR2, NEF, ARW, ORF, RW2, PEF,
/// SRW, IIQ), plus what is cheap from the other raws (RAF's embedded JPEG).
///
/// The directories are read straight from the file with `TIFFDirectoryWalker`: a TIFF's
/// Exif and GPS directories may sit anywhere in the file, beyond libexif's 64 KiB.
enum TIFFReader {
    /// Tags for the pixel size of an image directory.
    private static let sizeTags: Set<UInt16> = [ExifTag.imageWidth, ExifTag.imageLength, ExifTag.newSubfileType]
    private static let xmpTag: UInt16 = 0x02BC
    /// At most this many SubIFDs are looked at for the full-size image.
    private static let maxSubIFDs = 8

    /// - Throws: `MetadataError` when the header or IFD0 cannot be read at all.
    static func read(_ source: ByteSource, format: MediaFormat) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: format))
        let walker = try TIFFDirectoryWalker(source: source)
        var (dirs, ifd0Entries) = try walker.exifDirectories()
        guard !ifd0Entries.isEmpty else {
            throw MetadataError.malformed("the first TIFF directory is empty or lies outside the file")
        }
        var m = reading.metadata
        if let size = try pixelSize(walker: walker, ifd0Entries: ifd0Entries, dirs: dirs, format: format,
                                    warnings: &dirs.warnings) {
            m.pixelWidth = size.width
            m.pixelHeight = size.height
        }
        if let entry = ifd0Entries.first(where: { $0.tag == xmpTag }), let xmp = try walker.value(of: entry) {
            reading.xmp = xmp.bytes
        }
        if format.isRaw || format == .tiff {
            m.largestPreview = try largestPreview(walker: walker, ifd0Entries: ifd0Entries)
        }
        ExifDecoder.apply(dirs, to: &m)
        // TIFF keeps IPTC in IFD0: an IIM block (0x83BB), Photoshop resources (0x8649).
        if let iim = dirs.ifd0[ExifTag.iptcNAA]?.bytes, !iim.isEmpty {
            m.updateDescriptiveSources { $0.iptc = IPTCReader.record(iim) }
        }
        if let resources = dirs.ifd0[ExifTag.photoshopResources]?.bytes {
            IPTCReader.apply(photoshopResources: resources[...], to: &m)
        }
        reading.metadata = m
        return reading
    }

    /// Directories visited in the search for previews (IFD chain and SubIFDs).
    private static let maxPreviewDirectories = 32
    private static let previewTags: Set<UInt16> = [0x0100, 0x0101, 0x0103, 0x0106, 0x0111, 0x0117, 0x0201, 0x0202, 0x002E]

    /// The largest JPEG the directories point at: EXIF's `JPEGInterchangeFormat` (IFD1
    /// thumbnails, raw previews), the single strip of a JPEG-compressed directory that is
    /// not the raw data (photometric CFA or LinearRaw), and Panasonic's `JpgFromRaw`
    /// (0x002E). Largest by stated pixel area, else by length; each must start `FF D8`.
    static func largestPreview(walker: TIFFDirectoryWalker, ifd0Entries: [TIFFDirectoryWalker.Entry]) throws -> EmbeddedPreview? {
        // Candidates with the pixel area their directory states (0 when it states none).
        var candidates: [(preview: EmbeddedPreview, area: Int)] = []
        var queue: [UInt64] = [walker.firstDirectoryOffset]
        var visited: Set<UInt64> = []
        var warnings: [String] = []
        while !queue.isEmpty, visited.count < maxPreviewDirectories {
            let offset = queue.removeFirst()
            guard offset != 0, visited.insert(offset).inserted else { continue }
            let directory = offset == walker.firstDirectoryOffset
                ? (entries: ifd0Entries, next: try walker.directory(at: offset, warnings: &warnings).next)
                : try walker.directory(at: offset, warnings: &warnings)
            let v = try walker.values(of: directory.entries, wanted: previewTags)
            let w = v[0x0100]?.integer(), h = v[0x0101]?.integer()
            if let start = v[0x0201]?.integer(), let length = v[0x0202]?.integer(), start > 0, length > 0 {
                candidates.append((EmbeddedPreview(offset: walker.base + UInt64(start), length: UInt64(length)), 0))
            }
            let photometric = v[0x0106]?.integer() ?? 0
            if let compression = v[0x0103]?.integer(), compression == 6 || compression == 7,
               photometric != 32803, photometric != 34892,
               let strips = v[0x0111], strips.count == 1, let start = strips.integer(at: 0),
               let length = v[0x0117]?.integer(at: 0), start > 0, length > 0 {
                candidates.append((EmbeddedPreview(offset: walker.base + UInt64(start), length: UInt64(length)), (w ?? 0) * (h ?? 0)))
            }
            if let entry = directory.entries.first(where: { $0.tag == 0x002E }), entry.count > 4 {
                let start = UInt64(TIFFDirectoryWalker.u32(entry.field, 0, walker.littleEndian))
                candidates.append((EmbeddedPreview(offset: walker.base + start, length: entry.count), 0))
            }
            if let sub = directory.entries.first(where: { $0.tag == ExifTag.subIFDs }), let list = try walker.value(of: sub) {
                for index in 0..<min(list.count, 16) {
                    if let next = list.integer(at: index), next > 0 { queue.append(UInt64(next)) }
                }
            }
            if directory.next != 0 { queue.append(directory.next) }
        }
        var best: (preview: EmbeddedPreview, area: Int)?
        var seen: Set<EmbeddedPreview> = []
        for candidate in candidates where seen.insert(candidate.preview).inserted
            && candidate.preview.offset + candidate.preview.length <= walker.source.size {
            let marker = try walker.source.read(at: candidate.preview.offset, count: 2)
            guard marker == [0xFF, 0xD8] else { continue }
            if let current = best {
                let larger = candidate.area > 0 && current.area > 0 && candidate.area != current.area
                    ? candidate.area > current.area : candidate.preview.length > current.preview.length
                if larger { best = candidate }
            } else {
                best = candidate
            }
        }
        return best?.preview
    }

    /// The size exiftool reports as the image size: the full-resolution directory
    /// (NewSubfileType 0) among IFD0 and its SubIFDs; the Exif dimensions for CR2 and
    /// IIQ, whose IFD0 holds a preview; the sensor borders for RW2.
    private static func pixelSize(walker: TIFFDirectoryWalker, ifd0Entries: [TIFFDirectoryWalker.Entry],
                                  dirs: ExifDirectories, format: MediaFormat,
                                  warnings: inout [String]) throws -> (width: Int, height: Int)? {
        if format == .cr2 || format == .iiq,
           let w = dirs.exif[ExifTag.pixelXDimension]?.integer(), let h = dirs.exif[ExifTag.pixelYDimension]?.integer(),
           w > 0, h > 0 {
            return (w, h)
        }
        if format == .rw2 || format == .rwl {
            let borders = try walker.values(of: ifd0Entries, wanted: [0x04, 0x05, 0x06, 0x07])
            if let top = borders[0x04]?.integer(), let left = borders[0x05]?.integer(),
               let bottom = borders[0x06]?.integer(), let right = borders[0x07]?.integer(),
               right > left, bottom > top {
                return (right - left, bottom - top)
            }
        }
        var candidates: [[UInt16: ExifValue]] = [try walker.values(of: ifd0Entries, wanted: sizeTags)]
        if let subIFDs = try ifd0Entries.first(where: { $0.tag == ExifTag.subIFDs }).flatMap({ try walker.value(of: $0) }) {
            for index in 0..<min(subIFDs.count, maxSubIFDs) {
                guard let offset = subIFDs.integer(at: index), offset > 0 else { continue }
                let sub = try walker.directory(at: UInt64(offset), warnings: &warnings)
                candidates.append(try walker.values(of: sub.entries, wanted: sizeTags))
            }
        }
        var best: (width: Int, height: Int)?
        for directory in candidates {
            let subfileType = directory[ExifTag.newSubfileType]?.integer() ?? 0
            guard subfileType & 1 == 0,
                  let w = directory[ExifTag.imageWidth]?.integer(), let h = directory[ExifTag.imageLength]?.integer(),
                  w > 0, h > 0 else { continue }
            if best == nil || w * h > (best?.width ?? 0) * (best?.height ?? 0) { best = (w, h) }
        }
        if best == nil, let first = candidates.first,
           let w = first[ExifTag.imageWidth]?.integer(), let h = first[ExifTag.imageLength]?.integer(), w > 0, h > 0 {
            best = (w, h)
        }
        return best
    }

    /// Fujifilm RAF: a fixed header pointing at an embedded JPEG that carries the EXIF.
    static func readRAF(_ source: ByteSource) throws -> ContainerReading {
        let header = try source.readExactly(at: 0, count: 92)
        let offset = UInt64(TIFFDirectoryWalker.u32(header, 84, false))
        let length = UInt64(TIFFDirectoryWalker.u32(header, 88, false))
        guard offset >= 92, length > 0, offset + length <= source.size else {
            var metadata = MediaMetadata(format: .raf)
            metadata.warnings.append("the RAF header points its preview JPEG outside the file")
            return ContainerReading(metadata: metadata)
        }
        var reading = try JPEGReader.read(source, base: offset, format: .raf)
        // The preview's frame size is not the raw image's size: the EXIF's
        // PixelXDimension (the camera's full output) fills it, else the RAF directory's.
        reading.metadata.pixelWidth = nil
        reading.metadata.pixelHeight = nil
        reading.metadata.largestPreview = EmbeddedPreview(offset: offset, length: length)
        let exifSize = reading.exif.flatMap { ExifDecoder.directories(of: $0, warnings: &reading.metadata.warnings) }
            .flatMap { dirs -> (Int, Int)? in
                guard let w = dirs.exif[ExifTag.pixelXDimension]?.integer(), let h = dirs.exif[ExifTag.pixelYDimension]?.integer(),
                      w > 0, h > 0 else { return nil }
                return (w, h)
            }
        if exifSize == nil, let size = try rafDirectorySize(source) {
            reading.metadata.pixelWidth = size.width
            reading.metadata.pixelHeight = size.height
        }
        return reading
    }

    /// The RAF directory (offset at 92 of the header; a big-endian count, then tag,
    /// length, data records): `RawImageCroppedSize` (0x111), else `RawImageFullSize`
    /// (0x100), each height then width (exiftool's FujiFilm RAF table).
    static func rafDirectorySize(_ source: ByteSource) throws -> (width: Int, height: Int)? {
        let pointer = try source.read(at: 92, count: 4)
        guard pointer.count == 4 else { return nil }
        let offset = UInt64(TIFFDirectoryWalker.u32(pointer, 0, false))
        guard offset >= 92, offset < source.size else { return nil }
        let directory = try source.read(at: offset, count: 16 << 10)
        guard let count = VideoFields.be32(directory, 0), count <= 255 else { return nil }
        var p = 4
        var sizes: [Int: (width: Int, height: Int)] = [:]
        for _ in 0..<count {
            guard let tag = VideoFields.be16(directory, p), let length = VideoFields.be16(directory, p + 2) else { break }
            if tag == 0x100 || tag == 0x111, length >= 4,
               let h = VideoFields.be16(directory, p + 4), let w = VideoFields.be16(directory, p + 6), w > 0, h > 0 {
                sizes[tag] = (w, h)
            }
            p += 4 + length
        }
        return sizes[0x111] ?? sizes[0x100]
    }
}
