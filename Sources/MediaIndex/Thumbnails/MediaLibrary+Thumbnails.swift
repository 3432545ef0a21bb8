import Foundation
import MediaMetadata
import MediaThumbnails
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What `MediaLibrary.buildThumbnails` makes.
public struct ThumbnailBuildOptions: Sendable {
    /// One thumbnail per size per asset.
    public var sizes: [Int] = [256]
    /// Fit the whole picture, or fill a centred square.
    public var mode: ThumbnailMode = .fit
    /// JPEG or WebP.
    public var format: ThumbnailFormat = .jpeg
    /// Which assets (filter, album, dates…). Hidden assets and every burst frame are
    /// included unless the options say otherwise; `sort`, `limit` and `after` are ignored.
    public var assets = FetchOptions()
    /// Only these assets (after an index run: the new and changed ones); nil for all
    /// that `assets` selects.
    public var identifiers: [Asset.ID]?
    /// Try again assets whose thumbnail failed before at the same revision.
    public var retryFailures = false
    /// Worker threads; all cores by default.
    public var threads = ProcessInfo.processInfo.activeProcessorCount

    /// Size 256, fit, JPEG, every asset (hidden ones and every burst frame included).
    public init() {
        assets.includeHidden = true
        assets.includeAllBurstAssets = true
    }
}

/// What a thumbnail build did. Every (asset, size) pair is counted once.
public struct ThumbnailBuildSummary: Sendable, Equatable {
    /// Made by this run.
    public var made = 0
    /// Already in the cache.
    public var cached = 0
    /// Could not be made (reasons in the state table; `thumbnailRecords`).
    public var failed = 0
    /// Videos waiting for ffmpeg.
    public var needsFFmpeg = 0
    /// How long the build took.
    public var elapsedSeconds = 0.0
    /// The (asset, size) pairs the build goes through, when known before it starts.
    public var planned: Int?
    /// Pairs done so far: made, cached, failed or waiting for ffmpeg.
    public var total: Int { made + cached + failed + needsFFmpeg }
    /// An empty summary.
    public init() {}
}

/// What a thumbnail garbage collection removed.
public struct ThumbnailCollection: Sendable, Equatable {
    /// State rows of deleted assets and old revisions.
    public var recordsRemoved = 0
    /// Cached files removed with them, or found with no row (strays).
    public var filesRemoved = 0
    /// The size trim that followed.
    public var trim = ThumbnailCache.TrimResult()
}

/// A thumbnail in the library's cache.
public struct CachedThumbnail: Sendable, Equatable {
    /// The cached file.
    public var url: URL
    /// Whether this call made it (false: it was already cached).
    public var made: Bool

    /// The cached file's path.
    public var path: String { url.path }

    /// The file's bytes (JPEG or WebP).
    ///
    /// - Throws: `LibraryError.io` when the file cannot be read (the cache was deleted meanwhile).
    public func data() throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LibraryError.io("cannot read the thumbnail \(path)")
        }
        return data
    }
}

extension MediaLibrary {
    /// `asset`'s thumbnail in the library's cache, made first if needed. See
    /// `Blocking.thumbnail(for:size:mode:format:retryFailures:)`.
    ///
    /// - Throws: as `Blocking.thumbnail(for:size:mode:format:retryFailures:)`.
    public func thumbnail(for asset: Asset, size: Int = 256, mode: ThumbnailMode = .fit,
                          format: ThumbnailFormat = .jpeg, retryFailures: Bool = false) async throws -> CachedThumbnail {
        try await offExecutor {
            try $0.thumbnail(for: asset, size: size, mode: mode, format: format, retryFailures: retryFailures)
        }
    }

