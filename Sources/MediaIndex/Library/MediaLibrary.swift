import Foundation
import MediaMetadata

/// A MediaIndex library: the database of one user's roots, files and assets, and the
/// thumbnail cache that goes with it.
///
/// One process writes (an index run holds `index.lock`); any number read, never
/// blocked by the writer (WAL). Safe to share between tasks.
///
/// Every operation comes twice: as an `async` method here, which does its SQLite and
/// file work on MediaIndex's own threads (never blocking the caller's executor), and
/// as a blocking method of the same name on `blocking`, for scripts and command-line
/// tools (`try library.blocking.fetchAssets(options)`).
public final class MediaLibrary: Sendable {
    /// Where the library lives.
    public let location: LibraryLocation
    /// Where thumbnails of this library are cached; every thumbnail method uses it.
    public let thumbnailCache: ThumbnailCache
    /// Writes `library.sqlite` (index runs, thumbnail state). It has no user state
    /// attached: its `BEGIN IMMEDIATE` would otherwise take user-state.sqlite's write
    /// lock too, for a whole batch, and a favorite made meanwhile would fail or wait.
    let writer: DatabaseWriter?
    /// Writes `user-state.sqlite`, attached as `userstate`, in deferred transactions that
    /// only read `library.sqlite`: a user-state write never waits for an index run.
    let userStateWriter: DatabaseWriter?
    let reader: DatabaseReader
    /// The change observer and the fetch results kept for diffs (MediaLibrary+Observers).
    let observation = LibraryObservation()
    /// The values search suggestions complete to (MediaLibrary+Search).
    let suggestionCatalog = SuggestionCatalog()
    /// Takes `LibraryDataVersion` stamps (LibraryDataVersion.swift).
    let versionProbe: DataVersionProbe

    /// How a library is opened.
    public enum AccessMode: Sendable {
        /// Creates the library when missing, migrates it, and allows writes (indexing).
        case create
        /// Opens a library that must exist (`LibraryError.noLibrary` otherwise), for
        /// reading and for user-state and thumbnail-state writes when its files may be
        /// written, read-only when they may not.
        case existing
        /// Reads only; fails with `LibraryError.noLibrary` when there is none.
        case readOnly
    }

    /// Opens (or, with `.create`, creates) the library at `location`.
    ///
    /// - Parameter cache: where thumbnails go; the environment's cache folder
    ///   (`$MEDIAINDEX_CACHE`, else `$XDG_CACHE_HOME/mediaindex`) unless given.
    /// - Throws: `LibraryError.libraryPathIsAFile`, `.notALibrary` (the file is then left
    ///   untouched), `.newerSchema`, `.noLibrary` (missing, in `.existing` or
    ///   `.readOnly` mode), `.database` or `.io` when the files cannot be opened.
    public init(location: LibraryLocation, mode: AccessMode = .create, cache: ThumbnailCache = .default) throws {
        self.location = location
        self.thumbnailCache = cache
        self.versionProbe = DataVersionProbe(location: location)
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fileManager.fileExists(atPath: location.directory, isDirectory: &isDirectory)
        if exists && !isDirectory.boolValue {
            throw LibraryError.libraryPathIsAFile(path: location.directory)
        }
        let databaseExists = fileManager.fileExists(atPath: location.databasePath)
        if mode != .create && !databaseExists {
            throw LibraryError.noLibrary(path: location.directory)
        }
        let writes = mode == .create || (mode == .existing && fileManager.isWritableFile(atPath: location.databasePath))
        let attachments = [(schema: UserStateStore.schema, path: location.userStatePath)]
        try LibraryFileCheck.verify(path: location.databasePath)
        try UserStateStore.verify(path: location.userStatePath)

        do {
            if writes {
                try Self.createFiles(of: location, folderExists: exists, databaseExists: databaseExists)
                let (libraryWriter, userWriter) = try Self.openWriters(of: location)
                writer = libraryWriter
                userStateWriter = userWriter
            } else {
                let (probe, migrated) = try Self.migrateIfBehind(location)
                try UserStateStore.ensureExists(path: location.userStatePath)
                writer = nil
                userStateWriter = nil
                // The check's connection becomes the first reader: a picker's first page
                // then opens the library once (each open reads the schema, and the first
                // after a crash or a kill also rebuilds the WAL's index).
                if !migrated {
                    try DatabaseReader.attach(attachments, to: probe)
                    reader = DatabaseReader(path: location.databasePath, attachments: attachments, opened: probe)
                    return
                }
            }
        } catch let error as DatabaseError {
            throw LibraryError.database(error)
        }
        reader = DatabaseReader(path: location.databasePath, attachments: attachments)
    }

