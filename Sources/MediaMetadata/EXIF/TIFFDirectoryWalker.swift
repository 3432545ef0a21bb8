/// A bounded reader of TIFF image file directories (IFDs) over a byte source.
///
/// libexif caps its input at 64 KiB (`exif_data_load_data` clamps the length to
/// 0xFFFE), which is right for a JPEG APP1 segment but loses directories that sit
/// further into a TIFF file or raw. This walker reads only the directories and values
/// asked for, straight from the source, so a TIFF file is never loaded whole.
///
/// BigTIFF (magic 43) is read too: 8-byte offsets, 20-byte entries whose count and
/// value/offset field are 8 bytes, and 8-byte directory entry counts.
struct TIFFDirectoryWalker {
    /// One directory entry (12 bytes, 20 in BigTIFF), its value not yet read.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt64
        /// The value/offset field (4 bytes, 8 in BigTIFF), in file byte order.
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
    let firstDirectoryOffset: UInt64
    /// Whether this is BigTIFF (magic 43): 8-byte offsets and counts.
    let isBigTIFF: Bool

    /// Bytes of one directory entry.
    private var entrySize: Int { isBigTIFF ? 20 : 12 }
    /// Bytes of an offset, and of the value field that holds small values inline.
    private var offsetSize: Int { isBigTIFF ? 8 : 4 }

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
        if isBigTIFF {
            // Bytes 4–5 give the offset size (always 8), 6–7 are zero, 8–15 the first IFD.
            let rest = try source.read(at: base + 8, count: 8)
            guard rest.count == 8 else { throw MetadataError.truncated("the BigTIFF header is cut short") }
            guard TIFFDirectoryWalker.u16(header, 4, littleEndian) == 8 else {
                throw MetadataError.malformed("the BigTIFF header states an offset size other than 8")
            }
            firstDirectoryOffset = TIFFDirectoryWalker.u64(rest, 0, littleEndian)
        } else {
            // Raw variants put other magic numbers here (ORF 0x4F52/0x5352, RW2 0x55); the
            // directory layout is the same.
            firstDirectoryOffset = UInt64(TIFFDirectoryWalker.u32(header, 4, littleEndian))
        }
    }

    /// A walker over a directory without a TIFF header (Apple's maker note), whose
    /// offsets count from `base`.
    init(source: ByteSource, base: UInt64, littleEndian: Bool, firstDirectoryOffset: UInt64) {
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

    static func u64(_ b: [UInt8], _ at: Int, _ le: Bool) -> UInt64 {
        guard at >= 0, at + 8 <= b.count else { return 0 }
        let high = UInt64(u32(b, le ? at + 4 : at, le)), low = UInt64(u32(b, le ? at : at + 4, le))
        return high << 32 | low
    }

    /// Reads the directory at `offset` (relative to the header): its entries that lie
    /// inside the file, and the offset of the next directory (0 when none).
    func directory(at offset: UInt64, warnings: inout [String]) throws -> (entries: [Entry], next: UInt64) {
        let (start, overflow) = base.addingReportingOverflow(offset)
        let countSize = isBigTIFF ? 8 : 2
        let countBytes = overflow ? [] : try source.read(at: start, count: countSize)
        guard countBytes.count == countSize else {
            warnings.append("a TIFF directory offset (\(offset)) points past the end of the file")
            return ([], 0)
        }
        let declared = isBigTIFF ? TIFFDirectoryWalker.u64(countBytes, 0, littleEndian)
                                 : UInt64(TIFFDirectoryWalker.u16(countBytes, 0, littleEndian))
        var wanted = Int(min(declared, UInt64(TIFFDirectoryWalker.maxEntries)))
        if declared > UInt64(TIFFDirectoryWalker.maxEntries) {
            warnings.append("a TIFF directory claims \(declared) entries; only the first \(TIFFDirectoryWalker.maxEntries) are read")
            wanted = TIFFDirectoryWalker.maxEntries
        }
        let entrySize = self.entrySize
        let body = try source.read(at: start + UInt64(countSize), count: wanted * entrySize + offsetSize)
        let present = min(wanted, body.count / entrySize)
        if present < wanted {
            // Like exiftool, drop a directory that runs past the end: its entries are
            // more likely garbage than data.
            warnings.append("a TIFF directory claims \(declared) entries but the file ends after \(present); it was ignored")
            return ([], 0)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(present)
        for i in 0..<present {
            let p = i * entrySize
            let count = isBigTIFF ? TIFFDirectoryWalker.u64(body, p + 4, littleEndian)
                                  : UInt64(TIFFDirectoryWalker.u32(body, p + 4, littleEndian))
            let fieldStart = isBigTIFF ? p + 12 : p + 8
            entries.append(Entry(tag: TIFFDirectoryWalker.u16(body, p, littleEndian),
                                 type: TIFFDirectoryWalker.u16(body, p + 2, littleEndian),
                                 count: count,
                                 field: Array(body[fieldStart..<(p + entrySize)])))
        }
        let nextAt = wanted * entrySize
        let next = body.count >= nextAt + offsetSize ? offsetValue(body, nextAt) : 0
        return (entries, next)
    }

    /// An offset (4 bytes, 8 in BigTIFF) at `at`.
    private func offsetValue(_ b: [UInt8], _ at: Int) -> UInt64 {
        isBigTIFF ? TIFFDirectoryWalker.u64(b, at, littleEndian) : UInt64(TIFFDirectoryWalker.u32(b, at, littleEndian))
    }

    /// Reads an entry's value: inline when it fits in the value field, else at its
    /// offset. Nil for an unknown type, an oversized value or one past the end of the file.
    func value(of entry: Entry) throws -> ExifValue? {
        guard let size = ExifValue.componentSize(of: entry.type),
              entry.count <= UInt64(TIFFDirectoryWalker.maxValueBytes) else { return nil }
        let total = Int(entry.count) * size
        guard total <= TIFFDirectoryWalker.maxValueBytes else { return nil }
        let bytes: [UInt8]
        if total <= entry.field.count {
            bytes = Array(entry.field[0..<total])
        } else {
            let (start, overflow) = base.addingReportingOverflow(offsetValue(entry.field, 0))
            guard !overflow else { return nil }
            bytes = try source.read(at: start, count: total)
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
    func pointer(_ tag: UInt16, in entries: [Entry]) -> UInt64? {
        guard let entry = entries.first(where: { $0.tag == tag }), entry.count >= 1 else { return nil }
        let offset: UInt64
        switch entry.type {
        case 3: offset = UInt64(TIFFDirectoryWalker.u16(entry.field, 0, littleEndian))
        case 4, 13: offset = UInt64(TIFFDirectoryWalker.u32(entry.field, 0, littleEndian))
        case 16, 18: offset = TIFFDirectoryWalker.u64(entry.field, 0, littleEndian)  // BigTIFF LONG8, IFD8
        default: return nil
        }
        return offset == 0 ? nil : offset
    }

    /// IFD0, the Exif IFD and the GPS IFD, reading only the tags the index uses.
    func exifDirectories() throws -> (directories: ExifDirectories, ifd0Entries: [Entry]) {
        var dirs = ExifDirectories()
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