    /// Makes the missing thumbnails of the assets `options` selects, on all cores.
    ///
    /// - Throws: as `Blocking.buildThumbnails(_:progress:)`.
    public func buildThumbnails(_ options: ThumbnailBuildOptions = ThumbnailBuildOptions(),
                                progress: (@Sendable (ThumbnailBuildSummary) -> Void)? = nil) async throws -> ThumbnailBuildSummary {
        let blocking = self.blocking
        return try await DatabaseThreads.runOnOwnThread { try blocking.buildThumbnails(options, progress: progress) }
    }

    /// Brings the cache in step with the changes since `token` (an index run).
    ///
    /// - Throws: as `Blocking.updateThumbnails(since:sizes:progress:)`.
    @discardableResult
    public func updateThumbnails(since token: ChangeToken, sizes: [Int] = [],
                                 progress: (@Sendable (ThumbnailBuildSummary) -> Void)? = nil) async throws -> ThumbnailBuildSummary {
        let blocking = self.blocking
        return try await DatabaseThreads.runOnOwnThread {
            try blocking.updateThumbnails(since: token, sizes: sizes, progress: progress)
        }
    }

    /// Removes the state rows and cached files of deleted assets and old revisions.
    ///
    /// - Throws: as `Blocking.collectThumbnailGarbage(removeStrays:)`.
    @discardableResult
    public func collectThumbnailGarbage(removeStrays: Bool = false) async throws -> ThumbnailCollection {
        try await offExecutor { try $0.collectThumbnailGarbage(removeStrays: removeStrays) }
    }

    /// The state rows of one asset's thumbnails (every revision still recorded).
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func thumbnailRecords(for asset: Asset.ID) async throws -> [ThumbnailRecord] {
        try await offExecutor { try $0.thumbnailRecords(for: asset) }
    }

    /// Every state row that is not `ready`: what could not be made, and why; and the
    /// `ready` rows with a message: thumbnails made from a smaller picture the file holds
    /// (a HEIF's thumbnail item or EXIF thumbnail) because the picture itself did not decode.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func thumbnailFailures() async throws -> [ThumbnailRecord] {
        try await offExecutor { try $0.thumbnailFailures() }
    }
}

extension MediaLibrary.Blocking {
    // MARK: One thumbnail

    /// `asset`'s thumbnail in the library's cache, made first if needed
    /// (ExyteMediaPicker's `getThumbnailURL`).
    ///
    /// `size` is the longer side for `.fit`, the square's side for `.fill`; a picture
    /// smaller than that keeps its own size. The thumbnail is keyed by the asset's
    /// identifier and revision, so an edited asset (fetch it again) gets a new one.
    /// The state is recorded when the library is writable.
    ///
    /// - Parameter retryFailures: try again even when the same thumbnail failed before
    ///   (otherwise the recorded reason is thrown at once, unless ffmpeg has appeared
    ///   since a video was recorded as needing it).
    /// - Throws: `ThumbnailUnavailable` with the reason (an unsupported format, a
    ///   damaged file, a video without ffmpeg), `LibraryError.io` when the cache
    ///   cannot be written, `LibraryError.database`.
    public func thumbnail(for asset: Asset, size: Int = 256, mode: ThumbnailMode = .fit,
                          format: ThumbnailFormat = .jpeg, retryFailures: Bool = false) throws -> CachedThumbnail {
        let request = ThumbnailRequest(maxPixelSize: size, mode: mode, format: format)
        let cache = library.thumbnailCache
        let outcome = try library.thumbnailOutcome(for: asset, request: request, known: nil,
                                                   retryFailures: retryFailures)
        if let record = outcome.record, let writer = library.writer {
            try? writer.write { db in try ThumbnailStateStore.record([record], db: db) }
        }
        switch outcome.result {
        case .success(let path):
            if outcome.record != nil { library.trimOccasionally(cache) }
            return CachedThumbnail(url: URL(fileURLWithPath: path), made: outcome.record != nil)
        case .failure(let error): throw error
        }
    }

