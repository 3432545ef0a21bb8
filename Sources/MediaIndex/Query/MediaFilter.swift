/// Which assets a query shows: PHPickerFilter's algebra, plus a few filters of ours.
///
/// Semantics follow Apple's picker: a live photo is an image (so `.images` includes
/// live photos), a live photo's movie is a resource of the photo, never a video item,
/// and the default is images + videos + live photos, which is every asset.
///
/// ```swift
/// let filter = MediaFilter.all(of: [.images, .not(.screenshots)])
/// let same = try MediaFilter(parsing: "images & !screenshots")
/// ```
public indirect enum MediaFilter: Sendable, Hashable {
    // PHPickerFilter's names.
    case images
    case videos
    case livePhotos
    case screenshots
    case panoramas
    case screenRecordings
    case slomoVideos
    case timelapseVideos
    case depthEffectPhotos
    case bursts
    case cinematicVideos
    case spatialMedia
    // Ours.
    case selfies
    case raw
    case animated
    case hdr
    case motionPhotos
    /// Assets with an edit: an edited rendering or Apple's adjustments (`Asset.hasAdjustments`).
    case edited
    /// Assets in a same-file or duplicate group (`mediaindex duplicates`), as last grouped.
    case duplicates
    /// Assets in a group of similar shots (a burst or a series), as last grouped.
    case similar
    // Combinators.
    case any(of: [MediaFilter])
    case all(of: [MediaFilter])
    case not(MediaFilter)

    /// Apple's default: images, videos and live photos (every asset).
    public static let `default` = MediaFilter.any(of: [.images, .videos, .livePhotos])

    /// Every leaf filter with the name the text grammar and `description` use.
    public static let named: [(name: String, filter: MediaFilter)] = [
        ("images", .images), ("videos", .videos), ("livePhotos", .livePhotos), ("screenshots", .screenshots),
        ("panoramas", .panoramas), ("screenRecordings", .screenRecordings), ("slomoVideos", .slomoVideos),
        ("timelapseVideos", .timelapseVideos), ("depthEffectPhotos", .depthEffectPhotos), ("bursts", .bursts),
        ("cinematicVideos", .cinematicVideos), ("spatialMedia", .spatialMedia), ("selfies", .selfies),
        ("raw", .raw), ("animated", .animated), ("hdr", .hdr), ("motionPhotos", .motionPhotos),
        ("edited", .edited), ("duplicates", .duplicates), ("similar", .similar),
    ]

    /// The column of `assets` a leaf tests, or nil for a combinator.
    ///
    /// The one place a leaf names its column: the SQL below and the choice of the
    /// counting path (`readsOnlyKindColumns`) both read it.
    var testedColumn: String? {
        switch self {
        case .images, .videos: return "media_type"
        case .bursts: return "burst_identifier"
        case .edited: return "has_adjustments"
        case .any, .all, .not: return nil
        default: return subtype == nil ? nil : "subtypes"
        }
    }

    /// The columns the per-kind totals (`asset_kinds`, migration 0009) carry.
    static let kindColumns: Set<String> = ["media_type", "subtypes", "burst_identifier"]

    /// Whether every column the filter tests is one of `kindColumns`, so its counts can
    /// be summed from the per-kind totals instead of read from every asset.
    var readsOnlyKindColumns: Bool {
        switch self {
        case .any(let filters), .all(let filters): return filters.allSatisfy(\.readsOnlyKindColumns)
        case .not(let filter): return filter.readsOnlyKindColumns
        default: return testedColumn.map(Self.kindColumns.contains) ?? false
        }
    }

    /// The subtype bit a leaf tests, or nil for media types, bursts and combinators.
    var subtype: MediaSubtypes? {
        switch self {
        case .livePhotos: return .livePhoto
        case .screenshots: return .screenshot
        case .panoramas: return .panorama
        case .screenRecordings: return .screenRecording
        case .slomoVideos: return .slomoVideo
        case .timelapseVideos: return .timelapseVideo
        case .depthEffectPhotos: return .depthEffect
        case .cinematicVideos: return .cinematicVideo
        case .spatialMedia: return .spatialMedia
        case .selfies: return .selfie
        case .raw: return .raw
        case .animated: return .animated
        case .hdr: return .hdr
        case .motionPhotos: return .motionPhoto
        default: return nil
        }
    }
}

extension MediaFilter: CustomStringConvertible {
    /// The filter in the text grammar; parsing it gives the same filter back.
    public var description: String {
        switch self {
        case .any(let filters): return "any(" + filters.map(\.description).joined(separator: ", ") + ")"
        case .all(let filters): return "all(" + filters.map(\.description).joined(separator: ", ") + ")"
        case .not(let filter): return "not(" + filter.description + ")"
        default: return Self.named.first { $0.filter == self }?.name ?? "?"
        }
    }
}

