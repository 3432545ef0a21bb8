import Foundation
import CSQLite

/// How a search with words is answered, where the plain query (every match
/// materialised, then sorted) is slow: a word found in much of the library.
///
/// - **The first page** is read one of two ways, chosen from how many assets the words
///   match, counted in the text index up to a bound (`walkThreshold`): a rare word's few
///   matches are read from the index and sorted; a common word's matches are read once
///   into a bitmap (`SearchMatchSet`), and the capture order is walked, each asset's
///   bitmap tested first and its other conditions after, stopping at the page's end.
///   A word being typed (a prefix) is read the same way: FTS5 merges the lists of every
///   word with the prefix once, as its count does.
/// - **The count** of words alone comes from the text index by itself, without reading
///   a row of `assets`: the `kind` column's tokens split videos from photos and leave
///   out burst frames that do not stand for their burst.
enum SearchPlan {
    /// How much more walking past one asset costs than reading one match the plain way,
    /// less reading it into the match set. Stop 43, `screenshot` at 382k assets: a walked
    /// asset about 1.3 µs; a match read and its id sorted about 2.5 µs, less 0.13 µs: about
    /// 0.55. Set to 1, leaning to the plain plan, whose cost does not depend on how many
    /// assets the other conditions pass.
    static let walkCostRatio = 1.0
    /// The same where match sets are kept (`SearchMatchCache`, read-only connections): the
    /// set is read once for many pages, so a walked asset is compared with a match read and
    /// sorted alone. Stop 44, 1.25 M assets: `canon screenshot`'s sorted page about 6 µs a
    /// match (8k matches, 48 ms), a walked asset about 1.3 µs (stop 43): about 0.22.
    static let keptWalkCostRatio = 0.25

    /// The first page (one row more than the limit) of a search with words, or nil when
    /// the plain query answers it as well.
    ///
    /// The choice comes from how many assets the words match, counted in the text index
    /// up to `walkThreshold` (a few thousand rowids, read without a row of `assets`):
    /// - **fewer** (a rare word): the matches are read from the text index, each asset
    ///   looked up by rowid and the few ids sorted (`sortedPage`);
    /// - **more** (a common word): each list is read once into a set, and the capture
    ///   order is walked until the page is full: about `limit / share` assets.
    static func probedPage(_ query: AssetQuery, db: DatabaseConnection) throws -> [Row]? {
        guard let limit = query.limit, query.from == "assets a", query.recentlyAddedSince == nil,
              asksTextIndex(query) else { return nil }
        let probing = try readable(query, db: db)
        // The lists a page can be read from: words not negated (`-sunset` finds most assets).
        let driving = memberships(probing.conditions, negated: false)
        guard !driving.isEmpty, let span = try db.row(Self.idSpan),
              let oldest = span.int("oldest"), let newest = span.int("newest") else { return nil }
        let threshold = walkThreshold(limit: limit, assets: newest - oldest + 1,
                                      ratio: db.isReadOnly ? keptWalkCostRatio : walkCostRatio)
        if try driving.contains(where: { try isRare($0, threshold: threshold, db: db) }) {
            return try sortedPage(probing, db: db)
        }
        guard query.sort.key == .captureDate else { return nil }
        return try walkedPage(probing, db: db)
    }

    /// The page of a rare word: its matches read from the text index, each asset looked up
    /// by id and tested, the ids sorted with their keys alone, then the page's rows read.
    /// (Sorting whole rows carried every column of every match through the sorter: 39 ms
    /// for 7,450 matches at 382k assets.)
    private static func sortedPage(_ query: AssetQuery, db: DatabaseConnection) throws -> [Row] {
        var sorting = query
        sorting.sortsAfterReading = true
        if let page = try keptOrderPage(sorting, db: db) { return page }
        if db.isReadOnly { sorting.conditions = try listingKeptMatches(sorting.conditions, db: db) }
        let (idsSQL, idsValues) = sorting.pageIDsSQL()
        let ids = try db.rows(idsSQL, idsValues).compactMap { $0.int64("row_id") }
        guard !ids.isEmpty else { return [] }
        var page = sorting
        page.conditions = [idsCondition(ids)]
        page.excludesHidden = false
        page.cursor = nil
        let (sql, values) = page.pageSQL()
        return try db.rows(sql, values)
    }

