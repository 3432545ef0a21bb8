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
        ExifDecoder.apply(dirs, to: &m)
        reading.metadata = m
        return reading
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
        if format == .rw2 {
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
        // The preview's frame size is not the raw image's size.
        reading.metadata.pixelWidth = nil
        reading.metadata.pixelHeight = nil
        return reading
    }
}