    /// The state rows of one asset's thumbnails (every revision still recorded).
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func thumbnailRecords(for asset: Asset.ID) throws -> [ThumbnailRecord] {
        try library.read { db in
            ThumbnailStateStore.records(try db.rows(
                "SELECT * FROM thumbnails WHERE identifier = ? ORDER BY revision, size, mode, format", [asset.rawValue]))
        }
    }

    /// Every state row that is not `ready`, and the `ready` rows made from a smaller picture the file holds: see the async form.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func thumbnailFailures() throws -> [ThumbnailRecord] {
        try library.read { db in
            ThumbnailStateStore.records(try db.rows(
                "SELECT * FROM thumbnails WHERE state <> 'ready' OR message IS NOT NULL ORDER BY identifier, size"))
        }
    }

    // MARK: Many thumbnails

    /// Makes the missing thumbnails of the assets `options` selects, on all cores.
    ///
    /// Already-cached files are counted, not remade; assets that failed before at the
    /// same revision are skipped (counted as failed) unless `retryFailures`; videos
    /// recorded as needing ffmpeg are retried when ffmpeg is installed. The cache is
    /// trimmed to its size limit afterwards. When the cache's disk fills up the build
    /// stops (what was made is recorded) and throws `LibraryError.cacheDiskFull`; no
    /// asset is recorded as failed for it.
    /// - Throws: `LibraryError` when the library cannot be read or the state written,
    ///   `.cacheDiskFull`, `.unsafeCacheFolder` for a cache folder that cannot be trusted.
    public func buildThumbnails(_ options: ThumbnailBuildOptions = ThumbnailBuildOptions(),
                                progress: (@Sendable (ThumbnailBuildSummary) -> Void)? = nil) throws -> ThumbnailBuildSummary {
        let library = self.library
        let cache = library.thumbnailCache
        let writer = library.writer
        let start = ContinuousClock.now
        let sizes = Array(Set(options.sizes.map { max(1, $0) })).sorted()
        // Failures are few: load them once instead of asking per asset.
        let known = try library.read { db in try ThumbnailStateStore.notReady(db: db) }
        let shared = Mutex(plannedState(options))
        let threads = max(1, options.threads)
        // Fails at once, before any work, when the cache folder cannot be trusted.
        try cache.prepare()

        @Sendable func flush(_ records: [ThumbnailRecord], _ hashes: [DuplicateStore.ThumbnailHashes]) throws {
            guard let writer, !records.isEmpty || !hashes.isEmpty else { return }
            try writer.transaction { db in
                try ThumbnailStateStore.record(records, db: db)
                try DuplicateStore(db: db).saveHashes(hashes, now: Date().timeIntervalSince1970)
            }
        }

        func process(_ assets: [Asset]) throws {
            let jobs = assets.flatMap { asset in
                sizes.map { (asset, ThumbnailRequest(maxPixelSize: $0, mode: options.mode, format: options.format)) }
            }
            guard !jobs.isEmpty else { return }
            let next = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: min(threads, jobs.count)) { _ in
                while true {
                    let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard index < jobs.count, !shared.withLock({ $0.cacheError != nil }) else { return }
                    let (asset, request) = jobs[index]
                    let outcome: MediaLibrary.ThumbnailOutcome?
                    do {
                        outcome = try library.thumbnailOutcome(for: asset, request: request, known: known,
                                                               retryFailures: options.retryFailures)
                    } catch let error as LibraryError where error.isTheCachesFault {
                        // The cache's fault, not the asset's: stop the build, record nothing.
                        shared.withLock { $0.cacheError = $0.cacheError ?? error }
                        return
                    } catch {
                        outcome = nil
                    }
                    let (pending, snapshot) = shared.withLock { $0.count(outcome) }
                    if !pending.0.isEmpty {
                        do { try flush(pending.0, pending.1) } catch { shared.withLock { $0.writeError = error } }
                    }
                    progress?(snapshot)
                }
            }
        }

        try forEachPage(of: options, until: { shared.withLock { $0.cacheError != nil } }, process)
        let ((rest, restHashes), writeError, cacheError) = shared.withLock { state in
            (state.takePending(), state.writeError, state.cacheError)
        }
        try flush(rest, restHashes)
        if let cacheError { throw cacheError }
        if let writeError { throw writeError }
        var summary = shared.withLock { $0.summary }
        // Only new files grow the cache: a build that made none skips the walk.
        if summary.made > 0 { cache.trim() }
        let elapsed = ContinuousClock.now - start
        summary.elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }

    /// A build's starting state: how many thumbnails it plans, none made yet.
    private func plannedState(_ options: ThumbnailBuildOptions) -> MediaLibrary.BuildState {
        var initial = MediaLibrary.BuildState()
        if let identifiers = options.identifiers {
            initial.summary.planned = identifiers.count * options.sizes.count
        } else if let count = try? countAssets(options.assets) {
            initial.summary.planned = count.total * options.sizes.count
        }
        return initial
    }

    /// The assets a build names (its identifiers, or those its fetch options select), 500 at
    /// a time, until `stop` says so after a page.
    private func forEachPage(of options: ThumbnailBuildOptions, until stop: () -> Bool,
                             _ body: ([Asset]) throws -> Void) throws {
        if let identifiers = options.identifiers {
            var index = 0
            while index < identifiers.count {
                let chunk = identifiers[index..<min(index + 500, identifiers.count)]
                index += chunk.count
                try body(chunk.compactMap { try? asset(id: $0) ?? nil })
                if stop() { break }
            }
        } else {
            var fetch = options.assets
            fetch.sort = nil
            fetch.after = nil
            fetch.limit = 500
            while true {
                let page = try fetchAssets(fetch)
                try body(page.assets)
                guard let cursor = page.nextCursor, !stop() else { break }
                fetch.after = cursor
            }
        }
    }

    /// Brings the thumbnail cache in step with the index after a run that started at
    /// `token`: collects the thumbnails of deleted and changed assets when anything
    /// changed (an unchanged re-index does no thumbnail work at all), then makes the
    /// thumbnails of the new and changed assets in `sizes` (none: collect only). When
    /// the change history since `token` has been trimmed, every asset is considered.
    ///
    /// - Throws: `LibraryError` when the library cannot be read or written.
    @discardableResult
    public func updateThumbnails(since token: ChangeToken, sizes: [Int] = [],
                                 progress: (@Sendable (ThumbnailBuildSummary) -> Void)? = nil) throws -> ThumbnailBuildSummary {
        guard !sizes.isEmpty else {
            // Nothing to build: only whether there is garbage to collect matters.
            let garbage = (try? library.hasChanges(since: token, of: [.deleted, .updated, .paired, .unpaired])) ?? true
            if garbage { try collectThumbnailGarbage() }
            return ThumbnailBuildSummary()
        }
        var changed: [Asset.ID] = []
        var collect = false
        var historyLost = false
        if let changes = try? changes(since: token) {
            var seen = Set<Asset.ID>()
            for change in changes.changes {
                switch change.kind {
                case .deleted: collect = true
                case .updated, .paired, .unpaired:
                    collect = true
                    if seen.insert(change.id).inserted { changed.append(change.id) }
                case .inserted:
                    if seen.insert(change.id).inserted { changed.append(change.id) }
                case .moved: break
                }
            }
        } else {
            collect = true  // the history was trimmed: treat everything as changed
            historyLost = true
        }
        if collect { try collectThumbnailGarbage() }
        var options = ThumbnailBuildOptions()
        options.sizes = sizes
        options.identifiers = historyLost ? nil : changed
        return try buildThumbnails(options, progress: progress)
    }

    /// Removes the state rows and cached files of deleted assets and old revisions.
    ///
    /// Reads only the state table, so it is cheap (`updateThumbnails` calls it after an
    /// index run that changed assets). `removeStrays` also walks the cache: it removes
    /// files of this library that no row knows (older than ten minutes, so a thumbnail
    /// being made by another process is left alone), then trims the cache to its size limit.
    /// - Throws: `LibraryError.readOnly` when the library was opened read-only,
    ///   `LibraryError.database`.
    @discardableResult
    public func collectThumbnailGarbage(removeStrays: Bool = false) throws -> ThumbnailCollection {
        let writer = try library.requireWriter()
        let cache = library.thumbnailCache
        let location = library.location
        var result = ThumbnailCollection()
        let stale = try writer.transaction { db -> [ThumbnailRecord] in
            let rows = try db.rows("""
                SELECT t.* FROM thumbnails t LEFT JOIN assets a ON a.identifier = t.identifier
                WHERE a.id IS NULL OR a.revision <> t.revision
                """)
            try db.execute("""
                DELETE FROM thumbnails WHERE key IN (SELECT t.key FROM thumbnails t
                    LEFT JOIN assets a ON a.identifier = t.identifier WHERE a.id IS NULL OR a.revision <> t.revision)
                """)
            return ThumbnailStateStore.records(rows)
        }
        result.recordsRemoved = stale.count
        for record in stale where record.state == .ready {
            let paths = cache.filePaths(hash: record.key, fileExtension: record.format == "webp" ? "webp" : "jpg",
                                        library: location)
            // Both are tried: `||` would skip the older layout's file once the current one went.
            let removedCurrent = cache.removeFile(at: paths.current)
            let removedOlder = cache.removeFile(at: paths.olderLayout)
            if removedCurrent || removedOlder { result.filesRemoved += 1 }
        }
        if removeStrays {
            let ready = try library.read { db in
                Set(try db.rows("SELECT key FROM thumbnails WHERE state = 'ready'").compactMap { $0.string("key") })
            }
            let cutoff = (Int64(time(nil)) - 600) * 1_000_000_000
            for entry in cache.entries(of: location) where !ready.contains(entry.hash) && entry.lastUsed < cutoff {
                if cache.removeFile(at: entry.path) { result.filesRemoved += 1 }
            }
        }
        if removeStrays { result.trim = cache.trim() }
        return result
    }
}