    /// The library folder (owner-only) and an empty database file, where missing.
    private static func createFiles(of location: LibraryLocation, folderExists: Bool, databaseExists: Bool) throws {
        if !folderExists {
            do {
                // Owner-only: the library lists every path and place of the user's media.
                try FileManager.default.createDirectory(atPath: location.directory, withIntermediateDirectories: true,
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
    }

    /// The library's writer, stamped and migrated, and the user state's, attached and migrated.
    private static func openWriters(of location: LibraryLocation) throws -> (DatabaseWriter, DatabaseWriter) {
        let connection = try DatabaseConnection(path: location.databasePath, readOnly: false, create: true)
        try LibraryFileCheck.stampIfNew(connection)
        try DatabaseMigrator().migrate(connection)
        try SearchTextIndex.install(connection)
        BackgroundCheckpoint.installRestarting(on: connection)
        let userStateConnection = try DatabaseConnection(path: location.databasePath, readOnly: false)
        try UserStateStore.attachAndSetUp(userStateConnection, path: location.userStatePath)
        return (DatabaseWriter(connection: connection), DatabaseWriter(connection: userStateConnection))
    }

    /// A read-only connection to the library; and whether the library was migrated first:
    /// one written by an older build (or by one without a migration merged since,
    /// numbered below its newest) is migrated once, if we may write.
    private static func migrateIfBehind(_ location: LibraryLocation) throws -> (probe: DatabaseConnection, migrated: Bool) {
        let probe = try DatabaseConnection(path: location.databasePath, readOnly: true)
        let migrator = DatabaseMigrator()
        guard try migrator.isBehind(probe) || SearchTextIndex.isBehind(probe),
              FileManager.default.isWritableFile(atPath: location.databasePath) else { return (probe, false) }
        let connection = try DatabaseConnection(path: location.databasePath, readOnly: false)
        try migrator.migrate(connection)
        try SearchTextIndex.install(connection)
        return (probe, true)
    }

    /// Opens the existing library in the folder at `directory` (PhotoKit's shared
    /// library, for app code), as `init(location:mode: .existing, cache:)` does, off the
    /// caller's executor. Creates nothing.
    ///
    /// - Throws: `LibraryError.noLibrary` when the folder holds no library yet, or
    ///   another `LibraryError` as `init(location:mode:cache:)` throws.
    public static func open(at directory: URL, cache: ThumbnailCache = .default) async throws -> MediaLibrary {
        try await DatabaseThreads.shared.run {
            try MediaLibrary(location: LibraryLocation(directory: directory.path), mode: .existing, cache: cache)
        }
    }

    /// Whether this library records user state and thumbnail state (opened with
    /// `.create`, or `.existing` with write access).
    public var isWritable: Bool { writer != nil }

    /// The blocking form of every operation, for scripts and command-line tools: each
    /// runs on the calling thread.
    public var blocking: Blocking { Blocking(library: self) }

    /// The library's operations as blocking calls; see `MediaLibrary.blocking`.
    public struct Blocking: Sendable {
        /// The library they act on.
        public let library: MediaLibrary
    }

    /// Runs `body` on MediaIndex's database threads.
    func offExecutor<T: Sendable>(_ body: @escaping @Sendable (Blocking) throws -> T) async throws -> T {
        let blocking = self.blocking
        return try await DatabaseThreads.shared.run { try body(blocking) }
    }

    func requireUserStateWriter() throws -> DatabaseWriter {
        guard let userStateWriter else { throw LibraryError.readOnly(path: location.directory) }
        return userStateWriter
    }

    func requireWriter() throws -> DatabaseWriter {
        guard let writer else { throw LibraryError.readOnly(path: location.directory) }
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
        /// Folders never walked besides the library's own and its thumbnail cache.
        public var excludedFolders: [PathBytes] = []
        /// How long a deleted asset's identifier waits for its content to come back
        /// (30 days by default).
        public var tombstoneRetention: Double = 30 * 86_400
        /// Files still open for writing, as a watcher knows them: left for a later run
        /// (not read; a known one keeps its row), and counted in `IndexSummary.deferred`.
        public var filesBeingWritten: Set<PathBytes> = []
        /// Leaves for a later run every file modified less than this many seconds before
        /// the walk saw it (its size and mtime not yet stable: a copy that closes and
        /// reopens the file for each chunk); nil reads every file.
        public var settlingSeconds: Double?
        /// Whether the walk of the roots this run indexes (the given ones, or every
        /// registered root) follows symbolic links to folders, stored with each root for
        /// later runs; nil keeps each root's stored setting (off for a new root). A file
        /// found through a followed link is recorded under the link's path, and served
        /// only when its resolved path lies beneath a registered root.
        public var followSymlinks: Bool?
        /// Tests only: caps the database at this many pages, to simulate a full disk.
        var maxPageCount: Int?
        /// Tests only: files to read held in memory before the rest wait on disk (`ToReadList`).
        var heldFilesToRead = ToReadList.defaultHeldLimit
        /// Default options.
        public init() {}
    }

    /// Registers `roots` (if any) and indexes them, or every registered root when
    /// `roots` is empty, on a thread of its own. See `Blocking.index(roots:options:progress:)`.
    ///
    /// - Throws: as `Blocking.index(roots:options:progress:)`.
    @discardableResult
    public func index(roots: [PathBytes] = [], options: IndexOptions = IndexOptions(),
                      progress: (@Sendable (IndexProgress) -> Void)? = nil) async throws -> IndexSummary {
        let blocking = self.blocking
        return try await DatabaseThreads.runOnOwnThread {
            try blocking.index(roots: roots, options: options, progress: progress)
        }
    }

    /// Forgets a root, its files and the assets they made. See `Blocking.removeRoot(_:)`.
    ///
    /// - Throws: as `Blocking.removeRoot(_:)`.
    public func removeRoot(_ root: PathBytes) async throws {
        try await offExecutor { try $0.removeRoot(root) }
    }

    // MARK: Reading

    /// The registered roots with their counts.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func roots() async throws -> [LibraryRoot] {
        try await offExecutor { try $0.roots() }
    }

    /// Files that could not be read, by path.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func errors() async throws -> [IndexedFileError] {
        try await offExecutor { try $0.errors() }
    }

    /// Files that were read with warnings (a damaged structure, a size that could not be
    /// found), by path: their assets hold what could be read.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func warnings() async throws -> [IndexedFileWarning] {
        try await offExecutor { try $0.warnings() }
    }

