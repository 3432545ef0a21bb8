/// Everything the index records about one media file, as read from its bytes.
///
/// Every field is optional: a file with partial metadata is still an asset with what
/// could be read. Problems that did not stop the read are listed in `warnings`.
public struct MediaMetadata: Sendable, Equatable, Codable {
    /// The format, recognised by magic bytes.
    public var format: MediaFormat
    /// Stored (coded) pixel size, before orientation is applied.
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// EXIF orientation 1–8 (1 when the file says nothing).
    public var orientation: Int?
    /// When the picture was taken or the movie recorded.
    public var captureDate: CaptureDate?
    /// Which tag or structure `captureDate` came from (see `docs/fidelity.md` for the
    /// order of sources in each container); nil when there is no capture date.
    public var captureDateSource: CaptureDateSource?
    public var make: String?
    public var model: String?
    public var software: String?
    public var lensMake: String?
    public var lensModel: String?
    /// Focal length in millimetres.
    public var focalLength: Double?
    public var fNumber: Double?
    /// Exposure time in seconds.
    public var exposureTime: Double?
    public var iso: Int?
    /// The EXIF Flash value (bit 0: fired).
    public var flash: Int?
    public var location: GeoLocation?
    /// The GPS receiver's UTC time of the fix (EXIF `GPSDateStamp` with `GPSTimeStamp`), as
    /// seconds since 1970; what a camera clock without an offset is compared with.
    public var gpsTimestamp: Double?
    public var durationSeconds: Double?
    public var frameRate: Double?
    public var videoCodec: String?
    /// The video's colour as its container declares it (ISO-BMFF `colr`, Matroska
    /// `Colour`), in ITU-T H.273 codes; nil when it declares none. A transfer of 16 (PQ)
    /// or 18 (HLG) is HDR video.
    public var videoColour: CodedVideoColour?
    public var hasAudio: Bool?
    /// Whether an image holds more than one frame (animated GIF, APNG, animated WebP).
    public var isAnimated: Bool?
    /// The number of frames of an image, when its container counts them: always for
    /// GIF (1 for a still), for APNG (`acTL`) and animated WebP (`ANMF`); nil otherwise.
    public var frameCount: Int?
    /// Apple's live-photo content identifier (maker note 0x0011, or the movie's
    /// `com.apple.quicktime.content.identifier`).
    public var contentIdentifier: String?
    /// Apple's burst identifier (maker note 0x000b).
    public var burstIdentifier: String?
    /// The capture rate of a slow-motion or time-lapse movie, when it differs from
    /// playback (Android's `com.android.capture.fps`).
    public var captureFrameRate: Double?
    /// Whether a movie has Apple's still-image-time metadata track (live-photo movies).
    public var hasStillImageTime: Bool?
    /// When a live-photo movie's still was taken, in seconds from its start: the
    /// presentation time of its `com.apple.quicktime.still-image-time` sample.
    public var stillImageTimeSeconds: Double?
    /// Whether the image carries a depth map (HEIF auxiliary image).
    public var hasDepth: Bool?
    /// Whether the image carries Apple's portrait effects matte.
    public var hasPortraitMatte: Bool?
    /// Whether the image carries an HDR gain map.
    public var hasGainMap: Bool?
    /// EXIF `UserComment` (0x9286), else XMP `exif:UserComment`: iOS writes
    /// "Screenshot" into screenshots.
    public var userComment: String?
    /// XMP `GPano:ProjectionType` (`equirectangular`, `cylindrical` …): a photo sphere
    /// or panorama made by a camera app.
    public var panoramaProjectionType: String?
    /// XMP `GPano:UsePanoramaViewer`.
    public var usesPanoramaViewer: Bool?
    /// The video of a Google/Android motion photo or a Samsung motion photo, located
    /// in the file and read in place.
    public var motionPhoto: MotionPhotoInfo?
    /// A camera raw's largest embedded preview image (a JPEG), as its place in the file;
    /// nil for formats without a cheap one (see `docs/fidelity.md`).
    public var largestPreview: EmbeddedPreview? {
        get { previewOffset.flatMap { offset in previewLength.map { EmbeddedPreview(offset: offset, length: $0) } } }
        set { previewOffset = newValue?.offset; previewLength = newValue?.length }
    }
    /// `largestPreview`'s offset and length, stored apart (see `largestPreview`).
    var previewOffset: UInt64?
    var previewLength: UInt64?
    /// What people wrote on the picture (keywords, title, caption, rating, label, people,
    /// creator, copyright), reconciled from every family of tags; nil when it says nothing.
    public var descriptive: DescriptiveMetadata?
    /// Each family of tags' descriptive values while the file is read; `MetadataReader`
    /// reconciles them into `descriptive` and clears this.
    var descriptiveSources: DescriptiveSources?
    /// Problems that did not stop the read, one sentence each.
    public var warnings: [String]

