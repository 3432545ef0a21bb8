import Foundation

/// The only writer of `index_runs`: one row per index run, with its counts as it goes.
struct IndexRunLog {
    let db: DatabaseConnection

    /// Starts a run: a run still marked running was killed (its lock is ours now).
    /// - Returns: the run's id.
    func begin(now: Double) throws -> Int64 {
        try db.execute("UPDATE index_runs SET status = \(IndexRunStatus.interrupted.sql) WHERE status = \(IndexRunStatus.running.sql)")
        try db.execute("INSERT INTO index_runs (started_at) VALUES (?)", [now])
        return db.lastInsertedRowID
    }

    /// Records the counts so far, in the batch's transaction.
    func recordProgress(_ runID: Int64, _ summary: IndexSummary) throws {
        try db.cachedStatement("""
            UPDATE index_runs SET scanned = ?, added = ?, updated = ?, failed = ?, skipped = ?, opened = ?
            WHERE id = ?
            """).execute([summary.scanned, summary.added, summary.updated + summary.moved, summary.failed,
                          summary.skipped, summary.opened, runID])
    }

    /// Marks the run completed with its final counts.
    func complete(_ runID: Int64, _ summary: IndexSummary, now: Double) throws {
        try db.execute("""
            UPDATE index_runs SET finished_at = ?, status = \(IndexRunStatus.completed.sql), scanned = ?, added = ?, updated = ?,
                removed = ?, unchanged = ?, failed = ?, skipped = ?, opened = ?, message = ?
            WHERE id = ?
            """, [now, summary.scanned, summary.added, summary.updated + summary.moved, summary.removed,
                  summary.unchanged, summary.failed, summary.skipped, summary.opened,
                  summary.moved > 0 ? "\(summary.moved) moved" : nil, runID])
    }

    /// When the run started.
    func startedAt(_ runID: Int64) throws -> Double? {
        try db.row("SELECT started_at FROM index_runs WHERE id = ?", [runID])?.double("started_at")
    }

    /// Since when files count as touched by an index run: its start, or the start of an
    /// earlier run that never completed (killed after committing some batches), less a
    /// margin for wall-clock steps. Files whose `indexed_at` is later are paired again.
    func touchedSince(_ runID: Int64) throws -> Double {
        // From the start of the oldest run since the last completed one: a run killed after
        // committing batches never paired them, so this run pairs them too. Two seconds of
        // margin cover a wall clock stepped back between runs.
        let started = try db.row("""
            SELECT min(started_at) AS started FROM index_runs
            WHERE id <= ?1 AND id > coalesce((SELECT max(id) FROM index_runs WHERE status = \(IndexRunStatus.completed.sql) AND id < ?1), 0)
            """, [runID])?.double("started")
        return (started ?? 0) - 2
    }
}
