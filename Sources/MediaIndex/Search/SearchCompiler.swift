import Foundation

extension SearchExpression {
    /// The expression as a condition on `assets` aliased `a`, as `MediaFilter.sqlCondition`
    /// gives one: user text is always bound, never spliced.
    ///
    /// Words side by side go to the text index as one FTS5 query (`"a" AND "b"* NOT "c"`),
    /// so the index intersects its lists itself; every other leaf is its own condition.
    func sqlCondition() -> SQLCondition {
        switch self {
        case .all(let parts):
            var positives: [SearchExpression] = [], negatives: [SearchExpression] = [], others: [SQLCondition] = []
            for part in parts {
                if part.ftsQuery != nil { positives.append(part) }
                else if case .not(let inner) = part, inner.ftsQuery != nil { negatives.append(inner) }
                else { others.append(part.sqlCondition()) }
            }
            if positives.isEmpty {
                others += negatives.map { Self.notCondition(Self.wordsCondition([$0], [])) }
            } else {
                others.insert(Self.wordsCondition(positives, negatives), at: 0)
            }
            return Self.joined(others, with: "AND")
        case .any(let parts):
            return Self.joined(parts.map { $0.sqlCondition() }, with: "OR")
        case .not(let inner):
            return Self.notCondition(inner.sqlCondition())
        default:
            if ftsQuery != nil { return Self.wordsCondition([self], []) }
            return leafCondition()
        }
    }

    /// The FTS5 query of a `words` leaf: a phrase (its words in order, folded as the index
    /// folds them), a prefix when typing, limited to one column when a field names one.
    var ftsQuery: String? {
        guard case .words(let column, let text, let prefix) = self else { return nil }
        let phrase = "\"" + SearchTextIndex.words(text).replacingOccurrences(of: "\"", with: "\"\"") + "\""
            + (prefix ? "*" : "")
        return column.map { "\($0) : \(phrase)" } ?? SearchTextColumn.freeTextFilter + phrase
    }

    /// The phrase of a free-text `words` leaf as `userstate.user_text` (the user's own
    /// words, one column) is searched for it; nil for a leaf limited to a field.
    var userTextQuery: String? {
        guard case .words(nil, let text, let prefix) = self else { return nil }
        return "\"" + SearchTextIndex.words(text).replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (prefix ? "*" : "")
    }

    /// The words the expression ANDs at its top (some negated), when it has any: the text
    /// index's query; the user's words' query naming every free-text word (nil when none
    /// is free text), so a plan can check that no asset's own words take part; and their
    /// condition, which `sqlCondition()` gives whole or puts first in its AND.
    var topWords: (file: String, user: String?, condition: SQLCondition)? {
        var positives: [SearchExpression] = [], negatives: [SearchExpression] = []
        var parts = [self]
        if case .all(let all) = self { parts = all }
        for part in parts {
            if part.ftsQuery != nil { positives.append(part) }
            else if case .not(let inner) = part, inner.ftsQuery != nil { negatives.append(inner) }
        }
        guard !positives.isEmpty else { return nil }
        let user = (positives + negatives).compactMap(\.userTextQuery)
        return (Self.fileMatch(positives, negatives), user.isEmpty ? nil : user.joined(separator: " OR "),
                Self.wordsCondition(positives, negatives))
    }

    static func fileMatch(_ positives: [SearchExpression], _ negatives: [SearchExpression]) -> String {
        positives.compactMap(\.ftsQuery).joined(separator: " AND ") + negatives.compactMap(\.ftsQuery).map { " NOT " + $0 }.joined()
    }

    /// Words side by side: each in the file's words (`asset_text`) or in the user's own
    /// (`userstate.user_text`); a negated one in neither. The text index intersects its
    /// lists itself; only assets whose own words hold one of the words are checked word by word.
    static func wordsCondition(_ positives: [SearchExpression], _ negatives: [SearchExpression]) -> SQLCondition {
        let file = textCondition(fileMatch(positives, negatives))
        let userWords = positives.compactMap(\.userTextQuery), userNegatives = negatives.compactMap(\.userTextQuery)
        guard !userWords.isEmpty || !userNegatives.isEmpty else { return file }
        let table = SearchTextIndex.table
        let userHas = "u.identifier IN (SELECT identifier FROM userstate.user_text WHERE user_text MATCH ?)"
        var sql = "a.id IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?"
        var values = file.values
        if !userWords.isEmpty {
            sql += " UNION SELECT u.id FROM assets u WHERE \(userHas)"
            values.append(userWords.joined(separator: " OR "))
            for word in positives {
                sql += " AND (EXISTS (SELECT 1 FROM \(table) WHERE \(table) MATCH ? AND rowid = u.id)"
                values.append(word.ftsQuery ?? "")
                if let user = word.userTextQuery { sql += " OR \(userHas)"; values.append(user) }
                sql += ")"
            }
            if !negatives.isEmpty {
                sql += " AND NOT EXISTS (SELECT 1 FROM \(table) WHERE \(table) MATCH ? AND rowid = u.id)"
                values.append(negatives.compactMap(\.ftsQuery).joined(separator: " OR "))
            }
        }
        sql += ")"
        if !userNegatives.isEmpty {
            sql += " AND a.identifier NOT IN (SELECT identifier FROM userstate.user_text WHERE user_text MATCH ?)"
            values.append(userNegatives.joined(separator: " OR "))
        }
        return SQLCondition(sql: "(" + sql + ")", values: values)
    }

