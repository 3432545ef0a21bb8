import Foundation
import MediaIndex
import MediaMetadata

/// Named text values a request carries: a command line's options, or a URL's query.
///
/// Names are given in camel case (`minPixels`); each source knows how its users spell
/// them (`--min-pixels`, `minPixels`) for error messages.
public protocol ParameterSource {
    /// The single value of `name`, or nil when absent.
    ///
    /// - Throws: the source's own error when the value is malformed for it.
    func value(_ name: String) throws -> String?
    /// Every value of a repeatable `name`, in order.
    func values(_ name: String) -> [String]
    /// Whether the boolean `name` is set.
    ///
    /// - Throws: the source's own error for a value that is not a boolean.
    func flag(_ name: String) throws -> Bool
    /// The value of `name` as a finite number, or nil when absent.
    ///
    /// - Throws: the source's own error when it is not a number.
    func number(_ name: String) throws -> Double?
    /// How users of this source write `name` (`--min-pixels` or `minPixels`).
    func spelling(of name: String) -> String
}

/// A parameter value that makes no sense: one sentence naming the parameter as its
/// user spelled it (`--from takes a date such as …`).
public struct ParameterError: Error, Equatable, CustomStringConvertible {
    /// The sentence.
    public var message: String
    /// An error with its sentence.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What `mediaindex assets` and `GET /v1/assets` ask for: the fetch options and the
/// album named, decoded the same way from either.
public struct AssetListingParameters: Sendable {
    /// The names this decoder reads, in camel case.
    public static let names = ["q", "filter", "album", "recursive", "from", "to", "onThisDay", "near", "within", "bbox", "country", "place", "make", "model", "minPixels",
                               "minDuration", "maxDuration", "type", "includeHidden", "allBursts", "sort",
                               "reverse", "after", "keyword", "person", "minRating", "rating", "label",
                               "hasCaption", "hasTitle"]

    /// The options for `fetchAssets`, with `album` still unresolved.
    public var options = FetchOptions()
    /// The album as given (an id, a smart album name, a title or a folder path), to resolve
    /// with `albumScope(named:)`.
    public var albumKey: String?
    /// With a folder album: also every asset in its subfolders.
    public var recursive = false

    /// Reads every parameter of `names` from `source`.
    ///
    /// - Throws: `ParameterError` for a value that makes no sense, or the source's own
    ///   errors for malformed values.
    public init(reading source: some ParameterSource) throws {
        if let text = try source.value("q") {
            do { options.search = try SearchQuery(parsing: text) } catch let error as SearchQueryError {
                throw ParameterError("\(source.spelling(of: "q")): \(error.description)")
            }
        }
        if let text = try source.value("filter") {
            do { options.filter = try MediaFilter(parsing: text) } catch let error as MediaFilterParseError {
                throw ParameterError("\(source.spelling(of: "filter")): \(error.description)")
            }
        }
        albumKey = try source.value("album")
        recursive = try source.flag("recursive")
        if recursive && albumKey == nil {
            throw ParameterError("\(source.spelling(of: "recursive")) needs \(source.spelling(of: "album")) FOLDER")
        }
        try readCaptureRange(from: source)
        try readPosition(from: source)
        options.country = try source.value("country")
        options.placeName = try source.value("place")
        options.make = try source.value("make")
        options.model = try source.value("model")
        if let text = try source.value("minPixels") {
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            if parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0 {
                options.minimumPixelWidth = w
                options.minimumPixelHeight = h
            } else if let n = Int(text), n >= 0 {
                options.minimumPixelCount = n
            } else {
                throw ParameterError("\(source.spelling(of: "minPixels")) takes WxH (such as 1920x1080) or a pixel count, not '\(text)'")
            }
        }
        options.minimumDuration = try Self.duration("minDuration", from: source)
        options.maximumDuration = try Self.duration("maxDuration", from: source)
        try readDescription(from: source)
        options.formats = try source.values("type").map { try Self.format($0, option: source.spelling(of: "type")) }
        options.includeHidden = try source.flag("includeHidden")
        options.includeAllBurstAssets = try source.flag("allBursts")
        if let text = try source.value("sort") {
            guard let key = AssetSortKey.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw ParameterError(Suggestion.refusal(of: text, for: source.spelling(of: "sort"),
                                                        valid: AssetSortKey.allCases.map(\.rawValue)))
            }
            options.sort = AssetSort(key)
        }
        if try source.flag("reverse") {
            options.sort = options.sort ?? AssetSort.newestFirst
            options.sort?.ascending.toggle()
        }
        options.after = try source.value("after")
    }

