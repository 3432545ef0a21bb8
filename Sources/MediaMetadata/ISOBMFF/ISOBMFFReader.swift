/// Reads ISO base media files (ISO/IEC 14496-12): QuickTime and MP4 movies (MOV, MP4,
/// M4V, 3GP), HEIF images (HEIC, HEIF, AVIF) and Canon CR3, over bounded reads.
///
/// What goes where:
/// - Movies: `durationSeconds` is `mvhd` duration / timescale (what ffprobe reports as
///   the format duration); `pixelWidth`/`pixelHeight` are the video track's coded size
///   (visual sample entry), its width scaled by the entry's pixel aspect (`pasp`) for
///   anamorphic video as ffmpeg's track header and exiftool give it, and `orientation` expresses the track matrix's rotation in
///   EXIF terms (90° clockwise display = 6, 180° = 3, 270° = 8), so `displaySize` is
///   the size a player shows. `videoCodec` is ffprobe's short name for the sample
///   entry's code (`avc1` → `h264`, `hvc1` → `hevc`, `ap4h` → `prores` …), the code itself when unknown. `frameRate` is the average: frames / track duration.
///   `captureDate` prefers `com.apple.quicktime.creationdate` (local time with offset),
///   then `udta` `©day`, then `udta` `date`, then `mvhd` creation time (UTC, offset 0);
///   `captureDateSource` says which. HEIF/AVIF image sequences (`msf1`, `avis`) read
///   their movie the same way, keeping the primary item's size when there is one.
/// - HEIF: `pixelWidth`/`pixelHeight` are the primary item's `ispe` (what exiftool
///   calls `File:ImageWidth`), and `orientation` comes from `irot`/`imir`, which govern
///   display in HEIF: the EXIF orientation in the `Exif` item describes the same turn,
///   so it never rotates the picture a second time. Without them the EXIF orientation
///   applies (Samsung phones and early iOS rely on it, as Apple's viewers do), unless the
///   coded picture already has the turned shape (see `ExifDecoder.isAlreadyTurned`).
///   The `Exif` item goes to `exif` (from its TIFF header), the XMP item to `xmp`.
/// - CR3: the largest track's coded size, and Canon's `CMT1` (IFD0) as `exif` with
///   `CMT2` (Exif IFD) and `CMT4` (GPS IFD) in `extraExifBlocks`.
public enum ISOBMFFReader {
    /// An `Exif` or XMP item larger than this is not read.
    static let itemLimit = 16 << 20

    /// Reads what the container says about `source`, which holds a file of `format`.
    ///
    /// - Throws: `MetadataError` when the file has no readable box structure, or its
    ///   `moov` / `meta` cannot be read at all. Partial problems become warnings.
    public static func read(_ source: ByteSource, format: MediaFormat) throws -> ContainerReading {
        var boxes = BoxReader(source: source)
        let top = try boxes.boxes(from: 0, to: source.size, depth: 0, in: "the file")
        guard let first = top.first, ["ftyp", "moov", "mdat", "wide", "free", "skip", "meta", "pnot", "uuid", "jP  "].contains(first.type) else {
            throw MetadataError.malformed("the file does not start with an ISO base media box")
        }
        var reading = ContainerReading(metadata: MediaMetadata(format: format))
        if let meta = top.first("meta") {
            try readImageItems(meta, boxes: &boxes, into: &reading)
        }
        if let moov = top.first("moov") {
            // A HEIF/AVIF image sequence (`msf1`, `avis`) keeps its frames in a movie; only
            // CR3's movie box holds a still.
            try readMovie(moov, boxes: &boxes, isStill: format == .cr3, into: &reading)
        } else if format.mediaType == .video {
            reading.metadata.warnings.append("the movie has no 'moov' box, so its duration and tracks are unknown")
        }
        if reading.xmp == nil, let uuid = top.first(where: { $0.type == "uuid" && $0.userType == MovieBoxParser.xmpUUID }) {
            reading.xmp = try boxes.payload(of: uuid, limit: itemLimit)
        }
        if top.first("meta") == nil, top.first("moov") == nil {
            throw MetadataError.malformed("the file has neither a 'moov' nor a 'meta' box")
        }
        for warning in boxes.warnings where !reading.metadata.warnings.contains(warning) {
            reading.metadata.warnings.append(warning)
        }
        return reading
    }

    // MARK: Movies

