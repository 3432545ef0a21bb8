/// Decodes EXIF blocks into `MediaMetadata` fields.
///
/// Small blocks (a JPEG APP1, a HEIC `Exif` item) go through libexif, which also reads
/// Apple's maker note. Blocks beyond libexif's 64 KiB limit go through the bounded
/// `TIFFDirectoryWalker`. Either way one mapper fills the fields, and only fields that
/// are still nil: container facts win.
public enum ExifDecoder {
    /// Fills the still-empty fields of `metadata` from an EXIF block.
    ///
    /// `block` is a TIFF header (`II*\0` / `MM\0*`) or `Exif\0\0` followed by one.
    /// Problems are added to `metadata.warnings`; this never throws.
    public static func apply(exif block: [UInt8], to metadata: inout MediaMetadata) {
        guard let directories = directories(of: block, warnings: &metadata.warnings) else { return }
        apply(directories, to: &metadata)
    }

    /// Fills the still-empty fields of `metadata` from a Canon CR3's TIFF blocks:
    /// `block` (`CMT1`, IFD0) and `extraBlocks` (`CMT2`, the Exif IFD; `CMT4`, the GPS
    /// IFD), each a TIFF structure whose first directory is that IFD.
    ///
    /// The blocks are merged before mapping, so the Exif IFD's `DateTimeOriginal`
    /// wins over IFD0's `DateTime` as it does in one EXIF block.
    public static func apply(exif block: [UInt8]?, extraBlocks: [[UInt8]], to metadata: inout MediaMetadata) {
        var merged = block.flatMap { directories(of: $0, warnings: &metadata.warnings) } ?? ExifDirectories()
        for extra in extraBlocks {
            let tiff = extra.starts(with: exifPrefix) ? Array(extra.dropFirst(6)) : extra
            do {
                let walker = try TIFFDirectoryWalker(source: MemoryByteSource(tiff))
                guard !walker.isBigTIFF else { continue }
                let first = try walker.directory(at: walker.firstDirectoryOffset, warnings: &merged.warnings)
                // The Exif and GPS tag numbers do not overlap, so the tags say which IFD this is.
                for (tag, value) in try walker.values(of: first.entries, wanted: ExifTag.wantedExif) where merged.exif[tag] == nil {
                    merged.exif[tag] = value
                }
                for (tag, value) in try walker.values(of: first.entries, wanted: ExifTag.wantedGPS) where merged.gps[tag] == nil {
                    merged.gps[tag] = value
                }
            } catch {
                metadata.warnings.append("a further EXIF block could not be read: \(error)")
            }
        }
        apply(merged, to: &metadata)
    }

    private static let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    /// The directories of one EXIF block (a TIFF header, or `Exif\0\0` and one), or nil
    /// with a warning when it cannot be read.
    static func directories(of block: [UInt8], warnings: inout [String]) -> ExifDirectories? {
        let start = block.starts(with: exifPrefix) ? 6 : 0
        let tiff = block[start...]
        guard tiff.count >= 8, (tiff.first == 0x49 || tiff.first == 0x4D) else {
            warnings.append("the EXIF block has no TIFF header and was ignored")
            return nil
        }
        if tiff.count + 6 <= LibExifDocument.maxBlockBytes, let document = LibExifDocument(tiff: tiff) {
            var dirs = document.directories()
            // libexif gives up on a whole directory it cannot load (and, past a broken
            // one, on those it would reach after it); the bounded walker reads each
            // directory on its own, so a directory libexif lost is taken from it.
            if dirs.ifd0.isEmpty || dirs.exif.isEmpty || dirs.gps.isEmpty,
               let walked = try? TIFFDirectoryWalker(source: MemoryByteSource(Array(tiff))).exifDirectories().directories {
                if dirs.ifd0.isEmpty { dirs.ifd0 = walked.ifd0 }
                if dirs.exif.isEmpty { dirs.exif = walked.exif }
                if dirs.gps.isEmpty { dirs.gps = walked.gps }
            }
            return dirs
        }
        do {
            let walker = try TIFFDirectoryWalker(source: MemoryByteSource(Array(tiff)))
            return try walker.exifDirectories().directories
        } catch {
            warnings.append("the EXIF block could not be read: \(error)")
            return nil
        }
    }

    private static let appleSignature: [UInt8] = Array("Apple iOS\0".utf8)

