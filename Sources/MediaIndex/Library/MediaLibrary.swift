import Foundation
import MediaMetadata

/// A MediaIndex library: the database of one user's roots, files and assets.
///
/// One process writes (an index run holds `index.lock`); any number read, never
/// blocked by the writer (WAL). Safe to share between tasks.
public final class MediaLibrary: Sendable {
    /// Where the library lives.
    public let location: LibraryLocation
    let writer: DatabaseWriter?
    let reader: DatabaseReader
    /// The change observer and the fetch results kept for diffs (MediaLibrary+Observers).
    let observation = LibraryObservation()

    /// How a library is opened.
    public enum AccessMode: Sendable {
        /// Creates the library when missing, migrates it, and allows writes.
        case readWrite
        /// Reads only; fails with `LibraryError.noLibrary` when there is none.
        case readOnly
    }

    /// Opens (or creates) the library at `location`.
    ///
    /// - Throws: `LibraryError` when the path is a file, the database is not a
    ///   MediaIndex library (it is then left untouched), is newer than this build,
    ///   or is missing in `.readOnly` mode.
    public init(location: LibraryLocation, mode: AccessMode = .readWrite) throws {
        self.location = location
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fileManager.fileExists(atPath: location.directory, isDirectory: &isDirectory)
        if exists && !isDirectory.boolValue {
            throw LibraryError.libraryPathIsAFile(path: location.directory)
        }
        let databaseExists = fileManager.fileExists(atPath: location.databasePath)
        if mode == .readOnly && !databaseExists {
            throw LibraryError.noLibrary(path: location.directory)
        }
        try LibraryFileCheck.verify(path: location.databasePath)

        do {
            switch mode {
            case .readWrite:
                if !exists {
                    do {
                        // Owner-only: the library lists every path and place of the user's media.
                        try fileManager.createDirectory(atPath: location.directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                    } catch {
                        throw LibraryError.io("cannot create the library folder \(location.directory): \(error.localizedDescription)")
                    }
                }
                if !databaseExists {
                    // Created empty with mode 0600 first: SQLite gives its -wal and -shm the same mode.
                    let fd = Glibc.open(location.databasePath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
                    if fd >= 0 { close(fd) }
                }
                let connection = try DatabaseConnection(path: location.databasePath, readOnly: false, create: true)
                try DatabaseMigrator().migrate(connection)
                try UserStateStore.attachAndSetUp(connection, path: location.userStatePath)
                writer = DatabaseWriter(connection: connection)
            case .readOnly:
                // A library written by an older build is migrated once, if we may write.
                let probe = try DatabaseConnection(path: location.databasePath, readOnly: true)
                let migrator = DatabaseMigrator()
                if try migrator.appliedVersions(probe).max() ?? 0 < migrator.latestVersion,
                   fileManager.isWritableFile(atPath: location.databasePath) {
                    let connection = try DatabaseConnection(path: location.databasePath, readOnly: false)
                    try migrator.migrate(connection)
                }
                try UserStateStore.ensureExists(path: location.userStatePath)
                writer = nil
            }
        } catch let error as DatabaseError {
            throw LibraryError.database(error)
        }
        reader = DatabaseReader(path: location.databasePath,
                                attachments: [(UserStateStore.schema, location.userStatePath)])
    }

    func requireWriter() throws -> DatabaseWriter {
        guard let writer else { throw LibraryError.io("the library \(location.directory) was opened read-only") }
        return writer
    }

    /// Runs a read in one consistent snapshot, mapping SQLite errors to `LibraryError`.
    func read<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        do { return try reader.read(body) } catch let error as DatabaseError { throw LibraryError.database(error) }
    }

    // MARK: Indexing

    /// Options for an index run.
    public struct IndexOptions: Sendable {
        /// Wait for another run to finish instead of failing at once.
        public var waitForLock = false
        /// Files read and committed per transaction.
        public var batchSize = 1024
        /// Folders never walked besides the library's own (a thumbnail cache).
        public var excludedFolders: [PathBytes] = []
        /// How long a deleted asset's identifier waits for its content to come back
        /// (30 days by default).
        public var tombstoneRetention: Double = 30 * 86_400
        /// Tests only: caps the database at this many pages, to simulate a full disk.
        var maxPageCount: Int?
        public init() {}
    }

    /// Registers `roots` (if any) and indexes them, or every registered root when
    /// `roots` is empty.
    ///
    /// - Throws: `LibraryError.invalidRoot` for a root that is not a readable folder,
    ///   `LibraryError.indexRunInProgress` when another run holds the lock.
    @discardableResult
    public func index(roots newRoots: [PathBytes] = [], options: IndexOptions = IndexOptions(),
                      progress: (@Sendable (IndexProgress) -> Void)? = nil) throws -> IndexSummary {
        let writer = try requireWriter()
        let lock = try IndexLock(path: location.lockPath, wait: options.waitForLock)
        defer { withExtendedLifetime(lock) {} }
        do {
            let resolved = try newRoots.map(Self.resolveRoot)
            try registerRoots(resolved, writer: writer)
            let all = try writer.write { db in
                try db.rows("SELECT id, path FROM roots ORDER BY path").map {
                    (id: $0.int64("id") ?? 0, path: PathBytes($0.blob("path") ?? []))
                }
            }
            let selected = resolved.isEmpty ? all : all.filter { root in resolved.contains { $0.isInside(root.path) } }
            var indexer = Indexer(writer: writer, location: location,
                                  excludedFolders: [PathBytes(location.directory)] + options.excludedFolders)
            indexer.batchSize = max(1, options.batchSize)
            indexer.tombstoneRetention = options.tombstoneRetention
            if let maxPageCount = options.maxPageCount {
                try writer.write { try $0.execute("PRAGMA max_page_count = \(maxPageCount)") }
            }
            defer {
                if options.maxPageCount != nil { try? writer.write { try $0.execute("PRAGMA max_page_count = 1073741823") } }
            }
            return try indexer.run(roots: selected, progress: progress)
        } catch let error as DatabaseError {
            throw LibraryError.database(error)
        }
    }

    /// The absolute, symlink-resolved path of a root folder.
    static func resolveRoot(_ path: PathBytes) throws -> PathBytes {
        var absolute = path
        if absolute.bytes.first != UInt8(ascii: "/") {
            absolute = PathBytes(FileManager.default.currentDirectoryPath).appending(path.bytes)
        }
        let resolved: PathBytes? = absolute.withCString { pointer in
            guard let real = realpath(pointer, nil) else { return nil }
            defer { free(real) }
            return PathBytes(Array(UnsafeBufferPointer(start: real, count: strlen(real)).map { UInt8(bitPattern: $0) }))
        }
        guard let resolved else {
            throw LibraryError.invalidRoot(path: path.displayString, reason: systemErrorMessage(errno))
        }
        var info = stat()
        guard resolved.withCString({ stat($0, &info) }) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw LibraryError.invalidRoot(path: path.displayString, reason: "it is not a folder")
        }
        return resolved
    }