    /// `conditions` with the first list they all require read from its kept match set
    /// (`SearchMatchCache`), its ids bound as one JSON array, instead of asked of the text
    /// index again: FTS5 decodes every list of the query each time (`keyword:mountain3
    /// type:video` intersects 33k keyword matches with 190k videos: 5 ms at 1.9 M assets).
    static func listingKeptMatches(_ conditions: [SQLCondition], db: DatabaseConnection) throws -> [SQLCondition] {
        guard let first = memberships(conditions.filter { !$0.sql.contains(" OR ") }, negated: false).first else { return conditions }
        let ids = try keptMatches(first, db: db).jsonArray
        var replaced = false
        return conditions.map { condition in
            guard !replaced, !condition.sql.contains(" OR ") else { return condition }
            return replacing(membership, in: condition) { before, bound in
                guard !replaced, !isNegated(before), bound.first as? String == first else { return nil }
                replaced = true
                return SQLCondition(sql: keptIDs, values: [ids])
            }
        }
    }

    /// The page of a rare list in capture order where its order is kept (read-only
    /// connections, `SearchMatchCache.captureOrder`): the list's matches taken in the page's
    /// order from their kept keys, a batch at a time from the cursor, each batch's rows read
    /// with every other condition of the query tested, until the page is full. No match off
    /// the page is looked up: `keyword:mountain3 type:video`'s 3,319 matches cost 6–8 ms of
    /// row reads for their keys at 2 M assets. Nil where the page is in another order or
    /// no list is required.
    private static func keptOrderPage(_ query: AssetQuery, db: DatabaseConnection) throws -> [Row]? {
        guard db.isReadOnly, query.sort.key == .captureDate, let limit = query.limit,
              let first = memberships(query.conditions.filter { !$0.sql.contains(" OR ") }, negated: false).first,
              try keptMatches(first, db: db).count <= maximumKeptOrder else { return nil }
        let order: [SearchMatchCache.CaptureKey]
        do { order = try SearchMatchCache.shared.captureOrder(first, db: db.handle).keys } catch {
            throw DatabaseError(extendedCode: SQLITE_ERROR, message: error.message, path: db.path)
        }
        guard var candidates = CaptureOrderCandidates(order, ascending: query.sort.ascending, after: query.cursor) else { return nil }
        var reading = query
        reading.conditions = answeringList(first, in: query.conditions)
        var rows: [Row] = [], batch = limit + 1 + 32
        while rows.count <= limit, let ids = candidates.next(batch) {
            var page = reading
            page.conditions.append(idsCondition(ids))
            page.limit = limit - rows.count
            let (sql, values) = page.pageSQL()
            rows += try db.rows(sql, values)
            batch *= 2
        }
        return rows
    }

    /// The most matches whose capture order is kept (16 bytes each): a page is sorted this way
    /// because one of its lists is rare, but the list it reads may be another, required one
    /// beside a rare `OR`.
    static let maximumKeptOrder = 65_536

    /// `conditions` for assets known to be among list `first`'s matches: its first required
    /// test (not negated, in a condition without `OR`) holds, and every other list is tested
    /// as its kept match set.
    private static func answeringList(_ first: String, in conditions: [SQLCondition]) -> [SQLCondition] {
        var answered = false
        return conditions.map { condition in
            let alone = !condition.sql.contains(" OR ")
            return replacingMemberships(condition) { match, negated in
                guard alone, !answered, !negated, match == first else { return .probe }
                answered = true
                return .drop
            }
        }
    }

    /// A membership test of ids bound as a JSON array, which SQLite reads one by one, each
    /// looked up by rowid.
    static let keptIDs = "a.id IN (SELECT value FROM json_each(?))"

    /// The test that an asset is one of `ids`, bound as one value: one statement text for
    /// every page (the connection keeps each text's prepared statement).
    static func idsCondition(_ ids: [Int64]) -> SQLCondition {
        SQLCondition(sql: keptIDs, values: ["[" + ids.map(String.init).joined(separator: ",") + "]"])
    }