    /// The string tags of Apple's maker note: `Apple iOS\0`, a 2-byte version, a byte
    /// order mark at 12, then one directory at 14 whose offsets count from the note's
    /// start. Read here rather than through libexif's maker-note API, whose 0.6.24
    /// value formatting returned "b" for the content identifier instead of the UUID.
    static func appleMakerNote(_ note: ExifValue?) -> [UInt16: String] {
        guard let bytes = note?.bytes, bytes.count > 16, bytes.starts(with: appleSignature) else { return [:] }
        let littleEndian = bytes[12] == 0x49 && bytes[13] == 0x49
        let walker = TIFFDirectoryWalker(source: MemoryByteSource(bytes), base: 0,
                                         littleEndian: littleEndian, firstDirectoryOffset: 14)
        var warnings: [String] = []
        guard let directory = try? walker.directory(at: 14, warnings: &warnings),
              let values = try? walker.values(of: directory.entries, wanted: [0x0011, 0x000B]) else { return [:] }
        return values.compactMapValues { $0.type == 2 ? $0.string : nil }
    }

    /// Fills the still-empty fields of `metadata` from decoded directories.
    static func apply(_ dirs: ExifDirectories, to m: inout MediaMetadata) {
        m.warnings.append(contentsOf: dirs.warnings)
        let ifd0 = dirs.ifd0, exif = dirs.exif, gps = dirs.gps
        let makerNote = appleMakerNote(exif[ExifTag.makerNote])

        if m.captureDate == nil, let (date, source) = captureDateAndSource(ifd0: ifd0, exif: exif) {
            m.captureDate = date
            m.captureDateSource = source
        }
        if m.make == nil { m.make = ifd0[ExifTag.make]?.string }
        if m.model == nil { m.model = ifd0[ExifTag.model]?.string }
        if m.software == nil { m.software = ifd0[ExifTag.software]?.string }
        if m.lensMake == nil { m.lensMake = exif[ExifTag.lensMake]?.string }
        if m.lensModel == nil { m.lensModel = exif[ExifTag.lensModel]?.string }
        if m.focalLength == nil { m.focalLength = exif[ExifTag.focalLength]?.number() }
        if m.fNumber == nil { m.fNumber = exif[ExifTag.fNumber]?.number() }
        if m.exposureTime == nil { m.exposureTime = exif[ExifTag.exposureTime]?.number() }
        if m.iso == nil { m.iso = exif[ExifTag.iso]?.integer() }
        if m.flash == nil { m.flash = exif[ExifTag.flash]?.integer() }
        if m.orientation == nil, let o = ifd0[ExifTag.orientation]?.integer(), (1...8).contains(o) {
            m.orientation = isAlreadyTurned(m, orientation: o, exif: exif) ? 1 : o
        }
        if m.pixelWidth == nil && m.pixelHeight == nil,
           let w = exif[ExifTag.pixelXDimension]?.integer(), let h = exif[ExifTag.pixelYDimension]?.integer(),
           w > 0, h > 0 {
            m.pixelWidth = w
            m.pixelHeight = h
        }
        if m.location == nil { m.location = location(gps) }
        if m.gpsTimestamp == nil { m.gpsTimestamp = gpsTimestamp(gps) }
        if m.contentIdentifier == nil { m.contentIdentifier = makerNote[0x0011] }
        if m.burstIdentifier == nil { m.burstIdentifier = makerNote[0x000B] }
        if m.userComment == nil { m.userComment = userComment(exif[ExifTag.userComment]) }
        let description = ExifDescription(ifd0: ifd0, exif: exif, make: m.make, model: m.model)
        m.updateDescriptiveSources { sources in
            if sources.exif == ExifDescription() { sources.exif = description }
        }
    }

    /// Whether a HEIF without `irot`/`imir` holds pixels already turned the way its EXIF
    /// orientation says: the coded picture is portrait where EXIF's own pixel size of the
    /// unturned picture is landscape, or the reverse. Converters that rotate the pixels and
    /// keep the tag write these; applying the tag again would turn the picture sideways.
    /// (Samsung phones and early iOS write upright-needing pixels and rely on the tag.)
    static func isAlreadyTurned(_ m: MediaMetadata, orientation: Int, exif: [UInt16: ExifValue]) -> Bool {
        guard [.heic, .heif, .avif].contains(m.format), (5...8).contains(orientation),
              let codedWidth = m.pixelWidth, let codedHeight = m.pixelHeight,
              let exifWidth = exif[ExifTag.pixelXDimension]?.integer(),
              let exifHeight = exif[ExifTag.pixelYDimension]?.integer(),
              codedWidth != codedHeight, exifWidth != exifHeight else { return false }
        return (codedWidth > codedHeight) != (exifWidth > exifHeight)
    }

