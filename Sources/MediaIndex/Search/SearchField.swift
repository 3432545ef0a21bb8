import Foundation

/// One `field:value` term of the search language: its names, what it tests, and an
/// example for messages and docs. `SearchField.all` is the one list.
struct SearchField: Sendable {
    enum Kind: Sendable {
        /// Words in this column of the text index (`SearchTextColumn`).
        case text(column: String)
        /// A number compared with `>`, `>=`, `<`, `<=`, `=` or a range `a..b`. With a
        /// `floor`, the column holds a number below it where the asset has none (a sort
        /// column's stand-in for NULL), and a comparison without a lower bound is given that one.
        case number(column: String, unit: String, floor: Double? = nil)
        /// A local calendar day, month or year, or a range of them.
        case localDate
        /// A `MediaFilter` name, `favorite` or `hidden`.
        case kind
        /// A user album, by title.
        case album
        /// The primary file's extension.
        case fileExtension
        /// The primary file's format (`MediaFormat` raw value).
        case format
        /// A keyword or one below it (`AssetQuery.keywordCondition`).
        case keyword
        /// A person named in the picture.
        case person
        /// A colour label.
        case label
        /// A place's name at any level (`PlaceNames`).
        case place
        /// A country, by ISO code or English name.
        case country
        /// A month and day in earlier years (`OnThisDay`).
        case onThisDay
    }

    var name: String
    var aliases: [String] = []
    var kind: Kind
    var example: String

    /// Every field, in the order docs list them.
    static let all: [SearchField] = [
        SearchField(name: "name", aliases: ["file", "filename"], kind: .text(column: "name"), example: "name:IMG_12"),
        SearchField(name: "camera", kind: .text(column: "camera"), example: "camera:\"EOS 6D\""),
        SearchField(name: "lens", kind: .text(column: "lens"), example: "lens:50mm"),
        SearchField(name: "type", kind: .kind, example: "type:video"),
        SearchField(name: "is", kind: .kind, example: "is:favorite"),
        SearchField(name: "date", kind: .localDate, example: "date:2023-07-01..2023-07-14"),
        SearchField(name: "on", kind: .onThisDay, example: "on:07-01"),
        SearchField(name: "album", kind: .album, example: "album:\"Summer\""),
        SearchField(name: "ext", aliases: ["extension"], kind: .fileExtension, example: "ext:jpg"),
        SearchField(name: "format", kind: .format, example: "format:heic"),
        SearchField(name: "width", kind: .number(column: "a.pixel_width", unit: "pixels"), example: "width:>3000"),
        SearchField(name: "height", kind: .number(column: "a.pixel_height", unit: "pixels"), example: "height:>=1080"),
        // `duration_sort` (-1 where the asset has no length): `assets_by_duration` holds it,
        // so a count can be driven by its range (`SearchPlan.countingQuery`).
        SearchField(name: "duration", kind: .number(column: "a.duration_sort", unit: "seconds", floor: 0), example: "duration:<10"),
        SearchField(name: "rating", kind: .number(column: AssetQuery.ratingExpression, unit: "stars"), example: "rating:>=4"),
        SearchField(name: "keyword", aliases: ["keywords", "tag"], kind: .keyword, example: "keyword:beach"),
        SearchField(name: "person", aliases: ["people"], kind: .person, example: "person:\"Ann Lee\""),
        SearchField(name: "place", aliases: ["city"], kind: .place, example: "place:zurich"),
        SearchField(name: "country", kind: .country, example: "country:switzerland"),
        SearchField(name: "title", kind: .text(column: "title"), example: "title:sunset"),
        SearchField(name: "caption", aliases: ["description"], kind: .text(column: "caption"), example: "caption:sunset"),
        SearchField(name: "label", kind: .label, example: "label:red"),
        SearchField(name: "creator", kind: .text(column: "creator"), example: "creator:ann"),
        SearchField(name: "copyright", kind: .text(column: "copyright"), example: "copyright:ann"),
    ]

    static func named(_ name: String) -> SearchField? {
        let lowered = name.lowercased()
        return all.first { $0.name == lowered || $0.aliases.contains(lowered) }
    }

