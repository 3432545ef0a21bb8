/// A file's EXIF block, read whole and rewritten for a rendition that is stored upright:
/// what a compatible JPEG carries in its APP1 segment.
public enum ExifRendition {
    /// The EXIF block (from its TIFF header on) of a JPEG's APP1 segment or a HEIF's or
    /// AVIF's `Exif` item; nil when the file has none or it cannot be read.
    public static func block(in source: ByteSource, format: MediaFormat) -> [UInt8]? {
        switch format {
        case .jpeg:
            guard let segments = try? JPEGSegments.read(source), let range = try? segments.exifBlock(in: source),
                  let bytes = try? source.read(at: range.lowerBound, count: Int(range.upperBound - range.lowerBound)) else { return nil }
            return bytes
        case .heic, .heif, .avif:
            guard let items = try? HEIFItems.read(source) else { return nil }
            let described = items.primaryID.map { Set(items.items(referencing: $0, by: "cdsc")) } ?? []
            let exif = items.items.values.filter { $0.type == "Exif" }
                .sorted { (described.contains($0.id) ? 0 : 1, $0.id) < (described.contains($1.id) ? 0 : 1, $1.id) }.first
            guard let exif, let item = try? items.data(of: exif.id, source: source, limit: 1 << 20) else { return nil }
            return ISOBMFFReader.exifBlock(item)
        default:
            return nil
        }
    }

    /// `block` with its orientation (IFD0 tag 0x0112) set to 1, and, with `omitLocation`,
    /// its GPS directory emptied (entries and values zeroed) and unlinked from IFD0. Nil
    /// for a block whose TIFF header or IFD0 is unreadable.
    public static func rewritten(_ block: [UInt8], omitLocation: Bool) -> [UInt8]? {
        var bytes = block
        guard bytes.count >= 8 else { return nil }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? { Self.u16(bytes, at, little) }
        func u32(_ at: Int) -> Int? { Self.u32(bytes, at, little) }
        guard let ifd0 = u32(4), let count = u16(ifd0), ifd0 + 2 + count * 12 + 4 <= bytes.count else { return nil }
        var gpsEntry: Int?
        for index in 0..<count {
            let entry = ifd0 + 2 + index * 12
            switch u16(entry) {
            case 0x0112:
                // SHORT, count 1: the value sits in the entry's first two value bytes.
                bytes[entry + 8] = little ? 1 : 0
                bytes[entry + 9] = little ? 0 : 1
            case 0x8825: gpsEntry = index
            default: break
            }
        }
        if omitLocation, let gpsEntry, let gps = u32(ifd0 + 2 + gpsEntry * 12 + 8) {
            zeroDirectory(at: gps, in: &bytes, little: little)
            // Entries after the pointer (and the next-IFD offset) move up one place.
            let start = ifd0 + 2 + gpsEntry * 12, end = ifd0 + 2 + count * 12 + 4
            bytes.replaceSubrange(start..<end, with: Array(bytes[(start + 12)..<end]) + [UInt8](repeating: 0, count: 12))
            let newCount = count - 1
            bytes[ifd0] = UInt8(little ? newCount & 0xFF : newCount >> 8)
            bytes[ifd0 + 1] = UInt8(little ? newCount >> 8 : newCount & 0xFF)
        }
        return bytes
    }

    /// Zeroes a directory's entries and the values they point to.
    private static func zeroDirectory(at offset: Int, in bytes: inout [UInt8], little: Bool) {
        guard let count = u16(bytes, offset, little), offset + 2 + count * 12 <= bytes.count else { return }
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8]
        for index in 0..<count {
            let entry = offset + 2 + index * 12
            guard let type = u16(bytes, entry + 2, little), let number = u32(bytes, entry + 4, little),
                  let size = sizes[type], number < 1 << 24 else { continue }
            let length = size * number
            if length > 4, let value = u32(bytes, entry + 8, little), value + length <= bytes.count {
                bytes.replaceSubrange(value..<(value + length), with: [UInt8](repeating: 0, count: length))
            }
        }
        bytes.replaceSubrange(offset..<(offset + 2 + count * 12), with: [UInt8](repeating: 0, count: 2 + count * 12))
    }

    private static func u16(_ bytes: [UInt8], _ at: Int, _ little: Bool) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
    }

    private static func u32(_ bytes: [UInt8], _ at: Int, _ little: Bool) -> Int? {
        guard let a = u16(bytes, at, little), let b = u16(bytes, at + 2, little) else { return nil }
        return little ? a | b << 16 : a << 16 | b
    }
}