    /// DateTimeOriginal, else DateTimeDigitized, else IFD0 DateTime, each with its own
    /// sub-seconds and offset (falling back to OffsetTime).
    static func captureDate(ifd0: [UInt16: ExifValue], exif: [UInt16: ExifValue]) -> CaptureDate? {
        captureDateAndSource(ifd0: ifd0, exif: exif)?.date
    }

    /// The capture date with the tag it came from, in the order of `captureDate`.
    static func captureDateAndSource(ifd0: [UInt16: ExifValue], exif: [UInt16: ExifValue])
        -> (date: CaptureDate, source: CaptureDateSource)? {
        let generalOffset = exif[ExifTag.offsetTime]?.string
        let candidates: [(ExifValue?, UInt16, UInt16, CaptureDateSource)] = [
            (exif[ExifTag.dateTimeOriginal], ExifTag.subSecTimeOriginal, ExifTag.offsetTimeOriginal, .exifDateTimeOriginal),
            (exif[ExifTag.dateTimeDigitized], ExifTag.subSecTimeDigitized, ExifTag.offsetTimeDigitized, .exifDateTimeDigitized),
            (ifd0[ExifTag.dateTime], ExifTag.subSecTime, ExifTag.offsetTime, .exifDateTime),
        ]
        for (value, subSecTag, offsetTag, source) in candidates {
            guard let text = value?.string else { continue }
            // Some writers put an ISO 8601 date with its offset (`…T21:23:44Z`) here.
            let offset = exif[offsetTag]?.string ?? generalOffset ?? trailingOffset(text)
            if let date = CaptureDate(exif: text, subseconds: exif[subSecTag]?.string, offset: offset) {
                return (date, source)
            }
        }
        return nil
    }

    /// The `Z` or `±HH:MM` after a 19-character date and optional fraction, if any.
    static func trailingOffset(_ text: String) -> String? {
        let trimmed = text.trimmingSpacesAndNULs()
        guard trimmed.count > 19 else { return nil }
        let rest = trimmed.dropFirst(19).drop { $0 == "." || ($0.isASCII && $0.isNumber) }
        return rest.isEmpty ? nil : String(rest)
    }

    /// Degrees from a GPS coordinate triple (degrees, minutes, seconds).
    private static func degrees(_ value: ExifValue?) -> Double? {
        guard let value, let d = value.number(at: 0) else { return nil }
        let minutes = value.count > 1 ? (value.number(at: 1) ?? 0) : 0
        let seconds = value.count > 2 ? (value.number(at: 2) ?? 0) : 0
        let result = d + minutes / 60 + seconds / 3600
        return result.isFinite ? result : nil
    }

    /// `GPSDateStamp` (`YYYY:MM:DD`) with `GPSTimeStamp` (hours, minutes, seconds), UTC; nil when
    /// either is missing or out of range.
    static func gpsTimestamp(_ gps: [UInt16: ExifValue]) -> Double? {
        guard let stamp = gps[ExifTag.gpsDateStamp]?.string, let time = gps[ExifTag.gpsTimeStamp], time.count >= 3,
              let hours = time.number(at: 0), let minutes = time.number(at: 1), let seconds = time.number(at: 2),
              (0..<24).contains(hours), (0..<60).contains(minutes), (0..<61).contains(seconds),
              let day = CaptureDate(exif: stamp + " 00:00:00") else { return nil }
        return day.sortTimestamp + hours * 3600 + minutes * 60 + seconds
    }

    static func location(_ gps: [UInt16: ExifValue]) -> GeoLocation? {
        guard var latitude = degrees(gps[ExifTag.gpsLatitude]),
              var longitude = degrees(gps[ExifTag.gpsLongitude]) else { return nil }
        if gps[ExifTag.gpsLatitudeRef]?.string?.uppercased().first == "S" { latitude = -latitude }
        if gps[ExifTag.gpsLongitudeRef]?.string?.uppercased().first == "W" { longitude = -longitude }
        guard abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        var altitude = gps[ExifTag.gpsAltitude]?.number()
        if let a = altitude, gps[ExifTag.gpsAltitudeRef]?.integer() == 1 { altitude = -a }
        return GeoLocation(latitude: latitude, longitude: longitude, altitude: altitude)
    }
}
