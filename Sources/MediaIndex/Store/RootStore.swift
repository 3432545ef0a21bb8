/// The only writer of `roots`: the folders the user asked to index.
struct RootStore {
    let db: DatabaseConnection

    /// The registered roots, by path.
    func all() throws -> [(id: Int64, path: PathBytes)] {
        try db.rows("SELECT id, path FROM roots ORDER BY path").map {
            (id: $0.int64("id") ?? 0, path: PathBytes($0.blob("path") ?? []))
        }
    }

    func id(ofPath path: PathBytes) throws -> Int64? {
        try db.row("SELECT id FROM roots WHERE path = ?", [path.bytes])?.int64("id")
    }

    /// Registers a root; returns its id.
    func insert(_ path: PathBytes, now: Double) throws -> Int64 {
        try db.execute("INSERT INTO roots (path, added_at) VALUES (?, ?)", [path.bytes, now])
        return db.lastInsertedRowID
    }

    /// Registers a root unless it is; returns its id.
    func insertIfMissing(_ path: PathBytes, now: Double) throws -> Int64 {
        try db.execute("INSERT OR IGNORE INTO roots (path, added_at) VALUES (?, ?)", [path.bytes, now])
        return try id(ofPath: path) ?? 0
    }

    func delete(_ rootID: Int64) throws {
        try db.execute("DELETE FROM roots WHERE id = ?", [rootID])
    }

    /// The ids of the roots whose walk follows symbolic links to folders.
    func followingSymlinks() throws -> Set<Int64> {
        Set(try db.rows("SELECT id FROM roots WHERE follows_symlinks = 1").compactMap { $0.int64("id") })
    }

    /// Whether the root at `path` follows symbolic links to folders.
    func followsSymlinks(path: PathBytes) throws -> Bool {
        try db.row("SELECT follows_symlinks FROM roots WHERE path = ?", [path.bytes])?.int64("follows_symlinks") == 1
    }

    /// Sets whether the root's walk follows symbolic links to folders.
    func setFollowsSymlinks(_ rootID: Int64, _ follows: Bool) throws {
        try db.execute("UPDATE roots SET follows_symlinks = ? WHERE id = ?", [follows ? 1 : 0, rootID])
    }

    func markIndexed(_ rootID: Int64, now: Double) throws {
        try db.cachedStatement("UPDATE roots SET last_indexed_at = ? WHERE id = ?").execute([now, rootID])
    }
}
