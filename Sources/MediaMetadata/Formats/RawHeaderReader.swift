/// Reads the camera raws that are not TIFF at their start: Minolta MRW, ARRIRAW and
/// Kyocera's raw. One parser each, from the layouts exiftool documents (`MinoltaRaw.pm`,
/// `KyoceraRaw.pm`) and the ARRIRAW header as rawloader and RawSpeed read it.
enum RawHeaderReader {
    // MARK: Minolta MRW

    /// The most MRW blocks walked before the image data; real files have five or six.
    static let maxMRWBlocks = 64

    /// MRW: `\0MRM`, the big-endian length of the blocks that follow, then blocks of a
    /// 4-byte tag and a big-endian length: `\0PRD` (picture dimensions: image height and
    /// width at 12 and 14), `\0TTW` (a TIFF structure holding IFD0 and the EXIF), `\0WBG`,
    /// `\0RIF`, `\0PAD`. The largest preview is the Minolta maker note's
    /// PreviewImageStart/Length (0x0088/0x0089), counted from the TIFF block.
    ///
    /// - Throws: `MetadataError` when the header is cut short.
    static func readMRW(_ source: ByteSource) throws -> ContainerReading {
        let header = try source.readExactly(at: 0, count: 8)
        let end = min(source.size, 8 + UInt64(TIFFDirectoryWalker.u32(header, 4, false)))
        var metadata = MediaMetadata(format: .mrw)
        var position: UInt64 = 8
        var blocks = 0
        while position + 8 <= end, blocks < maxMRWBlocks {
            blocks += 1
            let block = try source.read(at: position, count: 8)
            guard block.count == 8 else { break }
            let length = UInt64(TIFFDirectoryWalker.u32(block, 4, false))
            let data = position + 8
            if data + length > end { metadata.warnings.append("an MRW block runs past the header's end") }
            switch Array(block[0..<4]) {
            case [0, 0x50, 0x52, 0x44]:  // \0PRD
                let prd = try source.read(at: data, count: 16)
                if let h = VideoFields.be16(prd, 12), let w = VideoFields.be16(prd, 14), w > 0, h > 0 {
                    metadata.pixelWidth = w
                    metadata.pixelHeight = h
                }
            case [0, 0x54, 0x54, 0x57]:  // \0TTW
                do {
                    let walker = try TIFFDirectoryWalker(source: ByteSourceSlice(source, offset: data, length: length))
                    var (dirs, _) = try walker.exifDirectories()
                    metadata.largestPreview = try minoltaPreview(dirs.exif[ExifTag.makerNote], walker: walker, base: data, source: source)
                    dirs.warnings = dirs.warnings.map { "in the MRW's TIFF block: \($0)" }
                    ExifDecoder.apply(dirs, to: &metadata)
                } catch let error as MetadataError {
                    metadata.warnings.append("the MRW's TIFF block could not be read: \(error)")
                }
            default:
                break
            }
            position = data + length
        }
        return ContainerReading(metadata: metadata)
    }

    /// The Minolta maker note is one IFD; its preview offset counts from the TIFF block
    /// (exiftool finds some files counting from the file's start, so both are tried).
    private static func minoltaPreview(_ note: ExifValue?, walker: TIFFDirectoryWalker, base: UInt64,
                                       source: ByteSource) throws -> EmbeddedPreview? {
        guard let bytes = note?.bytes, bytes.count >= 14 else { return nil }
        let noteWalker = TIFFDirectoryWalker(source: MemoryByteSource(bytes), base: 0,
                                             littleEndian: walker.littleEndian, firstDirectoryOffset: 0)
        var warnings: [String] = []
        let directory = try noteWalker.directory(at: 0, warnings: &warnings)
        let values = try noteWalker.values(of: directory.entries, wanted: [0x0088, 0x0089])
        guard let start = values[0x0088]?.integer(), let length = values[0x0089]?.integer(), start > 0, length > 0 else {
            return nil
        }
        for offset in [base + UInt64(start), UInt64(start)] where offset + UInt64(length) <= source.size {
            if try source.read(at: offset, count: 2) == [0xFF, 0xD8] {
                return EmbeddedPreview(offset: offset, length: UInt64(length))
            }
        }
        return nil
    }

    // MARK: ARRIRAW

    /// ARRIRAW: `ARRI` and the byte-order mark `12 34 56 78`, then little-endian fields:
    /// the image width at 20 and height at 24; the camera model, NUL-terminated, at 668.
    /// No capture date is documented in the header and there is no embedded preview.
    ///
    /// - Throws: `MetadataError` when the header is cut short.
    static func readARRI(_ source: ByteSource) throws -> ContainerReading {
        let header = try source.readExactly(at: 0, count: 28)
        var metadata = MediaMetadata(format: .ari)
        metadata.make = "ARRI"
        if let w = VideoFields.le32(header, 20), let h = VideoFields.le32(header, 24), w > 0, h > 0, w < 1 << 16, h < 1 << 16 {
            metadata.pixelWidth = w
            metadata.pixelHeight = h
        }
        let model = try source.read(at: 668, count: 32)
        let text = String(decoding: model.prefix { $0 != 0 }, as: UTF8.self).trimmingSpacesAndNULs()
        if !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { metadata.model = text }
        return ContainerReading(metadata: metadata)
    }

    // MARK: Kyocera

    /// Kyocera's raw (Contax N Digital): fixed-position text fields stored byte-reversed
    /// (exiftool's `KyoceraRaw` table): Model at 0x0C (12 bytes), Make at 0x19 (7),
    /// DateTimeOriginal at 0x21 (20), the camera's clock without a zone.
    ///
    /// - Throws: `MetadataError` when the header is cut short.
    static func readKyocera(_ source: ByteSource) throws -> ContainerReading {
        let header = try source.readExactly(at: 0, count: 0x35)
        func reversed(_ at: Int, _ count: Int) -> String {
            let bytes = header[at..<(at + count)].reversed().drop { $0 == 0 }
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).trimmingSpacesAndNULs()
        }
        var metadata = MediaMetadata(format: .kyoceraRaw)
        let make = reversed(0x19, 7), model = reversed(0x0C, 12)
        if !make.isEmpty { metadata.make = make }
        if !model.isEmpty { metadata.model = model }
        if let date = CaptureDate(exif: reversed(0x21, 20)) {
            metadata.captureDate = date
            metadata.captureDateSource = .kyoceraRawDate
        }
        return ContainerReading(metadata: metadata)
    }
}
