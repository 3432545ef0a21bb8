import MediaMetadata

/// Finds embedded JPEG images (EXIF thumbnails, raw previews) through TIFF directories.
///
/// A small bounded walker of its own: the metadata layer's is internal, and this one
/// needs only offsets and lengths, never values.
struct TIFFPreviewLocator {
    /// One embedded JPEG: where it starts and how long it says it is.
    struct Candidate: Hashable {
        var offset: UInt64
        var length: UInt64
    }

    /// Directories visited in total (IFD chain and SubIFDs); real files have under ten.
    static let maxDirectories = 32
    static let maxEntries = 1024

    let source: ByteSource
    let base: UInt64
    let littleEndian: Bool
    let firstDirectory: UInt32

    /// Reads the TIFF header at `base`; nil when there is none.
    init?(source: ByteSource, base: UInt64 = 0) {
        guard let header = try? source.read(at: base, count: 8), header.count == 8 else { return nil }
        switch (header[0], header[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.source = source
        self.base = base
        firstDirectory = TIFFPreviewLocator.u32(header, 4, littleEndian)
    }

    static func u16(_ b: [UInt8], _ at: Int, _ le: Bool) -> UInt32 {
        guard at >= 0, at + 2 <= b.count else { return 0 }
        return le ? UInt32(b[at]) | UInt32(b[at + 1]) << 8 : UInt32(b[at]) << 8 | UInt32(b[at + 1])
    }

    static func u32(_ b: [UInt8], _ at: Int, _ le: Bool) -> UInt32 {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        let x = (UInt32(b[at]), UInt32(b[at + 1]), UInt32(b[at + 2]), UInt32(b[at + 3]))
        return le ? x.0 | x.1 << 8 | x.2 << 16 | x.3 << 24 : x.0 << 24 | x.1 << 16 | x.2 << 8 | x.3
    }

    /// One directory's entries as (tag, type, count, first value) and the next directory's offset.
    func directory(at offset: UInt32) -> (entries: [(tag: UInt32, type: UInt32, count: UInt32, value: UInt32, field: [UInt8])], next: UInt32) {
        guard offset >= 8, let countBytes = try? source.read(at: base + UInt64(offset), count: 2),
              countBytes.count == 2 else { return ([], 0) }
        let count = min(Int(TIFFPreviewLocator.u16(countBytes, 0, littleEndian)), TIFFPreviewLocator.maxEntries)
        guard let body = try? source.read(at: base + UInt64(offset) + 2, count: count * 12 + 4),
              body.count >= count * 12 else { return ([], 0) }
        var entries: [(tag: UInt32, type: UInt32, count: UInt32, value: UInt32, field: [UInt8])] = []
        for i in 0..<count {
            let p = i * 12
            let type = TIFFPreviewLocator.u16(body, p + 2, littleEndian)
            let value = type == 3 ? TIFFPreviewLocator.u16(body, p + 8, littleEndian) : TIFFPreviewLocator.u32(body, p + 8, littleEndian)
            entries.append((TIFFPreviewLocator.u16(body, p, littleEndian), type,
                            TIFFPreviewLocator.u32(body, p + 4, littleEndian), value, Array(body[(p + 8)..<(p + 12)])))
        }
        let next = body.count >= count * 12 + 4 ? TIFFPreviewLocator.u32(body, count * 12, littleEndian) : 0
        return (entries, next)
    }

    /// The JPEG thumbnail of IFD1 (EXIF's thumbnail), when there is one.
    func exifThumbnail() -> Candidate? {
        let ifd0 = directory(at: firstDirectory)
        guard ifd0.next != 0 else { return nil }
        let ifd1 = directory(at: ifd0.next)
        return interchangeFormat(in: ifd1.entries)
    }

    private func interchangeFormat(in entries: [(tag: UInt32, type: UInt32, count: UInt32, value: UInt32, field: [UInt8])]) -> Candidate? {
        guard let start = entries.first(where: { $0.tag == 0x0201 })?.value,
              let length = entries.first(where: { $0.tag == 0x0202 })?.value,
              start > 0, length > 0 else { return nil }
        return Candidate(offset: base + UInt64(start), length: UInt64(length))
    }

    /// Every JPEG the directories point at: IFD chain, SubIFDs, strips of JPEG-compressed
    /// directories, and Panasonic's JpgFromRaw (tag 0x002E).
    func allCandidates() -> [Candidate] {
        var found: [Candidate] = []
        var queue: [UInt32] = [firstDirectory]
        var visited: Set<UInt32> = []
        while let offset = queue.first, visited.count < TIFFPreviewLocator.maxDirectories {
            queue.removeFirst()
            guard offset != 0, visited.insert(offset).inserted else { continue }
            let dir = directory(at: offset)
            let entries = dir.entries
            if let candidate = interchangeFormat(in: entries) { found.append(candidate) }
            let compression = entries.first(where: { $0.tag == 0x0103 })?.value ?? 0
            if compression == 6 || compression == 7,
               let strip = entries.first(where: { $0.tag == 0x0111 }), strip.count == 1,
               let bytes = entries.first(where: { $0.tag == 0x0117 }), bytes.count == 1, bytes.value > 0 {
                found.append(Candidate(offset: base + UInt64(strip.value), length: UInt64(bytes.value)))
            }
            if let jpgFromRaw = entries.first(where: { $0.tag == 0x002E }), jpgFromRaw.count > 4 {
                found.append(Candidate(offset: base + UInt64(jpgFromRaw.value), length: UInt64(jpgFromRaw.count)))
            }
            if let sub = entries.first(where: { $0.tag == 0x014A }) {
                let n = min(Int(sub.count), 16)
                if n == 1 {
                    queue.append(sub.value)
                } else if n > 1, let list = try? source.read(at: base + UInt64(sub.value), count: n * 4), list.count == n * 4 {
                    for i in 0..<n { queue.append(TIFFPreviewLocator.u32(list, i * 4, littleEndian)) }
                }
            }
            if dir.next != 0 { queue.append(dir.next) }
        }
        return found
    }
}
