import Foundation
import MediaMetadata

/// What a Google Takeout JSON says about one photo or video, as the index uses it.
/// Stored as the JSON row's `files.metadata`.
///
/// Takeout writes, beside each media file, an object such as
/// `{"title": "IMG_1234.jpg", "description": "", "photoTakenTime": {"timestamp":
/// "1425229200", "formatted": "…"}, "geoData": {"latitude": 48.85, "longitude": 2.29,
/// "altitude": 35.0, …}, "geoDataExif": {…}, "favorited": true, …}`.
struct TakeoutValues: StoredFileValues, Equatable {
    /// `photoTakenTime.timestamp`: seconds since 1970, UTC (a string in Takeout's JSON).
    var takenTimestamp: Double?
    /// `geoData`, else `geoDataExif`; `0, 0` (Takeout's "no location") is none.
    var location: GeoLocation?
    /// `title`: the name the file had when it was uploaded.
    var title: String?
    /// `description`: the caption the user wrote in Google Photos (empty is none).
    var description: String?
    /// `favorited`.
    var favorited: Bool?
    /// What was out of shape (a field of the wrong type), one sentence each.
    var warnings: [String] = []

    /// The capture time: the timestamp as a UTC instant (`…Z`). Takeout gives no local
    /// offset, so none is invented.
    var captureDate: CaptureDate? {
        takenTimestamp.map { CaptureDate(timestamp: $0, utcOffsetSeconds: 0) }
    }
}

/// A Google Takeout album folder's `metadata.json`: `{"title": "Trip to Rome", …}`
/// (older exports: `{"albumData": {"title": …}}`). Stored as its row's `files.metadata`.
struct TakeoutAlbumValues: StoredFileValues, Equatable {
    /// The album's title, as the user named it in Google Photos.
    var title: String
}

/// Google Takeout's JSON files: which names they take, and what they say.
///
/// Sources for the name forms (each checked in `TakeoutSidecarTests`): immich-go's
/// matchers (`adapters/googlePhotos/matchers.go` and its tests: `DSC_0101.JPG(1).json`
/// for `DSC_0101(1).JPG`, a long name cut to 46 characters), ente's pull request #4956
/// (`.supplemental-metadata.json`, cut with the name to 46 characters, the `(1)` after
/// the cut) and #12691 (the suffix sometimes not cut), and GooglePhotosTakeoutHelper's
/// threads (#353, #448: `.supplemen.json`, `.suppl.json`, `..json`; `-edited` copies
/// and their translations have no JSON of their own).
enum TakeoutSidecar {
    /// The largest JSON read; Takeout's are a few kilobytes.
    static let maxBytes = 1 << 20
    /// The deepest nesting accepted; Takeout's JSON nests four levels.
    static let maxDepth = 32
    /// The length Takeout cuts `NAME` or `NAME.supplemental-metadata` to, before `(n).json`.
    static let cutLength = 46
    static let supplementalSuffix = ".supplemental-metadata"
    /// The suffixes Google Photos gives an edited copy, in the languages it is used in
    /// (lowercased): `IMG_1-edited.jpg` shares `IMG_1.jpg`'s JSON.
    static let editedSuffixes = ["-edited", "-bearbeitet", "-bewerkt", "-modifié", "-modificato", "-editado",
                                 "-ha editado", "-edytowane", "-redigeret", "-redigert", "-redigerad", "-muokattu",
                                 "-upraveno", "-編集済み", "-편집됨", "-编辑"]

    /// What one JSON file is.
    enum Content: Equatable {
        /// A media file's JSON.
        case media(TakeoutValues)
        /// An album folder's `metadata.json`.
        case album(TakeoutAlbumValues)
        /// JSON, but not Takeout's: ignored.
        case other
    }

    /// Whether the path is a JSON file (extension `.json`, any case).
    static func isJSON(_ path: PathBytes) -> Bool { path.lowercasedExtension == "json" }

    /// Whether the name is one Takeout gives a media file's JSON (`NAME.EXT….json`,
    /// `NAME(1).json`) or an album's (`metadata.json`): a file of such a name that
    /// cannot be read is an error of its own; any other JSON is then ignored.
    static func hasTakeoutName(_ path: PathBytes) -> Bool {
        let stem = FileNameKey(path).stemKey
        return stem.contains(".") || stem.hasSuffix(")") || stem == "metadata"
    }