    /// Counts over the whole library.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func statistics() async throws -> LibraryStatistics {
        try await offExecutor { try $0.statistics() }
    }

    /// The absolute, symlink-resolved path of a root folder.
    static func resolveRoot(_ path: PathBytes) throws -> PathBytes {
        var absolute = path
        if absolute.bytes.first != UInt8(ascii: "/") {
            absolute = PathBytes(FileManager.default.currentDirectoryPath).appending(path.bytes)
        }
        guard let resolved = absolute.resolved() else {
            throw LibraryError.invalidRoot(path: path.displayString, reason: systemErrorMessage(errno))
        }
        var info = stat()
        guard resolved.withCString({ stat($0, &info) }) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw LibraryError.invalidRoot(path: path.displayString, reason: "it is not a folder")
        }
        return resolved
    }

    fileprivate func registerRoots(_ roots: [PathBytes], writer: DatabaseWriter) throws {
        guard !roots.isEmpty else { return }
        try writer.transaction { db in
            let now = Date().timeIntervalSince1970
            let rootStore = RootStore(db: db)
            for root in roots {
                let existing = try rootStore.all()
                // Already covered by a registered root: nothing to add.
                if existing.contains(where: { root.isInside($0.path) }) { continue }
                let newID = try rootStore.insert(root, now: now)
                // A new root that contains registered ones absorbs them and their files.
                for inner in existing where inner.path.isInside(root) {
                    try FileStore(db: db).moveFiles(fromRoot: inner.id, toRoot: newID)
                    try rootStore.delete(inner.id)
                }
            }
        }
    }

}

