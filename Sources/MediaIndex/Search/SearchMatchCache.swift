import CSQLite
import Synchronization

/// Match sets kept between statements, so the page, the count and the next page of one
/// search read a common word's list once, and a busy writer's new assets cost only their
/// own matches.
///
/// A set is kept with where the library stood when it was read: the index build's
/// random name (`search_text_generation`), the last row of `search_text_touched` (whose
/// triggers record every asset whose words changed other than by being added) and the
/// highest asset id. Asked again at a later state, the set is brought up to date: the
/// assets above the old highest id and the touched ones are asked again (`update`). A set
/// more than `maximumChanged(newest:)` assets behind, of another build, older than the kept
/// history, or asked at an earlier state than its own is read whole.
///
/// Only read-only connections use the cache: a writer's transaction may hold words that
/// are never committed.
final class SearchMatchCache: Sendable {
    static let shared = SearchMatchCache()

    /// How many sets are kept (about 160 KB each at 1.25 M assets), the least recently used dropped first.
    static let capacity = 32
    /// How many added and touched assets are asked again before the set is read whole, in a
    /// library whose highest id is `newest`: a sixteenth of it, between 256 and 4096
    /// (copying an asset's words costs about as much as reading 50 matches).
    static func maximumChanged(newest: Int64) -> Int { min(4096, max(256, Int(newest / 16))) }

    /// Where a library's text index stood when a set was read.
    struct State: Equatable {
        var generation: String
        /// The first `search_text_touched` revision still held.
        var start: Int64
        var revision: Int64
        var newestID: Int64
    }

    /// One match in capture order: its `capture_sort` and id, compared as the page query sorts them.
    struct CaptureKey: Comparable, Sendable {
        var key: Double
        var id: Int64
        static func < (lhs: CaptureKey, rhs: CaptureKey) -> Bool { (lhs.key, lhs.id) < (rhs.key, rhs.id) }
    }

    /// A set's matches in capture order, ascending, as they stood at `state`.
    private struct CaptureOrder {
        var state: State
        var keys: [CaptureKey]
    }

    private struct Entry {
        var state: State
        var set: SearchMatchSet
        var used: UInt64
        /// The set's matches in capture order, kept once a page asked for them (of its own state).
        var order: CaptureOrder?
    }

    private struct Entries {
        var byKey: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let entries = Mutex(Entries())

    /// Every asset the text index query `query` finds, at the state `db`'s transaction sees.
    func matches(_ query: String, db: OpaquePointer) throws(SearchMatchSet.ReadError) -> SearchMatchSet {
        try lookUp(query, db: db).set
    }

    /// How `lookUp` found a set: read whole, a kept one brought up to date, or a kept one as it was.
    enum Outcome: Sendable, Equatable { case readWhole, updated, kept }

    /// `matches`, with how the set was found.
    func lookUp(_ query: String, db: OpaquePointer) throws(SearchMatchSet.ReadError)
        -> (set: SearchMatchSet, outcome: Outcome) {
        let found = try find(query, db: db)
        return (found.set, found.outcome)
    }

    /// The assets `query` finds in capture order (`capture_sort`, then id, ascending), at the
    /// state `db`'s transaction sees. The order is kept with the query's set, and brought up
    /// to date as the set is: the keys of the assets added or touched since (a capture time
    /// changed is a touched row, `SearchTextIndex.touched`) are read again, the others kept.
    func captureOrder(_ query: String, db: OpaquePointer) throws(SearchMatchSet.ReadError)
        -> (keys: [CaptureKey], outcome: Outcome) {
        let found = try find(query, db: db)
        guard let state = found.state, let key = found.key else { return (try Self.captureKeys(of: found.set, db: db), .readWhole) }
        let kept = entries.withLock { $0.byKey[key]?.order }
        if let kept, kept.state == state { return (kept.keys, .kept) }
        var keys: [CaptureKey], outcome = Outcome.updated
        if let kept, let touched = try Self.touched(from: kept.state, to: state, db: db) {
            keys = try Self.update(kept.keys, to: found.set, above: kept.state.newestID, touched: touched, db: db)
        } else {
            keys = try Self.captureKeys(of: found.set, db: db)
            outcome = .readWhole
        }
        entries.withLock { entries in
            // Kept with the set of the same state only (a later one may have been stored meanwhile).
            guard entries.byKey[key]?.state == state else { return }
            entries.byKey[key]?.order = CaptureOrder(state: state, keys: keys)
        }
        return (keys, outcome)
    }