    /// `query` with its text conditions as this library lets them be read: the words a
    /// test of the text index alone where no asset's own words (user state) hold them, and
    /// a keyword's candidates and exact test without the user's keywords where the user
    /// has set none, `type:video` as a list beside the others, and the lists every
    /// condition requires asked as one.
    static func readable(_ query: AssetQuery, db: DatabaseConnection) throws -> AssetQuery {
        var readable = query
        if let text = try fileOnly(query, db: db) {
            readable.conditions = query.conditions.map { condition in
                if condition.sql == text.condition.sql { return SQLCondition(sql: membership, values: [text.match]) }
                let first = "(" + text.condition.sql + " AND "
                guard condition.sql.hasPrefix(first) else { return condition }
                return SQLCondition(sql: "(" + membership + " AND " + condition.sql.dropFirst(first.count),
                                    values: [text.match] + condition.values.dropFirst(text.condition.values.count))
            }
        }
        if try !userHasKeywords(db) { readable.conditions = readable.conditions.map(withoutUserKeywords) }
        if !memberships(readable.conditions, negated: false).isEmpty {
            readable.conditions = readable.conditions.map(listingVideos)
        }
        readable.conditions = combiningLists(readable.conditions)
        return readable
    }

    /// `type:video` as a filter compiles it, and the same assets as a list of the text
    /// index (the `kind` column's `kvideo`), which a query with words intersects with its
    /// own lists in FTS5 instead of reading each match's row.
    static let videos = MediaFilter.videos.sqlCondition().sql
    /// How a negated term's condition starts (`SearchCompiler`'s `NOT`).
    static let negation = "NOT coalesce("

    /// Whether SQL that ends in `before` stands under a negated term: inside the parentheses
    /// of a `NOT coalesce(` not yet closed. (A term's SQL may open more parentheses of its own
    /// first: `-keyword:dog` is `NOT coalesce(((` and the keyword's list.)
    static func isNegated(_ before: Substring) -> Bool {
        var start = before.startIndex
        while let found = before.range(of: negation, range: start..<before.endIndex) {
            var depth = 1
            for character in before[found.upperBound...] {
                if character == "(" { depth += 1 } else if character == ")" { depth -= 1; if depth == 0 { break } }
            }
            if depth > 0 { return true }
            start = found.upperBound
        }
        return false
    }

    /// `condition` with each `type:video` test it requires (no negation before it, in a
    /// condition without `OR`) turned into a membership of the `kind` column's `kvideo`.
    static func listingVideos(_ condition: SQLCondition) -> SQLCondition {
        guard !condition.sql.contains(" OR ") else { return condition }
        return replacing(videos, in: condition) { before, _ in
            isNegated(before) ? nil : SQLCondition(sql: membership, values: ["kind : kvideo"])
        }
    }

    /// `conditions` with every list that all of them require (a membership test not
    /// negated, in a condition without `OR`) asked of the text index as one query, the
    /// lists joined by `AND`: FTS5 intersects them, reading much less than each list whole
    /// (`keyword:places camera:canon`: about 8k assets instead of 41k and 55k at 165k).
    static func combiningLists(_ conditions: [SQLCondition]) -> [SQLCondition] {
        var required: [String] = []
        let rest = conditions.map { condition -> SQLCondition in
            guard !condition.sql.contains(" OR ") else { return condition }
            return replacingMemberships(condition) { match, negated in
                guard !negated else { return .keep }
                required.append(match)
                return .drop
            }
        }
        // One list alone is taken out too, so the rest (a range, say) reads as its own condition.
        guard !required.isEmpty, required.count > 1 || conditions.contains(where: { $0.sql != membership }) else { return conditions }
        let combined = required.map { "(" + $0 + ")" }.joined(separator: " AND ")
        return [SQLCondition(sql: membership, values: [combined])] + rest
    }

    /// How a query is counted: from match sets alone, or by a query to run.
    enum Counting {
        case counted(AssetCounts)
        case query(AssetQuery)
    }