extension MediaLibrary.Blocking {
    /// Registers `roots` (if any) and indexes them, or every registered root when
    /// `roots` is empty. The library's own folder and its thumbnail cache are never walked.
    ///
    /// - Throws: `LibraryError.noRoots` when `roots` is empty and none is registered,
    ///   `.invalidRoot` for a root that is not a readable folder, `.indexRunInProgress`
    ///   when another run holds the lock (unless `options.waitForLock`), `.readOnly`
    ///   for a library not opened for writing, `.database` when the database fails.
    @discardableResult
    public func index(roots newRoots: [PathBytes] = [], options: MediaLibrary.IndexOptions = MediaLibrary.IndexOptions(),
                      progress: (@Sendable (IndexProgress) -> Void)? = nil) throws -> IndexSummary {
        let writer = try library.requireWriter()
        let location = library.location
        if newRoots.isEmpty, try library.read({ db in try db.scalarInt("SELECT 1 FROM roots LIMIT 1") }) == nil {
            throw LibraryError.noRoots
        }
        let lock = try IndexLock(path: location.lockPath, wait: options.waitForLock)
        defer { withExtendedLifetime(lock) {} }
        do {
            let resolved = try newRoots.map(MediaLibrary.resolveRoot)
            try library.registerRoots(resolved, writer: writer)
            let all = try writer.write { db in try RootStore(db: db).all() }
            let selected = resolved.isEmpty ? all : all.filter { root in resolved.contains { $0.isInside(root.path) } }
            let following = try writer.transaction { db in
                let store = RootStore(db: db)
                if let follow = options.followSymlinks { for root in selected { try store.setFollowsSymlinks(root.id, follow) } }
                return try store.followingSymlinks()
            }
            let excluded = [PathBytes(location.directory), PathBytes(library.thumbnailCache.folderPath)] + options.excludedFolders
            var indexer = Indexer(writer: writer, location: location, excludedFolders: excluded)
            indexer.batchSize = max(1, options.batchSize)
            indexer.tombstoneRetention = options.tombstoneRetention
            indexer.heldFilesToRead = max(1, options.heldFilesToRead)
            indexer.settling = IndexDiff.Settling(options: options, now: Date().timeIntervalSince1970)
            indexer.followingSymlinks = following
            if let maxPageCount = options.maxPageCount {
                try writer.write { try $0.execute("PRAGMA max_page_count = \(maxPageCount)") }
            }
            defer {
                if options.maxPageCount != nil { try? writer.write { try $0.execute("PRAGMA max_page_count = 1073741823") } }
            }
            let summary = try indexer.run(roots: selected, progress: progress)
            // Once `duplicates` has hashed the library, each run keeps hashes and groups
            // current (new files join groups, removed ones leave, with feed entries). A
            // file that cannot be hashed records its error in its row; a failure here
            // leaves the previous groups, never fails the run that committed.
            let changed = summary.added + summary.updated + summary.moved + summary.removed + summary.paired + summary.unpaired > 0
            if changed, (try? writer.write({ try DuplicateStore(db: $0).hasHashes() })) == true {
                try? updateDuplicatesIncrementally()
            }
            // Takeout's favorites, from the user-state side (the index writer never
            // writes user state); what fails here is applied after the next run.
            _ = try? library.applyTakeoutFavorites()
            try? writer.write { db in BackgroundCheckpoint.truncate(db) }
            return summary
        } catch let error as DatabaseError {
            throw LibraryError.database(error)
        }
    }