    /// `from`, `to` and `onThisDay`: a date or a time without a zone is the camera's wall clock (its
    /// day); one with a zone an instant.
    mutating func readCaptureRange(from source: some ParameterSource) throws {
        if let text = try source.value("from") {
            switch try Self.captureBound(text, option: source.spelling(of: "from"), endOfDay: false) {
            case .instant(let date): options.capturedFrom = date
            case .localTime(let date): options.capturedFromLocalTime = date
            }
        }
        if let text = try source.value("to") {
            switch try Self.captureBound(text, option: source.spelling(of: "to"), endOfDay: true) {
            case .instant(let date): options.capturedBefore = date
            case .localTime(let date): options.capturedBeforeLocalTime = date
            }
        }
        if let text = try source.value("onThisDay") {
            guard let onThisDay = OnThisDay(text) else {
                throw ParameterError("\(source.spelling(of: "onThisDay")) takes MM-DD (such as 07-01) or today, not '\(text)'")
            }
            options.onThisDay = onThisDay
        }
    }

    /// `near` (a circle: `LAT,LON` with `within` KM, or `LAT,LON,METRES`) or `bbox` (a box), not both.
    mutating func readPosition(from source: some ParameterSource) throws {
        let near = source.spelling(of: "near"), withinName = source.spelling(of: "within")
        var within: Double?
        if let text = try source.value("within") {
            guard let kilometres = Double(text.trimmingCharacters(in: .whitespaces)), kilometres.isFinite, kilometres > 0 else {
                throw ParameterError("\(withinName) takes a distance in kilometres above 0, not '\(text)'")
            }
            within = kilometres
        }
        if let text = try source.value("near") {
            let given = text.split(separator: ",", omittingEmptySubsequences: false).count
            let numbers = try Self.numbers(text, count: given == 2 ? 2 : 3, option: near,
                                           shape: given == 2 ? "LAT,LON" : "LAT,LON,METRES (or LAT,LON with \(withinName) KM)")
            try Self.checkCoordinates([(numbers[0], numbers[1])], option: near, text: text)
            let metres: Double
            if numbers.count == 2 {
                guard let within else {
                    throw ParameterError("\(near) LAT,LON needs \(withinName) KM (or give LAT,LON,METRES), in '\(text)'")
                }
                metres = within * 1000
            } else {
                guard within == nil else {
                    throw ParameterError("\(withinName) goes with \(near) LAT,LON, not with a radius in metres as in '\(text)'")
                }
                guard numbers[2] > 0 else {
                    throw ParameterError("\(near) takes a radius in metres above 0, not \(numbers[2]) in '\(text)'")
                }
                metres = numbers[2]
            }
            options.place = .radius(latitude: numbers[0], longitude: numbers[1], radiusMeters: metres)
        } else if within != nil {
            throw ParameterError("\(withinName) needs \(near) LAT,LON: the point to measure from")
        }
        if let text = try source.value("bbox") {
            if options.place != nil {
                throw ParameterError("\(source.spelling(of: "near")) and \(source.spelling(of: "bbox")) cannot be used together")
            }
            let n = try Self.numbers(text, count: 4, option: source.spelling(of: "bbox"), shape: "SOUTH,WEST,NORTH,EAST")
            try Self.checkCoordinates([(n[0], n[1]), (n[2], n[3])], option: source.spelling(of: "bbox"), text: text)
            guard n[0] <= n[2] else {
                throw ParameterError("\(source.spelling(of: "bbox")) takes its south edge first: \(n[0]) is north of \(n[2]) in '\(text)'")
            }
            options.place = .boundingBox(minLatitude: n[0], minLongitude: n[1], maxLatitude: n[2], maxLongitude: n[3])
        }
    }

    /// The describing filters: `keyword`, `person` (repeatable), `minRating`, `rating`,
    /// `label`, `hasCaption`, `hasTitle`.
    mutating func readDescription(from source: some ParameterSource) throws {
        options.keywords = source.values("keyword")
        options.people = source.values("person")
        for keyword in options.keywords where !keyword.contains(where: { $0.isLetter || $0.isNumber }) {
            throw ParameterError("\(source.spelling(of: "keyword")) takes a keyword or a path such as Places|France, not '\(keyword)'")
        }
        options.minimumRating = try Self.stars("minRating", from: source)
        options.rating = try Self.stars("rating", from: source)
        options.label = try source.value("label")
        options.hasCaption = try Self.yesOrNo("hasCaption", from: source)
        options.hasTitle = try Self.yesOrNo("hasTitle", from: source)
    }

    /// A star rating, -1 (rejected) to 5.
    ///
    /// - Throws: `ParameterError` for anything else, or the source's own error.
    static func stars(_ name: String, from source: some ParameterSource) throws -> Int? {
        guard let number = try source.number(name) else { return nil }
        guard number.rounded() == number, (-1...5).contains(number) else {
            throw ParameterError("\(source.spelling(of: name)) takes stars from -1 (rejected) to 5, not \(number.rounded() == number ? String(Int(exactly: number) ?? 0) : String(number))")
        }
        return Int(number)
    }