    private func registerRoots(_ roots: [PathBytes], writer: DatabaseWriter) throws {
        guard !roots.isEmpty else { return }
        try writer.transaction { db in
            let now = Date().timeIntervalSince1970
            for root in roots {
                let existing = try db.rows("SELECT id, path FROM roots").map {
                    (id: $0.int64("id") ?? 0, path: PathBytes($0.blob("path") ?? []))
                }
                // Already covered by a registered root: nothing to add.
                if existing.contains(where: { root.isInside($0.path) }) { continue }
                try db.execute("INSERT INTO roots (path, added_at) VALUES (?, ?)", [root.bytes, now])
                let newID = db.lastInsertedRowID
                // A new root that contains registered ones absorbs them and their files.
                for inner in existing where inner.path.isInside(root) {
                    try db.execute("UPDATE files SET root_id = ? WHERE root_id = ?", [newID, inner.id])
                    try db.execute("DELETE FROM roots WHERE id = ?", [inner.id])
                }
            }
        }
    }

    /// Forgets a root, its files and the assets they made.
    ///
    /// - Throws: `LibraryError.unknownRoot` when `root` is not registered.
    public func removeRoot(_ root: PathBytes) throws {
        let writer = try requireWriter()
        let lock = try IndexLock(path: location.lockPath, wait: true)
        defer { withExtendedLifetime(lock) {} }
        let candidates = [root, (try? Self.resolveRoot(root)) ?? root]
        try writer.transaction { db in
            var rootID: Int64?
            for candidate in candidates {
                if let id = try db.row("SELECT id FROM roots WHERE path = ?", [candidate.bytes])?.int64("id") {
                    rootID = id
                    break
                }
            }
            guard let rootID else { throw LibraryError.unknownRoot(path: root.displayString) }
            let assetIDs = try db.rows("SELECT DISTINCT asset_id FROM files WHERE root_id = ? AND asset_id IS NOT NULL",
                                       [rootID]).compactMap { $0.int64("asset_id") }
            try db.execute("DELETE FROM files WHERE root_id = ?", [rootID])
            try db.execute("DELETE FROM roots WHERE id = ?", [rootID])
            let now = Date().timeIntervalSince1970
            for assetID in assetIDs { try deleteAssetIfOrphaned(assetID, now: now, db: db) }
        }
    }