    public init(format: MediaFormat) {
        self.format = format
        self.warnings = []
    }

    /// Changes the descriptive values of one family of tags.
    mutating func updateDescriptiveSources(_ change: (inout DescriptiveSources) -> Void) {
        var sources = descriptiveSources ?? DescriptiveSources()
        change(&sources)
        descriptiveSources = sources
    }

    /// Reconciles the families' descriptive values into `descriptive`, and clears them.
    mutating func reconcileDescriptiveSources() {
        if let sources = descriptiveSources {
            let reconciled = sources.reconciled()
            descriptive = reconciled.isEmpty ? nil : reconciled
        }
        descriptiveSources = nil
    }

    /// Width and height as displayed, after orientation (5–8 swap the axes).
    public var displaySize: (width: Int, height: Int)? {
        guard let w = pixelWidth, let h = pixelHeight else { return nil }
        if let o = orientation, (5...8).contains(o) { return (h, w) }
        return (w, h)
    }
}

/// Where a capture date was read: one case per tag or structure a reader uses.
///
/// The raw values are stable: they are stored in the index's metadata JSON.
public enum CaptureDateSource: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// EXIF `DateTimeOriginal` (0x9003), with `SubSecTimeOriginal` and `OffsetTimeOriginal`.
    case exifDateTimeOriginal
    /// EXIF `DateTimeDigitized` (0x9004), with `SubSecTimeDigitized` and `OffsetTimeDigitized`.
    case exifDateTimeDigitized
    /// IFD0 `DateTime` (0x0132, exiftool's `ModifyDate`), with `SubSecTime` and `OffsetTime`.
    case exifDateTime
    /// XMP `exif:DateTimeOriginal`.
    case xmpExifDateTimeOriginal
    /// XMP `photoshop:DateCreated`.
    case xmpPhotoshopDateCreated
    /// XMP `xmp:CreateDate`.
    case xmpCreateDate
    /// QuickTime metadata key `com.apple.quicktime.creationdate` (local time with offset).
    case quickTimeCreationDate
    /// QuickTime user data `©day`.
    case quickTimeUserDataDay
    /// QuickTime user data `date`.
    case quickTimeUserDataDate
    /// The movie header's (`mvhd`) creation time: UTC.
    case movieHeaderCreationTime
    /// Matroska `Info/DateUTC`: UTC.
    case matroskaDateUTC
    /// A Matroska tag `DATE_RECORDED`, `CREATION_TIME` or `DATE_DIGITIZED`.
    case matroskaTag
    /// AVI `IDIT` chunk (camera's recording date).
    case aviIDIT
    /// AVI `INFO/ICRD` chunk (creation date).
    case aviICRD
    /// AVI `DTIM` chunk.
    case aviDTIM
    /// ASF File Properties Object's creation date: UTC.
    case asfFileProperties
    /// DV recording date and time packs (VAUX, else subcode): local time.
    case dvRecordingDate
    /// Canon CIFF `TimeStamp` record (0x180E) of a CRW, or of the CIFF block in an old
    /// PowerShot's JPEG: the camera's clock, zone unknown.
    case ciffTimeStamp
    /// Sigma X3F property `TIME`: the camera's clock, zone unknown.
    case x3fPropertyTime
    /// The recording date of an AVCHD camcorder's H.264 stream (the SEI user data
    /// "MDPM", exiftool's `H264:DateTimeOriginal`): local time with the camera's zone.
    case h264CameraMetadata
    /// `CreationDate` of a Sony XAVC / XDCAM clip's XML sidecar (`C0001M01.XML`): local
    /// time with offset.
    case sonyClipXML
    /// Kyocera raw's `DateTimeOriginal` header field: the camera's clock, zone unknown.
    case kyoceraRawDate
    /// A Lytro LFP's JSON `devices.clock.zuluTime` (exiftool's `Lytro:DateTimeOriginal`), UTC.
    case lytroClockZuluTime
    /// The `CreationDate` of a DjVu document's `metadata` annotation (exiftool's `DjVu-Meta:CreateDate`).
    case djvuMetadataCreationDate
}