    /// `yes`/`true` or `no`/`false`.
    ///
    /// - Throws: `ParameterError` for another value, or the source's own error.
    static func yesOrNo(_ name: String, from source: some ParameterSource) throws -> Bool? {
        guard let text = try source.value(name) else { return nil }
        switch text.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw ParameterError(Suggestion.refusal(of: text, for: source.spelling(of: name), valid: ["yes", "no"]))
        }
    }

    /// The file formats `type` takes: the names the index records (`MediaFormat`).
    public static let formatNames = MediaFormat.allCases.map(\.rawValue)

    /// `text` as one of `formatNames` (any case).
    ///
    /// - Throws: `ParameterError` listing the formats, with the nearest (`jpg` → `jpeg`).
    static func format(_ text: String, option: String) throws -> String {
        guard let name = formatNames.first(where: { $0 == text.lowercased() }) else {
            throw ParameterError(Suggestion.refusal(of: text, for: option, valid: formatNames))
        }
        return name
    }

    /// A length in seconds, 0 or more.
    ///
    /// - Throws: `ParameterError` for a negative length, or the source's own error.
    static func duration(_ name: String, from source: some ParameterSource) throws -> Double? {
        guard let seconds = try source.number(name) else { return nil }
        guard seconds >= 0 else {
            throw ParameterError("\(source.spelling(of: name)) takes a length in seconds, 0 or more, not \(seconds)")
        }
        return seconds
    }

    /// Latitudes within ±90° and longitudes within ±180°.
    ///
    /// - Throws: `ParameterError` naming the first coordinate out of range.
    static func checkCoordinates(_ points: [(latitude: Double, longitude: Double)], option: String, text: String) throws {
        for point in points {
            guard abs(point.latitude) <= 90 else {
                throw ParameterError("\(option): latitude \(point.latitude) is outside -90…90 in '\(text)'")
            }
            guard abs(point.longitude) <= 180 else {
                throw ParameterError("\(option): longitude \(point.longitude) is outside -180…180 in '\(text)'")
            }
        }
    }

    /// A date: local time unless it carries `Z` or an offset; a bare date is the start of
    /// that day, or with `endOfDay` the start of the next.
    ///
    /// - Throws: `ParameterError` naming `option` when `text` is no such date.
    /// A bound of `--from`/`--to`: an instant (the text has a zone), or the camera's local wall clock
    /// as seconds since 1970 read as UTC (a date, or a time without a zone).
    public enum CaptureBound: Equatable, Sendable {
        case instant(Date)
        case localTime(Date)
    }

    /// `--from`/`--to`'s text as a bound; `endOfDay` makes a bare date its next day's start.
    public static func captureBound(_ text: String, option: String, endOfDay: Bool) throws -> CaptureBound {
        if let date = instant(text.trimmingCharacters(in: .whitespaces)) { return .instant(date) }
        return .localTime(try date(text, option: option, endOfDay: endOfDay, zone: TimeZone(identifier: "UTC") ?? .current))
    }

    /// The instant a text with a zone names; nil for any other text.
    static func instant(_ trimmed: String) -> Date? {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: trimmed) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: trimmed) { return date }
        // Minutes without seconds before a zone (`2021-04-11T21:00Z`, `…21:00+02:00`).
        iso.formatOptions = [.withInternetDateTime]
        if let withSeconds = Self.insertingSeconds(into: trimmed), let date = iso.date(from: withSeconds) { return date }
        return nil
    }

    public static func date(_ text: String, option: String, endOfDay: Bool, zone: TimeZone = .current) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = instant(trimmed) { return date }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = zone
        for pattern in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm"] {
            local.dateFormat = pattern
            if let date = local.date(from: trimmed) { return date }
        }
        local.dateFormat = "yyyy-MM-dd"
        if let day = local.date(from: trimmed) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            return endOfDay ? calendar.date(byAdding: .day, value: 1, to: day) ?? day : day
        }
        throw ParameterError("\(option) takes a date such as 2024-05-31 or 2024-05-31T18:30 (local) or 2024-05-31T16:30:00Z, not '\(text)'")
    }

    /// `2021-04-11T21:00:00Z` for `2021-04-11T21:00Z`: a date-time to the minute with a
    /// zone, given its seconds; nil for any other text.
    static func insertingSeconds(into text: String) -> String? {
        let characters = Array(text)
        guard characters.count > 16, characters[10] == "T" || characters[10] == "t", characters[13] == ":",
              characters[16] == "Z" || characters[16] == "z" || characters[16] == "+" || characters[16] == "-"
        else { return nil }
        return String(characters[..<16]) + ":00" + String(characters[16...])
    }

    /// `count` finite numbers separated by commas.
    ///
    /// - Throws: `ParameterError` naming `option` and the expected `shape`.
    public static func numbers(_ text: String, count: Int, option: String, shape: String) throws -> [Double] {
        let values = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == count, values.allSatisfy({ $0?.isFinite == true }) else {
            throw ParameterError("\(option) takes \(shape) as \(count) numbers separated by commas, not '\(text)'")
        }
        return values.compactMap { $0 }
    }
}
