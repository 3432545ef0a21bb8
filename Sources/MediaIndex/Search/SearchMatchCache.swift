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

    private struct Entry {
        var state: State
        var set: SearchMatchSet
        var used: UInt64
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
        guard sqlite3_db_readonly(db, "main") == 1, let file = sqlite3_db_filename(db, "main"),
              let state = try Self.state(db) else {
            return (try SearchMatchSet.read(query, db: db), .readWhole)
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
        guard kept.map({ Self.isLater(state, than: $0.state) }) ?? true else { return (set, outcome) }
        entries.withLock { entries in
            entries.clock += 1
            entries.byKey[key] = Entry(state: state, set: set, used: entries.clock)
            if entries.byKey.count > Self.capacity, let oldest = entries.byKey.min(by: { $0.value.used < $1.value.used }) {
                entries.byKey[oldest.key] = nil
            }
        }
        return (set, outcome)
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
        guard isLater(new, than: old), new.start <= old.revision else { return nil }
        var touched: [Int64] = []
        let limit = maximumChanged(newest: new.newestID)
        try SQLiteRows.each("SELECT DISTINCT asset_id FROM \(SearchTextIndex.touched) WHERE revision > ?1 LIMIT \(limit + 1)",
                            nil, old.revision, db: db) { touched.append($0) }
        guard touched.count + Int(max(0, new.newestID - old.newestID)) <= limit else { return nil }
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