    /// `lookUp`, with the state and cache key the set was kept under (nil where sets are not kept).
    private func find(_ query: String, db: OpaquePointer) throws(SearchMatchSet.ReadError)
        -> (set: SearchMatchSet, outcome: Outcome, state: State?, key: String?) {
        guard sqlite3_db_readonly(db, "main") == 1, let file = sqlite3_db_filename(db, "main"),
              let state = try Self.state(db) else {
            return (try SearchMatchSet.read(query, db: db), .readWhole, nil, nil)
        }
        let key = String(cString: file) + "\u{0}" + state.generation + "\u{0}" + query
        let kept = entries.withLock { $0.byKey[key] }
        var outcome = Outcome.readWhole
        var set: SearchMatchSet
        if let kept, let updated = try Self.update(kept.set, of: query, from: kept.state, to: state, db: db) {
            set = updated
            outcome = kept.state == state ? .kept : .updated
        } else {
            set = try SearchMatchSet.read(query, db: db)
        }
        guard kept.map({ Self.isLater(state, than: $0.state) }) ?? true else { return (set, outcome, nil, nil) }
        entries.withLock { entries in
            entries.clock += 1
            // The order, of its own state, goes with the set: it is brought up to date when asked.
            entries.byKey[key] = Entry(state: state, set: set, used: entries.clock, order: entries.byKey[key]?.order)
            if entries.byKey.count > Self.capacity, let oldest = entries.byKey.min(by: { $0.value.used < $1.value.used }) {
                entries.byKey[oldest.key] = nil
            }
        }
        return (set, outcome, state, key)
    }

    /// `set`, read at `old`, brought to `new`; nil when it must be read whole.
    ///
    /// The assets added or touched since are copied, words and all, into the connection's
    /// temporary text index (`SearchTextIndex.changes`, same columns and tokenizer), and the
    /// query is asked of it: a cost of the changed assets alone, prefix or not (FTS5 merges
    /// every word of a prefix whole, even for a range of ids in the library's own index).
    private static func update(_ set: SearchMatchSet, of query: String, from old: State, to new: State,
                               db: OpaquePointer) throws(SearchMatchSet.ReadError) -> SearchMatchSet? {
        if old == new { return set }
        guard let touched = try touched(from: old, to: new, db: db) else { return nil }
        var updated = set
        for id in touched { updated.remove(id) }
        let changes = SearchTextIndex.changes
        let names = SearchTextColumn.all.map(\.name).joined(separator: ", ")
        let ids = touched.map(String.init).joined(separator: ",")
        try SQLiteRows.each("INSERT INTO temp.\(changes) (\(changes)) VALUES ('delete-all')", nil, nil, db: db) { _ in }
        // Two statements: with `OR`, SQLite would read every asset instead of two ranges of ids.
        let copy = "INSERT INTO temp.\(changes) (rowid, \(names)) SELECT id, \(names) FROM \(SearchTextIndex.source) WHERE "
        try SQLiteRows.each(copy + "id > ?1", nil, old.newestID, db: db) { _ in }
        if !touched.isEmpty { try SQLiteRows.each(copy + "id IN (\(ids)) AND id <= ?1", nil, old.newestID, db: db) { _ in } }
        try SQLiteRows.each("SELECT rowid FROM temp.\(changes) WHERE \(changes) MATCH ?1", query, nil, db: db) { updated.insert($0) }
        return updated
    }