/// A capture date as the file records it: local wall-clock time, with the UTC offset
/// when the file has one.
public struct CaptureDate: Sendable, Equatable, Hashable, Codable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// Fraction of a second, in nanoseconds.
    public var nanosecond: Int
    /// The recorded offset from UTC in seconds; nil when only local time is known.
    public var utcOffsetSeconds: Int?

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
                nanosecond: Int = 0, utcOffsetSeconds: Int? = nil) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second
        self.nanosecond = nanosecond; self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Parses EXIF's `YYYY:MM:DD HH:MM:SS` (also accepts `-` in the date and a `T`).
    ///
    /// Returns nil for blank or impossible dates such as `0000:00:00 00:00:00`.
    public init?(exif text: String, subseconds: String? = nil, offset: String? = nil) {
        let digits = text.unicodeScalars.filter { ("0"..."9").contains($0) }.map { Int($0.value) - 48 }
        guard digits.count >= 12 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int {
            digits[from..<(from + count)].reduce(0) { $0 * 10 + $1 }
        }
        let year = number(0, 4), month = number(4, 2), day = number(6, 2)
        let hour = number(8, 2), minute = number(10, 2)
        let second = digits.count >= 14 ? number(12, 2) : 0
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...24).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var nanos = 0
        if let sub = subseconds?.trimmingSpacesAndNULs(), !sub.isEmpty,
           sub.allSatisfy({ $0.isASCII && $0.isNumber }) {
            let padded = (sub + "000000000").prefix(9)
            nanos = Int(padded) ?? 0
        }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                  nanosecond: nanos, utcOffsetSeconds: offset.flatMap(CaptureDate.parseOffset))
    }

    /// Parses `+HH:MM`, `-HH:MM`, `+HHMM` or `Z`.
    public static func parseOffset(_ text: String) -> Int? {
        let t = text.trimmingSpacesAndNULs()
        if t == "Z" { return 0 }
        guard let sign = t.first, sign == "+" || sign == "-" else { return nil }
        let digits = t.dropFirst().filter { $0 != ":" }
        guard digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let hh = Int(digits.prefix(2)), let mm = Int(digits.suffix(2)),
              hh <= 18, mm < 60 else { return nil }
        let seconds = hh * 3600 + mm * 60
        return sign == "-" ? -seconds : seconds
    }

    /// ISO 8601: `2023-11-01T15:11:17.049+01:00`; `Z` for UTC; no suffix when the
    /// offset is unknown. Sub-seconds appear only when recorded, to millisecond
    /// precision or finer as needed.
    public var iso8601: String {
        // Written digit by digit into bytes: this runs for every date of every asset listed.
        var text: [UInt8] = []
        text.reserveCapacity(35)
        func digits(_ value: Int, _ width: Int) {
            let magnitude = value.magnitude
            if value < 0 { text.append(UInt8(ascii: "-")) }
            var divisor: UInt = 1
            var count = 1
            while count < width || magnitude / divisor >= 10 { divisor *= 10; count += 1 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4); text.append(UInt8(ascii: "-")); digits(month, 2); text.append(UInt8(ascii: "-"))
        digits(day, 2); text.append(UInt8(ascii: "T")); digits(hour, 2); text.append(UInt8(ascii: ":"))
        digits(minute, 2); text.append(UInt8(ascii: ":")); digits(second, 2)
        if nanosecond > 0 {
            var fraction = nanosecond
            var width = 9
            while width > 3 && fraction % 10 == 0 { fraction /= 10; width -= 1 }
            text.append(UInt8(ascii: "."))
            digits(fraction, width)
        }
        if let offset = utcOffsetSeconds {
            if offset == 0 { text.append(UInt8(ascii: "Z")) } else {
                let a = abs(offset)
                text.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                digits(a / 3600, 2); text.append(UInt8(ascii: ":")); digits((a % 3600) / 60, 2)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Seconds since 1970 in UTC, for sorting. A date without an offset is taken as
    /// if it were UTC ("floating" time), which keeps a camera's own order.
    public var sortTimestamp: Double {
        let days = CaptureDate.daysFromCivil(year: year, month: month, day: day)
        let local = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + Double(nanosecond) / 1e9
        return local - Double(utcOffsetSeconds ?? 0)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a UTC timestamp, with the given offset recorded.
    public init(timestamp: Double, utcOffsetSeconds: Int?) {
        let shifted = timestamp + Double(utcOffsetSeconds ?? 0)
        let whole = Int(shifted.rounded(.down))
        let nanos = Int(((shifted - Double(whole)) * 1e9).rounded())
        var days = whole / 86_400
        var secs = whole % 86_400
        if secs < 0 { secs += 86_400; days -= 1 }
        // Inverse of daysFromCivil.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.init(year: y, month: m, day: d, hour: secs / 3600, minute: (secs % 3600) / 60,
                  second: secs % 60, nanosecond: min(nanos, 999_999_999), utcOffsetSeconds: utcOffsetSeconds)
    }
}

/// A position on Earth in WGS 84 degrees, signed (south and west are negative).
public struct GeoLocation: Sendable, Equatable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Metres above sea level (negative below); nil when not recorded.
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude; self.longitude = longitude; self.altitude = altitude
    }

    /// Whether the coordinates are on Earth and not the (0, 0) placeholder some
    /// cameras write when they have no fix.
    public var isPlausible: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
            && !(latitude == 0 && longitude == 0)
    }
}

