/// What one `trak` says about itself.
struct TrackFacts {
    var handler: FourCC?
    var isEnabled = true
    /// EXIF orientation equivalent of the track matrix.
    var orientation = 1
    var codec: FourCC?
    var codedWidth: Int?
    var codedHeight: Int?
    /// The sample entry's pixel aspect (`pasp`: horizontal and vertical spacing).
    var pixelAspect: (horizontal: Int, vertical: Int)?
    /// The sample entry's colour (`colr` of type `nclx` or QuickTime's `nclc`).
    var colour: CodedVideoColour?
    /// The width the track is shown at: `codedWidth` scaled by `pixelAspect`.
    var displayWidth: Int? {
        codedWidth.map { VideoFields.displayWidth(codedWidth: $0, pixelAspect: pixelAspect) }
    }
    var mediaTimescale: UInt32 = 0
    var mediaDuration: UInt64 = 0
    var sampleCount: UInt64 = 0
    /// The `stts` delta that covers the most samples.
    var commonSampleDelta: UInt32?
    var hasStillImageTime = false
    /// The empty edits (`elst` entries with media time −1) before the track's first sample,
    /// in the movie's timescale: where that sample is presented.
    var leadingEmptyEdit: UInt64 = 0

    var mediaSeconds: Double? {
        guard mediaTimescale > 0, mediaDuration > 0 else { return nil }
        return Double(mediaDuration) / Double(mediaTimescale)
    }
}

/// Key-value metadata found in `moov/meta` (`keys` + `ilst`), `udta` atoms and
/// `udta/meta/ilst`; each source into its own table so precedence is decided once.
struct MovieTags {
    /// `mdta` keys (`com.apple.quicktime.make` …) to their first value.
    var keyed: [String: MetadataValue] = [:]
    /// `udta` and iTunes-style `ilst` atoms (`©xyz` …) to their first value.
    var atoms: [FourCC: MetadataValue] = [:]
}

/// A metadata value: text or a number, as the `data` atom's type says.
enum MetadataValue: Equatable {
    case text(String)
    case number(Double)
    case bytes([UInt8])

    var text: String? {
        if case .text(let t) = self { return t }
        return nil
    }

    var number: Double? {
        switch self {
        case .number(let n): return n
        case .text(let t): return Double(t.trimmingSpacesAndNULs())
        case .bytes: return nil
        }
    }
}

/// Reads a `moov` box: movie header, tracks and metadata, box by box.
struct MovieBoxParser {
    var boxes: BoxReader
    /// `moov` children's payloads larger than this are not read.
    static let payloadLimit = 16 << 20