    /// Reads a JSON file: at most `maxBytes`, nesting at most `maxDepth`.
    /// - Throws: `TakeoutSidecarError` when it is too large, too deep or not JSON;
    ///   `MetadataError.io` when the read fails.
    static func read(_ source: ByteSource, name: String) throws -> Content {
        guard source.size <= UInt64(maxBytes) else { throw TakeoutSidecarError.tooLarge(source.size) }
        return try parse(try source.read(at: 0, count: Int(source.size)), name: name)
    }

    /// Parses a JSON file's bytes.
    /// - Throws: `TakeoutSidecarError`.
    static func parse(_ bytes: [UInt8], name: String) throws -> Content {
        guard bytes.count <= maxBytes else { throw TakeoutSidecarError.tooLarge(UInt64(bytes.count)) }
        try checkNesting(bytes)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw TakeoutSidecarError.notJSON
        }
        guard let top = object as? [String: Any] else { return .other }
        let isMedia = ["photoTakenTime", "geoData", "geoDataExif", "creationTime", "googlePhotosOrigin"]
            .contains { top[$0] != nil }
        if isMedia { return .media(mediaValues(top)) }
        if let albumData = top["albumData"] as? [String: Any], let title = nonEmptyString(albumData["title"]) {
            return .album(TakeoutAlbumValues(title: title))
        }
        // Newer exports: `{"title", "description", "access", "date"}` in `metadata.json`
        // (or its translation: the stem has no extension of a media file).
        if let title = nonEmptyString(top["title"]), !name.lowercased().dropLast(5).contains("."),
           top["date"] != nil || top["access"] != nil || name.lowercased() == "metadata.json" {
            return .album(TakeoutAlbumValues(title: title))
        }
        return .other
    }

    /// Refuses nesting deeper than `maxDepth` before the JSON is parsed (outside strings).
    private static func checkNesting(_ bytes: [UInt8]) throws {
        var depth = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxDepth { throw TakeoutSidecarError.tooDeep }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
    }

    private static func mediaValues(_ top: [String: Any]) -> TakeoutValues {
        var values = TakeoutValues()
        func warn(_ field: String, _ expected: String) {
            values.warnings.append("Google Takeout JSON: `\(field)` is not \(expected); it was ignored")
        }
        if let taken = top["photoTakenTime"] {
            if let seconds = (taken as? [String: Any]).flatMap({ number($0["timestamp"]) }),
               seconds.isFinite, abs(seconds) < 1e11 {
                values.takenTimestamp = seconds
            } else {
                warn("photoTakenTime.timestamp", "a number of seconds")
            }
        }
        for field in ["geoData", "geoDataExif"] where values.location == nil {
            guard let raw = top[field] else { continue }
            guard let geo = raw as? [String: Any], let latitude = number(geo["latitude"]),
                  let longitude = number(geo["longitude"]) else {
                warn(field, "an object with a latitude and a longitude")
                continue
            }
            // 0, 0 is how Takeout says "no location".
            guard latitude != 0 || longitude != 0 else { continue }
            let location = GeoLocation(latitude: latitude, longitude: longitude,
                                       altitude: number(geo["altitude"]).flatMap { $0.isFinite ? $0 : nil })
            if location.isPlausible { values.location = location } else { warn(field, "a plausible position") }
        }
        if let raw = top["title"] {
            if let title = raw as? String { values.title = title.isEmpty ? nil : title } else { warn("title", "a string") }
        }
        if let raw = top["description"] {
            if let text = raw as? String {
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                values.description = trimmed.isEmpty ? nil : text
            } else {
                warn("description", "a string")
            }
        }
        if let raw = top["favorited"] {
            if isBoolean(raw), let flag = raw as? Bool { values.favorited = flag } else { warn("favorited", "true or false") }
        }
        return values
    }

    /// JSONSerialization gives booleans and numbers alike as NSNumber: only a real
    /// `true`/`false` counts as a flag.
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// A number, or a string holding one (Takeout writes timestamps as strings).
    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let text as String: return Double(text.trimmingCharacters(in: .whitespaces))
        case let number as NSNumber where !isBoolean(number): return number.doubleValue
        default: return nil
        }
    }

    private static func nonEmptyString(_ value: Any?) -> String? {
        guard let text = value as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return text
    }

    // MARK: Names

    /// A name split into the part Takeout cuts and the counter it appends after the
    /// cut: `IMG_1(2).jpg` is `IMG_1.jpg` and `(2)`.
    static func splitCounter(_ name: String) -> (base: String, counter: String) {
        let dot = name.lastIndex(of: ".").flatMap { $0 > name.startIndex ? $0 : nil }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[$0...]) } ?? ""
        guard stem.hasSuffix(")"), let open = stem.lastIndex(of: "("), open > stem.startIndex else { return (name, "") }
        let digits = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCIIDigitCharacter) else { return (name, "") }
        return (String(stem[..<open]) + ext, String(stem[open...]))
    }

    /// The `(n)` counter at the end of a JSON's name without `.json`
    /// (`img_1.jpg.supplemental-metadata(1)` → `(1)`), or "".
    static func trailingCounter(_ jsonStem: String) -> String {
        guard jsonStem.hasSuffix(")"), let open = jsonStem.lastIndex(of: "(") else { return "" }
        let digits = jsonStem[jsonStem.index(after: open)..<jsonStem.index(before: jsonStem.endIndex)]
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCIIDigitCharacter) else { return "" }
        return String(jsonStem[open...])
    }

    /// A media name with a counter put before its extension: `IMG_1.jpg`, `(1)` → `IMG_1(1).jpg`.
    static func name(_ name: String, withCounter counter: String) -> String {
        guard !counter.isEmpty else { return name }
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return name + counter }
        return String(name[..<dot]) + counter + String(name[dot...])
    }

    /// The stem keys (lowercased JSON names without `.json`) that Takeout gives the JSON
    /// of the media file `name`, most exact first:
    /// `NAME.supplemental-metadata`, `NAME`, each cut to 46 characters (counted as
    /// Unicode scalars and as UTF-16 units), with the `(n)` counter after the cut;
    /// last `STEM` (the name without its extension).
    static func metadataKeys(forMediaName name: String) -> [String] {
        let (base, counter) = splitCounter(name)
        var keys: [String] = []
        func add(_ key: String) {
            let lowered = (key + counter).lowercased()
            if !keys.contains(lowered) { keys.append(lowered) }
        }
        for whole in [base + supplementalSuffix, base] {
            add(whole)
            add(cutScalars(whole))
            add(cutUTF16(whole))
        }
        let stem = FileNameKey.stemKey(ofName: base)
        if stem != base { add(stem) }
        return keys
    }

    /// The name of the original of an edited copy (`IMG_1-edited.jpg` → `IMG_1.jpg`,
    /// `IMG_1-edited(1).jpg` → `IMG_1(1).jpg`); nil for a name that is not an edited copy's.
    static func originalName(ofEdited name: String) -> String? {
        let (base, counter) = splitCounter(name)
        let dot = base.lastIndex(of: ".").flatMap { $0 > base.startIndex ? $0 : nil }
        let stem = dot.map { String(base[..<$0]) } ?? base
        let ext = dot.map { String(base[$0...]) } ?? ""
        let lowered = stem.lowercased()
        for suffix in editedSuffixes where lowered.hasSuffix(suffix) && lowered.count > suffix.count {
            let original = String(stem.dropLast(suffix.count))
            return original + counter + ext
        }
        return nil
    }

    private static func cutScalars(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.prefix(cutLength))
        return String(scalars)
    }

    private static func cutUTF16(_ text: String) -> String {
        let units = Array(text.utf16.prefix(cutLength))
        // A surrogate pair split by the cut loses its first half.
        let whole = units.last.map { UTF16.isLeadSurrogate($0) } == true ? Array(units.dropLast()) : units
        return String(decoding: whole, as: UTF16.self)
    }
}

/// Why a Takeout JSON could not be read: one sentence.
enum TakeoutSidecarError: Error, CustomStringConvertible {
    case tooLarge(UInt64)
    case tooDeep
    case notJSON

    var description: String {
        switch self {
        case .tooLarge(let size):
            "the Google Takeout JSON is \(size) bytes, more than the \(TakeoutSidecar.maxBytes) read (Takeout's are a few kilobytes)"
        case .tooDeep:
            "the Google Takeout JSON nests deeper than \(TakeoutSidecar.maxDepth) levels"
        case .notJSON:
            "the Google Takeout JSON is not valid JSON (truncated or damaged)"
        }
    }
}

private extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