    /// Forgets a root, its files and the assets they made (the files are never touched).
    ///
    /// - Throws: `LibraryError.unknownRoot` when `root` is not registered, `.readOnly`,
    ///   `.database`.
    public func removeRoot(_ root: PathBytes) throws {
        let writer = try library.requireWriter()
        let lock = try IndexLock(path: library.location.lockPath, wait: true)
        defer { withExtendedLifetime(lock) {} }
        let candidates = [root, (try? MediaLibrary.resolveRoot(root)) ?? root]
        try writer.transaction { db in
            let rootStore = RootStore(db: db)
            var rootID: Int64?
            for candidate in candidates {
                if let id = try rootStore.id(ofPath: candidate) {
                    rootID = id
                    break
                }
            }
            guard let rootID else { throw LibraryError.unknownRoot(path: root.displayString) }
            let assetIDs = try FileStore(db: db).deleteFiles(ofRoot: rootID)
            try rootStore.delete(rootID)
            let now = Date().timeIntervalSince1970
            for assetID in assetIDs { try AssetStore(db: db).deleteIfOrphaned(assetID, now: now) }
        }
    }

    /// The registered roots with their counts.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func roots() throws -> [LibraryRoot] {
        try library.read { db in
            try db.rows("""
                SELECT r.path, r.added_at, r.last_indexed_at,
                    (SELECT count(DISTINCT asset_id) FROM files f WHERE f.root_id = r.id AND f.asset_id IS NOT NULL) AS assets,
                    (SELECT count(*) FROM files f WHERE f.root_id = r.id AND f.status = 'error') AS errors
                FROM roots r ORDER BY r.path
                """).map {
                LibraryRoot(path: PathBytes($0.blob("path") ?? []),
                            addedDate: Date(timeIntervalSince1970: $0.double("added_at") ?? 0),
                            lastIndexedDate: $0.double("last_indexed_at").map(Date.init(timeIntervalSince1970:)),
                            assetCount: $0.int("assets") ?? 0, errorCount: $0.int("errors") ?? 0)
            }
        }
    }

    /// Files that could not be read, by path.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func errors() throws -> [IndexedFileError] {
        try library.read { db in
            try db.rows("SELECT path, error, size, indexed_at FROM files WHERE status = 'error' ORDER BY path").map {
                IndexedFileError(path: PathBytes($0.blob("path") ?? []), message: $0.string("error") ?? "unknown error",
                                 bytes: $0.int64("size") ?? 0,
                                 recordedDate: Date(timeIntervalSince1970: $0.double("indexed_at") ?? 0))
            }
        }
    }

    /// Files that were read with warnings, by path; each file's warnings in the order
    /// its reader reported them.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func warnings() throws -> [IndexedFileWarning] {
        try library.read { db in
            // `instr` first: only the few rows that carry warnings are parsed as JSON.
            let rows = try db.rows("""
                SELECT f.path, f.size, f.indexed_at, w.value AS message
                FROM files f, json_each(f.metadata, '$.warnings') w
                WHERE f.status <> 'error' AND instr(f.metadata, '"warnings"') > 0 AND w.type = 'text'
                ORDER BY f.path, w.key
                """)
            var warnings: [IndexedFileWarning] = []
            for row in rows {
                let path = PathBytes(row.blob("path") ?? [])
                let message = row.string("message") ?? ""
                if warnings.last?.path == path {
                    warnings[warnings.count - 1].messages.append(message)
                } else {
                    warnings.append(IndexedFileWarning(path: path, messages: [message], bytes: row.int64("size") ?? 0,
                                                       recordedDate: Date(timeIntervalSince1970: row.double("indexed_at") ?? 0)))
                }
            }
            return warnings
        }
    }

    /// Counts over the whole library.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func statistics() throws -> LibraryStatistics {
        try library.read { db in
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
            if let run = try db.row("SELECT * FROM index_runs WHERE status = 'completed' ORDER BY id DESC LIMIT 1"),
               let json = run.string("summary"), let whole = try? JSONDecoder().decode(IndexSummary.self, from: Data(json.utf8)) {
                // The run's whole summary, as `index --json` printed it (moved, paired…).
                lastRun = whole
            } else if let run = try db.row("SELECT * FROM index_runs WHERE status = 'completed' ORDER BY id DESC LIMIT 1") {
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
}
