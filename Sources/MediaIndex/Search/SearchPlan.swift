import Foundation

/// How a search with words is answered, where the plain query (every match
/// materialised, then sorted) is slow: a word found in much of the library.
///
/// - **The first page** is read one of two ways, chosen from how many assets the words
///   match, counted in the text index up to a bound (`walkThreshold`): a rare word's few
///   matches are read from the index and sorted; a common word walks the capture order,
///   asking the text index about each asset in turn, stopping at the page's end. A word
///   being typed (a prefix) whose whole word is common walks with the whole word and
///   asks the prefix only of the assets it passed (`windowPage`); otherwise a prefix's
///   matches are read once into a list the walk tests (FTS5 merges every list with the
///   prefix on each query, so a probe per asset would read them all each time).
/// - **The count** of words alone comes from the text index by itself, without reading
///   a row of `assets`: the `kind` column's tokens split videos from photos and leave
///   out burst frames that do not stand for their burst.
enum SearchPlan {
    /// How much more asking the text index about one asset (the walk's probe, about
    /// 20 µs for a word) costs than reading one match the plain way (looked up by rowid,
    /// then sorted: about 0.85 µs); measured at 200k assets, one segment.
    static let probeCostRatio = 25.0
    /// The same for a prefix (`sunset*`): FTS5 merges the lists of every word with the
    /// prefix on each query, so the walk reads them once into a list (about 0.3 µs a
    /// match) and tests each asset it passes against that list (about 0.2 µs).
    static let prefixCostRatio = 0.4

    /// The first page (one row more than the limit) of a search with words, or nil when
    /// the plain query answers it as well.
    ///
    /// The choice comes from how many assets the words match, counted in the text index
    /// up to `walkThreshold` (a few thousand rowids, read without a row of `assets`):
    /// - **fewer** (a rare word): the matches are read from the text index, each asset
    ///   looked up by rowid and the few sorted (the plain query, kept from walking the
    ///   capture order through every asset);
    /// - **more** (a common word): the capture order is walked and the text index asked
    ///   about each asset until the page is full: about `limit / share` probes (for a
    ///   prefix, see `windowPage`).
    static func probedPage(_ query: AssetQuery, db: DatabaseConnection) throws -> [Row]? {
        guard let limit = query.limit, query.from == "assets a", query.recentlyAddedSince == nil else { return nil }
        var probing = query
        let text = try fileOnly(query, db: db)
        if let text {
            // No asset's own words take part: the words are a test of the text index alone.
            probing.conditions = query.conditions.map { condition in
                if condition.sql == text.condition.sql { return SQLCondition(sql: membership, values: [text.match]) }
                let first = "(" + text.condition.sql + " AND "
                guard condition.sql.hasPrefix(first) else { return condition }
                return SQLCondition(sql: "(" + membership + " AND " + condition.sql.dropFirst(first.count),
                                    values: [text.match] + condition.values.dropFirst(text.condition.values.count))
            }
        }
        // The lists a page can be read from: words not negated (`-sunset` finds most assets).
        let driving = memberships(probing.conditions, negated: false)
        guard !driving.isEmpty, let span = try db.row("SELECT min(id) AS oldest, max(id) AS newest FROM assets"),
              let oldest = span.int("oldest"), let newest = span.int("newest") else { return nil }
        let assets = newest - oldest + 1
        if try driving.contains(where: { try isRare($0, limit: limit, assets: assets, db: db) }) {
            probing.sortsAfterReading = true
            let (sql, values) = probing.pageSQL()
            return try db.rows(sql, values)
        }
        guard query.sort.key == .captureDate else { return nil }
        // A prefix whose whole words are common: the whole words' walk, and the prefix
        // asked only of the assets it passed.
        if let prefix = text?.match, let whole = wholeWords(prefix),
           try matchCount(whole, upTo: walkThreshold(limit: limit, assets: assets, prefix: false), db: db)
               >= walkThreshold(limit: limit, assets: assets, prefix: false),
           let page = try windowPage(probing, prefix: prefix, whole: whole, db: db) {
            return page
        }
        return try walkedPage(probing, db: db)
    }