    static func example(for name: String) -> String { named(name)?.example ?? "camera:canon" }

    /// The values `type:` and `is:` take: every `MediaFilter` name (and its singular), plus
    /// the user's flags and the media types' everyday names.
    static let kindValues: [(name: String, value: SearchExpression)] = {
        var values: [(String, SearchExpression)] = [
            ("photo", .kind(.images)), ("image", .kind(.images)), ("video", .kind(.videos)), ("live", .kind(.livePhotos)),
            ("favorite", .favorite), ("favourite", .favorite), ("hidden", .hidden),
        ]
        for (name, filter) in MediaFilter.named {
            values.append((name.lowercased(), .kind(filter)))
            if name.hasSuffix("s") { values.append((String(name.dropLast()).lowercased(), .kind(filter))) }
        }
        return values
    }()

    // MARK: - Reading terms

    /// The term `name:value`.
    ///
    /// - Throws: `SearchQueryError` at `nameColumn` for an unknown or unstored field, at
    ///   `valueColumn` for a value the field cannot take.
    static func term(name: String, value: String, prefix: Bool, nameColumn: Int,
                     valueColumn: Int) throws -> SearchExpression {
        guard let field = named(name) else {
            let names = all.map(\.name)
            var message = "unknown field '\(name):'"
            if let near = FilterParser.closest(to: name.lowercased(), in: names) { message += "; did you mean '\(near):'?" }
            else { message += "; the fields are " + names.map { $0 + ":" }.joined(separator: ", ") }
            throw SearchQueryError(column: nameColumn, message: message)
        }
        func fail(_ message: String) -> SearchQueryError { SearchQueryError(column: valueColumn, message: message) }
        switch field.kind {
        case .text(let column):
            return try words(value, column: column, prefix: prefix, at: valueColumn)
        case .kind:
            let lowered = value.lowercased()
            if let match = kindValues.first(where: { $0.name == lowered }) { return match.value }
            let names = kindValues.map(\.name)
            let near = FilterParser.closest(to: lowered, in: names)
            throw fail("'\(field.name):' takes \(near.map { "'\($0)' (did you mean it?) or " } ?? "")one of "
                + (["photo", "video", "live", "favorite", "hidden"] + MediaFilter.named.map(\.name)).joined(separator: ", ")
                + ", not '\(value)'")
        case .number(let column, let unit, let floor):
            let compared = try number(value, column: column, field: field, unit: unit, fail: fail)
            guard let floor, case .number(_, nil, _, let upper, let upperInclusive) = compared else { return compared }
            return .number(column: column, lower: floor, lowerInclusive: true, upper: upper, upperInclusive: upperInclusive)
        case .localDate:
            return try localDate(value, field: field, fail: fail)
        case .album:
            return .album(title: value)
        case .fileExtension:
            let bare = value.hasPrefix(".") ? String(value.dropFirst()) : value
            guard !bare.isEmpty, bare.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw fail("'ext:' takes a file extension such as jpg or heic, not '\(value)'")
            }
            return .fileExtension(bare.lowercased())
        case .format:
            return .format(value.lowercased())
        case .keyword:
            guard DescriptiveColumns.keywordNeedle(value) != nil else { throw fail("'keyword:' takes a keyword or a path such as Places|France, not '\(value)'") }
            return .keyword(value)
        case .person:
            return .person(value)
        case .label:
            return .label(value)
        case .place:
            return .placeName(value)
        case .country:
            return .country(value)
        case .onThisDay:
            guard let onThisDay = OnThisDay(value) else { throw fail("'on:' takes a month and day such as 07-01, or today, not '\(value)'") }
            return .onThisDay(onThisDay)
        }
    }

    /// Free text, or the text of a `text` field.
    static func words(_ text: String, column: String?, prefix: Bool, at columnNumber: Int) throws -> SearchExpression {
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else {
            throw SearchQueryError(column: columnNumber, message:
                "'\(text)' has no letter or digit to search for; put punctuation inside a quoted phrase with words")
        }
        return .words(column: column, text: text, prefix: prefix)
    }

    /// `>3000`, `>=4`, `<10`, `<=5`, `=4`, `4`, `3..5`.
    static func number(_ value: String, column: String, field: SearchField, unit: String,
                       fail: (String) -> SearchQueryError) throws -> SearchExpression {
        func parse(_ text: Substring) throws -> Double {
            var digits = text
            if unit == "seconds", digits.hasSuffix("s") { digits = digits.dropLast() }
            guard let number = Double(digits), number.isFinite else {
                throw fail("'\(field.name):' takes a number of \(unit) with >, >=, <, <= or a range a..b, such as \(field.example), not '\(value)'")
            }
            return number
        }
        if let range = value.range(of: "..") {
            let lower = try parse(value[..<range.lowerBound]), upper = try parse(value[range.upperBound...])
            guard lower <= upper else { throw fail("the range '\(value)' is empty: its start is above its end") }
            return .number(column: column, lower: lower, lowerInclusive: true, upper: upper, upperInclusive: true)
        }
        for (op, length) in [(">=", 2), ("<=", 2), (">", 1), ("<", 1), ("=", 1)] where value.hasPrefix(op) {
            let number = try parse(value.dropFirst(length))
            switch op {
            case ">=": return .number(column: column, lower: number, lowerInclusive: true, upper: nil, upperInclusive: false)
            case ">": return .number(column: column, lower: number, lowerInclusive: false, upper: nil, upperInclusive: false)
            case "<=": return .number(column: column, lower: nil, lowerInclusive: false, upper: number, upperInclusive: true)
            case "<": return .number(column: column, lower: nil, lowerInclusive: false, upper: number, upperInclusive: false)
            default: break
            }
            return .number(column: column, lower: number, lowerInclusive: true, upper: number, upperInclusive: true)
        }
        let number = try parse(value[...])
        return .number(column: column, lower: number, lowerInclusive: true, upper: number, upperInclusive: true)
    }

    /// `2023`, `2023-07`, `2023-07-01`, or `FROM..TO` of those (both ends included).
    static func localDate(_ value: String, field: SearchField, fail: (String) -> SearchQueryError) throws -> SearchExpression {
        let parts = value.components(separatedBy: "..")
        guard parts.count <= 2, let first = parts.first, let start = LocalDatePrefix(first),
              let end = parts.count == 2 ? LocalDatePrefix(parts[1]) : start else {
            throw fail("'date:' takes a year, month or day such as 2023, 2023-07 or 2023-07-01, or a range such as \(field.example), not '\(value)'")
        }
        let until = end.next
        guard start.text < until else { throw fail("the range '\(value)' is empty: its start is after its end") }
        return .localDate(from: start.text, until: until)
    }
}