    /// How `query`, once readable, is counted (hidden assets not yet subtracted): a query
    /// the text index answers alone from its match sets (`textCounts`), any other that asks
    /// the text index by its counting query (`countingQuery`), the rest as it is.
    static func counting(_ query: AssetQuery, db: DatabaseConnection) throws -> Counting {
        guard query.from == "assets a", query.recentlyAddedSince == nil,
              asksTextIndex(query) else { return .query(query) }
        let readable = try readable(query, db: db)
        switch try textCounts(readable, db: db) {
        case .counted(let counts): return .counted(counts)
        case .notSetsAlone: return .query(try countingQuery(readable, db: db))
        case .rangeTooWide(let range): return .query(try countingQuery(readable, leavingOut: range, db: db))
        }
    }

    /// What counting in match sets alone came to.
    private enum SetCounting {
        case counted(AssetCounts)
        /// The query has a condition that match sets cannot answer.
        case notSetsAlone
        /// The query's range holds more entries than reading the rarest set's assets would
        /// cost (`rangeCounts` read that many and stopped): the counting query need not try
        /// to be driven by it again.
        case rangeTooWide(RequiredRange)
    }

    /// The query a count runs: with several lists of the text index, the count is driven
    /// by the rarest (looked up asset by asset) and the others are tested as match sets,
    /// a bit an asset, instead of each read into a temporary B-tree; where even the rarest
    /// holds a third of the library, every asset is read and every list tested as a set.
    /// A range every match must be in (`duration:<10`, `date:2023-07`), read from its index
    /// with every list tested as a set, drives it instead where it holds fewer entries.
    /// A range `leavingOut` is already known to hold too many entries.
    private static func countingQuery(_ readable: AssetQuery, leavingOut tooWide: RequiredRange? = nil,
                                      db: DatabaseConnection) throws -> AssetQuery {
        var counting = readable
        let lists = memberships(counting.conditions, negated: false)
        let ranges = requiredRanges(counting.conditions).filter { $0.index != tooWide?.index }
        guard lists.count > 1 || memberships(counting.conditions).count > lists.count || !ranges.isEmpty,
              let newest = try db.scalarInt("SELECT max(id) FROM assets") else { return counting }
        let bound = newest / 3 + 1
        var rarest: (match: String, count: Int)?
        for list in lists {
            // Where sets are kept, the list's set is read (the count tests it) and its size taken.
            let count = db.isReadOnly ? try keptMatches(list, db: db).count
                : try matchCount(list, upTo: rarest.map { min($0.count, bound) } ?? bound, db: db)
            if count < rarest?.count ?? bound { rarest = (list, count) }
        }
        if let range = try cheapestRange(ranges, against: rarest?.count ?? bound, db: db) {
            counting.conditions = counting.conditions.map { replacingMemberships($0) { _, _ in .probe } }
            counting.countingIndex = range.index
            return counting
        }
        var kept = false
        counting.conditions = counting.conditions.map { condition in
            replacingMemberships(condition) { match, negated in
                guard !negated, match == rarest?.match, !kept else { return .probe }
                kept = true
                return .keep
            }
        }
        return counting
    }

    /// How much reading one entry of a range's index and testing its bits costs, against
    /// looking up one match of a list by rowid and reading its row.
    static let rangeEntryCostRatio = 0.25

    /// The columns a range can be read from, each with its index (the column first, then `id`).
    static let rangeIndexes = [(column: "a.duration_sort", index: "assets_by_duration"),
                               (column: "a.capture_sort", index: "assets_by_capture")]

    /// A range of one indexed column that every match is in: its comparisons, ANDed.
    struct RequiredRange {
        var column: String
        var index: String
        var condition: SQLCondition
    }