    /// Whether the text index query `match` finds fewer assets than walking needs.
    private static func isRare(_ match: String, limit: Int, assets: Int, db: DatabaseConnection) throws -> Bool {
        let threshold = walkThreshold(limit: limit, assets: assets, prefix: isPrefix(match))
        // A prefix's words without the prefix (`"sunset"` for `"sunset"*`) match fewer
        // assets and are counted without merging every word's list first.
        if let whole = wholeWords(match), try matchCount(whole, upTo: threshold, db: db) >= threshold { return false }
        return try matchCount(match, upTo: threshold, db: db) < threshold
    }

    /// The page of a prefix query (`"sunset"*`, the word being typed) without FTS5's
    /// merge of every list with the prefix: the walk of the whole words (`"sunset"`)
    /// ends at its page's last asset; the assets before it that the other conditions
    /// pass and the whole words do not are few, and the prefix is asked of them alone,
    /// in a text index of their own (`temp.search_window`, the same tokenizer over the
    /// same words). Nil when the whole words' walk reaches the end of the order.
    private static func windowPage(_ query: AssetQuery, prefix: String, whole: String, db: DatabaseConnection) throws -> [Row]? {
        guard let limit = query.limit else { return nil }
        let page = try walkedPage(replacingTopWords(query, prefix, with: membership, value: whole), db: db)
        guard page.count > limit, let last = page.last, let capture = last.double("sort_key"),
              let rowID = last.int64("row_id") else { return nil }
        let passed = replacingTopWords(query, prefix, with: "NOT " + probe, value: whole)
        let (whereSQL, whereValues) = passed.whereClause(includingCursor: true)
        let values: [DatabaseValueConvertible] = whereValues + [capture, rowID]
        let rejected = try db.rows("""
            SELECT a.id FROM assets a INDEXED BY assets_by_capture\(whereSQL)
                AND (a.capture_sort, a.id) \(query.sort.ascending ? "<=" : ">=") (?, ?)
            """, values).compactMap { $0.int64("id") }
        guard !rejected.isEmpty else { return page }
        let names = SearchTextColumn.all.map(\.name).joined(separator: ", ")
        try db.execute("""
            CREATE VIRTUAL TABLE IF NOT EXISTS temp.\(windowTable) USING fts5(\(names), tokenize = '\(SearchTextIndex.tokenizer)')
            """)
        try db.execute("DELETE FROM temp.\(windowTable)")
        try db.execute("""
            INSERT INTO temp.\(windowTable) (rowid, \(names)) SELECT id, \(names) FROM \(SearchTextIndex.source)
            WHERE id IN (\(rejected.map(String.init).joined(separator: ",")))
            """)
        let found = try db.rows("SELECT rowid FROM temp.\(windowTable) WHERE \(windowTable) MATCH ?", [prefix])
            .compactMap { $0.int64("rowid") }
        try db.execute("DELETE FROM temp.\(windowTable)")
        guard !found.isEmpty else { return page }
        // Every asset of both passed every condition: the page is the first of them in order.
        var both = query
        both.conditions = [SQLCondition(sql: "a.id IN (" + (page.compactMap { $0.int64("row_id") } + found)
            .map(String.init).joined(separator: ",") + ")")]
        both.sortsAfterReading = true
        let (sql, bothValues) = both.pageSQL()
        return try db.rows(sql, bothValues)
    }

    /// The connection's own text index of the assets a prefix is asked of (see `windowPage`).
    static let windowTable = "search_window"

    /// `query` with the top words' membership test (of `match`) replaced by `sql`, bound to `value`.
    private static func replacingTopWords(_ query: AssetQuery, _ match: String, with sql: String, value: String) -> AssetQuery {
        var replaced = query
        replaced.conditions = query.conditions.map { condition in
            guard condition.sql == membership || condition.sql.hasPrefix("(" + membership + " AND "),
                  condition.values.first as? String == match,
                  let range = condition.sql.range(of: membership) else { return condition }
            let values: [DatabaseValueConvertible] = [value] + Array(condition.values.dropFirst())
            return SQLCondition(sql: condition.sql.replacingCharacters(in: range, with: sql), values: values)
        }
        return replaced
    }