/// A year, month or day as `creation_date` begins with it (`2023`, `2023-07`, `2023-07-01`).
struct LocalDatePrefix {
    var year: Int
    var month: Int?
    var day: Int?

    init?(_ text: String) {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), fields[0].count == 4, let year = Int(fields[0]), year > 0 else { return nil }
        self.year = year
        if fields.count >= 2 {
            guard fields[1].count == 2, let month = Int(fields[1]), (1...12).contains(month) else { return nil }
            self.month = month
        }
        if fields.count == 3 {
            guard fields[2].count == 2, let day = Int(fields[2]), let month,
                  (1...LocalDatePrefix.days(inMonth: month, year: year)).contains(day) else { return nil }
            self.day = day
        }
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    var text: String { Self.format(year, month, day) }

    /// The prefix of the period just after: a day's next day, a month's next month, a year's next.
    var next: String {
        guard let month else { return Self.format(year + 1, nil, nil) }
        guard let day else { return month == 12 ? Self.format(year + 1, 1, nil) : Self.format(year, month + 1, nil) }
        if day < Self.days(inMonth: month, year: year) { return Self.format(year, month, day + 1) }
        return month == 12 ? Self.format(year + 1, 1, 1) : Self.format(year, month + 1, 1)
    }

    static func format(_ year: Int, _ month: Int?, _ day: Int?) -> String {
        var text = String(format: "%04d", year)
        if let month { text += String(format: "-%02d", month) }
        if let day { text += String(format: "-%02d", day) }
        return text
    }
}
