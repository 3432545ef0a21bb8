/// One TIFF/EXIF field as stored: its type code, component count and raw bytes in
/// the file's byte order. Both the libexif path and the TIFF walker produce these,
/// so one mapper turns them into `MediaMetadata` fields.
struct ExifValue: Sendable {
    /// TIFF type code: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL, 6 SBYTE, 7 UNDEFINED,
    /// 8 SSHORT, 9 SLONG, 10 SRATIONAL, 11 FLOAT, 12 DOUBLE, 13 IFD; BigTIFF's 16 LONG8,
    /// 17 SLONG8, 18 IFD8.
    var type: UInt16
    var count: Int
    var bytes: [UInt8]
    var littleEndian: Bool

    /// Bytes per component of a TIFF type, or nil for an unknown type.
    static func componentSize(of type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12, 16, 17, 18: return 8
        default: return nil
        }
    }

    /// The text of an ASCII (or UNDEFINED) field: up to the first NUL, trimmed, decoded
    /// as UTF-8 when valid and as Latin-1 otherwise; nil when blank.
    var string: String? {
        var end = bytes.count
        if let nul = bytes.firstIndex(of: 0) { end = nul }
        let text = ExifValue.decodeLeniently(bytes[0..<end]).trimmingSpacesAndNULs()
        return text.isEmpty ? nil : text
    }

    static func decodeLeniently(_ bytes: ArraySlice<UInt8>) -> String {
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    private func unsigned(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, offset + width <= bytes.count else { return nil }
        var value: UInt64 = 0
        for i in 0..<width {
            let byte = UInt64(bytes[offset + (littleEndian ? width - 1 - i : i)])
            value = value << 8 | byte
        }
        return value
    }

    /// The integer at component `index` of a BYTE/SHORT/LONG (or signed) field.
    func integer(at index: Int = 0) -> Int? {
        guard index >= 0, index < count else { return nil }
        switch type {
        case 1, 7: return unsigned(at: index, width: 1).map { Int($0) }
        case 6: return unsigned(at: index, width: 1).map { Int(Int8(truncatingIfNeeded: $0)) }
        case 3: return unsigned(at: index * 2, width: 2).map { Int($0) }
        case 8: return unsigned(at: index * 2, width: 2).map { Int(Int16(truncatingIfNeeded: $0)) }
        case 4: return unsigned(at: index * 4, width: 4).map { Int($0) }
        case 9: return unsigned(at: index * 4, width: 4).map { Int(Int32(truncatingIfNeeded: $0)) }
        case 13: return unsigned(at: index * 4, width: 4).map { Int($0) }
        case 16, 18: return unsigned(at: index * 8, width: 8).flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil }
        case 17: return unsigned(at: index * 8, width: 8).map { Int(Int64(bitPattern: $0)) }
        default: return nil
        }
    }

    /// The number at component `index` of a RATIONAL/SRATIONAL/FLOAT/DOUBLE or integer
    /// field; nil for a zero denominator.
    func number(at index: Int = 0) -> Double? {
        guard index >= 0, index < count else { return nil }
        switch type {
        case 5, 10:
            guard let n = unsigned(at: index * 8, width: 4), let d = unsigned(at: index * 8 + 4, width: 4) else { return nil }
            if type == 10 {
                let sn = Int32(truncatingIfNeeded: n), sd = Int32(truncatingIfNeeded: d)
                return sd == 0 ? nil : Double(sn) / Double(sd)
            }
            return d == 0 ? nil : Double(n) / Double(d)
        case 11:
            return unsigned(at: index * 4, width: 4).map { Double(Float(bitPattern: UInt32($0))) }
        case 12:
            return unsigned(at: index * 8, width: 8).map { Double(bitPattern: $0) }
        default:
            return integer(at: index).map(Double.init)
        }
    }
}

/// The fields the index uses from the three EXIF directories (the Exif IFD's
/// MakerNote included, for Apple's identifiers).
struct ExifDirectories: Sendable {
    var ifd0: [UInt16: ExifValue] = [:]
    var exif: [UInt16: ExifValue] = [:]
    var gps: [UInt16: ExifValue] = [:]
    var warnings: [String] = []