    private static func readMovie(_ moov: BoxHeader, boxes: inout BoxReader, isStill: Bool,
                                  into reading: inout ContainerReading) throws {
        var parser = MovieBoxParser(boxes: boxes)
        defer { boxes = parser.boxes }
        try parser.parse(moov: moov)
        var metadata = reading.metadata

        if isStill {
            // CR3: the full-size image is the largest visual track; it is not a movie.
            if let largest = parser.tracks.filter({ $0.codedWidth != nil })
                .max(by: { ($0.codedWidth ?? 0) * ($0.codedHeight ?? 0) < ($1.codedWidth ?? 0) * ($1.codedHeight ?? 0) }),
               metadata.pixelWidth == nil {
                metadata.pixelWidth = largest.codedWidth
                metadata.pixelHeight = largest.codedHeight
            }
            if let ifd0 = parser.canonTIFFBlocks[1] {
                if reading.exif == nil { reading.exif = ifd0 }
                reading.extraExifBlocks = [2, 4].compactMap { parser.canonTIFFBlocks[$0] }
            }
            reading.metadata = metadata
            return
        }

        if parser.movieTimescale > 0, parser.movieDuration > 0 {
            metadata.durationSeconds = Double(parser.movieDuration) / Double(parser.movieTimescale)
        } else if let longest = parser.tracks.compactMap(\.mediaSeconds).max() {
            // Fragmented files often leave `mvhd` empty; the tracks still know their length.
            metadata.durationSeconds = longest
        } else if parser.movieTimescale > 0, !parser.isFragmented {
            // `mvhd` states a length of zero and no track says more: ffprobe reports 0.
            metadata.durationSeconds = 0
        }

        // AVIF and HEIF image sequences carry their frames in a `pict` track.
        let videoTracks = parser.tracks.filter { ($0.handler == "vide" || $0.handler == "pict") && $0.codedWidth != nil }
        if let video = videoTracks.first(where: \.isEnabled) ?? videoTracks.first {
            // An image sequence's primary item, when it has one, describes the image.
            if metadata.pixelWidth == nil {
                metadata.pixelWidth = video.displayWidth
                metadata.pixelHeight = video.codedHeight
                metadata.orientation = video.orientation
            }
            metadata.videoCodec = video.codec.map { VideoCodecName.forSampleEntry($0.description) }
            metadata.videoColour = video.colour
            if let seconds = video.mediaSeconds, video.sampleCount > 1 {
                metadata.frameRate = Double(video.sampleCount) / seconds
            } else if let delta = video.commonSampleDelta, video.mediaTimescale > 0 {
                metadata.frameRate = Double(video.mediaTimescale) / Double(delta)
            }
        }
        metadata.hasAudio = parser.tracks.contains { $0.handler == "soun" }
        metadata.hasStillImageTime = parser.tracks.contains(where: \.hasStillImageTime)
        if let still = parser.tracks.first(where: \.hasStillImageTime), parser.movieTimescale > 0 {
            let seconds = Double(still.leadingEmptyEdit) / Double(parser.movieTimescale)
            if seconds.isFinite, seconds >= 0, seconds < 24 * 3600 { metadata.stillImageTimeSeconds = seconds }
        }

        let keyed = parser.tags.keyed, atoms = parser.tags.atoms
        func text(_ key: String, _ atom: FourCC) -> String? {
            let value = keyed[key]?.text ?? atoms[atom]?.text
            return value.flatMap { $0.isEmpty ? nil : $0 }
        }
        metadata.make = text("com.apple.quicktime.make", "\u{A9}mak") ?? keyed["com.android.manufacturer"]?.text
        metadata.model = text("com.apple.quicktime.model", "\u{A9}mod") ?? keyed["com.android.model"]?.text
        metadata.software = text("com.apple.quicktime.software", "\u{A9}swr")
        metadata.contentIdentifier = keyed["com.apple.quicktime.content.identifier"]?.text
        if let fps = keyed["com.android.capture.fps"]?.number, fps.isFinite, fps > 0 {
            metadata.captureFrameRate = fps
        }
        if let point = (keyed["com.apple.quicktime.location.ISO6709"]?.text ?? atoms["\u{A9}xyz"]?.text ?? atoms["loci"]?.text)
            .flatMap(QuickTimeValues.location(iso6709:)) {
            metadata.location = point
        }
        let dates: [(CaptureDate?, CaptureDateSource)] = [
            (keyed["com.apple.quicktime.creationdate"]?.text.flatMap(QuickTimeValues.date(iso8601:)), .quickTimeCreationDate),
            (atoms["\u{A9}day"]?.text.flatMap(QuickTimeValues.date(iso8601:)), .quickTimeUserDataDay),
            (atoms["date"]?.text.flatMap(QuickTimeValues.date(iso8601:)), .quickTimeUserDataDate),
            (QuickTimeValues.date(quickTimeSeconds: parser.creationTime), .movieHeaderCreationTime),
        ]
        if let (date, source) = dates.first(where: { $0.0 != nil }), let date {
            metadata.captureDate = date
            metadata.captureDateSource = source
        }
        metadata.updateDescriptiveSources { $0.quickTime = QuickTimeDescription(keyed: keyed, atoms: atoms) }
        if reading.xmp == nil { reading.xmp = parser.xmp }
        reading.metadata = metadata
    }

