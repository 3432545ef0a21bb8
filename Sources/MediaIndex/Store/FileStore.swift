import MediaMetadata

/// The only writer of `files`: one row per regular file seen under a root.
///
/// An index run writes a file's row in one statement whatever it found (an image or
/// video, an error, something else, a sidecar); pairing and the sidecar attacher move
/// rows between assets through the methods below.
struct FileStore {
    let db: DatabaseConnection

    /// What a run writes for one file.
    struct Write {
        var rootID: Int64
        var entry: FileWalker.Entry
        var status: FileStatus
        var error: String? = nil
        var format: MediaFormat? = nil
        var fingerprint: String? = nil
        var assetID: Int64? = nil
        var role: FileRole? = nil
        /// `files.metadata`: a media file's `MediaMetadata`, a sidecar's `SidecarValues`, as JSON.
        var metadata: String? = nil
        /// `files.content_identifier`: a media file's Apple content identifier (live photos).
        var contentIdentifier: String? = nil
        /// `files.duration_seconds`: a media file's duration, for stem-paired movies.
        var durationSeconds: Double? = nil
        /// The pairer's name keys; nil keeps the row's (an error or ignored file).
        var names: FileNameKey? = nil
        /// A describing file keeps the asset it is attached to until its attacher decides afresh.
        var keepsAttachment = false
    }

    private static let upsertSQL = """
        INSERT INTO files (root_id, path, size, mtime_ns, inode, status, error, format, fingerprint, asset_id, role,
                           metadata, indexed_at, folder, stem_key, base_key, content_identifier, duration_seconds)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?17, ?18, ?19)
        ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
            mtime_ns = excluded.mtime_ns, inode = excluded.inode, status = excluded.status, error = excluded.error,
            format = excluded.format, fingerprint = excluded.fingerprint,
            asset_id = CASE WHEN ?16 AND files.role IN \(FileRole.sqlList(FileRole.describing)) THEN files.asset_id
                ELSE excluded.asset_id END,
            role = excluded.role, metadata = excluded.metadata, indexed_at = excluded.indexed_at,
            content_identifier = excluded.content_identifier, duration_seconds = excluded.duration_seconds,
            folder = coalesce(excluded.folder, files.folder), stem_key = coalesce(excluded.stem_key, files.stem_key),
            base_key = coalesce(excluded.base_key, files.base_key)
        """

    /// Inserts or replaces the row of `write.entry.path`.
    func upsert(_ write: Write, now: Double) throws {
        let entry = write.entry
        try db.cachedStatement(Self.upsertSQL).execute([
            write.rootID, entry.path.bytes, entry.stat.size, entry.stat.modificationNanoseconds, entry.stat.inode,
            write.status, write.error, write.format?.rawValue, write.fingerprint, write.assetID, write.role,
            write.metadata, now, write.names?.folder, write.names?.stemKey, write.keepsAttachment,
            write.names?.baseKey, write.contentIdentifier.flatMap { $0.isEmpty ? nil : $0 }, write.durationSeconds,
        ])
    }

    /// Records a folder that could not be listed as an error row of its own path.
    func recordUnlistableFolder(_ folder: PathBytes, rootID: Int64, reason: String, now: Double) throws {
        try db.execute("""
            INSERT INTO files (root_id, path, size, mtime_ns, inode, status, error, indexed_at)
            VALUES (?, ?, 0, 0, 0, \(FileStatus.error.sql), ?, ?)
            ON CONFLICT (path) DO UPDATE SET status = \(FileStatus.error.sql), error = excluded.error,
                indexed_at = excluded.indexed_at, asset_id = NULL
            """, [rootID, folder.bytes, "cannot list folder: \(reason)", now])
    }

    func delete(id: Int64) throws {
        try db.cachedStatement("DELETE FROM files WHERE id = ?").execute([id])
    }

    /// Lets the file at `path` go of its asset: its content moved to another path.
    /// - Parameter clearingFingerprint: the path now holds other content (decided on its own turn).
    func releaseAsset(atPath path: PathBytes, assetID: Int64, clearingFingerprint: Bool) throws {
        if clearingFingerprint {
            try db.execute("UPDATE files SET asset_id = NULL, fingerprint = NULL WHERE path = ? AND asset_id = ?",
                           [path.bytes, assetID])
        } else {
            try db.execute("UPDATE files SET asset_id = NULL WHERE path = ?", [path.bytes])
        }
    }

    /// Makes the file a resource of `assetID` in `role` (pairing).
    func attach(fileID: Int64, to assetID: Int64, role: FileRole) throws {
        try db.cachedStatement("UPDATE files SET asset_id = ?, role = ? WHERE id = ?").execute([assetID, role, fileID])
    }

    /// Drops a file whose stored row cannot be used from its asset; the next index run
    /// reads it afresh (its mtime no longer matches).
    func dropForReread(fileID: Int64) throws {
        try db.execute("UPDATE files SET asset_id = NULL, role = NULL, mtime_ns = -1 WHERE id = ?", [fileID])
    }

    /// Fills a row's name keys (rows from before schemas 5 and 14, and moved files).
    func setNames(fileID: Int64, _ names: FileNameKey) throws {
        try db.cachedStatement("UPDATE files SET folder = ?, stem_key = ?, base_key = ? WHERE id = ?")
            .execute([names.folder, names.stemKey, names.baseKey, fileID])
    }

    /// Attaches a sidecar or adjustments file to an asset (or detaches it, with nil).
    func setSidecarAsset(fileID: Int64, assetID: Int64?) throws {
        try db.cachedStatement("UPDATE files SET asset_id = ? WHERE id = ?").execute([assetID, fileID])
    }

    /// Moves every file of one root to another (a new root that contains a registered one).
    func moveFiles(fromRoot old: Int64, toRoot new: Int64) throws {
        try db.execute("UPDATE files SET root_id = ? WHERE root_id = ?", [new, old])
    }

    /// Deletes the rows of a root; returns the assets they belonged to.
    func deleteFiles(ofRoot rootID: Int64) throws -> [Int64] {
        let assetIDs = try db.rows("SELECT DISTINCT asset_id FROM files WHERE root_id = ? AND asset_id IS NOT NULL",
                                   [rootID]).compactMap { $0.int64("asset_id") }
        try db.execute("DELETE FROM file_links WHERE root_id = ?", [rootID])
        try db.execute("DELETE FROM files WHERE root_id = ?", [rootID])
        return assetIDs
    }

    /// Calls `body` with the rows of the given roots, in byte order of their paths
    /// (the order an index run's walk is sorted in).
    func forEachKnownFile(inRoots rootIDs: Set<Int64>, _ body: (FileRecord.Known) throws -> Void) throws {
        let columns = FileRecord.knownColumns.map(\.name).joined(separator: ", ")
        // By position: this reads every file row of the library on each run. A file's
        // other names (`file_links`) are merged in, each marked and with its file's id.
        try db.cachedStatement("""
            SELECT \(columns), 0 FROM files UNION ALL
            SELECT file_id, root_id, path, size, mtime_ns, inode, NULL, NULL, NULL, NULL, 1 FROM file_links
            ORDER BY path
            """).forEachRow { row in
            guard let rootID = row[1].int64, rootIDs.contains(rootID), let known = FileRecord.known(row) else { return }
            try body(known)
        }
    }

    /// A media file's stored metadata, decoded; nil when the row has none or it does not decode.
    func storedMetadata(fileID: Int64) throws -> MediaMetadata? {
        FileRecord.decodeMetadata(try db.cachedStatement("SELECT metadata FROM files WHERE id = ?")
            .rows([fileID]).first?.string("metadata"))
    }
}
