/// A search, as typed in the CLI, the HTTP API, Swift or the web picker.
///
///     beach "golden hour" camera:canon -is:screenshot date:2023-07 OR album:"Summer"
///
/// Words and quoted phrases match the text index (file name, camera, lens, and every
/// text field declared in `SearchTextColumn`), case, accents and English word forms
/// folded; the last word matches as a prefix while typing (no space after it).
/// `field:value` terms (`SearchField.all`) test one field; `-` negates; `OR` (capitals)
/// joins alternatives; terms side by side must all hold; parentheses group.
///
/// ```swift
/// var options = FetchOptions()
/// options.search = try SearchQuery(parsing: "camera:canon width:>3000")
/// let page = try await library.fetchAssets(options)
/// ```
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// The parsed query; nil for an empty text, which matches every asset.
    let expression: SearchExpression?

    /// The longest query read, in characters, and the most terms in one.
    public static let maximumLength = 1_000
    static let maximumTerms = 64

    /// Parses `text`.
    ///
    /// - Throws: `SearchQueryError`: one sentence with the column and, for a misspelt
    ///   field or value, the nearest known one.
    public init(parsing text: String) throws {
        self.text = text
        guard text.count <= Self.maximumLength else {
            throw SearchQueryError(column: Self.maximumLength + 1,
                                   message: "the search is longer than \(Self.maximumLength) characters")
        }
        var parser = SearchParser(text: Array(text))
        expression = try parser.parseAll()
    }

    public var description: String { text }
}

/// Why a search could not be read or run: where (1-based column, in characters) and what.
public struct SearchQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based column of the term at fault.
    public var column: Int
    /// What is wrong, as a sentence fragment, with a suggestion where one is near.
    public var message: String

    public init(column: Int, message: String) {
        self.column = column
        self.message = message
    }

    /// One sentence: `search, column 1: unknown field 'raiting'; did you mean 'rating'?`
    public var description: String { "search, column \(column): \(message)" }
}

/// A parsed search: the same algebra as `MediaFilter` (all, any, not) over leaves that
/// test one thing each.
indirect enum SearchExpression: Sendable, Hashable {
    /// Words of the text index, in `column` (nil: any column); `phrase` keeps their order,
    /// `prefix` lets the last one match the start of a word.
    case words(column: String?, text: String, prefix: Bool)
    case kind(MediaFilter)
    case favorite
    case hidden
    /// A numeric column within bounds (`inclusive` per bound).
    case number(column: String, lower: Double?, lowerInclusive: Bool, upper: Double?, upperInclusive: Bool)
    /// A local capture date in [`from`, `until`): ISO texts such as `2023-07` and `2023-08`.
    case localDate(from: String, until: String)
    case album(title: String)
    case fileExtension(String)
    case format(String)
    /// A keyword or one below it; a person named in the picture; a colour label.
    case keyword(String)
    case person(String)
    case label(String)
    /// A place's name at any level, without regard to case or accents.
    case placeName(String)
    /// A country, by ISO code or English name.
    case country(String)
    /// Taken on this month and day in earlier years, by the camera's day.
    case onThisDay(OnThisDay)
    case all([SearchExpression])
    case any([SearchExpression])
    case not(SearchExpression)

    /// Whether the expression names `is:hidden` anywhere: hidden assets are then searched too.
    var mentionsHidden: Bool {
        switch self {
        case .hidden: return true
        case .all(let parts), .any(let parts): return parts.contains { $0.mentionsHidden }
        case .not(let inner): return inner.mentionsHidden
        default: return false
        }
    }

    /// Every album title the expression names.
    var albumTitles: [String] {
        switch self {
        case .album(let title): return [title]
        case .all(let parts), .any(let parts): return parts.flatMap(\.albumTitles)
        case .not(let inner): return inner.albumTitles
        default: return []
        }
    }
}

/// Reads the grammar:
///
///     query   := or
///     or      := and ( 'OR' and )*
///     and     := unary+
///     unary   := '-' unary | primary
///     primary := '(' or ')' | NAME ':' value | '"' phrase '"' | word
struct SearchParser {
    let text: [Character]
    var position = 0
    var depth = 0
    var terms = 0

    init(text: [Character]) { self.text = text }

    mutating func parseAll() throws -> SearchExpression? {
        skipSpaces()
        if position == text.count { return nil }
        let expression = try parseOr()
        skipSpaces()
        if position < text.count {
            throw error("')' closes no '('; remove it or add the '(' it closes")
        }
        return expression
    }