    var movieTimescale: UInt32 = 0
    var movieDuration: UInt64 = 0
    var creationTime: UInt64 = 0
    var tracks: [TrackFacts] = []
    var tags = MovieTags()
    var xmp: [UInt8]?
    /// Canon CR3 `CMT1`…`CMT4` TIFF blocks, by number.
    var canonTIFFBlocks: [Int: [UInt8]] = [:]
    /// Whether the movie has an `mvex` box: its samples are in fragments, so an empty
    /// `mvhd` duration does not mean a length of zero.
    var isFragmented = false

    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8,
                                   0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0,
                                     0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]

    init(boxes: BoxReader) { self.boxes = boxes }

    mutating func parse(moov: BoxHeader) throws {
        for child in try boxes.children(of: moov, depth: 1) {
            switch child.type {
            case "mvhd": try parseMovieHeader(child)
            case "mvex": isFragmented = true
            case "trak": tracks.append(try parseTrack(child))
            case "meta": try parseMeta(child, depth: 2)
            case "udta": try parseUserData(child, depth: 2)
            case "uuid":
                if child.userType == MovieBoxParser.xmpUUID, xmp == nil {
                    xmp = try boxes.payload(of: child, limit: MovieBoxParser.payloadLimit)
                } else if child.userType == MovieBoxParser.canonUUID {
                    try parseCanonBlocks(child)
                }
            default: break
            }
        }
    }

    private mutating func parseMovieHeader(_ box: BoxHeader) throws {
        guard let payload = try boxes.payload(of: box, limit: 4096) else { return }
        var cursor = ByteCursor(payload, context: "movie header ('mvhd')")
        let (version, _) = try cursor.fullBoxHeader()
        if version == 1 {
            creationTime = try cursor.u64()
            _ = try cursor.u64()
            movieTimescale = try cursor.u32()
            movieDuration = try cursor.u64()
        } else {
            creationTime = UInt64(try cursor.u32())
            _ = try cursor.u32()
            movieTimescale = try cursor.u32()
            let duration = try cursor.u32()
            // All ones means "unknown" in a version-0 header.
            movieDuration = duration == .max ? 0 : UInt64(duration)
        }
    }

    private mutating func parseTrack(_ trak: BoxHeader) throws -> TrackFacts {
        var track = TrackFacts()
        let children = try boxes.children(of: trak, depth: 2)
        if let tkhd = children.first("tkhd") {
            do { try parseTrackHeader(tkhd, into: &track) } catch let error as MetadataError {
                boxes.warn("a track header could not be read: \(error)")
            }
        }
        if let edts = children.first("edts"), let elst = try boxes.children(of: edts, depth: 3).first("elst") {
            parseEditList(elst, into: &track)
        }
        guard let mdia = children.first("mdia") else { return track }
        let mediaChildren = try boxes.children(of: mdia, depth: 3)
        if let mdhd = mediaChildren.first("mdhd"), let payload = try boxes.payload(of: mdhd, limit: 4096) {
            var cursor = ByteCursor(payload, context: "media header ('mdhd')")
            if let (version, _) = try? cursor.fullBoxHeader() {
                if version == 1 {
                    _ = try? cursor.skip(16)
                    track.mediaTimescale = (try? cursor.u32()) ?? 0
                    track.mediaDuration = (try? cursor.u64()) ?? 0
                } else {
                    _ = try? cursor.skip(8)
                    track.mediaTimescale = (try? cursor.u32()) ?? 0
                    let duration = (try? cursor.u32()) ?? 0
                    track.mediaDuration = duration == .max ? 0 : UInt64(duration)
                }
            }
        }
        // The media handler is `mdia/hdlr`; `minf/hdlr` is QuickTime's data handler.
        if let hdlr = mediaChildren.first("hdlr"), let payload = try boxes.payload(of: hdlr, limit: 4096) {
            var cursor = ByteCursor(payload, context: "handler ('hdlr')")
            if (try? cursor.skip(8)) != nil { track.handler = try? cursor.fourCC() }
        }
        guard let minf = mediaChildren.first("minf"),
              let stbl = try boxes.children(of: minf, depth: 4).first("stbl") else { return track }
        let tables = try boxes.children(of: stbl, depth: 5)
        if let stsd = tables.first("stsd") {
            try parseSampleDescription(stsd, into: &track)
        }
        if let stts = tables.first("stts") {
            try parseTimeToSample(stts, into: &track)
        }
        return track
    }

    /// Sums the empty edits that open the edit list: Apple's still-image-time track is one
    /// sample placed at the still's time by an empty edit before it.
    private mutating func parseEditList(_ box: BoxHeader, into track: inout TrackFacts) {
        guard let payload = try? boxes.payload(of: box, limit: 1 << 16) else { return }
        var cursor = ByteCursor(payload, context: "edit list ('elst')")
        guard let (version, _) = try? cursor.fullBoxHeader(), let count = try? cursor.u32() else { return }
        var empty: UInt64 = 0
        for _ in 0..<min(Int(count), 64) {
            let duration: UInt64, mediaTime: Int64
            if version == 1 {
                guard let d = try? cursor.u64(), let m = try? cursor.u64() else { break }
                duration = d; mediaTime = Int64(bitPattern: m)
            } else {
                guard let d = try? cursor.u32(), let m = try? cursor.i32() else { break }
                duration = UInt64(d); mediaTime = Int64(m)
            }
            guard (try? cursor.skip(4)) != nil, mediaTime == -1 else { break }
            empty &+= duration
        }
        track.leadingEmptyEdit = empty
    }

    private mutating func parseTrackHeader(_ box: BoxHeader, into track: inout TrackFacts) throws {
        guard let payload = try boxes.payload(of: box, limit: 4096) else { return }
        var cursor = ByteCursor(payload, context: "track header ('tkhd')")
        let (version, flags) = try cursor.fullBoxHeader()
        track.isEnabled = flags & 1 != 0
        // creation, modification, track id, reserved, duration
        try cursor.skip(version == 1 ? 32 : 20)
        try cursor.skip(8 + 2 + 2 + 2 + 2)  // reserved, layer, alternate group, volume, reserved
        let a = try cursor.i32(), b = try cursor.i32(), _ = try cursor.i32()
        let c = try cursor.i32(), d = try cursor.i32()
        track.orientation = MovieBoxParser.orientation(a: a, b: b, c: c, d: d)
    }

    /// The EXIF orientation whose display transform equals the matrix's rotation or
    /// mirroring (`x' = a·x + c·y`, `y' = b·x + d·y`, y pointing down).
    static func orientation(a: Int32, b: Int32, c: Int32, d: Int32) -> Int {
        func sign(_ v: Int32) -> Int { v > 0x100 ? 1 : (v < -0x100 ? -1 : 0) }
        switch (sign(a), sign(b), sign(c), sign(d)) {
        case (0, 1, -1, 0): return 6     // 90° clockwise
        case (-1, 0, 0, -1): return 3    // 180°
        case (0, -1, 1, 0): return 8     // 90° anticlockwise
        case (-1, 0, 0, 1): return 2     // mirrored left-right
        case (1, 0, 0, -1): return 4     // mirrored top-bottom
        case (0, 1, 1, 0): return 5      // transposed
        case (0, -1, -1, 0): return 7    // transversed
        default: return 1
        }
    }

    private mutating func parseSampleDescription(_ box: BoxHeader, into track: inout TrackFacts) throws {
        guard let payload = try boxes.payload(of: box, limit: 1 << 20) else { return }
        var cursor = ByteCursor(payload, context: "sample description ('stsd')")
        _ = try cursor.fullBoxHeader()
        let count = try cursor.u32()
        guard count > 0, cursor.remaining >= 8 else { return }
        let entryStart = cursor.position
        let entrySize = Int(try cursor.u32())
        track.codec = try cursor.fourCC()
        let entryEnd = entrySize >= 8 ? min(payload.count, entryStart + entrySize) : payload.count
        // Visual sample entry: 6 reserved, data reference index, 16 bytes pre-defined/reserved, then width, height.
        if track.handler == "vide" || track.handler == "pict" || track.handler == nil {
            var visual = ByteCursor(payload, from: entryStart + 8 + 24, to: entryEnd, context: "visual sample entry")
            if let width = try? visual.u16(), let height = try? visual.u16(), width > 0, height > 0 {
                track.codedWidth = Int(width)
                track.codedHeight = Int(height)
            }
            let children = MovieBoxParser.entryBoxes(payload, from: entryStart + MovieBoxParser.visualSampleEntrySize, to: entryEnd)
            if let pasp = children["pasp"], let h = VideoFields.be32(pasp, 0), let v = VideoFields.be32(pasp, 4) {
                track.pixelAspect = (h, v)
            }
            if let colr = children["colr"], colr.count >= 10, colr.prefix(4).elementsEqual("nclx".utf8) || colr.prefix(4).elementsEqual("nclc".utf8),
               let primaries = VideoFields.be16(colr, 4), let transfer = VideoFields.be16(colr, 6), let matrix = VideoFields.be16(colr, 8) {
                track.colour = CodedVideoColour(primaries: primaries, transfer: transfer, matrix: matrix)
            }
        }
        if track.handler == "meta" || track.codec == "mebx" {
            track.hasStillImageTime = payload.contains(subsequence: MovieBoxParser.stillImageTimeKey)
        }
    }

    static let stillImageTimeKey = Array("com.apple.quicktime.still-image-time".utf8)

    /// A visual sample entry's fixed fields (ISO/IEC 14496-12 VisualSampleEntry), before its boxes.
    static let visualSampleEntrySize = 86

    /// The boxes among a sample entry's children (between `start` and `end` of `payload`),
    /// by type to their payload, the first of each type. A box whose size runs past `end`
    /// or below its header ends the walk.
    static func entryBoxes(_ payload: [UInt8], from start: Int, to end: Int) -> [String: [UInt8]] {
        var boxes: [String: [UInt8]] = [:]
        var offset = start
        for _ in 0..<64 where offset + 8 <= end {
            guard let size = VideoFields.be32(payload, offset), size >= 8, offset + size <= end else { break }
            let type = String(decoding: payload[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if boxes[type] == nil { boxes[type] = Array(payload[(offset + 8)..<(offset + size)]) }
            offset += size
        }
        return boxes
    }

    private mutating func parseTimeToSample(_ box: BoxHeader, into track: inout TrackFacts) throws {
        guard let payload = try boxes.payload(of: box, limit: MovieBoxParser.payloadLimit) else { return }
        var cursor = ByteCursor(payload, context: "time-to-sample table ('stts')")
        _ = try cursor.fullBoxHeader()
        let declared = Int(try cursor.u32())
        let count = min(declared, cursor.remaining / 8)
        if count < declared { boxes.warn("the time-to-sample table lists \(declared) entries but holds \(count)") }
        var total: UInt64 = 0
        var samplesByDelta: [UInt32: UInt64] = [:]
        for _ in 0..<count {
            let samples = try cursor.u32(), delta = try cursor.u32()
            total += UInt64(samples)
            if samplesByDelta.count < 10_000 || samplesByDelta[delta] != nil {
                samplesByDelta[delta, default: 0] += UInt64(samples)
            }
        }
        track.sampleCount = total
        track.commonSampleDelta = samplesByDelta.filter { $0.key > 0 }
            .max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }

    // MARK: Metadata

    /// Reads `meta`: QuickTime's (no version field, `keys` + `ilst`) or MP4's full box.
    mutating func parseMeta(_ box: BoxHeader, depth: Int) throws {
        guard box.payloadSize >= 8 else { return }
        let peek = try boxes.source.read(at: box.payloadOffset, count: 8)
        let isFullBox = !(peek.count == 8 && Array(peek[4..<8]) == Array("hdlr".utf8))
        let children = try boxes.children(of: box, skipping: isFullBox ? 4 : 0, depth: depth)
        var keys: [String] = []
        if let keysBox = children.first("keys"), let payload = try boxes.payload(of: keysBox, limit: 1 << 20) {
            keys = parseKeys(payload)
        }
        guard let ilst = children.first("ilst") else { return }
        for item in try boxes.children(of: ilst, depth: depth + 1) {
            guard let value = try dataValue(of: item, depth: depth + 2) else { continue }
            let index = Int(item.type.rawValue)
            if !keys.isEmpty, index >= 1, index <= keys.count {
                if tags.keyed[keys[index - 1]] == nil { tags.keyed[keys[index - 1]] = value }
            } else if tags.atoms[item.type] == nil {
                tags.atoms[item.type] = value
            }
        }
    }

    private func parseKeys(_ payload: [UInt8]) -> [String] {
        var cursor = ByteCursor(payload, context: "metadata keys ('keys')")
        guard (try? cursor.fullBoxHeader()) != nil, let declared = try? cursor.u32() else { return [] }
        var keys: [String] = []
        for _ in 0..<min(Int(declared), 10_000) {
            guard let size = try? cursor.u32(), size >= 8, let _ = try? cursor.u32(),
                  let name = try? cursor.bytes(Int(size) - 8) else { break }
            keys.append(String(decoding: name, as: UTF8.self))
        }
        return keys
    }

    /// The value of an `ilst` item: its first `data` atom, typed.
    private mutating func dataValue(of item: BoxHeader, depth: Int) throws -> MetadataValue? {
        guard let data = try boxes.children(of: item, depth: depth).first("data"),
              let payload = try boxes.payload(of: data, limit: 1 << 20) else { return nil }
        var cursor = ByteCursor(payload, context: "metadata value ('data')")
        guard let typeWord = try? cursor.u32(), (try? cursor.u32()) != nil else { return nil }
        let value = Array(payload[cursor.position...])
        return MovieBoxParser.typedValue(type: typeWord & 0x00FF_FFFF, bytes: value)
    }

    /// A `data` atom value by its well-known type (QuickTime File Format, "Well-known types").
    static func typedValue(type: UInt32, bytes: [UInt8]) -> MetadataValue {
        var cursor = ByteCursor(bytes, context: "metadata value")
        switch type {
        case 1: return .text(String(decoding: bytes, as: UTF8.self).trimmingSpacesAndNULs())
        case 2: return .text(String(decoding: stride(from: 0, to: bytes.count - 1, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }, as: UTF16.self))
        case 23: if let bits = try? cursor.u32() { return .number(Double(Float(bitPattern: bits))) }
        case 24: if let bits = try? cursor.u64() { return .number(Double(bitPattern: bits)) }
        case 21:
            switch bytes.count {
            case 1: return .number(Double(Int8(bitPattern: bytes[0])))
            case 2: if let v = try? cursor.u16() { return .number(Double(Int16(bitPattern: v))) }
            case 4: if let v = try? cursor.u32() { return .number(Double(Int32(bitPattern: v))) }
            case 8: if let v = try? cursor.u64() { return .number(Double(Int64(bitPattern: v))) }
            default: break
            }
        case 22:
            if bytes.count <= 8, !bytes.isEmpty { return .number(Double(bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })) }
        default: break
        }
        return .bytes(bytes)
    }

    /// Reads `udta`: QuickTime text atoms (`©xyz` …), `XMP_`, and an iTunes `meta`.
    mutating func parseUserData(_ box: BoxHeader, depth: Int) throws {
        for child in try boxes.children(of: box, depth: depth) {
            if child.type == "meta" {
                try parseMeta(child, depth: depth + 1)
            } else if child.type == "XMP_" {
                if xmp == nil { xmp = try boxes.payload(of: child, limit: MovieBoxParser.payloadLimit) }
            } else if child.type == "loci", tags.atoms[child.type] == nil {
                if let payload = try boxes.payload(of: child, limit: 1 << 16),
                   let point = MovieBoxParser.locationInformation(payload) {
                    tags.atoms[child.type] = .text(point)
                }
            } else if child.type == "date", tags.atoms[child.type] == nil {
                // Samsung's capture date: a bare ISO 8601 string.
                if let payload = try boxes.payload(of: child, limit: 256) {
                    tags.atoms[child.type] = .text(String(decoding: payload, as: UTF8.self).trimmingSpacesAndNULs())
                }
            } else if MovieBoxParser.assetInformationTypes.contains(child.type), tags.atoms[child.type] == nil {
                if let payload = try boxes.payload(of: child, limit: 1 << 16),
                   let text = MovieBoxParser.assetInformationText(payload, isKeywords: child.type == "kywd") {
                    tags.atoms[child.type] = .text(text)
                }
            } else if child.type.rawValue >> 24 == 0xA9, tags.atoms[child.type] == nil {
                guard let payload = try boxes.payload(of: child, limit: 1 << 16) else { continue }
                if let value = MovieBoxParser.userDataText(payload) { tags.atoms[child.type] = value }
            }
        }
    }

    /// 3GPP asset information (TS 26.244 §8): title, description, author, copyright, keywords.
    static let assetInformationTypes: Set<FourCC> = ["titl", "dscp", "auth", "cprt", "kywd"]

    /// The text of a 3GPP asset information box: a full box header, a packed language
    /// code, then a NUL-terminated UTF-8 or UTF-16 (with byte-order mark) string; `kywd`
    /// holds a count and that many length-prefixed strings, joined here with commas.
    /// iMovie writes bare text instead, without the header (whose version and flags are 0).
    static func assetInformationText(_ payload: [UInt8], isKeywords: Bool) -> String? {
        if payload.count >= 4, payload.prefix(4).contains(where: { $0 != 0 }) {
            return String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self).trimmingSpacesAndNULs()
        }
        guard payload.count > 6 else { return nil }
        func decode(_ bytes: ArraySlice<UInt8>) -> String {
            if bytes.count >= 2, bytes.first == 0xFE, bytes[bytes.startIndex + 1] == 0xFF {
                let body = bytes.dropFirst(2)
                let units = stride(from: body.startIndex, to: body.endIndex - 1, by: 2)
                    .map { UInt16(body[$0]) << 8 | UInt16(body[$0 + 1]) }
                return String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
            }
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard isKeywords else { return decode(payload[6...]).trimmingSpacesAndNULs() }
        var at = 7
        var keywords: [String] = []
        for _ in 0..<Int(payload[6]) {
            guard at < payload.count else { break }
            let size = Int(payload[at])
            guard at + 1 + size <= payload.count else { break }
            keywords.append(decode(payload[(at + 1)..<(at + 1 + size)]).trimmingSpacesAndNULs())
            at += 1 + size
        }
        return keywords.filter { !$0.isEmpty }.joined(separator: ",")
    }

    /// 3GPP's `loci` (TS 26.244 §8.9) as an ISO 6709 string, so it joins `©xyz`.
    static func locationInformation(_ payload: [UInt8]) -> String? {
        var cursor = ByteCursor(payload, context: "location information ('loci')")
        guard (try? cursor.fullBoxHeader()) != nil, (try? cursor.skip(2)) != nil else { return nil }
        // The name is UTF-8, or UTF-16 starting with a byte-order mark: skip to its terminator.
        if payload.count >= cursor.position + 2, payload[cursor.position] == 0xFE || payload[cursor.position] == 0xFF {
            while let unit = try? cursor.u16(), unit != 0 {}
        } else {
            _ = cursor.cString()
        }
        guard (try? cursor.skip(1)) != nil, let longitude = try? cursor.i32(), let latitude = try? cursor.i32(),
              let altitude = try? cursor.i32() else { return nil }
        func text(_ fixed: Int32) -> String {
            let value = Double(fixed) / 65536
            return (value < 0 ? "-" : "+") + String(abs(value))
        }
        return text(latitude) + text(longitude) + text(altitude) + "/"
    }

    /// A `udta` `©` atom: QuickTime's `size(2) language(2) text`, or a nested `data` atom.
    static func userDataText(_ payload: [UInt8]) -> MetadataValue? {
        if payload.count >= 16, Array(payload[4..<8]) == Array("data".utf8) {
            var cursor = ByteCursor(payload, context: "user data value")
            guard let size = try? cursor.u32(), size >= 16, Int(size) <= payload.count else { return nil }
            let typeWord = UInt32(payload[8]) << 24 | UInt32(payload[9]) << 16 | UInt32(payload[10]) << 8 | UInt32(payload[11])
            return typedValue(type: typeWord & 0x00FF_FFFF, bytes: Array(payload[16..<Int(size)]))
        }
        guard payload.count >= 4 else { return nil }
        let length = Int(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        let text = Array(payload[4..<min(payload.count, 4 + length)])
        return .text(String(decoding: text, as: UTF8.self).trimmingSpacesAndNULs())
    }

    /// Canon's CR3 `uuid` box: `CMT1`…`CMT4`, each a complete TIFF structure.
    private mutating func parseCanonBlocks(_ box: BoxHeader) throws {
        for child in try boxes.children(of: box, depth: 2) {
            let name = child.type.description
            guard name.hasPrefix("CMT"), let number = Int(name.dropFirst(3)),
                  let payload = try boxes.payload(of: child, limit: 8 << 20) else { continue }
            canonTIFFBlocks[number] = payload
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the array (a plain scan; both are small here).
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        let first = needle[0]
        var index = 0
        while index <= count - needle.count {
            if self[index] == first, Array(self[index..<(index + needle.count)]) == needle { return true }
            index += 1
        }
        return false
    }
}