    /// The match count above which walking the capture order is cheaper than reading
    /// every match: the walk passes `(limit + 1) · assets / matches` assets, each costing
    /// `ratio` times a match read the plain way, so it wins past √(ratio · (limit + 1) · assets).
    static func walkThreshold(limit: Int, assets: Int, prefix: Bool) -> Int {
        let ratio = prefix ? prefixCostRatio : probeCostRatio
        return Int((ratio * Double(limit + 1) * Double(max(assets, 1))).squareRoot()) + 1
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

    /// The page read walking the capture order (from the cursor), every other condition
    /// tested first and the text index asked last, about each remaining asset in turn
    /// (a prefix's matches are read once, into the list the walk tests).
    private static func walkedPage(_ query: AssetQuery, db: DatabaseConnection) throws -> [Row] {
        var walking = query
        let probed = walking.conditions.map(probing)
        walking.conditions = probed.filter { !$0.sql.contains(probe) } + probed.filter { $0.sql.contains(probe) }
        walking.from = "assets a INDEXED BY assets_by_capture"
        let (sql, values) = walking.pageSQL()
        return try db.rows(sql, values)
    }

    /// A condition's test that an asset is among the text index's matches, which the
    /// plain plan reads whole ...
    static let membership = SearchExpression.textCondition("").sql
    /// ... and the same test asked of the text index for one asset.
    static let probe = "EXISTS (SELECT 1 FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ? AND rowid = a.id)"

    /// `condition` with each membership test of a query without a prefix turned into a probe.
    static func probing(_ condition: SQLCondition) -> SQLCondition {
        var sql = "", bound = 0
        var rest = Substring(condition.sql)
        while let range = rest.range(of: membership) {
            bound += rest[..<range.upperBound].filter { $0 == "?" }.count
            let match = bound <= condition.values.count ? condition.values[bound - 1] as? String : nil
            sql += String(rest[..<range.lowerBound]) + (match.map(isPrefix) == false ? probe : membership)
            rest = rest[range.upperBound...]
        }
        return SQLCondition(sql: sql + rest, values: condition.values)
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
                let under = rest[..<range.lowerBound].hasSuffix("NOT coalesce((")
                if bound <= condition.values.count, let match = condition.values[bound - 1] as? String, negated || !under {
                    found.append(match)
                }
                rest = rest[range.upperBound...]
            }
        }
        return found
    }

    /// Photo and video counts of words alone (hidden assets not yet subtracted), read
    /// from the text index; nil when the query has another condition.
    static func textCounts(_ query: AssetQuery, db: DatabaseConnection) throws -> AssetCounts? {
        let representatives = "a.is_burst_representative = 1"
        guard let text = try fileOnly(query, db: db), query.from == "assets a", query.recentlyAddedSince == nil,
              query.conditions.filter({ $0.sql == text.condition.sql }).count == 1,
              query.conditions.allSatisfy({ $0.sql == text.condition.sql || $0.sql == representatives }) else { return nil }
        let match = text.match
        func count(_ also: String) throws -> Int {
            try db.scalarInt("SELECT count(*) FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ?",
                             ["(\(match))" + also]) ?? 0
        }
        let all = try count(""), videos = try count(" AND kind : kvideo")
        var counts = AssetCounts(images: all - videos, videos: videos)
        // Burst frames are asked about only when the library has one (a prefix's lists
        // are merged again for each count).
        if query.conditions.contains(where: { $0.sql == representatives }), try matchCount("kind : kmember", upTo: 1, db: db) > 0 {
            let members = try count(" AND kind : kmember"), memberVideos = try count(" AND kind : kmember AND kind : kvideo")
            counts.images -= members - memberVideos
            counts.videos -= memberVideos
        }
        return counts
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
