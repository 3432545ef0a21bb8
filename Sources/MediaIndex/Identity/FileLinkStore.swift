/// A file's device and inode: what makes two paths one file (a hard link, or one folder
/// seen through a bind mount or a followed link).
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    init(_ stat: FileStat) {
        device = stat.device
        inode = stat.inode
    }
}

/// The only writer of `file_links` (migration 0049): the other names of a recorded
/// file. One file is one row of `files` (its first path indexed) and one asset; each
/// other path of the same device and inode is a row here, never a second asset.
struct FileLinkStore {
    let db: DatabaseConnection

    /// The recorded file (its `files` id) that `identity` is, found by its inode and
    /// checked by `lstat` of its recorded path or one of its other names; nil when no
    /// recorded path is that file now.
    func recordedFile(of identity: FileIdentity) throws -> Int64? {
        let inode = Int64(bitPattern: identity.inode)
        for row in try db.cachedStatement("SELECT id, path FROM files WHERE inode = ?").rows([inode]) {
            guard let id = row[0].int64, let path = row[1].blob else { continue }
            if Self.isFile(PathBytes(path), identity) { return id }
        }
        for row in try db.cachedStatement("SELECT file_id, path FROM file_links WHERE inode = ?").rows([inode]) {
            guard let id = row[0].int64, let path = row[1].blob else { continue }
            if Self.isFile(PathBytes(path), identity) { return id }
        }
        return nil
    }

    /// Whether the file at `path` is now the file `identity` names.
    static func isFile(_ path: PathBytes, _ identity: FileIdentity) -> Bool {
        guard let stat = FileStat.of(path) else { return false }
        return FileIdentity(stat) == identity
    }

    /// Records `entry` as another name of the file `fileID`.
    func insert(_ entry: FileWalker.Entry, rootID: Int64, fileID: Int64, now: Double) throws {
        try db.cachedStatement("""
            INSERT INTO file_links (path, root_id, file_id, size, mtime_ns, inode, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, file_id = excluded.file_id,
                size = excluded.size, mtime_ns = excluded.mtime_ns, inode = excluded.inode
            """).execute([entry.path.bytes, rootID, fileID, entry.stat.size, entry.stat.modificationNanoseconds,
                          entry.stat.inode, now])
    }

    /// Records a name's new stat (the file was written through another of its names).
    func refresh(_ entry: FileWalker.Entry) throws {
        try db.cachedStatement("UPDATE file_links SET size = ?, mtime_ns = ?, inode = ? WHERE path = ?")
            .execute([entry.stat.size, entry.stat.modificationNanoseconds, entry.stat.inode, entry.path.bytes])
    }

    func delete(path: PathBytes) throws {
        try db.cachedStatement("DELETE FROM file_links WHERE path = ?").execute([path.bytes])
    }

    /// Makes another name the file's recorded path, its old path gone: the row keeps its
    /// id and asset (and so the asset's identifier, thumbnails, user state and groups).
    func promote(fileID: Int64, to entry: FileWalker.Entry, rootID: Int64) throws {
        try delete(path: entry.path)
        try db.execute("UPDATE files SET path = ?, root_id = ?, size = ?, mtime_ns = ?, inode = ? WHERE id = ?",
                       [entry.path.bytes, rootID, entry.stat.size, entry.stat.modificationNanoseconds,
                        entry.stat.inode, fileID])
        try FileStore(db: db).setNames(fileID: fileID, FileNameKey(entry.path))
    }

    /// Once per library (migration 0049 asks for it): files recorded as several rows of
    /// `files` by builds before schema 49 (hard links, each its own asset) become one row
    /// and other names. The first row indexed of each file (by device and inode, checked
    /// by `lstat`) stays; each later one whose asset holds no other file becomes its name.
    ///
    /// - Returns: the assets left without a file (to delete), and the files that gained names.
    func foldRecordedNames(now: Double) throws -> (orphaned: [Int64], files: [Int64]) {
        guard try db.scalarInt("SELECT 1 FROM library_meta WHERE key = 'fold_file_links'") != nil else { return ([], []) }
        try db.execute("DELETE FROM library_meta WHERE key = 'fold_file_links'")
        var orphaned: [Int64] = [], files: [Int64] = []
        let shared = try db.rows("SELECT inode FROM files WHERE inode > 0 GROUP BY inode HAVING count(*) > 1")
            .compactMap { $0[0].int64 }
        for inode in shared {
            var first: [FileIdentity: Int64] = [:]
            for row in try db.rows("SELECT id, root_id, path, asset_id FROM files WHERE inode = ? ORDER BY id", [inode]) {
                guard let id = row[0].int64, let rootID = row[1].int64, let path = row[2].blob.map(PathBytes.init),
                      let stat = FileStat.of(path), Int64(bitPattern: stat.inode) == inode else { continue }
                guard let kept = first[FileIdentity(stat)] else {
                    first[FileIdentity(stat)] = id
                    continue
                }
                let asset = row[3].int64
                if let asset, try db.scalarInt("""
                    SELECT count(*) FROM files WHERE asset_id = ? AND (role IS NULL OR role NOT IN \(FileRole.sqlList(FileRole.describing)))
                    """, [asset]) != 1 { continue }
                try db.execute("UPDATE file_links SET file_id = ? WHERE file_id = ?", [kept, id])
                try db.execute("DELETE FROM files WHERE id = ?", [id])
                try insert(FileWalker.Entry(path: path, stat: stat), rootID: rootID, fileID: kept, now: now)
                if let asset { orphaned.append(asset) }
                files.append(kept)
            }
        }
        return (orphaned, files)
    }

    /// The identifier of the asset the file `fileID` belongs to, and when it was added;
    /// nil for a file without one.
    func asset(ofFile fileID: Int64) throws -> (identifier: String, addedAt: Double)? {
        guard let row = try db.cachedStatement("""
            SELECT a.identifier, a.added_at FROM files f JOIN assets a ON a.id = f.asset_id WHERE f.id = ?
            """).rows([fileID]).first, let identifier = row[0].text else { return nil }
        return (identifier, row[1].double ?? 0)
    }

    /// The other names of the files of the given assets (keyed by `files` id), in path order.
    static func otherNames(ofFiles fileIDs: [Int64], db: DatabaseConnection) throws -> [Int64: [PathBytes]] {
        var result: [Int64: [PathBytes]] = [:]
        for row in try db.rows(inList: fileIDs, { "SELECT file_id, path FROM file_links WHERE file_id IN (\($0)) ORDER BY path" }) {
            guard let id = row[0].int64, let path = row[1].blob else { continue }
            result[id, default: []].append(PathBytes(path))
        }
        return result
    }
}
