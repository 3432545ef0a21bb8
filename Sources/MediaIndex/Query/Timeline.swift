import Foundation

/// How a timeline groups assets: by the asset's day, month or year.
public enum TimelineGroup: String, Sendable, Hashable, CaseIterable {
    case day, month, year

    /// How many characters of the day (`2023-07-01`) name the group's period.
    var keyLength: Int {
        switch self {
        case .day: return 10
        case .month: return 7
        case .year: return 4
        }
    }
}

/// One bucket of a timeline: a period and how many assets of the fetch fall in it.
public struct TimelineBucket: Sendable, Hashable {
    /// `2023-07-01`, `2023-07` or `2023`; nil for the assets without a capture date.
    public var period: String?
    /// How many assets.
    public var count: Int

    /// A bucket from its parts.
    public init(period: String?, count: Int) {
        self.period = period
        self.count = count
    }
}

/// A day, month or year of the asset's day (`2023-07-01`, `2023-07`, `2023`), or the
/// undated assets: what `FetchOptions.period` selects, as the timeline names its buckets.
public struct CapturePeriod: Sendable, Hashable, CustomStringConvertible {
    /// The period's text; nil for the undated assets.
    public let prefix: String?

    /// The undated assets.
    public static let undated = CapturePeriod(validPrefix: nil)

    private init(validPrefix: String?) { prefix = validPrefix }

    /// `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or `none` for the undated; nil for anything else.
    public init?(_ text: String) {
        if text == "none" { self.init(validPrefix: nil); return }
        let bytes = Array(text.utf8)
        guard [4, 7, 10].contains(bytes.count) else { return nil }
        for (index, byte) in bytes.enumerated() {
            let isDash = index == 4 || index == 7
            guard isDash ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        }
        if bytes.count >= 7, !(1...12).contains(Int(text.dropFirst(5).prefix(2)) ?? 0) { return nil }
        if bytes.count == 10, !(1...31).contains(Int(text.suffix(2)) ?? 0) { return nil }
        self.init(validPrefix: text)
    }

    public var description: String { prefix ?? "none" }
}

extension AssetQuery {
    /// The asset's day as SQL: the one expression every timeline and period reads.
    /// Migration 0044 defines the indexed column (the local calendar day the file wrote).
    static let dayColumn = "a.capture_day"

    /// The condition selecting `period`: a range of days, so the day index answers.
    static func periodCondition(_ period: CapturePeriod) -> SQLCondition {
        guard let prefix = period.prefix else { return SQLCondition(sql: "\(dayColumn) IS NULL") }
        // Every day starting with the prefix: [prefix, prefix + "\u{7F}"), as SQLite orders text.
        return SQLCondition(sql: "\(dayColumn) >= ? AND \(dayColumn) < ?", values: [prefix, prefix + "\u{7F}"])
    }

    /// Counts per period of `group` over every matching asset (the cursor is ignored),
    /// newest period first unless `ascending`; the undated last (first when ascending).
    func timeline(group: TimelineGroup, ascending: Bool, db: DatabaseConnection) throws -> [TimelineBucket] {
        // Grouped by the day itself, so the day index is read in order (no sort); months
        // and years are summed here.
        let key = Self.dayColumn
        let (whereSQL, whereValues) = whereClause(includingCursor: false, includingHidden: false)
        var counts: [String?: Int] = [:]
        func add(_ row: Row, sign: Int) {
            let period = row.string("period").map { String($0.prefix(group.keyLength)) }
            counts[period, default: 0] += sign * (row.int("n") ?? 0)
        }
        for row in try db.rows("SELECT \(key) AS period, count(*) AS n FROM \(from)\(whereSQL) GROUP BY \(key)",
                               fromValues + whereValues) {
            add(row, sign: 1)
        }
        if excludesHidden {
            // Hidden assets, few and found through the user state's index, are subtracted.
            let hiddenWhere = whereSQL.isEmpty ? " WHERE" : whereSQL + " AND"
            for row in try db.rows("""
                SELECT \(key) AS period, count(*) AS n FROM userstate.asset_user_state h CROSS JOIN \(from)\(hiddenWhere)
                 h.hidden = 1 AND a.identifier = h.identifier GROUP BY \(key)
                """, fromValues + whereValues) {
                add(row, sign: -1)
            }
        }
        let buckets = counts.filter { $0.value > 0 }.map { TimelineBucket(period: $0.key, count: $0.value) }
        return buckets.sorted { a, b in
            switch (a.period, b.period) {
            case (nil, _): return ascending
            case (_, nil): return !ascending
            case let (x?, y?): return ascending ? x < y : x > y
            }
        }
    }
}

extension MediaLibrary {
    /// Counts per day, month or year of the assets `options` selects. See
    /// `Blocking.timeline(_:group:)`.
    ///
    /// - Throws: as `Blocking.timeline(_:group:)`.
    public func timeline(_ options: FetchOptions = FetchOptions(), group: TimelineGroup) async throws -> [TimelineBucket] {
        try await offExecutor { try $0.timeline(options, group: group) }
    }
}

extension MediaLibrary.Blocking {
    /// Counts per day, month or year (the asset's day: the local calendar day its file
    /// wrote) of the assets `options` selects, without fetching rows: what a timeline
    /// grid lays itself out from before loading any asset. Newest first, unless the
    /// options sort by capture date ascending; the undated assets are one bucket with no
    /// period, at the old end. The cursor and limit are ignored.
    ///
    /// - Throws: `AssetQueryError` for a bad option, `LibraryError.database`.
    public func timeline(_ options: FetchOptions = FetchOptions(), group: TimelineGroup) throws -> [TimelineBucket] {
        var options = options
        options.after = nil
        options.limit = nil
        let query = try AssetQuery(options)
        let ascending = query.sort.key == .captureDate && query.sort.ascending
        return try library.read { db in
            try query.checkSearch(db: db)
            return try query.timeline(group: group, ascending: ascending, db: db)
        }
    }
}
