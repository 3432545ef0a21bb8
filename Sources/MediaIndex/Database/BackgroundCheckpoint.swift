import CSQLite
import Foundation

/// Moves the WAL checkpoints of one attached database off its writer's commits.
///
/// SQLite checkpoints when a commit leaves the WAL at 1,000 pages or more, inside that
/// commit's call: it copies the pages back and syncs the WAL and the database file, which
/// on a busy disk takes tens of milliseconds. For user-state writes (favorites, album
/// edits, each a transaction of a few pages, from the picker over HTTP) that made about
/// one write in forty wait 15–45 ms on a checkpoint. Installed on the writer's connection
/// (`sqlite3_wal_hook`, which replaces the automatic checkpoint), the hook only notes
/// the WAL's size; past the threshold a passive checkpoint (which never blocks readers
/// or writers) runs on a thread of its own, on a connection of its own. Other databases
/// of the connection keep SQLite's own rule.
final class BackgroundCheckpoint: @unchecked Sendable {
    // @unchecked: `pending` and `connection` are only touched under `lock`
    // (the connection only on `queue`); `nextRestartPages` only in the writer's hook.
    /// The WAL size, in pages, past which a checkpoint is started (SQLite's default).
    static let thresholdPages: Int32 = 1000

    private let schema: String
    private let path: String
    private let queue = DispatchQueue(label: "mediaindex.checkpoint")
    private let lock = NSLock()
    private var pending = false
    private var connection: DatabaseConnection?

    /// Checkpoints `schema` of `db` (the database file at `path`) in the background from now on.
    /// The connection keeps the returned object alive (`DatabaseConnection.hookContext`).
    @discardableResult
    static func install(on db: DatabaseConnection, schema: String, path: String) -> BackgroundCheckpoint {
        install(BackgroundCheckpoint(schema: schema, path: path, restartPages: nil), on: db)
    }

    /// Installs `checkpoint`'s WAL hook on `db`: one schema comparison per commit past the threshold.
    private static func install(_ checkpoint: BackgroundCheckpoint, on db: DatabaseConnection) -> BackgroundCheckpoint {
        db.hookContext = checkpoint
        sqlite3_wal_hook(db.handle, { context, handle, name, pages in
            guard let context, let name else { return SQLITE_OK }
            let checkpoint = Unmanaged<BackgroundCheckpoint>.fromOpaque(context).takeUnretainedValue()
            guard pages >= BackgroundCheckpoint.thresholdPages else { return SQLITE_OK }
            guard String(cString: name) == checkpoint.schema else {
                // SQLite's own rule for the others: a passive checkpoint in the commit.
                sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                return SQLITE_OK
            }
            if checkpoint.restartPages != nil {
                checkpoint.restartIfLarge(handle, name: name, pages: pages)
            } else {
                checkpoint.start()
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpoint).toOpaque())
        return checkpoint
    }

    /// Bounds the library's WAL while readers never stop (from `openWriters`): SQLite's
    /// passive checkpoint in each commit, and past `restartPages` a restart, so the next
    /// commit writes the WAL from its start again.
    ///
    /// A passive checkpoint copies back only the frames no reader still needs, and the
    /// WAL only starts over once every frame is copied back and no reader uses it: beside
    /// searches that follow each other without a pause, some reader always held an older
    /// snapshot, and a writer committing batches back to back grew the WAL to 2.8 GB
    /// (every page a reader fetched was then looked up in its index, hundreds of hash
    /// tables: a common word's first page took 3.2 s instead of 0.12 s). The restart waits
    /// at most `restartWaitMilliseconds` for the readers of older snapshots (a query
    /// each; readers starting meanwhile read the database file and are not waited for),
    /// and blocks only this writer meanwhile: never a reader, never a user-state write
    /// (another file, another connection). When readers are still busy, it is tried again
    /// after the WAL has grown by half as much again.
    @discardableResult
    static func installRestarting(on db: DatabaseConnection, schema: String = "main",
                                  restartPages: Int32 = defaultRestartPages) -> BackgroundCheckpoint {
        install(BackgroundCheckpoint(schema: schema, path: db.path, restartPages: restartPages), on: db)
    }

    /// The WAL size, in pages, past which the library's writer restarts the WAL by default (64 MB at
    /// the 4 KiB page: the `journal_size_limit` it is truncated back to).
    static let defaultRestartPages: Int32 = 16_384
    /// How long a restart waits for readers of older snapshots.
    static let restartWaitMilliseconds: Int32 = 250
    /// The WAL size past which `schema` is restarted in the commit (the library), or nil when
    /// it is checkpointed passively in the background instead (the user state).
    private let restartPages: Int32?
    /// The WAL size at which the next restart is tried (only touched in the hook, which
    /// runs on the writer's connection, one commit at a time).
    private var nextRestartPages: Int32

    /// Runs in the writer's commit (the hook): SQLite's passive checkpoint, or past
    /// `nextRestartPages`, a restart.
    private func restartIfLarge(_ handle: OpaquePointer?, name: UnsafePointer<CChar>, pages: Int32) {
        guard let restartPages, pages >= nextRestartPages else {
            sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        sqlite3_busy_timeout(handle, Self.restartWaitMilliseconds)
        let code = sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_RESTART, nil, nil)
        sqlite3_busy_timeout(handle, DatabaseConnection.busyTimeoutMilliseconds)
        nextRestartPages = code == SQLITE_OK ? restartPages : pages + restartPages / 2
    }

    /// Copies the library's WAL back into the database and empties it, waiting at most
    /// `restartWaitMilliseconds` for readers of older snapshots (where they are still busy,
    /// the WAL stays, and later commits' checkpoints take it on). An index run ends with it:
    /// a process that opens the library while no other has it open first reads the whole WAL
    /// to rebuild its index (SQLite's recovery), so a WAL left behind costs every later
    /// command's start (100 ms for 122 MB). The WAL cannot be left to the last connection's
    /// close: a process may exit without closing its connections.
    static func truncate(_ db: DatabaseConnection) {
        sqlite3_busy_timeout(db.handle, restartWaitMilliseconds)
        sqlite3_wal_checkpoint_v2(db.handle, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        sqlite3_busy_timeout(db.handle, DatabaseConnection.busyTimeoutMilliseconds)
    }

    private init(schema: String, path: String, restartPages: Int32?) {
        self.schema = schema
        self.path = path
        self.restartPages = restartPages
        nextRestartPages = restartPages ?? Self.defaultRestartPages
    }

    /// Starts a passive checkpoint unless one is already under way.
    private func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !pending else { return }
        pending = true
        queue.async { [self] in
            lock.lock()
            let existing = connection
            lock.unlock()
            let db = existing ?? (try? DatabaseConnection(path: path, readOnly: false))
            try? db?.execute("PRAGMA wal_checkpoint(PASSIVE)")
            lock.lock()
            connection = db
            pending = false
            lock.unlock()
        }
    }
}
