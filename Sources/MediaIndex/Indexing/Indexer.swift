import Foundation
import MediaMetadata

/// Brings the database in line with the files under the roots, in phases, each its
/// own type:
///
/// 1. `IndexWalk`: every regular file under the roots, one at a time in path order.
/// 2. `IndexDiff`: compared with the recorded rows by size, mtime and inode as the
///    walk goes; the files to read are kept in a `ToReadList` (bounded in memory).
/// 3. `IndexPlan`: which asset each new or changed file belongs to, so identifiers
///    follow content (`IdentityPlanner`).
/// 4. `IndexCommit`: new and changed files read in parallel (`FileReader`), each
///    batch committed by the one writer (`BatchRecorder`) while the next is read.
/// 5. and 6. `IndexFinish`: vanished files removed, pairing and sidecars settled
///    (`AssetPairer`, `SidecarAttacher`), the run closed (`IndexRunLog`).
///
/// A batch is one transaction: a run killed at any point loses nothing already
/// committed, and the next run finishes the work because unfinished files still
/// differ from their rows.
struct Indexer {
    let writer: DatabaseWriter
    let location: LibraryLocation
    /// Folders never walked: the library's own.
    let excludedFolders: [PathBytes]
    var batchSize = 256
    /// Files to read held in memory; the rest wait in a temporary file (`ToReadList`).
    var heldFilesToRead = ToReadList.defaultHeldLimit
    /// How long a deleted asset's identifier is kept for its content's return.
    var tombstoneRetention = Tombstones.defaultRetention
    /// Files left for a later run because they are still being written.
    var settling: IndexDiff.Settling?
    /// The roots whose walk follows symbolic links to folders: their files are read by
    /// their path (links to folders followed, the file's own name not), not beneath the root.
    var followingSymlinks: Set<Int64> = []

    /// A file the walk found, with its row when it had one.
    struct Work: Sendable {
        var entry: FileWalker.Entry
        var rootID: Int64
        /// Its row in `files` (set by `IndexDiff` for a changed file).
        var known: FileRecord.Known? = nil
        /// Its content's fingerprint, once `IndexPlan` has read it (never computed twice).
        var fingerprint: ContentFingerprint? = nil
    }

    func run(roots: [(id: Int64, path: PathBytes)], progress: (@Sendable (IndexProgress) -> Void)?) throws -> IndexSummary {
        let start = ContinuousClock.now
        var summary = IndexSummary()
        // Never reads `summary`: the phases hold it while they report.
        func report(_ phase: IndexProgress.Phase, scanned: Int, toRead: Int = 0, read: Int = 0, failed: Int = 0) {
            progress?(IndexProgress(phase: phase, scanned: scanned, toRead: toRead, read: read, failed: failed,
                                    elapsedSeconds: Self.seconds(since: start)))
        }
        let (runID, lastTokenBefore) = try writer.write { db in
            (try IndexRunLog(db: db).begin(now: Date().timeIntervalSince1970),
             Int64(try db.scalarInt("SELECT max(token) FROM changes") ?? 0))
        }

        // Phases 1 and 2 run together: the diff takes the walk's files one at a time.
        var phase = ContinuousClock.now
        let makeWalk = { IndexWalk(roots: roots, excluding: excludedFolders, followingSymlinks: followingSymlinks) { report(.walking, scanned: $0) } }
        var walk = makeWalk()
        let diff = try writer.write { db in
            try IndexDiff(&walk, restart: makeWalk, rootIDs: Set(roots.map(\.id)), files: FileStore(db: db),
                          settling: settling,
                          spillFolder: location.directory, heldLimit: heldFilesToRead)
        }
        // Special files are seen and skipped, never opened (a FIFO would block a reader).
        summary.scanned = walk.count + walk.specialFiles.count
        summary.skipped = walk.specialFiles.count
        summary.specialFiles = walk.specialFiles
        summary.unreadableFolders = walk.unreadableFolders.count
        summary.unchanged = diff.unchanged
        summary.deferred = diff.deferred
        summary.timings.walk = walk.listingSeconds
        summary.timings.diff = max(0, Self.seconds(since: phase) - walk.listingSeconds)

        phase = ContinuousClock.now
        let rootPaths = Dictionary(roots.filter { !followingSymlinks.contains($0.id) }.map { ($0.id, $0.path) },
                                   uniquingKeysWith: { first, _ in first })
        var plan = IndexPlan(toRead: diff.toRead, vanished: diff.vanished, roots: rootPaths)
        summary.timings.read = Self.seconds(since: phase)

        let scanned = summary.scanned, toReadCount = diff.toRead.count
        try IndexCommit(writer: writer, runID: runID, batchSize: batchSize, roots: rootPaths)
            .run(diff.toRead, plan: &plan, summary: &summary) { read, failed in
                report(.reading, scanned: scanned, toRead: toReadCount, read: read, failed: failed)
            }

        report(.finishing, scanned: scanned, toRead: toReadCount, read: toReadCount, failed: summary.failed)
        // The user's capture times (user state, read apart: the writer has no user state attached).
        let userTimes = UserTimeSettings.read(userStatePath: location.userStatePath)
        try writer.transaction { db in
            let now = Date().timeIntervalSince1970
            try IndexFinish(db: db, runID: runID, now: now, tombstoneRetention: tombstoneRetention,
                            lastTokenBefore: lastTokenBefore, userTimes: userTimes)
                .run(roots: roots, walk: walk, diff: diff, plan: plan, summary: &summary)
            summary.elapsedSeconds = Self.seconds(since: start)
            try IndexRunLog(db: db).complete(runID, summary, now: now)
        }
        return summary
    }

    /// Seconds since `instant`.
    static func seconds(since instant: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - instant
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
