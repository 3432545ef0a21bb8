import Foundation

/// How a search of words alone is answered, where the plain query (every match
/// materialised, then sorted) is slow: a word found in much of the library.
///
/// - **The first page** of a common word walks the capture order and asks the text
///   index about each asset in turn, stopping at the page's end: a few hundred lookups
///   instead of every match. Which way is cheaper follows from the word's share of the
///   library, estimated from a few thousand assets (rowid ranges of the index).
/// - **The count** of words alone comes from the text index by itself, without reading
///   a row of `assets`: the `kind` column's tokens split videos from photos and leave
///   out burst frames that do not stand for their burst.
enum SearchPlan {
    /// Assets whose text the selectivity estimate reads (in eight rowid ranges).
    static let sampleWindow = 4096
    /// How much more asking the index about one asset costs than reading one match of
    /// the plain plan (measured: about 38 µs against 0.55 µs on 100k assets).
    static let probeCostRatio = 70.0

    /// The first page (one row more than the limit) walking the capture order, or nil
    /// when the plain query is cheaper or the walk found too few within its budget.
    static func probedPage(_ query: AssetQuery, db: DatabaseConnection) throws -> [Row]? {
        guard let limit = query.limit, query.from == "assets a", query.sort.key == .captureDate,
              query.recentlyAddedSince == nil else { return nil }
        var probing = query
        if let text = try fileOnly(query, db: db) {
            // No asset's own words take part: the words are a test of the text index alone.
            probing.conditions = query.conditions.map { condition in
                if condition.sql == text.condition.sql { return SQLCondition(sql: membership, values: [text.match]) }
                let first = "(" + text.condition.sql + " AND "
                guard condition.sql.hasPrefix(first) else { return condition }
                return SQLCondition(sql: "(" + membership + " AND " + condition.sql.dropFirst(first.count),
                                    values: [text.match] + condition.values.dropFirst(text.condition.values.count))
            }
        }
        let matches = memberships(probing.conditions)
        guard !matches.isEmpty, let span = try db.row("SELECT min(id) AS oldest, max(id) AS newest FROM assets"),
              let oldest = span.int("oldest"), let newest = span.int("newest") else { return nil }
        // Each test's share of the library, read in eight rowid ranges spread over it (the
        // newest assets alone may be an import unlike the rest), as if the tests were independent.
        let ranges = 8, width = max(1, min(newest - oldest + 1, sampleWindow) / ranges)
        var share = 1.0
        for match in matches {
            var hits = 0
            for range in 0..<ranges {
                let start = oldest + (newest - oldest + 1 - width) * range / (ranges - 1)
                hits += try db.scalarInt("""
                    SELECT count(*) FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ? AND rowid >= ? AND rowid < ?
                    """, [match, start, start + width]) ?? 0
            }
            share *= Double(hits) / Double(width * ranges)
        }
        guard share > 0, share * share * Double(newest) > probeCostRatio * Double(limit + 1) else { return nil }
        let budget = min(newest, Int(4 * Double(limit + 1) / share) + 64)
        probing.conditions = probing.conditions.map {
            SQLCondition(sql: $0.sql.replacingOccurrences(of: membership, with: probe), values: $0.values)
        }
        // The walk stops at the page's end, or at the budget's last asset in the order:
        // past it, the plain query is cheaper.
        let direction = query.sort.ascending ? "ASC" : "DESC", comparison = query.sort.ascending ? ">" : "<"
        var after = ""
        var afterValues: [DatabaseValueConvertible] = []
        if let cursor = query.cursor {
            after = " WHERE (a.capture_sort, a.id) \(comparison) (?, ?)"
            afterValues = [cursor.value, cursor.rowID]
        }
        let bound = try db.row("""
            SELECT a.capture_sort, a.id FROM assets a INDEXED BY assets_by_capture\(after)
            ORDER BY a.capture_sort \(direction), a.id \(direction) LIMIT 1 OFFSET \(budget - 1)
            """, afterValues)
        if let bound, let capture = bound.double("capture_sort"), let id = bound.int64("id") {
            probing.conditions.append(SQLCondition(sql: "(a.capture_sort, a.id) \(query.sort.ascending ? "<=" : ">=") (?, ?)",
                                                   values: [capture, id]))
        }
        probing.from = "assets a INDEXED BY assets_by_capture"
        let (sql, values) = probing.pageSQL()
        let rows = try db.rows(sql, values)
        return rows.count > limit || bound == nil ? rows : nil
    }

    /// A condition's test that an asset is among the text index's matches, which the
    /// plain plan reads whole ...
    static let membership = SearchExpression.textCondition("").sql
    /// ... and the same test asked of the text index for one asset.
    static let probe = "EXISTS (SELECT 1 FROM \(SearchTextIndex.table) WHERE \(SearchTextIndex.table) MATCH ? AND rowid = a.id)"

    /// The text index queries that `conditions` test membership of (words, keywords), in order.
    static func memberships(_ conditions: [SQLCondition]) -> [String] {
        var found: [String] = []
        for condition in conditions {
            var bound = 0
            var rest = Substring(condition.sql)
            while let range = rest.range(of: membership) {
                bound += rest[..<range.upperBound].filter { $0 == "?" }.count
                if bound <= condition.values.count, let match = condition.values[bound - 1] as? String { found.append(match) }
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
        if query.conditions.contains(where: { $0.sql == representatives }) {
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