    func error(_ message: String, at column: Int? = nil) -> SearchQueryError {
        SearchQueryError(column: (column ?? position) + 1, message: message)
    }

    mutating func skipSpaces() {
        while position < text.count, text[position].isWhitespace { position += 1 }
    }

    /// Whether `OR` starts at the position as a word of its own.
    func atOr() -> Bool {
        guard position + 2 <= text.count, text[position] == "O", text[position + 1] == "R" else { return false }
        return position + 2 == text.count || text[position + 2].isWhitespace || text[position + 2] == "("
    }

    mutating func parseOr() throws -> SearchExpression {
        depth += 1
        defer { depth -= 1 }
        if depth > 32 { throw error("the search is nested more than 32 levels deep") }
        var alternatives = [try parseAnd()]
        while true {
            skipSpaces()
            guard atOr() else { break }
            let start = position
            position += 2
            skipSpaces()
            if position == text.count || text[position] == ")" {
                throw error("'OR' needs a term after it", at: start)
            }
            alternatives.append(try parseAnd())
        }
        return alternatives.count == 1 ? alternatives[0] : .any(of: alternatives)
    }

    mutating func parseAnd() throws -> SearchExpression {
        skipSpaces()
        if atOr() { throw error("'OR' needs a term before it") }
        var parts = [try parseUnary()]
        while true {
            skipSpaces()
            guard position < text.count, text[position] != ")", !atOr() else { break }
            parts.append(try parseUnary())
        }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    mutating func parseUnary() throws -> SearchExpression {
        skipSpaces()
        guard position < text.count else { throw error("the search ends where a term was expected") }
        if text[position] == "-" {
            let start = position
            position += 1
            guard position < text.count, !text[position].isWhitespace else {
                throw error("'-' needs a term right after it, such as -is:screenshot", at: start)
            }
            depth += 1
            defer { depth -= 1 }
            if depth > 32 { throw error("the search is nested more than 32 levels deep") }
            return .not(try parseUnary())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws -> SearchExpression {
        terms += 1
        if terms > SearchQuery.maximumTerms { throw error("the search has more than \(SearchQuery.maximumTerms) terms") }
        let start = position
        if text[position] == "(" {
            position += 1
            skipSpaces()
            if position < text.count, text[position] == ")" { throw error("'()' holds no term", at: start) }
            let inner = try parseOr()
            skipSpaces()
            guard position < text.count, text[position] == ")" else {
                throw error("the '(' here is never closed; add a ')'", at: start)
            }
            position += 1
            return inner
        }
        if text[position] == ")" { throw error("')' closes no '('; remove it or add the '(' it closes") }
        if text[position] == "\"" {
            let phrase = try readQuoted()
            return try SearchField.words(phrase, column: nil, prefix: false, at: start + 1)
        }
        let word = Array(readWord())
        if let colon = word.firstIndex(of: ":"), colon > 0, word[..<colon].allSatisfy({ $0.isLetter }) {
            let name = String(word[..<colon])
            let valueStart = start + colon + 1
            var value = String(word[(colon + 1)...])
            var quoted = false
            if value.isEmpty, position < text.count, text[position] == "\"" {
                value = try readQuoted()
                quoted = true
            }
            guard !value.isEmpty else {
                throw error("'\(name):' needs a value right after the colon, such as \(SearchField.example(for: name))", at: start)
            }
            let typing = !quoted && position == text.count
            return try SearchField.term(name: name, value: value, prefix: typing, nameColumn: start + 1,
                                        valueColumn: valueStart + 1)
        }
        return try SearchField.words(String(word), column: nil, prefix: position == text.count, at: start + 1)
    }

    /// A word: up to a space, a parenthesis that closes, or a quote.
    mutating func readWord() -> String {
        let start = position
        while position < text.count, !text[position].isWhitespace, text[position] != ")", text[position] != "(",
              text[position] != "\"" || position == start {
            position += 1
        }
        return String(text[start..<position])
    }

    /// A quoted phrase; `""` inside stands for one quote.
    mutating func readQuoted() throws -> String {
        let open = position
        position += 1
        var phrase = ""
        while position < text.count {
            if text[position] == "\"" {
                if position + 1 < text.count, text[position + 1] == "\"" {
                    phrase.append("\"")
                    position += 2
                    continue
                }
                position += 1
                return phrase
            }
            phrase.append(text[position])
            position += 1
        }
        throw error("the quote opened here is never closed; add a '\"'", at: open)
    }
}

extension SearchExpression {
    static func any(of parts: [SearchExpression]) -> SearchExpression { .any(parts) }
}
