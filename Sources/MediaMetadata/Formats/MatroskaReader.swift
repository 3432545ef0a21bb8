/// Reads a Matroska or WebM file's header elements: duration, date, tracks.
///
/// Only the Segment's top-level elements before the first Cluster are read, plus the
/// ones the SeekHead points to (Info, Tracks and Tags are often written after the
/// clusters). Clusters, which hold the media, are never read.
public enum MatroskaReader {
    /// Info, Tracks, SeekHead and Tags elements larger than this are not read.
    static let maxMasterBytes = 4 << 20
    static let maxTopLevelElements = 1_000
    static let maxDepth = 16
    static let maxChildren = 20_000

    enum ID {
        static let ebml: UInt32 = 0x1A45_DFA3
        static let docType: UInt32 = 0x4282
        static let segment: UInt32 = 0x1853_8067
        static let seekHead: UInt32 = 0x114D_9B74
        static let seek: UInt32 = 0x4DBB
        static let seekID: UInt32 = 0x53AB
        static let seekPosition: UInt32 = 0x53AC
        static let info: UInt32 = 0x1549_A966
        static let timestampScale: UInt32 = 0x2AD7B1
        static let duration: UInt32 = 0x4489
        static let dateUTC: UInt32 = 0x4461
        static let writingApp: UInt32 = 0x5741
        static let tracks: UInt32 = 0x1654_AE6B
        static let trackEntry: UInt32 = 0xAE
        static let trackType: UInt32 = 0x83
        static let codecID: UInt32 = 0x86
        static let defaultDuration: UInt32 = 0x23E383
        static let video: UInt32 = 0xE0
        static let pixelWidth: UInt32 = 0xB0
        static let pixelHeight: UInt32 = 0xBA
        static let displayWidth: UInt32 = 0x54B0
        static let displayHeight: UInt32 = 0x54BA
        static let displayUnit: UInt32 = 0x54B2
        static let colour: UInt32 = 0x55B0
        static let matrixCoefficients: UInt32 = 0x55B1
        static let transferCharacteristics: UInt32 = 0x55BA
        static let primaries: UInt32 = 0x55BB
        static let cluster: UInt32 = 0x1F43_B675
        static let tags: UInt32 = 0x1254_C367
        static let tag: UInt32 = 0x7373
        static let simpleTag: UInt32 = 0x67C8
        static let tagName: UInt32 = 0x45A3
        static let tagString: UInt32 = 0x4487
    }

    /// Reads the facts the EBML header and the Segment's Info, Tracks and Tags state.
    ///
    /// - Throws: `MetadataError` when the EBML header or the Segment is missing.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        let head = try source.read(at: 0, count: 64)
        guard let ebml = EBMLElement.parseHeader(head, at: 0), ebml.id == ID.ebml else {
            throw MetadataError.malformed("the EBML header is missing")
        }
        guard let ebmlSize = ebml.size, ebmlSize <= 4096 else {
            throw MetadataError.malformed("the EBML header states an impossible size")
        }
        let headerBytes = try source.read(at: UInt64(ebml.headerLength), count: Int(ebmlSize))
        var docType = "matroska"
        for child in EBMLElement.children(of: headerBytes[...], depth: 0) where child.id == ID.docType {
            docType = String(decoding: headerBytes[child.payload], as: UTF8.self).trimmingSpacesAndNULs()
        }
        guard docType == "webm" || docType == "matroska" else {
            throw MetadataError.unsupported("the EBML document type '\(docType)' is not Matroska or WebM")
        }
        var state = MatroskaState(metadata: MediaMetadata(format: docType == "webm" ? .webm : .matroska))

        // Find the Segment after the EBML header.
        let segmentOffset = UInt64(ebml.headerLength) + ebmlSize
        let segmentHead = try source.read(at: segmentOffset, count: 12)
        guard let segment = EBMLElement.parseHeader(segmentHead, at: 0), segment.id == ID.segment else {
            throw MetadataError.malformed("the Matroska Segment is missing after the EBML header")
        }
        let segmentData = segmentOffset + UInt64(segment.headerLength)
        let segmentEnd = segment.size.map { min(source.size, segmentData &+ $0) } ?? source.size
        if segment.size.map({ segmentData &+ $0 > source.size }) == true {
            state.metadata.warnings.append("the Matroska Segment runs past the end of the file")
        }

        // Walk the top level up to the first Cluster.
        var position = segmentData
        var visited: Set<UInt64> = []
        var count = 0
        while position < segmentEnd, count < maxTopLevelElements {
            count += 1
            let header = try source.read(at: position, count: 12)
            guard let element = EBMLElement.parseHeader(header, at: 0) else {
                state.metadata.warnings.append("a Matroska element header at offset \(position) is malformed")
                break
            }
            if element.id == ID.cluster { break }
            guard let size = element.size else {
                state.metadata.warnings.append("a Matroska top-level element of unknown size precedes the clusters")
                break
            }
            visited.insert(position)
            try readTopLevel(element, at: position, source: source, segmentData: segmentData, state: &state)
            position += UInt64(element.headerLength) + size
        }