    /// The ranges `conditions` require, one for each indexed column compared: every comparison
    /// of the column (`a.duration_sort < ?`) in a condition without `OR`, with no `NOT` before it.
    static func requiredRanges(_ conditions: [SQLCondition]) -> [RequiredRange] {
        rangeIndexes.compactMap { column, index in
            var parts: [String] = [], values: [DatabaseValueConvertible] = []
            for condition in conditions where !condition.sql.contains(" OR ") {
                for comparison in [">=", ">", "<=", "<"] {
                    let pattern = "\(column) \(comparison) ?"
                    _ = replacing(pattern, in: condition) { before, bound in
                        if !before.contains("NOT") { parts.append(pattern); values += bound }
                        return nil
                    }
                }
            }
            return parts.isEmpty ? nil
                : RequiredRange(column: column, index: index, condition: SQLCondition(sql: parts.joined(separator: " AND "), values: values))
        }
    }

    /// The range with the fewest entries, where reading them costs less than `matches`
    /// lookups (the rarest list's); nil where none does.
    private static func cheapestRange(_ ranges: [RequiredRange], against matches: Int, db: DatabaseConnection) throws -> RequiredRange? {
        var cheapest: (range: RequiredRange, entries: Int)?
        for range in ranges {
            let limit = cheapest?.entries ?? Int(Double(matches) / rangeEntryCostRatio)
            let entries = try db.scalarInt("""
                SELECT count(*) FROM (SELECT 1 FROM assets a INDEXED BY \(range.index) WHERE \(range.condition.sql) LIMIT ?)
                """, range.condition.values + [limit]) ?? limit
            if entries < limit { cheapest = (range, entries) }
        }
        return cheapest?.range
    }

    /// Whether a condition of `query` reads the text index (words, keywords), in any form:
    /// a keyword's list with the user's keywords joined is not yet a plain membership test.
    static func asksTextIndex(_ query: AssetQuery) -> Bool {
        query.textMatch != nil || query.conditions.contains { $0.sql.contains(SearchTextIndex.table) }
    }

    /// What becomes of one membership test: kept (a list read whole), asked of its match
    /// set, or dropped (another condition requires it).
    enum MembershipRewrite { case keep, probe, drop }

    /// `condition` with each membership test rewritten as `rewrite` says, given its query
    /// and whether it is negated.
    private static func replacingMemberships(_ condition: SQLCondition,
                                             _ rewrite: (_ match: String, _ negated: Bool) -> MembershipRewrite) -> SQLCondition {
        replacing(membership, in: condition) { before, bound in
            guard let match = bound.first as? String else { return nil }
            switch rewrite(match, isNegated(before)) {
            case .keep: return nil
            case .probe: return SQLCondition(sql: probe, values: [match])
            case .drop: return SQLCondition(sql: "1")
            }
        }
    }

    /// `condition` with each occurrence of the SQL `pattern` replaced by what `replacement`
    /// returns (nil leaves it), given the condition's SQL before it and the values the
    /// pattern's own `?`s bind. The values bound before and after each occurrence keep their places.
    static func replacing(_ pattern: String, in condition: SQLCondition,
                                  _ replacement: (_ before: Substring, _ bound: ArraySlice<DatabaseValueConvertible>) -> SQLCondition?) -> SQLCondition {
        let patternValues = pattern.filter { $0 == "?" }.count
        var sql = "", values: [DatabaseValueConvertible] = [], used = 0
        var start = condition.sql.startIndex
        while let range = condition.sql.range(of: pattern, range: start..<condition.sql.endIndex) {
            let between = condition.sql[start..<range.lowerBound]
            let index = used + between.filter { $0 == "?" }.count
            guard index + patternValues <= condition.values.count else { break }
            let bound = condition.values[index..<index + patternValues]
            let replaced = replacement(condition.sql[..<range.lowerBound], bound) ?? SQLCondition(sql: pattern, values: Array(bound))
            sql += between + replaced.sql
            values += condition.values[used..<index] + replaced.values
            used = index + patternValues
            start = range.upperBound
        }
        return SQLCondition(sql: sql + condition.sql[start...], values: values + condition.values[used...])
    }

    /// Whether the user has set keywords of their own on any asset.
    private static func userHasKeywords(_ db: DatabaseConnection) throws -> Bool {
        try db.scalarInt("SELECT count(*) FROM (SELECT 1 FROM userstate.asset_user_state WHERE keywords IS NOT NULL LIMIT 1)") == 1
    }