    /// The assets touched between `old` and `new` (their words or capture time changed, or
    /// they were removed), or nil when what was kept at `old` must be read whole: another
    /// build, `new` not later, the touched rows since `old` no longer held, or more than
    /// `maximumChanged(newest:)` assets touched and added.
    private static func touched(from old: State, to new: State, db: OpaquePointer) throws(SearchMatchSet.ReadError) -> [Int64]? {
        guard isLater(new, than: old), new.start <= old.revision else { return nil }
        var touched: [Int64] = []
        let limit = maximumChanged(newest: new.newestID)
        try SQLiteRows.each("SELECT DISTINCT asset_id FROM \(SearchTextIndex.touched) WHERE revision > ?1 LIMIT \(limit + 1)",
                            nil, old.revision, db: db) { touched.append($0) }
        return touched.count + Int(max(0, new.newestID - old.newestID)) <= limit ? touched : nil
    }

    /// `keys`, kept for an earlier set whose highest asset id was `newest`, brought to `set`:
    /// the matches no longer found and the `touched` ones left out, then the keys of the
    /// touched ones still found and of those above `newest` read again.
    private static func update(_ keys: [CaptureKey], to set: SearchMatchSet, above newest: Int64, touched: [Int64],
                               db: OpaquePointer) throws(SearchMatchSet.ReadError) -> [CaptureKey] {
        let touchedIDs = Set(touched)
        var updated = keys.filter { set.contains($0.id) && !touchedIDs.contains($0.id) }
        var reread = Set(touched.filter { set.contains($0) })
        set.forEach(above: newest) { reread.insert($0) }
        if !reread.isEmpty {
            updated += try captureKeys(json: "[" + reread.map(String.init).joined(separator: ",") + "]", db: db)
            updated.sort()
        }
        return updated
    }

    /// The capture keys of every asset of `set`, in order.
    private static func captureKeys(of set: SearchMatchSet, db: OpaquePointer) throws(SearchMatchSet.ReadError) -> [CaptureKey] {
        try captureKeys(json: set.jsonArray, db: db).sorted()
    }

    /// The capture keys of the assets whose ids `json` lists (a JSON array), unordered.
    private static func captureKeys(json: String, db: OpaquePointer) throws(SearchMatchSet.ReadError) -> [CaptureKey] {
        var keys: [CaptureKey] = []
        let sql = "SELECT a.id, \(AssetQuery.sortColumn(.captureDate)) FROM assets a WHERE a.id IN (SELECT value FROM json_each(?1))"
        try SQLiteRows.step(sql, json, nil, db: db) { row in
            keys.append(CaptureKey(key: sqlite3_column_double(row, 1), id: sqlite3_column_int64(row, 0)))
        }
        return keys
    }

    /// Whether `state` is the same build at the same or a later point than `other`: the
    /// touched revisions only grow, and without a touched row the highest id only grows
    /// (removing the highest asset is a touched row).
    private static func isLater(_ state: State, than other: State) -> Bool {
        state.generation == other.generation
            && (state.revision > other.revision || (state.revision == other.revision && state.newestID >= other.newestID))
    }

    /// Where `db`'s text index stands; nil without the bookkeeping tables (an index built
    /// before them, not yet rebuilt).
    private static func state(_ db: OpaquePointer) throws(SearchMatchSet.ReadError) -> State? {
        var statement: OpaquePointer?
        let sql = """
            SELECT generation, start, (SELECT coalesce(max(revision), 0) FROM \(SearchTextIndex.touched)),
                   (SELECT coalesce(max(id), 0) FROM assets) FROM \(SearchTextIndex.generation)
            """
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let generation = sqlite3_column_text(statement, 0) else { return nil }
        return State(generation: String(cString: generation), start: sqlite3_column_int64(statement, 1),
                     revision: sqlite3_column_int64(statement, 2), newestID: sqlite3_column_int64(statement, 3))
    }
}