        // Follow the SeekHead to elements written after the clusters.
        var followed = 0
        while let target = state.seekTargets.popLast(), followed < 16 {
            followed += 1
            let offset = segmentData &+ target
            guard offset < segmentEnd, !visited.contains(offset) else { continue }
            visited.insert(offset)
            let header = try source.read(at: offset, count: 12)
            guard let element = EBMLElement.parseHeader(header, at: 0), element.size != nil else {
                state.metadata.warnings.append("the Matroska SeekHead points to offset \(offset), where there is no element")
                continue
            }
            try readTopLevel(element, at: offset, source: source, segmentData: segmentData, state: &state)
        }
        return state.finish()
    }

    private static func readTopLevel(_ element: EBMLElement, at offset: UInt64, source: ByteSource,
                                     segmentData: UInt64, state: inout MatroskaState) throws {
        let wanted: Set<UInt32> = [ID.seekHead, ID.info, ID.tracks, ID.tags]
        guard wanted.contains(element.id), let size = element.size else { return }
        if element.id == ID.info && state.sawInfo || element.id == ID.tracks && state.sawTracks { return }
        guard size <= UInt64(maxMasterBytes) else {
            state.metadata.warnings.append("a Matroska header element at offset \(offset) is too large to read")
            return
        }
        let payload = try source.read(at: offset + UInt64(element.headerLength), count: Int(size))
        if payload.count < Int(size) {
            state.metadata.warnings.append("the Matroska file ends inside a header element at offset \(offset)")
        }
        switch element.id {
        case ID.seekHead: state.readSeekHead(payload)
        case ID.info: state.readInfo(payload)
        case ID.tracks: state.readTracks(payload)
        case ID.tags: state.readTags(payload)
        default: break
        }
    }

    /// Maps a Matroska CodecID to the codec name ffmpeg uses, or the ID itself.
    static func codecName(_ codecID: String) -> String {
        switch codecID {
        case "V_VP8": return "vp8"
        case "V_VP9": return "vp9"
        case "V_AV1": return "av1"
        case "V_MPEG4/ISO/AVC": return "h264"
        case "V_MPEGH/ISO/HEVC": return "hevc"
        case "V_MPEG4/ISO/SP", "V_MPEG4/ISO/ASP", "V_MPEG4/ISO/AP": return "mpeg4"
        case "V_MPEG2": return "mpeg2video"
        case "V_MPEG1": return "mpeg1video"
        case "V_MJPEG": return "mjpeg"
        case "V_THEORA": return "theora"
        case "V_PRORES": return "prores"
        case "V_FFV1": return "ffv1"
        default: return codecID
        }
    }
}

/// What has been read so far from one Matroska file.
private struct MatroskaState {
    var metadata: MediaMetadata
    var sawInfo = false
    var sawTracks = false
    var seekTargets: [UInt64] = []
    var timestampScale: UInt64 = 1_000_000
    var rawDuration: Double?
    var tagDuration: Double?
    var tagDate: CaptureDate?
    var videoDefaultDuration: UInt64?
    private typealias ID = MatroskaReader.ID

    mutating func readSeekHead(_ bytes: [UInt8]) {
        for seek in EBMLElement.children(of: bytes[...], depth: 0) where seek.id == ID.seek {
            var targetID: UInt32?
            var position: UInt64?
            for field in EBMLElement.children(of: bytes[seek.payload], depth: 1) {
                if field.id == ID.seekID { targetID = UInt32(truncatingIfNeeded: EBMLElement.unsigned(bytes[field.payload])) }
                if field.id == ID.seekPosition { position = EBMLElement.unsigned(bytes[field.payload]) }
            }
            guard let targetID, let position else { continue }
            let wanted = (targetID == ID.info && !sawInfo) || (targetID == ID.tracks && !sawTracks)
                || targetID == ID.tags || targetID == ID.seekHead
            if wanted, seekTargets.count < 32 { seekTargets.insert(position, at: 0) }
        }
    }

    mutating func readInfo(_ bytes: [UInt8]) {
        sawInfo = true
        for field in EBMLElement.children(of: bytes[...], depth: 0) {
            let payload = bytes[field.payload]
            switch field.id {
            case ID.timestampScale:
                let scale = EBMLElement.unsigned(payload)
                if scale > 0 { timestampScale = scale }
            case ID.duration:
                rawDuration = EBMLElement.float(payload)
            case ID.dateUTC where payload.count == 8:
                let nanoseconds = EBMLElement.signed(payload)
                // Nanoseconds since 2001-01-01T00:00:00Z (978307200 s after 1970).
                let timestamp = 978_307_200 + Double(nanoseconds) / 1e9
                metadata.captureDate = CaptureDate(timestamp: timestamp, utcOffsetSeconds: 0)
                metadata.captureDateSource = .matroskaDateUTC
            case ID.writingApp:
                let app = String(decoding: payload, as: UTF8.self).trimmingSpacesAndNULs()
                if !app.isEmpty { metadata.software = app }
            default:
                break
            }
        }
    }