    /// `condition` with a keyword's candidates taken from the text index alone, a membership
    /// test the plans read from, and its exact test on each row left out: the candidates are
    /// exactly the file's keyword (for a library where the user has set no keywords).
    private static func withoutUserKeywords(_ condition: SQLCondition) -> SQLCondition {
        SQLCondition(sql: condition.sql.replacingOccurrences(of: AssetQuery.userKeywordCandidates, with: "")
                        .replacingOccurrences(of: exactKeywordTest, with: answeredByCandidates),
                     values: condition.values)
    }

    /// A keyword's exact test on a row (`DescriptiveColumns.keywordCondition`), and what
    /// replaces it where its candidates answer alone (binding the same value).
    private static let exactKeywordTest = DescriptiveColumns.keywordCondition("x", column: AssetQuery.keywordKeyExpression).sql
    private static let answeredByCandidates = "(? IS NOT NULL)"

    /// The lowest and highest asset ids, each read from one end of the table: SQLite
    /// takes `min` and `max` from the B-tree's ends only when each stands alone in its
    /// query (both in one `SELECT` scan the whole table: 90 ms at 382k assets).
    static let idSpan = "SELECT (SELECT min(id) FROM assets) AS oldest, (SELECT max(id) FROM assets) AS newest"

    /// Whether the text index query `match` finds fewer assets than `threshold`.
    /// Where match sets are kept, the list's set is read (the page then tests it, and later
    /// pages and the count use it again) and its size compared.
    private static func isRare(_ match: String, threshold: Int, db: DatabaseConnection) throws -> Bool {
        if db.isReadOnly { return try keptMatches(match, db: db).count < threshold }
        // A prefix's words without the prefix (`"sunset"` for `"sunset"*`) match fewer
        // assets and are counted without merging every word's list first.
        if let whole = wholeWords(match), try matchCount(whole, upTo: threshold, db: db) >= threshold { return false }
        return try matchCount(match, upTo: threshold, db: db) < threshold
    }

    /// The match count above which walking the capture order is cheaper than reading
    /// every match: the walk passes `(limit + 1) · assets / matches` assets, each costing
    /// `walkCostRatio` times a match read the plain way, so it wins past
    /// √(ratio · (limit + 1) · assets).
    static func walkThreshold(limit: Int, assets: Int, ratio: Double = walkCostRatio) -> Int {
        Int((ratio * Double(limit + 1) * Double(max(assets, 1))).squareRoot()) + 1
    }

    /// Whether a text index query has a prefix phrase (`"sun"*`).
    static func isPrefix(_ match: String) -> Bool { match.contains("\"*") }

    /// A prefix query with its prefixes taken as whole words, which finds a subset of
    /// its assets: nil when it has none, or negates words (a subset of those it leaves out
    /// would find more).
    static func wholeWords(_ match: String) -> String? {
        guard isPrefix(match), !match.contains(" NOT ") else { return nil }
        return match.replacingOccurrences(of: "\"*", with: "\"")
    }

    /// The assets the text index query `match` finds, counted up to `bound`.
    static func matchCount(_ match: String, upTo bound: Int, db: DatabaseConnection) throws -> Int {
        try db.scalarInt("""
            SELECT count(*) FROM (SELECT 1 FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ? LIMIT ?)
            """, [match, bound]) ?? 0
    }

    /// The page read walking the capture order (from the cursor), the words' match sets
    /// tested first (a bit each), every other condition after.
    private static func walkedPage(_ query: AssetQuery, db: DatabaseConnection) throws -> [Row] {
        var walking = query
        let probed = walking.conditions.map(probing)
        walking.conditions = probed.filter { $0.sql.contains(probe) } + probed.filter { !$0.sql.contains(probe) }
        walking.from = "assets a INDEXED BY assets_by_capture"
        let (sql, values) = walking.pageSQL()
        return try db.rows(sql, values)
    }

    /// A condition's test that an asset is among the text index's matches, which the
    /// plain plan reads whole ...
    static let membership = SearchExpression.textCondition("").sql
    /// ... and the same test asked of the query's match set, read once per statement.
    static let probe = "\(SearchMatchSet.function)(?, a.id)"