extension MediaLibrary {
    // MARK: Internals

    struct BuildState {
        var summary = ThumbnailBuildSummary()
        var pending: [ThumbnailRecord] = []
        /// Perceptual hashes read from the thumbnails' decodes, kept for `duplicates`.
        var pendingHashes: [DuplicateStore.ThumbnailHashes] = []
        var writeError: Error?
        /// A full disk or an untrusted cache folder: the build stops.
        var cacheError: LibraryError?

        /// Counts one job's outcome (nil: it failed outside the thumbnailer) and keeps its
        /// state and hashes; returns the kept ones once there are 256 to write, and the summary.
        mutating func count(_ outcome: ThumbnailOutcome?)
            -> (pending: ([ThumbnailRecord], [DuplicateStore.ThumbnailHashes]), summary: ThumbnailBuildSummary) {
            switch (outcome?.result, outcome?.record) {
            case (.success?, nil): summary.cached += 1
            case (.success?, _?): summary.made += 1
            case (.failure(let error)?, _):
                if error.state == .needsFFmpeg { summary.needsFFmpeg += 1 } else { summary.failed += 1 }
            case (nil, _): summary.failed += 1
            }
            if let record = outcome?.record { pending.append(record) }
            if let hashes = outcome?.hashes { pendingHashes.append(hashes) }
            return (pending.count >= 256 ? takePending() : ([], []), summary)
        }

