@testable import MediaMetadata

/// Builds small big-endian TIFF/EXIF blocks and JPEGs byte by byte for tests.
enum Fixture {
    struct Field {
        var tag: UInt16
        var type: UInt16
        var count: Int
        var bytes: [UInt8]

        static func ascii(_ tag: UInt16, _ text: String) -> Field {
            let b = Array(text.utf8) + [0]
            return Field(tag: tag, type: 2, count: b.count, bytes: b)
        }
        static func short(_ tag: UInt16, _ v: UInt16) -> Field {
            Field(tag: tag, type: 3, count: 1, bytes: be16(v))
        }
        static func long(_ tag: UInt16, _ v: UInt32) -> Field {
            Field(tag: tag, type: 4, count: 1, bytes: be32(v))
        }
        static func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Field {
            Field(tag: tag, type: 5, count: values.count, bytes: values.flatMap { be32($0.0) + be32($0.1) })
        }
    }

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// A big-endian TIFF block: IFD0, and an Exif and a GPS IFD when given, with
    /// `padding` zero bytes between the header and IFD0 (to push past 64 KiB).
    static func tiff(ifd0: [Field], exif: [Field] = [], gps: [Field] = [], padding: Int = 0) -> [UInt8] {
        // Lay out the directories one after another, each followed by its values.
        func size(of fields: [Field]) -> Int {
            2 + fields.count * 12 + 4 + fields.reduce(0) { $0 + ($1.bytes.count > 4 ? $1.bytes.count + ($1.bytes.count & 1) : 0) }
        }
        var ifd0 = ifd0
        if !exif.isEmpty { ifd0.append(.long(0x8769, 0)) }
        if !gps.isEmpty { ifd0.append(.long(0x8825, 0)) }
        let ifd0Offset = 8 + padding
        let exifOffset = ifd0Offset + size(of: ifd0)
        let gpsOffset = exifOffset + (exif.isEmpty ? 0 : size(of: exif))
        ifd0 = ifd0.map { f in
            if f.tag == 0x8769 { return .long(0x8769, UInt32(exifOffset)) }
            if f.tag == 0x8825 { return .long(0x8825, UInt32(gpsOffset)) }
            return f
        }
        var out: [UInt8] = Array("MM".utf8) + be16(42) + be32(UInt32(ifd0Offset)) + [UInt8](repeating: 0, count: padding)
        func write(_ fields: [Field], at offset: Int) {
            let sorted = fields.sorted { $0.tag < $1.tag }
            var dataOffset = offset + 2 + sorted.count * 12 + 4
            var data: [UInt8] = []
            out += be16(UInt16(sorted.count))
            for f in sorted {
                out += be16(f.tag) + be16(f.type) + be32(UInt32(f.count))
                if f.bytes.count <= 4 {
                    out += f.bytes + [UInt8](repeating: 0, count: 4 - f.bytes.count)
                } else {
                    out += be32(UInt32(dataOffset))
                    let padded = f.bytes + (f.bytes.count & 1 == 1 ? [0] : [])
                    data += padded
                    dataOffset += padded.count
                }
            }
            out += be32(0) + data
        }
        write(ifd0, at: ifd0Offset)
        if !exif.isEmpty { write(exif, at: exifOffset) }
        if !gps.isEmpty { write(gps, at: gpsOffset) }
        return out
    }

    /// A TIFF block with the usual camera fields, GPS in the southern and western hemispheres.
    static var cameraTIFF: [UInt8] {
        tiff(ifd0: [.ascii(0x010F, "Apple"), .ascii(0x0110, "iPhone 12 Pro"), .short(0x0112, 6),
                    .ascii(0x0131, "17.1")],
             exif: [.ascii(0x9003, "2023:11:01 15:11:17"), .ascii(0x9291, "049"), .ascii(0x9011, "+01:00"),
                    .rationals(0x829D, [(16, 10)]), .rationals(0x829A, [(1, 120)]), .short(0x8827, 50),
                    .rationals(0x920A, [(42, 10)]), .short(0x9209, 16), .ascii(0xA434, "iPhone back camera"),
                    .long(0xA002, 4032), .long(0xA003, 3024)],
             gps: [.ascii(0x0001, "S"), .rationals(0x0002, [(33, 1), (52, 1), (1230, 100)]),
                   .ascii(0x0003, "W"), .rationals(0x0004, [(151, 1), (12, 1), (0, 1)]),
                   Field(tag: 0x0005, type: 1, count: 1, bytes: [1]), .rationals(0x0006, [(25, 2)])])
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(UInt16(payload.count + 2)) + payload
    }

    /// SOF0 for an 8-bit, 3-component frame.
    static func sof(width: UInt16, height: UInt16) -> [UInt8] {
        segment(0xC0, [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
    }

    /// A JPEG: SOI, APP1 EXIF (when given), SOF0, SOS and a little scan data, EOI.
    static func jpeg(exif: [UInt8]?, width: UInt16 = 100, height: UInt16 = 50) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        if let exif { out += segment(0xE1, Array("Exif\0\0".utf8) + exif) }
        out += sof(width: width, height: height)
        out += segment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + [0x12, 0x34, 0xFF, 0x00, 0x56] + [0xFF, 0xD9]
        return out
    }
}