    static func textCondition(_ match: String) -> SQLCondition {
        SQLCondition(sql: "a.id IN (SELECT rowid FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ?)",
                     values: [match])
    }

    /// NOT, with an unknown (a NULL column) counted as false first, so `-rating:>=4`
    /// keeps the unrated assets.
    static func notCondition(_ inner: SQLCondition) -> SQLCondition {
        SQLCondition(sql: "NOT coalesce((\(inner.sql)), 0)", values: inner.values)
    }

    static func joined(_ parts: [SQLCondition], with word: String) -> SQLCondition {
        if parts.count == 1 { return parts[0] }
        return SQLCondition(sql: "(" + parts.map(\.sql).joined(separator: " \(word) ") + ")",
                            values: parts.flatMap(\.values))
    }

    private func leafCondition() -> SQLCondition {
        switch self {
        case .kind(let filter):
            return filter.sqlCondition()
        case .favorite:
            return SQLCondition(sql: "a.identifier IN (SELECT identifier FROM userstate.asset_user_state WHERE favorite = 1)")
        case .hidden:
            return SQLCondition(sql: "a.identifier IN (SELECT identifier FROM userstate.asset_user_state WHERE hidden = 1)")
        case .number(let column, let lower, let lowerInclusive, let upper, let upperInclusive):
            var parts: [String] = [], values: [DatabaseValueConvertible] = []
            if let lower { parts.append("\(column) \(lowerInclusive ? ">=" : ">") ?"); values.append(lower) }
            if let upper { parts.append("\(column) \(upperInclusive ? "<=" : "<") ?"); values.append(upper) }
            return SQLCondition(sql: "(" + parts.joined(separator: " AND ") + ")", values: values)
        case .localDate(let from, let until):
            // The local date is how the file wrote it (`creation_date` starts with it); the
            // instant, indexed, lies within a day of it whatever the offset, so it narrows first.
            let day = 86_400.0
            return SQLCondition(
                sql: "(a.capture_sort >= ? AND a.capture_sort < ? AND a.creation_date >= ? AND a.creation_date < ?)",
                values: [Self.utcStart(from) - day, Self.utcStart(until) + day, from, until])
        case .album(let title):
            return SQLCondition(sql: """
                a.identifier IN (SELECT m.asset_identifier FROM userstate.album_assets m
                    JOIN userstate.albums al ON al.id = m.album_id WHERE al.title = ? COLLATE NOCASE)
                """, values: [title])
        case .fileExtension(let ext):
            let text = Self.textCondition("name : \"\(ext)\"")
            return SQLCondition(sql: "(\(text.sql) AND a.file_name LIKE ?)", values: text.values + ["%." + ext])
        case .format(let format):
            return SQLCondition(sql: "a.format = ?", values: [format])
        case .keyword(let keyword):
            var options = FetchOptions()
            options.keywords = [keyword]
            return Self.joined((try? AssetQuery.descriptionConditions(options)) ?? [], with: "AND")
        case .person(let person):
            var options = FetchOptions()
            options.people = [person]
            return Self.joined((try? AssetQuery.descriptionConditions(options)) ?? [], with: "AND")
        case .label(let label):
            return SQLCondition(sql: "a.label = ? COLLATE NOCASE", values: [label])
        case .placeName(let name):
            return PlaceNames.placeCondition(name)
        case .country(let country):
            return PlaceNames.countryCondition(country)
        case .onThisDay(let onThisDay):
            return AssetQuery.onThisDayCondition(onThisDay)
        default:
            return .alwaysFalse  // words and combinators are handled by sqlCondition()
        }
    }

    /// The UTC instant at which the day, month or year `prefix` starts.
    static func utcStart(_ prefix: String) -> Double {
        let fields = prefix.split(separator: "-").compactMap { Int($0) }
        var components = DateComponents()
        components.year = fields.first
        components.month = fields.count > 1 ? fields[1] : 1
        components.day = fields.count > 2 ? fields[2] : 1
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: components)?.timeIntervalSince1970 ?? 0
    }
}