    mutating func readTracks(_ bytes: [UInt8]) {
        sawTracks = true
        var hasAudio = false
        for entry in EBMLElement.children(of: bytes[...], depth: 0) where entry.id == ID.trackEntry {
            var type: UInt64 = 0
            var codec: String?
            var defaultDuration: UInt64 = 0
            var width: Int?, height: Int?
            var shown: (width: Int, height: Int)?, shownUnit = 0
            var colour: CodedVideoColour?
            for field in EBMLElement.children(of: bytes[entry.payload], depth: 1) {
                let payload = bytes[field.payload]
                switch field.id {
                case ID.trackType: type = EBMLElement.unsigned(payload)
                case ID.codecID: codec = String(decoding: payload, as: UTF8.self).trimmingSpacesAndNULs()
                case ID.defaultDuration: defaultDuration = EBMLElement.unsigned(payload)
                case ID.video:
                    for v in EBMLElement.children(of: payload, depth: 2) {
                        let value = Int(clamping: EBMLElement.unsigned(bytes[v.payload]))
                        if v.id == ID.pixelWidth { width = value }
                        if v.id == ID.pixelHeight { height = value }
                        if v.id == ID.displayWidth { shown = (value, shown?.height ?? 0) }
                        if v.id == ID.displayHeight { shown = (shown?.width ?? 0, value) }
                        if v.id == ID.displayUnit { shownUnit = value }
                        if v.id == ID.colour {
                            // Unspecified (2) for what the element leaves out, as H.273 has it.
                            var coded = CodedVideoColour(primaries: 2, transfer: 2, matrix: 2)
                            for c in EBMLElement.children(of: bytes[v.payload], depth: 3) {
                                let code = Int(clamping: EBMLElement.unsigned(bytes[c.payload]))
                                if c.id == ID.primaries { coded.primaries = code }
                                if c.id == ID.transferCharacteristics { coded.transfer = code }
                                if c.id == ID.matrixCoefficients { coded.matrix = code }
                            }
                            colour = coded
                        }
                    }
                default: break
                }
            }
            if type == 2 { hasAudio = true }
            // The first video track describes the movie.
            guard type == 1, metadata.videoCodec == nil, metadata.pixelWidth == nil else { continue }
            if let codec, !codec.isEmpty { metadata.videoCodec = MatroskaReader.codecName(codec) }
            metadata.videoColour = colour
            if let width, let height, width > 0, height > 0 {
                // DisplayWidth × DisplayHeight (in pixels, centimetres, inches or as a ratio:
                // every unit but 4, unknown) is the shape shown; the width is scaled to it.
                var aspect: (horizontal: Int, vertical: Int)?
                if let shown, shown.width > 0, shown.height > 0, shownUnit != 4,
                   shown.width < 1 << 24, shown.height < 1 << 24, width < 1 << 24, height < 1 << 24 {
                    aspect = (shown.width * height, shown.height * width)
                }
                metadata.pixelWidth = VideoFields.displayWidth(codedWidth: width, pixelAspect: aspect)
                metadata.pixelHeight = height
            }
            if defaultDuration > 0 { videoDefaultDuration = defaultDuration }
        }
        metadata.hasAudio = hasAudio
    }

    /// Tags: ffmpeg and mkvmerge write per-track `DURATION` (`00:00:13.346000000`) when
    /// the Info has no Duration, and sometimes `DATE_RECORDED`/`CREATION_TIME`.
    mutating func readTags(_ bytes: [UInt8]) {
        for tag in EBMLElement.children(of: bytes[...], depth: 0) where tag.id == ID.tag {
            for simple in EBMLElement.children(of: bytes[tag.payload], depth: 1) where simple.id == ID.simpleTag {
                var name: String?, value: String?
                for field in EBMLElement.children(of: bytes[simple.payload], depth: 2) {
                    let text = String(decoding: bytes[field.payload], as: UTF8.self).trimmingSpacesAndNULs()
                    if field.id == ID.tagName { name = text.uppercased() }
                    if field.id == ID.tagString { value = text }
                }
                guard let name, let value else { continue }
                switch name {
                case "DURATION":
                    if let seconds = Self.parseClock(value) { tagDuration = max(tagDuration ?? 0, seconds) }
                case "DATE_RECORDED", "CREATION_TIME", "DATE_DIGITIZED":
                    if tagDate == nil { tagDate = XMPValue.date(value) }
                default:
                    break
                }
            }
        }
    }