    /// `condition` with each membership test turned into a test of its match set.
    static func probing(_ condition: SQLCondition) -> SQLCondition {
        SQLCondition(sql: condition.sql.replacingOccurrences(of: membership, with: probe), values: condition.values)
    }

    /// The text index queries that `conditions` test membership of (words, keywords), in order.
    /// With `negated: false`, only those not under a NOT.
    static func memberships(_ conditions: [SQLCondition], negated: Bool = true) -> [String] {
        var found: [String] = []
        for condition in conditions {
            var bound = 0
            var rest = Substring(condition.sql)
            while let range = rest.range(of: membership) {
                bound += rest[..<range.upperBound].filter { $0 == "?" }.count
                let under = isNegated(condition.sql[..<range.lowerBound])
                if bound <= condition.values.count, let match = condition.values[bound - 1] as? String, negated || !under {
                    found.append(match)
                }
                rest = rest[range.upperBound...]
            }
        }
        return found
    }

    /// Photo and video counts (hidden assets not yet subtracted) of a readable query the
    /// text index answers alone, with at most one range of an indexed column: every condition
    /// a list (words, exact keywords, `type:video`), burst frames left out, or that range
    /// (`duration:<10`). Counted in match sets (`SearchMatchCache`): the lists' own,
    /// intersected, and the `kind` column's (`kvideo`, `kmember`), over the range's entries
    /// where there is one (`rangeCounts`).
    private static func textCounts(_ readable: AssetQuery, db: DatabaseConnection) throws -> SetCounting {
        var lists: [String] = [], representativesOnly = false, range: RequiredRange?
        for condition in readable.conditions {
            if condition.sql == membership, let match = condition.values.first as? String {
                lists.append(match)
            } else if condition.sql == representatives {
                representativesOnly = true
            } else if range == nil, let only = rangeOnly(condition) {
                range = only
            } else if !isConstant(condition) {
                return .notSetsAlone
            }
        }
        guard !lists.isEmpty else { return .notSetsAlone }
        let sets = try lists.map { try keptMatches($0, db: db) }
        let videos = try keptMatches("kind : kvideo", db: db)
        let members = representativesOnly ? try keptMatches("kind : kmember", db: db) : nil
        if let range {
            guard let counts = try rangeCounts(range, sets: sets, videos: videos, members: members, db: db) else {
                return .rangeTooWide(range)
            }
            return .counted(counts)
        }
        let all = sets[0].countInCommon(with: Array(sets.dropFirst()))
        let wordVideos = sets[0].countInCommon(with: sets.dropFirst() + [videos])
        var counts = AssetCounts(images: all - wordVideos, videos: wordVideos)
        if let members {
            let memberVideos = sets[0].countInCommon(with: sets.dropFirst() + [members, videos])
            counts.images -= sets[0].countInCommon(with: sets.dropFirst() + [members]) - memberVideos
            counts.videos -= memberVideos
        }
        return .counted(counts)
    }

    /// The range `condition` is and nothing more (`duration:<10`'s `duration_sort` bounds), or nil.
    static func rangeOnly(_ condition: SQLCondition) -> RequiredRange? {
        let ranges = requiredRanges([condition])
        guard ranges.count == 1, let range = ranges.first, range.condition.values.count == condition.values.count else { return nil }
        var rest = condition.sql
        for comparison in [">=", ">", "<=", "<"] {
            rest = rest.replacingOccurrences(of: "\(range.column) \(comparison) ?", with: "1")
        }
        return isConstant(SQLCondition(sql: rest)) ? range : nil
    }

