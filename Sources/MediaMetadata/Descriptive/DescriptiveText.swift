import Foundation

/// The one clean-up every descriptive text goes through: trimmed, bounded, NFC.
enum DescriptiveText {
    /// Longer texts are cut: a caption is a paragraph, not a book.
    static let maxCharacters = 4096
    /// More keywords than this in one family of tags is a loop or garbage.
    static let maxItems = 1000

    /// The text trimmed of spaces and NULs, normalised to NFC and cut at `maxCharacters`;
    /// nil when blank.
    static func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingSpacesAndNULs()
        guard !trimmed.isEmpty else { return nil }
        let cut = trimmed.count > maxCharacters ? String(trimmed.prefix(maxCharacters)) : trimmed
        if cut.utf8.allSatisfy({ $0 < 0x80 }) { return cut }
        return cut.precomposedStringWithCanonicalMapping
    }

    /// Each text cleaned, blanks dropped, at most `maxItems`.
    static func clean(_ texts: [String]) -> [String] {
        Array(texts.lazy.compactMap { clean($0) }.prefix(maxItems))
    }

    /// Windows-1252, as exiftool reads IPTC that declares no character set.
    static func windows1252(_ bytes: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            if (0x80...0x9F).contains(byte), let scalar = Unicode.Scalar(windows1252High[Int(byte) - 0x80]) {
                scalars.append(scalar)
            } else {
                scalars.append(Unicode.Scalar(byte))
            }
        }
        return String(scalars)
    }

    /// Windows-1252's characters for 0x80–0x9F (0 where the code page leaves a hole).
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// UCS-2 little-endian up to the first NUL unit, as Windows writes the `XP*` tags.
    static func ucs2LittleEndian(_ bytes: [UInt8]) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 0
        while index + 1 < bytes.count {
            let unit = UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
            if unit == 0 { break }
            units.append(unit)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// Whether a description is one a camera writes into every picture ("OLYMPUS DIGITAL
    /// CAMERA", "SONY DSC", "DCIM\100GOPRO\GOPR0482.JPG", its own make or a file name),
    /// not one a person wrote.
    static func isCameraPlaceholder(_ text: String, make: String?, model: String?) -> Bool {
        let upper = text.trimmingSpacesAndNULs().uppercased()
        if upper.isEmpty { return true }
        let exact: Set<String> = ["EXIF JPEG", "EXIF_JPEG_PICTURE", "DEFAULT", "CAMERA", "DIGITAL CAMERA",
                                  "SCREENSHOT", "DIGITAL STILL CAMERA"]
        if exact.contains(upper) { return true }
        for name in [make, model].compactMap({ $0?.trimmingSpacesAndNULs().uppercased() }) where !name.isEmpty {
            if upper == name || upper.hasPrefix(name + " ") && upper.hasSuffix("CAMERA") { return true }
        }
        if upper.hasSuffix(" DIGITAL CAMERA") || upper.hasSuffix(" DSC") || upper.hasSuffix(" DSC PICTURE") { return true }
        if upper.hasPrefix("DCIM\\") || upper.hasPrefix("DCIM/") { return true }
        if upper.hasPrefix("<"), upper.hasSuffix(">") { return true }
        return isCameraFileName(upper)
    }

    /// `DSC00019`, `IMG_1234`, `P1010001`, `GOPR0482.JPG`: a camera's name for the file.
    private static func isCameraFileName(_ upper: String) -> Bool {
        var stem = Substring(upper)
        if let dot = stem.lastIndex(of: "."), stem.distance(from: dot, to: stem.endIndex) <= 5 { stem = stem[..<dot] }
        let prefixes = ["DSCF", "DSCN", "DSC", "IMG", "PICT", "CIMG", "GOPR", "DJI", "PXL", "SAM", "P"]
        guard let prefix = prefixes.first(where: { stem.hasPrefix($0) }) else { return false }
        var rest = stem.dropFirst(prefix.count)
        if rest.first == "_" || rest.first == "-" { rest = rest.dropFirst() }
        return rest.count >= 3 && rest.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "_") }
    }
}
