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
    // (the connection only on `queue`).
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
        let checkpoint = BackgroundCheckpoint(schema: schema, path: path)
        db.hookContext = checkpoint
        sqlite3_wal_hook(db.handle, { context, handle, name, pages in
            guard let context, let name else { return SQLITE_OK }
            let checkpoint = Unmanaged<BackgroundCheckpoint>.fromOpaque(context).takeUnretainedValue()
            guard pages >= BackgroundCheckpoint.thresholdPages else { return SQLITE_OK }
            if String(cString: name) == checkpoint.schema {
                checkpoint.start()
            } else {
                // SQLite's own rule for the others: a passive checkpoint in the commit.
                sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpoint).toOpaque())
        return checkpoint
    }

    private init(schema: String, path: String) {
        self.schema = schema
        self.path = path
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