    /// Photo and video counts of the assets in `range` that every set holds, burst frames
    /// in `members` left out, or nil where reading the range's index would cost more than
    /// reading the rarest set's assets (`rangeEntryCostRatio`): each entry's id read from
    /// the index alone and tested a bit a set.
    private static func rangeCounts(_ range: RequiredRange, sets: [SearchMatchSet], videos: SearchMatchSet,
                                    members: SearchMatchSet?, db: DatabaseConnection) throws -> AssetCounts? {
        let limit = Int(Double(sets.map(\.count).min() ?? 0) / rangeEntryCostRatio)
        let statement = try db.cachedStatement("""
            SELECT a.id FROM assets a INDEXED BY \(range.index) WHERE \(range.condition.sql) LIMIT ?
            """)
        try statement.bind(range.condition.values + [limit + 1])
        defer { sqlite3_reset(statement.handle) }
        var counts = AssetCounts(images: 0, videos: 0), entries = 0
        while try statement.step() {
            entries += 1
            let id = sqlite3_column_int64(statement.handle, 0)
            guard sets.allSatisfy({ $0.contains(id) }), members?.contains(id) != true else { continue }
            if videos.contains(id) { counts.videos += 1 } else { counts.images += 1 }
        }
        return entries > limit ? nil : counts
    }

    /// The condition a query leaves burst frames out with (those that do not stand for their burst).
    static let representatives = "a.is_burst_representative = 1"

    /// Whether a condition holds for every asset: `1`s and keyword tests its candidates
    /// answer (`answeredByCandidates`), joined by `AND`.
    static func isConstant(_ condition: SQLCondition) -> Bool {
        var rest = condition.sql.replacingOccurrences(of: answeredByCandidates, with: "1")
        for token in ["AND", "(", ")", "1", " "] { rest = rest.replacingOccurrences(of: token, with: "") }
        return rest.isEmpty
    }

    /// The kept match set of a text index query (`SearchMatchCache`), as a database error when it fails.
    static func keptMatches(_ match: String, db: DatabaseConnection) throws -> SearchMatchSet {
        do { return try SearchMatchCache.shared.matches(match, db: db.handle) } catch {
            throw DatabaseError(extendedCode: SQLITE_ERROR, message: error.message, path: db.path)
        }
    }

    /// The words condition's SQL and the text index's query, when the words are the
    /// search's only terms and no asset's own words (user state) hold one of them, so the
    /// text index alone answers: nil otherwise.
    private static func fileOnly(_ query: AssetQuery, db: DatabaseConnection) throws
        -> (condition: SQLCondition, match: String)? {
        guard let text = query.textMatch else { return nil }
        if let user = text.user,
           try db.scalarInt("SELECT count(*) FROM (SELECT 1 FROM userstate.user_text WHERE user_text MATCH ? LIMIT 1)",
                            [user]) ?? 0 > 0 { return nil }
        return (text.condition, text.file)
    }
}

/// The matches of a kept capture order in a page's order, after a cursor, handed out a batch at a time.
struct CaptureOrderCandidates {
    private let order: [SearchMatchCache.CaptureKey]
    private let ascending: Bool
    /// The next match to hand out (ascending), or the one after it (descending).
    private var next: Int

    /// Nil where the cursor's value is not a capture key.
    init?(_ order: [SearchMatchCache.CaptureKey], ascending: Bool, after cursor: AssetCursor?) {
        self.order = order
        self.ascending = ascending
        guard let cursor else {
            next = ascending ? 0 : order.count
            return
        }
        let key: Double
        switch cursor.value {
        case .real(let value): key = value
        case .integer(let value): key = Double(value)
        default: return nil
        }
        let position = SearchMatchCache.CaptureKey(key: key, id: cursor.rowID)
        // The first key past the cursor's position, ascending; the first not before it, descending.
        next = order.partitionPoint { ascending ? position < $0 : !($0 < position) }
    }

    /// Up to `count` more ids in the page's order; nil once none are left.
    mutating func next(_ count: Int) -> [Int64]? {
        if ascending {
            guard next < order.count else { return nil }
            let end = min(order.count, next + count)
            defer { next = end }
            return order[next..<end].map(\.id)
        }
        guard next > 0 else { return nil }
        let start = max(0, next - count)
        defer { next = start }
        return order[start..<next].reversed().map(\.id)
    }
}

extension Array {
    /// The index of the first element for which `isAbove` holds, in an array where it holds
    /// for a suffix (a binary search).
    func partitionPoint(_ isAbove: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if isAbove(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