// MARK: - SQL

/// A fragment of a WHERE clause with its bound values.
struct SQLCondition {
    var sql: String
    var values: [DatabaseValueConvertible] = []

    static var alwaysTrue: SQLCondition { SQLCondition(sql: "1") }
    static var alwaysFalse: SQLCondition { SQLCondition(sql: "0") }

    /// A condition binding its value for each option that is set, none for one that is nil:
    /// the comparisons of a query's options, each declared once as
    /// `("a.duration >= ?", options.minimumDuration)`.
    static func comparisons(_ declared: [(sql: String, value: (any DatabaseValueConvertible)?)]) -> [SQLCondition] {
        declared.compactMap { item in item.value.map { SQLCondition(sql: item.sql, values: [$0]) } }
    }
}

extension MediaFilter {
    /// Three-valued folding result: a filter that is always true or false needs no SQL.
    private enum Folded { case constant(Bool), condition(String) }

    /// The filter as a condition on `assets` aliased `a`.
    ///
    /// The filter carries no user text: every literal is a constant of `MediaSubtypes`,
    /// and each subtype test is written exactly as its partial index's WHERE clause
    /// (`(subtypes & N) <> 0`) so SQLite can use that index.
    func sqlCondition(table alias: String = "a") -> SQLCondition {
        switch fold(alias: alias) {
        case .constant(true): return .alwaysTrue
        case .constant(false): return .alwaysFalse
        case .condition(let sql): return SQLCondition(sql: sql)
        }
    }

    private func fold(alias: String) -> Folded {
        switch self {
        case .images, .videos:
            return .condition("\(alias).\(testedColumn ?? "") = '\(self == .images ? "image" : "video")'")
        case .bursts: return .condition("\(alias).\(testedColumn ?? "") IS NOT NULL")
        // As migration 0014's partial index `assets_with_adjustments` says it.
        case .edited: return .condition("\(alias).\(testedColumn ?? "") <> 0")
        // The memberships `DuplicateStore` keeps (migration 0023).
        case .duplicates:
            return .condition("\(alias).id IN (SELECT asset_id FROM duplicate_members WHERE kind IN ('same-file', 'duplicate'))")
        case .similar: return .condition("\(alias).id IN (SELECT asset_id FROM duplicate_members WHERE kind = 'similar')")
        case .any(let filters):
            // Every asset is an image or a video: a union holding both is everything.
            let flat = filters.flatMap { if case .any(let inner) = $0 { return inner } else { return [$0] } }
            if flat.contains(.images) && flat.contains(.videos) { return .constant(true) }
            var parts: [String] = []
            for filter in flat {
                switch filter.fold(alias: alias) {
                case .constant(true): return .constant(true)
                case .constant(false): continue
                case .condition(let sql): parts.append(sql)
                }
            }
            if parts.isEmpty { return .constant(false) }
            return .condition(parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")")
        case .all(let filters):
            var parts: [String] = []
            for filter in filters {
                switch filter.fold(alias: alias) {
                case .constant(false): return .constant(false)
                case .constant(true): continue
                case .condition(let sql): parts.append(sql)
                }
            }
            if parts.isEmpty { return .constant(true) }
            return .condition(parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")")
        case .not(let filter):
            switch filter.fold(alias: alias) {
            case .constant(let value): return .constant(!value)
            case .condition(let sql): return .condition("NOT " + sql)
            }
        default:
            guard let bit = subtype, let column = testedColumn else { return .constant(false) }
            return .condition("(\(alias).\(column) & \(bit.rawValue)) <> 0")
        }
    }
}

// MARK: - Text grammar

/// Why a `--filter` expression could not be read: the column and what was expected.
public struct MediaFilterParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based column (in characters) where the problem is.
    public var column: Int
    /// What was wrong, as a sentence fragment.
    public var message: String

    /// Where and why the expression is wrong.
    public var description: String { "filter expression, column \(column): \(message)" }
}

extension MediaFilter {
    /// Parses the text grammar of `--filter`.
    ///
    ///     expression := term ( '|' term )*
    ///     term       := factor ( '&' factor )*
    ///     factor     := '!' factor | NAME | NAME '(' expression (',' expression)* ')' | '(' expression ')'
    ///
    /// NAME is a filter name (`images`, `livePhotos`, …, case-insensitive) or one of the
    /// functions `any`, `all` (one or more arguments) and `not` (exactly one).
    ///
    /// - Throws: `MediaFilterParseError` naming the column and what was expected.
    public init(parsing text: String) throws {
        var parser = FilterParser(text: Array(text))
        self = try parser.parseAll()
    }
}