        /// The states and hashes not yet written, which are then no longer kept.
        mutating func takePending() -> ([ThumbnailRecord], [DuplicateStore.ThumbnailHashes]) {
            defer { pending = []; pendingHashes = [] }
            return (pending, pendingHashes)
        }
    }

    struct ThumbnailOutcome {
        var result: Result<String, ThumbnailUnavailable>
        /// The state to record, when something was made or tried.
        var record: ThumbnailRecord?
        /// The picture's perceptual hashes, when the thumbnail was a whole still of the primary file.
        var hashes: DuplicateStore.ThumbnailHashes?
    }

    /// Tests only: libraries (by folder) that behave as if ffmpeg were not installed.
    static let videoFramesDisabledForTesting = Mutex(Set<String>())

    var canMakeVideoFrames: Bool {
        ThumbnailGenerator.canMakeVideoThumbnails
            && !Self.videoFramesDisabledForTesting.withLock { $0.contains(location.directory) }
    }

    /// Finds or makes one thumbnail, without writing the state table.
    ///
    /// - Parameter known: the non-ready state rows by key, when the caller loaded them;
    ///   nil to look this key up.
    func thumbnailOutcome(for asset: Asset, request: ThumbnailRequest,
                          known: [String: ThumbnailRecord]?, retryFailures: Bool) throws -> ThumbnailOutcome {
        guard let primary = asset.renderingResource, let key = thumbnailKey(for: asset, request: request) else {
            return ThumbnailOutcome(result: .failure(ThumbnailUnavailable(
                identifier: asset.id, state: .failed, reason: "the asset has no file")), record: nil)
        }
        if let cached = cachedPath(for: asset, request: request) {
            return ThumbnailOutcome(result: .success(cached), record: nil)
        }
        let cache = thumbnailCache
        let hash = key.hash
        let path = cache.path(for: key, library: location)
        if !retryFailures {
            let previous = try known.map { $0[hash] } ?? read { db in
                ThumbnailStateStore.records(try db.rows("SELECT * FROM thumbnails WHERE key = ?", [hash])).first
            }
            if let previous, previous.state == .failed || (previous.state == .needsFFmpeg && !canMakeVideoFrames) {
                return ThumbnailOutcome(result: .failure(ThumbnailUnavailable(
                    identifier: asset.id, state: previous.state, reason: previous.message ?? "it failed before")), record: nil)
            }
        }
        var record = ThumbnailRecord(key: hash, identifier: asset.id, revision: asset.revision, size: request.maxPixelSize,
                                     mode: request.mode, format: key.formatName, state: .ready, message: nil,
                                     bytes: nil, width: nil, height: nil, madeAt: Date().timeIntervalSince1970)
        do {
            let thumbnail = try makeThumbnail(of: asset, primary: primary, request: request)
            try cache.store(thumbnail.data, at: path)
            // The decode just made is hashed too (a still of the primary file, whole):
            // `duplicates` then needs no decode of its own.
            var hashes: DuplicateStore.ThumbnailHashes?
            if asset.mediaType == .image, primary == asset.primaryResource, let made = thumbnail.hashes {
                hashes = DuplicateStore.ThumbnailHashes(identifier: asset.id.rawValue, revision: asset.revision, hashes: made)
            }
            record.bytes = Int64(thumbnail.data.count)
            record.width = thumbnail.width
            record.height = thumbnail.height
            record.message = thumbnail.fallbackReason
            return ThumbnailOutcome(result: .success(path), record: record, hashes: hashes)
        } catch let error as ThumbnailError {
            record.state = error == .needsFFmpeg ? .needsFFmpeg : .failed
            record.message = error.description
            return ThumbnailOutcome(result: .failure(ThumbnailUnavailable(
                identifier: asset.id, state: record.state, reason: error.description)), record: record)
        }
    }