extension String {
    /// The string without leading and trailing spaces and NUL padding.
    public func trimmingSpacesAndNULs() -> String {
        var scalars = Substring(self)
        while let f = scalars.first, f == " " || f == "\0" || f == "\t" || f == "\n" || f == "\r" { scalars.removeFirst() }
        while let l = scalars.last, l == " " || l == "\0" || l == "\t" || l == "\n" || l == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}

/// Where an embedded image (a raw's JPEG preview) lies in its file.
public struct EmbeddedPreview: Sendable, Equatable, Hashable, Codable {
    /// Byte offset of the image's first byte (`FF D8` for a JPEG) from the start of the file.
    public var offset: UInt64
    /// Its length in bytes, as the file states it.
    public var length: UInt64

    public init(offset: UInt64, length: UInt64) {
        self.offset = offset
        self.length = length
    }
}

/// Colour primaries, transfer characteristics and matrix coefficients, as ITU-T H.273 numbers
/// them (1: BT.709; 9: BT.2020 primaries, 16: PQ, 18: HLG transfer; 9: BT.2020 matrix …).
public struct CodedVideoColour: Sendable, Equatable, Hashable, Codable {
    /// Colour primaries (H.273 table 2: 1 BT.709, 9 BT.2020, 12 Display P3 …).
    public var primaries: Int
    /// Transfer characteristics (H.273 table 3: 1 BT.709, 16 PQ, 18 HLG …).
    public var transfer: Int
    /// Matrix coefficients (H.273 table 4: 1 BT.709, 9 BT.2020 non-constant …).
    public var matrix: Int

    /// A colour from its three codes.
    public init(primaries: Int, transfer: Int, matrix: Int) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
    }

    /// Whether the transfer is an HDR one: PQ (SMPTE ST 2084) or HLG (ARIB STD-B67).
    public var isHDR: Bool { transfer == 16 || transfer == 18 }
}

extension MediaMetadata {
    /// Star rating, -1 (rejected) to 5, as the descriptive metadata reconciles it (MWG:
    /// XMP `xmp:Rating`, EXIF `Rating`/`RatingPercent`, Microsoft's); one value with
    /// `descriptive.rating`, never stored twice.
    public var rating: Int? {
        get { descriptive?.rating }
        set {
            var values = descriptive ?? DescriptiveMetadata()
            values.rating = newValue
            descriptive = values.isEmpty ? nil : values
        }
    }

    /// An XMP `xmp:Rating` as a star rating: rounded and clamped to -1 (rejected) … 5;
    /// nil when not finite.
    public static func starRating(xmp value: Double) -> Int? {
        value.isFinite ? Int(max(-1, min(5, value.rounded()))) : nil
    }
}