    // MARK: Reading

    /// The registered roots with their counts.
    /// Whether any root is registered (cheap: `roots()` also counts each root's assets).
    public func hasRoots() throws -> Bool {
        try read { db in try db.scalarInt("SELECT 1 FROM roots LIMIT 1") != nil }
    }

    public func roots() throws -> [LibraryRoot] {
        try read { db in
            try db.rows("""
                SELECT r.path, r.added_at, r.last_indexed_at,
                    (SELECT count(DISTINCT asset_id) FROM files f WHERE f.root_id = r.id AND f.asset_id IS NOT NULL) AS assets,
                    (SELECT count(*) FROM files f WHERE f.root_id = r.id AND f.status = 'error') AS errors
                FROM roots r ORDER BY r.path
                """).map {
                LibraryRoot(path: PathBytes($0.blob("path") ?? []), addedAt: $0.double("added_at") ?? 0,
                            lastIndexedAt: $0.double("last_indexed_at"), assetCount: $0.int("assets") ?? 0,
                            errorCount: $0.int("errors") ?? 0)
            }
        }
    }

    /// Files that could not be read, by path.
    public func errors() throws -> [IndexedFileError] {
        try read { db in
            try db.rows("SELECT path, error, size, indexed_at FROM files WHERE status = 'error' ORDER BY path").map {
                IndexedFileError(path: PathBytes($0.blob("path") ?? []), message: $0.string("error") ?? "unknown error",
                                 bytes: $0.int64("size") ?? 0, recordedAt: $0.double("indexed_at") ?? 0)
            }
        }
    }