    /// `HH:MM:SS.nnnnnnnnn` to seconds.
    static func parseClock(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]),
              h >= 0, m >= 0, s >= 0 else { return nil }
        let seconds = h * 3600 + m * 60 + s
        return seconds.isFinite ? seconds : nil
    }

    func finish() -> ContainerReading {
        var result = metadata
        if let rawDuration, rawDuration.isFinite, rawDuration > 0 {
            result.durationSeconds = rawDuration * Double(timestampScale) / 1e9
        } else if let tagDuration, tagDuration > 0 {
            result.durationSeconds = tagDuration
        } else if let rawDuration, rawDuration == 0 {
            // A Duration element of 0, with no tag to say better, is a stated length of zero,
            // as ffprobe reports it.
            result.durationSeconds = 0
        }
        if result.captureDate == nil, let tagDate {
            result.captureDate = tagDate
            result.captureDateSource = .matroskaTag
        }
        if let videoDefaultDuration {
            let fps = 1e9 / Double(videoDefaultDuration)
            // Some muxers write a DefaultDuration of one timestamp tick (1 ms: "1000 fps")
            // when the rate is variable or unknown; that is no frame rate.
            let isOneTick = videoDefaultDuration <= timestampScale && fps > 480
            if fps.isFinite, fps < 10_000, !isOneTick { result.frameRate = fps }
        }
        return ContainerReading(metadata: result)
    }
}

/// One EBML element header: its ID (with the length marker kept, as specs write IDs),
/// its payload size (nil for "unknown"), and its header length.
struct EBMLElement {
    var id: UInt32
    var size: UInt64?
    var headerLength: Int
    /// For elements parsed from memory: where the payload lies, clamped to the parent.
    var payload: Range<Int> = 0..<0

    /// Parses an element header at `offset` in `bytes`; nil when malformed or cut.
    static func parseHeader(_ bytes: [UInt8], at offset: Int) -> EBMLElement? {
        parseHeader(bytes[...], at: offset)
    }

    /// Parses an element header at the absolute index `offset` of `bytes`.
    static func parseHeader(_ bytes: ArraySlice<UInt8>, at offset: Int) -> EBMLElement? {
        guard offset >= bytes.startIndex, offset < bytes.endIndex else { return nil }
        let first = bytes[offset]
        guard first != 0 else { return nil }
        let idLength = first.leadingZeroBitCount + 1
        guard idLength <= 4, offset + idLength < bytes.endIndex else { return nil }
        var id: UInt32 = 0
        for i in 0..<idLength { id = id << 8 | UInt32(bytes[offset + i]) }
        let sizeStart = offset + idLength
        let sizeFirst = bytes[sizeStart]
        guard sizeFirst != 0 else { return nil }
        let sizeLength = sizeFirst.leadingZeroBitCount + 1
        guard sizeStart + sizeLength <= bytes.endIndex else { return nil }
        var value = UInt64(sizeFirst & (0xFF >> sizeLength))
        var allOnes = value == UInt64(0xFF >> sizeLength)
        for i in 1..<max(1, sizeLength) {
            let b = bytes[sizeStart + i]
            value = value << 8 | UInt64(b)
            if b != 0xFF { allOnes = false }
        }
        return EBMLElement(id: id, size: allOnes ? nil : value, headerLength: idLength + sizeLength)
    }

    /// The child elements within `slice` (indices are those of the underlying array).
    /// An unknown or overlong size is clamped to the slice's end.
    static func children(of slice: ArraySlice<UInt8>, depth: Int) -> [EBMLElement] {
        guard depth < MatroskaReader.maxDepth else { return [] }
        var result: [EBMLElement] = []
        var position = slice.startIndex
        while position < slice.endIndex, result.count < MatroskaReader.maxChildren {
            guard var element = parseHeader(slice, at: position) else { break }
            let start = position + element.headerLength
            let available = UInt64(slice.endIndex - start)
            let length = Int(min(element.size ?? available, available))
            element.payload = start..<(start + length)
            result.append(element)
            position = start + length
        }
        return result
    }

    static func unsigned(_ payload: ArraySlice<UInt8>) -> UInt64 {
        payload.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func signed(_ payload: ArraySlice<UInt8>) -> Int64 {
        guard let first = payload.first else { return 0 }
        var value: Int64 = first & 0x80 != 0 ? -1 : 0
        for b in payload.prefix(8) { value = value << 8 | Int64(b) }
        return value
    }

    static func float(_ payload: ArraySlice<UInt8>) -> Double? {
        switch payload.count {
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: unsigned(payload))))
        case 8: return Double(bitPattern: unsigned(payload))
        default: return nil
        }
    }
}