    /// Decodes the rendering resource (`Asset.renderingResource`): the edited rendering
    /// when there is one, else the primary: the still of a live or motion photo, the JPEG
    /// of a RAW+JPEG pair, a RAW's largest preview, a video's poster frame.
    private func makeThumbnail(of asset: Asset, primary: AssetResource, request: ThumbnailRequest) throws -> EncodedThumbnail {
        if asset.mediaType == .video {
            guard canMakeVideoFrames else { throw ThumbnailError.needsFFmpeg }
            // A live photo's movie on its own: the frame at its still-image-time sample, else
            // (a track whose time could not be read) the middle, near where Apple places it.
            var stillTime: Double?
            if let metadata = (try? read({ db in try FileRecord.storedMetadata(ofPath: primary.path, db: db) })) ?? nil {
                if let seconds = metadata.stillImageTimeSeconds { stillTime = seconds }
                else if metadata.hasStillImageTime == true, let duration = asset.duration { stillTime = duration / 2 }
            }
            let location = try confinedLocation(of: primary)
            return try ThumbnailGenerator.thumbnail(ofFileAtBytes: location.path, beneath: location.root,
                                                    request: request, videoFrameTime: stillTime,
                                                    durationSeconds: asset.duration)
        }
        // By the path's bytes: a name that is not UTF-8 would not survive a String.
        let (format, orientation) = stillFormatAndOrientation(of: asset, resource: primary)
        let location = try confinedLocation(of: primary)
        return try ThumbnailGenerator.thumbnail(ofFileAtBytes: location.path, beneath: location.root,
                                                request: request, format: format, orientation: orientation)
    }

