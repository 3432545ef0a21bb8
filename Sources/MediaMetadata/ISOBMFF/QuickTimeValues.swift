/// Parsers for the text values QuickTime and MP4 metadata carry.
enum QuickTimeValues {
    /// Parses an ISO 6709 point such as `+48.8584+002.2945+035.000/` or
    /// `+4851.50+00217.67/` (degrees, degrees-minutes or degrees-minutes-seconds).
    ///
    /// Returns nil when the text is not a plausible point.
    static func location(iso6709 text: String) -> GeoLocation? {
        // Split into signed numeric fields: each starts with '+' or '-'.
        var fields: [String] = []
        for character in text {
            if character == "+" || character == "-" {
                fields.append(String(character))
            } else if character.isASCII, character.isNumber || character == "." {
                guard !fields.isEmpty else { return nil }
                fields[fields.count - 1].append(character)
            } else if character == "/" || character == "C" || character == "R" {
                break  // end of point, or a coordinate reference system marker
            } else if character == " " || character == "\0" {
                continue
            } else {
                return nil
            }
        }
        guard fields.count >= 2,
              let latitude = angle(fields[0], degreeDigits: 2),
              let longitude = angle(fields[1], degreeDigits: 3) else { return nil }
        let altitude = fields.count >= 3 ? Double(fields[2]) : nil
        let point = GeoLocation(latitude: latitude, longitude: longitude, altitude: altitude)
        return point.isPlausible ? point : nil
    }

    /// One ISO 6709 coordinate: `±DD.D`, `±DDMM.M` or `±DDMMSS.S` (three degree
    /// digits for longitude).
    private static func angle(_ field: String, degreeDigits: Int) -> Double? {
        guard let sign = field.first else { return nil }
        let body = field.dropFirst()
        let integerPart = body.prefix { $0 != "." }
        let fraction = body.dropFirst(integerPart.count)
        guard !integerPart.isEmpty, integerPart.allSatisfy(\.isNumber) else { return nil }
        let value: Double
        switch integerPart.count - degreeDigits {
        case 0:
            guard let v = Double(body) else { return nil }
            value = v
        case 2:
            guard let d = Double(integerPart.prefix(degreeDigits)),
                  let m = Double(integerPart.dropFirst(degreeDigits) + fraction) else { return nil }
            value = d + m / 60
        case 4:
            guard let d = Double(integerPart.prefix(degreeDigits)),
                  let m = Double(integerPart.dropFirst(degreeDigits).prefix(2)),
                  let s = Double(integerPart.dropFirst(degreeDigits + 2) + fraction) else { return nil }
            value = d + m / 60 + s / 3600
        default:
            // Some writers drop leading zeros (`+8.5+2.3/`): read plain degrees.
            guard let v = Double(body) else { return nil }
            value = v
        }
        return sign == "-" ? -value : value
    }

    /// Parses an ISO 8601 date-time as QuickTime writes it: `2019-02-12T15:27:12+0800`,
    /// `2023-07-14T21:30:00.123Z`, `2011-05-10 12:30:00 +02:00`. The offset is kept when present.
    static func date(iso8601 text: String) -> CaptureDate? {
        let trimmed = text.trimmingSpacesAndNULs()
        let scalars = Array(trimmed.unicodeScalars)
        // The time part starts after the date's 10 characters; an offset sign or `Z`
        // after that position belongs to the offset.
        var offsetStart: Int?
        if scalars.count > 10 {
            for index in stride(from: scalars.count - 1, through: 11, by: -1) {
                let s = scalars[index]
                if s == "+" || s == "-" || s == "Z" { offsetStart = index; break }
            }
        }
        let dateTimeText: String
        var offsetText: String?
        if let start = offsetStart {
            dateTimeText = String(String.UnicodeScalarView(scalars[..<start]))
            offsetText = String(String.UnicodeScalarView(scalars[start...]))
        } else {
            dateTimeText = trimmed
        }
        var subseconds: String?
        var main = dateTimeText
        if let dot = dateTimeText.firstIndex(of: "."), dateTimeText.distance(from: dateTimeText.startIndex, to: dot) >= 16 {
            subseconds = String(dateTimeText[dateTimeText.index(after: dot)...]).trimmingSpacesAndNULs()
            main = String(dateTimeText[..<dot])
        }
        return CaptureDate(exif: main, subseconds: subseconds, offset: offsetText)
    }

    /// Seconds between 1904-01-01 (the QuickTime epoch) and 1970-01-01.
    static let quickTimeEpochOffset: Double = 2_082_844_800

    /// The UTC date of a QuickTime timestamp (seconds since 1904); nil for 0 (unknown).
    static func date(quickTimeSeconds seconds: UInt64) -> CaptureDate? {
        guard seconds > 0, seconds < 1 << 40 else { return nil }
        return CaptureDate(timestamp: Double(seconds) - quickTimeEpochOffset, utcOffsetSeconds: 0)
    }
}

extension QuickTimeDescription {
    /// A movie's keywords, title, description, artist and copyright: Apple's `mdta` keys
    /// (`com.apple.quicktime.keywords` …), else the `udta`/`ilst` atoms (`©key`, `©nam`,
    /// `©des`, `©ART`, `cprt`/`©cpy`; 3GPP's `titl`, `dscp`, `kywd`, `auth`). Keywords are one string, split at commas and semicolons.
    init(keyed: [String: MetadataValue], atoms: [FourCC: MetadataValue]) {
        func text(_ key: String, _ atomNames: [FourCC]) -> String? {
            DescriptiveText.clean(keyed["com.apple.quicktime." + key]?.text)
                ?? atomNames.lazy.compactMap { DescriptiveText.clean(atoms[$0]?.text) }.first
        }
        let keywordText = text("keywords", ["\u{A9}key", "kywd"])
        keywords = DescriptiveText.clean(keywordText?.split(whereSeparator: { $0 == "," || $0 == ";" }).map(String.init) ?? [])
        title = text("title", ["\u{A9}nam", "titl"])
        description = text("description", ["\u{A9}des", "dscp"])
        artist = text("artist", ["\u{A9}ART", "\u{A9}aut", "auth"])
        copyright = text("copyright", ["cprt", "\u{A9}cpy"])
    }
}
