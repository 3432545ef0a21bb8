/// The few facts the thumbnailer needs from a JPEG's header segments: where the EXIF
/// block is, and whether an Adobe APP14 segment marks CMYK as inverted.
struct JPEGSegments {
    /// The EXIF TIFF block (after `Exif\0\0`), as a range of the data.
    var exif: Range<Int>?
    /// Whether an Adobe APP14 segment is present (Photoshop stores CMYK inverted).
    var hasAdobeMarker = false

    /// A JPEG has a few dozen segments before its scan; more means garbage.
    static let maxSegments = 1024

    /// Walks the markers up to the first scan, bounded; stops quietly at anything odd.
    init(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return }
        var offset = 2
        for _ in 0..<JPEGSegments.maxSegments {
            guard offset + 4 <= data.count, data[offset] == 0xFF else { return }
            let marker = data[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            guard length >= 2 else { return }
            let payload = offset + 4
            let end = min(data.count, offset + 2 + length)
            if marker == 0xE1, exif == nil, end - payload > 14,
               data[payload] == 0x45, data[payload + 1] == 0x78, data[payload + 2] == 0x69,
               data[payload + 3] == 0x66, data[payload + 4] == 0, data[payload + 5] == 0 {
                exif = (payload + 6)..<end
            } else if marker == 0xEE, end - payload >= 5,
                      data[payload] == 0x41, data[payload + 1] == 0x64, data[payload + 2] == 0x6F,
                      data[payload + 3] == 0x62, data[payload + 4] == 0x65 {
                hasAdobeMarker = true
            }
            offset += 2 + length
        }
    }
}
