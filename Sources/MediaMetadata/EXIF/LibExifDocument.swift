import CExif

/// An `ExifData` handle from libexif, loaded from one EXIF block and freed on release.
///
/// Options: libexif's defaults drop tags it does not know in an IFD
/// (`IGNORE_UNKNOWN_TAGS`, which would lose OffsetTime* on older tables) and rewrite
/// the data to the specification (`FOLLOW_SPECIFICATION`, which adds default entries
/// such as an invented orientation). Both are cleared so we see what the file says.
final class LibExifDocument {
    /// The largest block libexif reads whole: `exif_data_load_data` clamps its input to
    /// 0xFFFE bytes (the APP1 limit), counting the 6-byte `Exif\0\0` header.
    static let maxBlockBytes = 0xFFFE

    private let data: OpaquePointer

    /// Loads `tiff` (a block starting with the TIFF header) with `exif_data_load_data`.
    /// Nil when libexif cannot allocate.
    init?(tiff: ArraySlice<UInt8>) {
        guard let handle = exif_data_new() else { return nil }
        data = OpaquePointer(handle)
        exif_data_unset_option(handle, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_unset_option(handle, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        // libexif wants the `Exif\0\0` prefix (otherwise it hunts for JPEG markers).
        var block: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        block.reserveCapacity(tiff.count + 6)
        block.append(contentsOf: tiff)
        block.withUnsafeBufferPointer { buffer in
            exif_data_load_data(handle, buffer.baseAddress, UInt32(buffer.count))
        }
    }

    deinit { exif_data_unref(UnsafeMutablePointer<ExifData>(data)) }

    private var handle: UnsafeMutablePointer<ExifData> { UnsafeMutablePointer<ExifData>(data) }

    /// The wanted fields of IFD0, the Exif IFD and the GPS IFD.
    func directories() -> ExifDirectories {
        var dirs = ExifDirectories()
        let littleEndian = exif_data_get_byte_order(handle) == EXIF_BYTE_ORDER_INTEL
        let ifds = handle.pointee.ifd
        dirs.ifd0 = values(of: ifds.0, wanted: ExifTag.wantedIFD0, littleEndian: littleEndian)
        dirs.exif = values(of: ifds.2, wanted: ExifTag.wantedExif, littleEndian: littleEndian)
        dirs.gps = values(of: ifds.3, wanted: ExifTag.wantedGPS, littleEndian: littleEndian)
        return dirs
    }

    private func values(of content: UnsafeMutablePointer<ExifContent>?, wanted: Set<UInt16>,
                        littleEndian: Bool) -> [UInt16: ExifValue] {
        guard let content, let entries = content.pointee.entries else { return [:] }
        var result: [UInt16: ExifValue] = [:]
        for i in 0..<Int(content.pointee.count) {
            guard let entry = entries[i] else { continue }
            let tag = UInt16(truncatingIfNeeded: entry.pointee.tag.rawValue)
            guard wanted.contains(tag), result[tag] == nil, let bytes = entry.pointee.data else { continue }
            let size = Int(entry.pointee.size)
            let type = UInt16(truncatingIfNeeded: entry.pointee.format.rawValue)
            guard let component = ExifValue.componentSize(of: type) else { continue }
            let count = min(Int(clamping: entry.pointee.components), size / component)
            result[tag] = ExifValue(type: type, count: count,
                                    bytes: Array(UnsafeBufferPointer(start: bytes, count: size)),
                                    littleEndian: littleEndian)
        }
        return result
    }
}