    var isEmpty: Bool { ifd0.isEmpty && exif.isEmpty && gps.isEmpty }
}

/// Tag numbers used by the mapper and the walker.
enum ExifTag {
    /// Exif IFD `UserComment`: an 8-byte character-code prefix, then the text.
    static let userComment: UInt16 = 0x9286
    // IFD0
    static let imageWidth: UInt16 = 0x0100, imageLength: UInt16 = 0x0101
    static let make: UInt16 = 0x010F, model: UInt16 = 0x0110, orientation: UInt16 = 0x0112
    static let software: UInt16 = 0x0131, dateTime: UInt16 = 0x0132
    static let subIFDs: UInt16 = 0x014A, newSubfileType: UInt16 = 0x00FE
    static let exifIFD: UInt16 = 0x8769, gpsIFD: UInt16 = 0x8825
    static let dngVersion: UInt16 = 0xC612
    // Exif IFD
    static let exposureTime: UInt16 = 0x829A, fNumber: UInt16 = 0x829D, iso: UInt16 = 0x8827
    static let dateTimeOriginal: UInt16 = 0x9003, dateTimeDigitized: UInt16 = 0x9004
    static let offsetTime: UInt16 = 0x9010, offsetTimeOriginal: UInt16 = 0x9011, offsetTimeDigitized: UInt16 = 0x9012
    static let flash: UInt16 = 0x9209, focalLength: UInt16 = 0x920A, makerNote: UInt16 = 0x927C
    static let subSecTime: UInt16 = 0x9290, subSecTimeOriginal: UInt16 = 0x9291, subSecTimeDigitized: UInt16 = 0x9292
    static let pixelXDimension: UInt16 = 0xA002, pixelYDimension: UInt16 = 0xA003
    static let lensMake: UInt16 = 0xA433, lensModel: UInt16 = 0xA434
    // GPS IFD
    static let gpsLatitudeRef: UInt16 = 0x0001, gpsLatitude: UInt16 = 0x0002
    static let gpsLongitudeRef: UInt16 = 0x0003, gpsLongitude: UInt16 = 0x0004
    static let gpsAltitudeRef: UInt16 = 0x0005, gpsAltitude: UInt16 = 0x0006
    static let gpsTimeStamp: UInt16 = 0x0007, gpsDateStamp: UInt16 = 0x001D

    static let imageDescription: UInt16 = 0x010E, artist: UInt16 = 0x013B, copyright: UInt16 = 0x8298
    static let rating: UInt16 = 0x4746, ratingPercent: UInt16 = 0x4749
    static let xpTitle: UInt16 = 0x9C9B, xpComment: UInt16 = 0x9C9C, xpAuthor: UInt16 = 0x9C9D, xpKeywords: UInt16 = 0x9C9E
    /// TIFF's IPTC-NAA block (0x83BB) and Photoshop resources (0x8649).
    static let iptcNAA: UInt16 = 0x83BB, photoshopResources: UInt16 = 0x8649
    static let descriptiveIFD0: Set<UInt16> = [imageDescription, artist, copyright, rating, ratingPercent,
                                               xpTitle, xpComment, xpAuthor, xpKeywords, iptcNAA, photoshopResources]

    static let wantedIFD0 = Set<UInt16>([imageWidth, imageLength, make, model, orientation, software,
                                         dateTime, subIFDs, newSubfileType, exifIFD, gpsIFD, dngVersion])
        .union(descriptiveIFD0)
    static let wantedExif: Set<UInt16> = [exposureTime, fNumber, iso, dateTimeOriginal, dateTimeDigitized,
                                          offsetTime, offsetTimeOriginal, offsetTimeDigitized, flash, focalLength,
                                          subSecTime, subSecTimeOriginal, subSecTimeDigitized,
                                          pixelXDimension, pixelYDimension, lensMake, lensModel, makerNote,
                                          userComment, rating]
    static let wantedGPS: Set<UInt16> = [gpsLatitudeRef, gpsLatitude, gpsLongitudeRef, gpsLongitude,
                                         gpsAltitudeRef, gpsAltitude, gpsTimeStamp, gpsDateStamp]
}