    /// Where `resource` is opened and the root it must resolve inside (`BeneathRoot`,
    /// `Blocking.servingLocation(ofIndexedFile:)`).
    ///
    /// - Throws: `ThumbnailError.io` for a file the library no longer holds, or one
    ///   reached through a followed symbolic link that resolves beneath no root.
    func confinedLocation(of resource: AssetResource) throws -> (path: [UInt8], root: [UInt8]) {
        let location: (path: PathBytes, root: PathBytes)?
        do { location = try blocking.servingLocation(ofIndexedFile: resource.path) } catch let failure as BeneathRoot.Failure {
            throw ThumbnailError.io(failure.description)
        } catch {
            location = nil
        }
        guard let location else { throw ThumbnailError.io("\(resource.path.displayString) is no longer an indexed file") }
        return (location.path.bytes, location.root.bytes)
    }

    /// The format and orientation a still thumbnail of `resource` (the asset's rendering
    /// resource) is made with: the index already knows them, so the file is not read for
    /// them again. An edited rendering has its own (Photos writes it upright).
    func stillFormatAndOrientation(of asset: Asset, resource: AssetResource) -> (MediaFormat?, Int) {
        let format = resource.uniformType?.format
        guard resource != asset.primaryResource else { return (format, asset.orientation ?? 1) }
        let metadata = (try? read({ db in try FileRecord.storedMetadata(ofPath: resource.path, db: db) })) ?? nil
        return (metadata?.format ?? format, metadata?.orientation ?? 1)
    }

    /// After making a thumbnail one at a time (a picker scrolling), trims the cache at
    /// most every ten minutes: a stamp file's age says when it last ran.
    func trimOccasionally(_ cache: ThumbnailCache) {
        guard let folder = try? CacheDirectory.openRoot(cache.folderPath, create: false) else { return }
        var info = stat()
        if fstatat(folder.descriptor, "last-trim", &info, AT_SYMLINK_NOFOLLOW) == 0, time(nil) - info.st_mtim.tv_sec < 600 { return }
        let fd = openat(folder.descriptor, "last-trim", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        _ = utimensat(folder.descriptor, "last-trim", nil, AT_SYMLINK_NOFOLLOW)
        cache.trim()
    }
}

extension LibraryError {
    /// A full disk or an untrusted cache folder: the thumbnail cache's fault, not an asset's.
    var isTheCachesFault: Bool {
        switch self {
        case .cacheDiskFull, .unsafeCacheFolder: return true
        default: return false
        }
    }
}