    // MARK: HEIF images

    private static func readImageItems(_ meta: BoxHeader, boxes: inout BoxReader,
                                       into reading: inout ContainerReading) throws {
        let items = try HEIFItems.read(meta: meta, boxes: &boxes)
        reading.metadata.warnings.append(contentsOf: items.warnings)
        guard items.handler == "pict" else { return }
        guard let primaryID = items.primaryID ?? items.items.keys.min() else {
            reading.metadata.warnings.append("the image has no items")
            return
        }
        if items.primaryID == nil { reading.metadata.warnings.append("the image names no primary item; the first item was used") }
        var metadata = reading.metadata

        if let size = items.spatialExtent(of: primaryID) ?? items.grid(primaryID, source: boxes.source).map({ ($0.width, $0.height) }) {
            metadata.pixelWidth = size.width
            metadata.pixelHeight = size.height
        } else {
            metadata.warnings.append("the primary image has no size ('ispe')")
        }
        // With `irot`/`imir` they govern display, and an EXIF orientation describing the
        // same turn is not applied again; without them the EXIF orientation does (Samsung
        // phones and early iOS rely on it, and Apple's viewers apply it).
        if items.isTransformed(primaryID) { metadata.orientation = items.orientation(of: primaryID) }

        // Auxiliary images of the primary: depth, portrait matte, gain map.
        let auxiliaryTypes = items.items(referencing: primaryID, by: "auxl").flatMap { auxiliary in
            items.properties(of: auxiliary).compactMap(\.auxiliaryType)
        }
        metadata.hasDepth = auxiliaryTypes.contains { $0.contains("depth") || $0 == "urn:mpeg:hevc:2015:auxid:2" }
        metadata.hasPortraitMatte = auxiliaryTypes.contains { $0.contains("portraiteffectsmatte") }
        metadata.hasGainMap = auxiliaryTypes.contains { $0.contains("hdrgainmap") }
            || items.items.values.contains { $0.type == "tmap" }

        // Metadata items: those describing the primary (`cdsc`) first, then any.
        let described = Set(items.items(referencing: primaryID, by: "cdsc"))
        let ordered = items.items.values.sorted {
            (described.contains($0.id) ? 0 : 1, $0.id) < (described.contains($1.id) ? 0 : 1, $1.id)
        }
        if let exifItem = ordered.first(where: { $0.type == "Exif" }) {
            do {
                reading.exif = exifBlock(try items.data(of: exifItem.id, source: boxes.source, limit: itemLimit))
            } catch let error as MetadataError {
                metadata.warnings.append("the Exif item could not be read: \(error)")
            }
        }
        if let xmpItem = ordered.first(where: { $0.type == "mime" && $0.contentType?.lowercased().hasPrefix("application/rdf+xml") == true }) {
            do {
                reading.xmp = try items.data(of: xmpItem.id, source: boxes.source, limit: itemLimit)
            } catch let error as MetadataError {
                metadata.warnings.append("the XMP item could not be read: \(error)")
            }
        }
        reading.metadata = metadata
    }

    /// The Exif item without its 4-byte prefix (the offset of the TIFF header), so the
    /// block starts at the TIFF header or at `Exif\0\0`.
    static func exifBlock(_ item: [UInt8]) -> [UInt8]? {
        guard item.count > 4 else { return nil }
        let offset = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
        let start = 4 + offset
        if offset >= 0, start + 4 <= item.count, isTIFFHeader(item, at: start) {
            return Array(item[start...])
        }
        // Writers disagree on the prefix; look for the header near the start instead.
        for candidate in 0..<min(item.count - 4, 64) where isTIFFHeader(item, at: candidate) {
            return Array(item[candidate...])
        }
        return Array(item[4...])
    }

    private static func isTIFFHeader(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index + 4 <= bytes.count else { return false }
        let head = Array(bytes[index..<(index + 4)])
        return head == [0x49, 0x49, 0x2A, 0x00] || head == [0x4D, 0x4D, 0x00, 0x2A]
    }
}