struct FilterParser {
    let text: [Character]
    var position = 0
    /// Bounds nesting so a hostile expression cannot exhaust the stack.
    var depth = 0
    static let maximumDepth = 64

    init(text: [Character]) { self.text = text }

    mutating func parseAll() throws -> MediaFilter {
        skipSpaces()
        if position == text.count { throw error("expected a filter such as 'images', but the expression is empty") }
        let filter = try parseExpression()
        skipSpaces()
        if position < text.count {
            throw error("expected '&', '|' or the end of the expression, but found '\(text[position])'")
        }
        return filter
    }

    func error(_ message: String, at column: Int? = nil) -> MediaFilterParseError {
        MediaFilterParseError(column: (column ?? position) + 1, message: message)
    }

    mutating func skipSpaces() {
        while position < text.count, text[position].isWhitespace { position += 1 }
    }

    mutating func parseExpression() throws -> MediaFilter {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { throw error("the expression is nested more than \(Self.maximumDepth) levels deep") }
        var terms = [try parseTerm()]
        while true {
            skipSpaces()
            guard position < text.count, text[position] == "|" else { break }
            position += 1
            terms.append(try parseTerm())
        }
        return terms.count == 1 ? terms[0] : .any(of: terms)
    }

    mutating func parseTerm() throws -> MediaFilter {
        var factors = [try parseFactor()]
        while true {
            skipSpaces()
            guard position < text.count, text[position] == "&" else { break }
            position += 1
            factors.append(try parseFactor())
        }
        return factors.count == 1 ? factors[0] : .all(of: factors)
    }

    mutating func parseFactor() throws -> MediaFilter {
        skipSpaces()
        guard position < text.count else {
            throw error("expected a filter name, '!' or '(', but the expression ends")
        }
        let character = text[position]
        if character == "!" {
            position += 1
            depth += 1
            defer { depth -= 1 }
            if depth > Self.maximumDepth { throw error("the expression is nested more than \(Self.maximumDepth) levels deep") }
            return .not(try parseFactor())
        }
        if character == "(" {
            let open = position
            position += 1
            let inner = try parseExpression()
            try expect(")", context: "to close the '(' at column \(open + 1)", opening: open)
            return inner
        }
        guard character.isLetter else {
            throw error("expected a filter name, '!' or '(', but found '\(character)'")
        }
        let start = position
        while position < text.count, text[position].isLetter || text[position].isNumber { position += 1 }
        let name = String(text[start..<position])
        skipSpaces()
        let isCall = position < text.count && text[position] == "("
        let lowered = name.lowercased()
        if isCall {
            guard ["any", "all", "not"].contains(lowered) else {
                throw error("'\(name)' is not a function; the functions are any(…), all(…) and not(…)", at: start)
            }
            let open = position
            position += 1
            var arguments = [try parseExpression()]
            while true {
                skipSpaces()
                guard position < text.count, text[position] == "," else { break }
                position += 1
                arguments.append(try parseExpression())
            }
            try expect(")", context: "to close the '(' at column \(open + 1)", opening: open)
            switch lowered {
            case "any": return arguments.count == 1 ? arguments[0] : .any(of: arguments)
            case "all": return arguments.count == 1 ? arguments[0] : .all(of: arguments)
            default:
                guard arguments.count == 1 else {
                    throw error("not(…) takes exactly one argument, but got \(arguments.count)", at: start)
                }
                return .not(arguments[0])
            }
        }
        if let match = MediaFilter.named.first(where: { $0.name.lowercased() == lowered }) { return match.filter }
        if ["any", "all", "not"].contains(lowered) {
            throw error("expected '(' after '\(name)'")
        }
        let known = MediaFilter.named.map(\.name)
        var message = "unknown filter '\(name)'"
        if let suggestion = Self.closest(to: lowered, in: known) { message += "; did you mean '\(suggestion)'?" }
        else { message += "; expected one of " + known.joined(separator: ", ") }
        throw error(message, at: start)
    }

    /// Consumes `character`; an expression that ends first is reported at `opening`
    /// (the unclosed parenthesis), where the mistake is, not at its end.
    mutating func expect(_ character: Character, context: String, opening: Int? = nil) throws {
        skipSpaces()
        guard position < text.count else {
            throw error("expected '\(character)' \(context), but the expression ends", at: opening)
        }
        guard text[position] == character else {
            throw error("expected '\(character)' \(context), but found '\(text[position])'")
        }
        position += 1
    }

    /// The known name nearest to a misspelling, if it is close enough to be meant.
    static func closest(to word: String, in names: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var current = [i + 1]
                for (j, y) in b.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        let scored = names.map { ($0, distance(Array(word), Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, word.count / 3) else { return nil }
        return best.0
    }
}