    /// Counts over the whole library.
    public func statistics() throws -> LibraryStatistics {
        try read { db in
            let assetCounts = try db.row("""
                SELECT count(*) AS total, coalesce(sum(media_type = 'image'), 0) AS images,
                       coalesce(sum(media_type = 'video'), 0) AS videos FROM assets
                """)
            let fileCounts = try db.row("""
                SELECT count(*) AS files, coalesce(sum(status = 'error'), 0) AS errors,
                       coalesce(sum(status = 'ignored'), 0) AS ignored,
                       coalesce(sum(CASE WHEN status = 'media' THEN size END), 0) AS bytes FROM files
                """)
            let formats = try db.rows("""
                SELECT format, count(*) AS n FROM files WHERE status = 'media' AND role IN ('photo', 'video')
                GROUP BY format ORDER BY n DESC, format
                """).map { (format: $0.string("format") ?? "?", count: $0.int("n") ?? 0) }
            var lastRun: IndexSummary?
            if let run = try db.row("SELECT * FROM index_runs WHERE status = 'completed' ORDER BY id DESC LIMIT 1") {
                var s = IndexSummary()
                s.scanned = run.int("scanned") ?? 0; s.added = run.int("added") ?? 0
                s.updated = run.int("updated") ?? 0; s.removed = run.int("removed") ?? 0
                s.unchanged = run.int("unchanged") ?? 0; s.failed = run.int("failed") ?? 0
                s.skipped = run.int("skipped") ?? 0; s.opened = run.int("opened") ?? 0
                s.elapsedSeconds = (run.double("finished_at") ?? 0) - (run.double("started_at") ?? 0)
                lastRun = s
            }
            return LibraryStatistics(
                assets: assetCounts?.int("total") ?? 0, images: assetCounts?.int("images") ?? 0,
                videos: assetCounts?.int("videos") ?? 0, files: fileCounts?.int("files") ?? 0,
                errors: fileCounts?.int("errors") ?? 0, ignored: fileCounts?.int("ignored") ?? 0,
                roots: try db.scalarInt("SELECT count(*) FROM roots") ?? 0,
                totalBytes: fileCounts?.int64("bytes") ?? 0, byFormat: formats,
                schemaVersion: try db.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0,
                lastRun: lastRun)
        }
    }

    /// The asset with this identifier, with its user state, or nil.
    public func asset(identifier: String) throws -> Asset? {
        try assetNow(id: identifier)
    }

    /// The asset one of whose resources is the file at `path` (absolute or relative
    /// to the working folder; symlinks in the folders are resolved), or nil.
    public func asset(path: PathBytes) throws -> Asset? {
        var candidates = [path]
        if path.bytes.first != UInt8(ascii: "/") {
            candidates.append(PathBytes(FileManager.default.currentDirectoryPath).appending(path.bytes))
        }
        if let last = candidates.last, let folder = try? Self.resolveRoot(last.parent) {
            candidates.append(folder.appending(path.lastComponent))
        }
        let identifier: String? = try read { db in
            for candidate in candidates {
                if let row = try db.row("""
                    SELECT a.identifier FROM assets a JOIN files f ON f.asset_id = a.id WHERE f.path = ?
                    """, [candidate.bytes]) {
                    return row.string("identifier")
                }
            }
            return nil
        }
        return try identifier.flatMap { try assetNow(id: $0) }
    }

    /// Assets newest first (by capture date, then most recently added), `limit` at most.
    public func assets(limit: Int? = nil) throws -> [Asset] {
        try read { db in
            // capture_sort puts undated assets last in this order (assets_by_capture).
            var sql = "SELECT \(AssetQueries.assetColumns) FROM assets a ORDER BY a.capture_sort DESC, a.id DESC"
            if let limit { sql += " LIMIT \(max(0, limit))" }
            return try AssetQueries.assets(try db.rows(sql), db: db)
        }
    }

    /// Calls `body` with every asset, newest first, in pages, without holding all in memory.
    public func forEachAsset(pageSize: Int = 1000, _ body: (Asset) throws -> Void) throws {
        var after: (timestamp: Double?, id: Int64)?
        while true {
            let page: [Asset] = try read { db in
                var sql = "SELECT \(AssetQueries.assetColumns), a.capture_sort AS sort_key FROM assets a"
                var values: [DatabaseValueConvertible] = []
                if let after {
                    sql += " WHERE (a.capture_sort, a.id) < (?, ?)"
                    values = [after.timestamp ?? -1e300, after.id]
                }
                sql += " ORDER BY sort_key DESC, a.id DESC LIMIT \(pageSize)"
                let rows = try db.rows(sql, values)
                if let last = rows.last { after = (last.double("sort_key"), last.int64("row_id") ?? 0) }
                return try AssetQueries.assets(rows, db: db)
            }
            for asset in page { try body(asset) }
            if page.count < pageSize { break }
        }
    }
}
