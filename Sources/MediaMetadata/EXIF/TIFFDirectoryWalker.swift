/// A bounded reader of TIFF image file directories (IFDs) over a byte source.
///
/// libexif caps its input at 64 KiB (`exif_data_load_data` clamps the length to
/// 0xFFFE), which is right for a JPEG APP1 segment but loses directories that sit
/// further into a TIFF file or raw. This walker reads only the directories and values
/// asked for, straight from the source, so a TIFF file is never loaded whole.
struct TIFFDirectoryWalker {
    /// One 12-byte directory entry, its value not yet read.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// The 4-byte value/offset field, in file byte order.
        var field: [UInt8]
    }

    /// The most entries read from one directory; real files have a few hundred at most.
    static let maxEntries = 1024
    /// The largest single value read; the fields the index uses are far smaller.
    static let maxValueBytes = 1 << 20

    let source: ByteSource
    /// Where the TIFF header starts in the source; IFD offsets are relative to it.
    let base: UInt64
    let littleEndian: Bool
    let firstDirectoryOffset: UInt32
    /// Whether this is BigTIFF (`II+`), which this walker does not decode.
    let isBigTIFF: Bool

    /// Reads the 8-byte TIFF header at `base`.
    ///
    /// - Throws: `MetadataError.malformed` when there is no TIFF header there.
    init(source: ByteSource, base: UInt64 = 0) throws {
        let header = try source.read(at: base, count: 8)
        guard header.count == 8 else { throw MetadataError.truncated("the TIFF header is cut short") }
        switch (header[0], header[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: throw MetadataError.malformed("no TIFF byte-order mark (II or MM)")
        }
        self.source = source
        self.base = base
        let magic = littleEndian ? UInt16(header[2]) | UInt16(header[3]) << 8 : UInt16(header[2]) << 8 | UInt16(header[3])
        isBigTIFF = magic == 43
        // Raw variants put other magic numbers here (ORF 0x4F52/0x5352, RW2 0x55); the
        // directory layout is the same.
        firstDirectoryOffset = TIFFDirectoryWalker.u32(header, 4, littleEndian)
    }

    /// A walker over a directory without a TIFF header (Apple's maker note), whose
    /// offsets count from `base`.
    init(source: ByteSource, base: UInt64, littleEndian: Bool, firstDirectoryOffset: UInt32) {
        self.source = source
        self.base = base
        self.littleEndian = littleEndian
        self.firstDirectoryOffset = firstDirectoryOffset
        self.isBigTIFF = false
    }

    static func u16(_ b: [UInt8], _ at: Int, _ le: Bool) -> UInt16 {
        guard at >= 0, at + 2 <= b.count else { return 0 }
        return le ? UInt16(b[at]) | UInt16(b[at + 1]) << 8 : UInt16(b[at]) << 8 | UInt16(b[at + 1])
    }

    static func u32(_ b: [UInt8], _ at: Int, _ le: Bool) -> UInt32 {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        let x = (UInt32(b[at]), UInt32(b[at + 1]), UInt32(b[at + 2]), UInt32(b[at + 3]))
        return le ? x.0 | x.1 << 8 | x.2 << 16 | x.3 << 24 : x.0 << 24 | x.1 << 16 | x.2 << 8 | x.3
    }

    /// Reads the directory at `offset` (relative to the header): its entries that lie
    /// inside the file, and the offset of the next directory (0 when none).
    func directory(at offset: UInt32, warnings: inout [String]) throws -> (entries: [Entry], next: UInt32) {
        let start = base + UInt64(offset)
        let countBytes = try source.read(at: start, count: 2)
        guard countBytes.count == 2 else {
            warnings.append("a TIFF directory offset (\(offset)) points past the end of the file")
            return ([], 0)
        }
        let declared = Int(TIFFDirectoryWalker.u16(countBytes, 0, littleEndian))
        var wanted = declared
        if wanted > TIFFDirectoryWalker.maxEntries {
            warnings.append("a TIFF directory claims \(declared) entries; only the first \(TIFFDirectoryWalker.maxEntries) are read")
            wanted = TIFFDirectoryWalker.maxEntries
        }
        let body = try source.read(at: start + 2, count: wanted * 12 + 4)
        let present = min(wanted, body.count / 12)
        if present < wanted {
            // Like exiftool, drop a directory that runs past the end: its entries are
            // more likely garbage than data.
            warnings.append("a TIFF directory claims \(declared) entries but the file ends after \(present); it was ignored")
            return ([], 0)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(present)
        for i in 0..<present {
            let p = i * 12
            entries.append(Entry(tag: TIFFDirectoryWalker.u16(body, p, littleEndian),
                                 type: TIFFDirectoryWalker.u16(body, p + 2, littleEndian),
                                 count: TIFFDirectoryWalker.u32(body, p + 4, littleEndian),
                                 field: Array(body[(p + 8)..<(p + 12)])))
        }
        let next = present == wanted && body.count >= wanted * 12 + 4
            ? TIFFDirectoryWalker.u32(body, wanted * 12, littleEndian) : 0
        return (entries, next)
    }

    /// Reads an entry's value: inline when it fits in 4 bytes, else at its offset.
    /// Nil for an unknown type, an oversized value or one past the end of the file.
    func value(of entry: Entry) throws -> ExifValue? {
        guard let size = ExifValue.componentSize(of: entry.type) else { return nil }
        let (total, overflow) = Int(entry.count).multipliedReportingOverflow(by: size)
        guard !overflow, total <= TIFFDirectoryWalker.maxValueBytes else { return nil }
        let bytes: [UInt8]
        if total <= 4 {
            bytes = Array(entry.field[0..<total])
        } else {
            let offset = TIFFDirectoryWalker.u32(entry.field, 0, littleEndian)
            bytes = try source.read(at: base + UInt64(offset), count: total)
            guard bytes.count == total else { return nil }
        }
        return ExifValue(type: entry.type, count: Int(entry.count), bytes: bytes, littleEndian: littleEndian)
    }

    /// The values of the wanted tags of one directory.
    func values(of entries: [Entry], wanted: Set<UInt16>) throws -> [UInt16: ExifValue] {
        var result: [UInt16: ExifValue] = [:]
        for entry in entries where wanted.contains(entry.tag) && result[entry.tag] == nil {
            if let value = try value(of: entry) { result[entry.tag] = value }
        }
        return result
    }

    /// The offset held by a pointer tag (ExifIFD, GPS IFD), if any.
    func pointer(_ tag: UInt16, in entries: [Entry]) -> UInt32? {
        guard let entry = entries.first(where: { $0.tag == tag }), entry.count >= 1,
              entry.type == 4 || entry.type == 13 || entry.type == 3 else { return nil }
        let offset = entry.type == 3 ? UInt32(TIFFDirectoryWalker.u16(entry.field, 0, littleEndian))
                                     : TIFFDirectoryWalker.u32(entry.field, 0, littleEndian)
        return offset == 0 ? nil : offset
    }

    /// IFD0, the Exif IFD and the GPS IFD, reading only the tags the index uses.
    func exifDirectories() throws -> (directories: ExifDirectories, ifd0Entries: [Entry]) {
        var dirs = ExifDirectories()
        guard !isBigTIFF else {
            dirs.warnings.append("BigTIFF directories are not read")
            return (dirs, [])
        }
        let ifd0 = try directory(at: firstDirectoryOffset, warnings: &dirs.warnings)
        dirs.ifd0 = try values(of: ifd0.entries, wanted: ExifTag.wantedIFD0)
        if let offset = pointer(ExifTag.exifIFD, in: ifd0.entries) {
            let exif = try directory(at: offset, warnings: &dirs.warnings)
            dirs.exif = try values(of: exif.entries, wanted: ExifTag.wantedExif)
        }
        if let offset = pointer(ExifTag.gpsIFD, in: ifd0.entries) {
            let gps = try directory(at: offset, warnings: &dirs.warnings)
            dirs.gps = try values(of: gps.entries, wanted: ExifTag.wantedGPS)
        }
        return (dirs, ifd0.entries)
    }
}
