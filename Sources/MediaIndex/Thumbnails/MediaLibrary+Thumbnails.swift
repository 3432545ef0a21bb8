import Foundation
import MediaThumbnails
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What `MediaLibrary.buildThumbnails` makes.
public struct ThumbnailBuildOptions: Sendable {
    /// One thumbnail per size per asset.
    public var sizes: [Int] = [256]
    public var mode: ThumbnailMode = .fit
    public var format: ThumbnailFormat = .jpeg()
    /// Which assets (filter, album, dates…). Hidden assets and every burst frame are
    /// included unless the options say otherwise; `sort`, `limit` and `after` are ignored.
    public var assets = FetchOptions()
    /// Only these assets (after an index run: the new and changed ones); nil for all
    /// that `assets` selects.
    public var identifiers: [String]?
    /// Try again assets whose thumbnail failed before at the same revision.
    public var retryFailures = false
    /// Worker threads; all cores by default.
    public var threads = ProcessInfo.processInfo.activeProcessorCount

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
    public var elapsedSeconds = 0.0
    public var total: Int { made + cached + failed + needsFFmpeg }
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

extension MediaLibrary {
    // MARK: One thumbnail

    /// The file URL of `asset`'s thumbnail in `cache`, making it first if needed
    /// (ExyteMediaPicker's `getThumbnailURL`).
    ///
    /// `size` is the longer side for `.fit`, the square's side for `.fill`; a picture
    /// smaller than that keeps its own size. The thumbnail is keyed by the asset's
    /// identifier and revision, so an edited asset (fetch it again) gets a new one.
    /// - Throws: `ThumbnailUnavailable` with the reason (an unsupported format, a
    ///   damaged file, a video without ffmpeg), `LibraryError.io` when the cache
    ///   cannot be written.
    public func thumbnailURL(for asset: Asset, size: Int = 256, mode: ThumbnailMode = .fit,
                             format: ThumbnailFormat = .jpeg(), cache: ThumbnailCache = .default) async throws -> URL {
        let request = ThumbnailRequest(maxPixelSize: size, mode: mode, format: format)
        return URL(fileURLWithPath: try thumbnailNow(for: asset, request: request, cache: cache).path)
    }

    /// The bytes of `asset`'s thumbnail (JPEG or WebP), made first if needed. See
    /// `thumbnailURL(for:size:mode:format:cache:)`.
    ///
    /// - Throws: `ThumbnailUnavailable`, `LibraryError.io`.
    public func thumbnailData(for asset: Asset, size: Int = 256, mode: ThumbnailMode = .fit,
                              format: ThumbnailFormat = .jpeg(), cache: ThumbnailCache = .default) async throws -> Data {
        let request = ThumbnailRequest(maxPixelSize: size, mode: mode, format: format)
        let path = try thumbnailNow(for: asset, request: request, cache: cache).path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LibraryError.io("cannot read the thumbnail \(path)")
        }
        return data
    }

    /// The thumbnail of the asset with identifier `id`. See `thumbnailURL(for:…)`.
    ///
    /// - Throws: `LibraryError.assetNotFound`, `ThumbnailUnavailable`, `LibraryError.io`.
    public func thumbnailURL(forAssetID id: String, size: Int = 256, mode: ThumbnailMode = .fit,
                             format: ThumbnailFormat = .jpeg(), cache: ThumbnailCache = .default) async throws -> URL {
        guard let asset = try assetNow(id: id) else { throw LibraryError.assetNotFound(id) }
        return try await thumbnailURL(for: asset, size: size, mode: mode, format: format, cache: cache)
    }

    /// Synchronous `thumbnailURL`, for the CLI: the cached file's path and whether this
    /// call made it.
    ///
    /// - Parameter retryFailures: try again even when the same thumbnail failed before
    ///   (otherwise the recorded reason is thrown at once, unless ffmpeg has appeared
    ///   since a video was recorded as needing it).
    /// - Throws: `ThumbnailUnavailable`, `LibraryError`.
    public func thumbnailNow(for asset: Asset, request: ThumbnailRequest, cache: ThumbnailCache,
                             retryFailures: Bool = false) throws -> (path: String, made: Bool) {
        let outcome = try thumbnailOutcome(for: asset, request: request, cache: cache, known: nil,
                                           retryFailures: retryFailures)
        if let record = outcome.record, let writer {
            try? writer.write { db in try ThumbnailStateStore.record([record], db: db) }
        }
        switch outcome.result {
        case .success(let path):
            if outcome.record != nil { trimOccasionally(cache) }
            return (path, outcome.record != nil)
        case .failure(let error): throw error
        }
    }

    /// The state rows of one asset's thumbnails (every revision still recorded).
    public func thumbnailRecords(identifier: String) throws -> [ThumbnailRecord] {
        try read { db in
            ThumbnailStateStore.records(try db.rows(
                "SELECT * FROM thumbnails WHERE identifier = ? ORDER BY revision, size, mode, format", [identifier]))
        }
    }

    /// Every state row that is not `ready`: what could not be made, and why.
    public func thumbnailFailures() throws -> [ThumbnailRecord] {
        try read { db in
            ThumbnailStateStore.records(try db.rows(
                "SELECT * FROM thumbnails WHERE state <> 'ready' ORDER BY identifier, size"))
        }
    }

    // MARK: Many thumbnails

    /// Makes the missing thumbnails of the assets `options` selects, on all cores.
    ///
    /// Already-cached files are counted, not remade; assets that failed before at the
    /// same revision are skipped (counted as failed) unless `retryFailures`; videos
    /// recorded as needing ffmpeg are retried when ffmpeg is installed. The cache is
    /// trimmed to its size limit afterwards.
    /// - Throws: `LibraryError` when the library cannot be read or the state written.
    public func buildThumbnails(_ options: ThumbnailBuildOptions = ThumbnailBuildOptions(),
                                cache: ThumbnailCache = .default,
                                progress: (@Sendable (ThumbnailBuildSummary) -> Void)? = nil) throws -> ThumbnailBuildSummary {
        let start = ContinuousClock.now
        let sizes = Array(Set(options.sizes.map { max(1, $0) })).sorted()
        // Failures are few: load them once instead of asking per asset.
        let known: [String: ThumbnailRecord] = try read { db in
            Dictionary(ThumbnailStateStore.records(try db.rows("SELECT * FROM thumbnails WHERE state <> 'ready'"))
                .map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        }
        let shared = Mutex(BuildState())
        let threads = max(1, options.threads)

        @Sendable func flush(_ records: [ThumbnailRecord]) throws {
            guard let writer, !records.isEmpty else { return }
            try writer.transaction { db in try ThumbnailStateStore.record(records, db: db) }
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
                    guard index < jobs.count else { return }
                    let (asset, request) = jobs[index]
                    let outcome = try? thumbnailOutcome(for: asset, request: request, cache: cache, known: known,
                                                        retryFailures: options.retryFailures)
                    let (pending, snapshot): ([ThumbnailRecord], ThumbnailBuildSummary) = shared.withLock { state in
                        switch (outcome?.result, outcome?.record) {
                        case (.success?, nil): state.summary.cached += 1
                        case (.success?, _?): state.summary.made += 1
                        case (.failure(let error)?, _):
                            if error.state == .needsFFmpeg { state.summary.needsFFmpeg += 1 } else { state.summary.failed += 1 }
                        case (nil, _): state.summary.failed += 1
                        }
                        if let record = outcome?.record { state.pending.append(record) }
                        var taken: [ThumbnailRecord] = []
                        if state.pending.count >= 256 { taken = state.pending; state.pending = [] }
                        return (taken, state.summary)
                    }
                    if !pending.isEmpty {
                        do { try flush(pending) } catch { shared.withLock { $0.writeError = error } }
                    }
                    progress?(snapshot)
                }
            }
        }

        if let identifiers = options.identifiers {
            var index = 0
            while index < identifiers.count {
                let chunk = identifiers[index..<min(index + 500, identifiers.count)]
                index += chunk.count
                try process(chunk.compactMap { try? assetNow(id: $0) })
            }
        } else {
            var fetch = options.assets
            fetch.sort = nil
            fetch.after = nil
            fetch.limit = 500
            while true {
                let page = try fetchAssetsNow(fetch)
                try process(page.assets)
                guard let cursor = page.nextCursor else { break }
                fetch.after = cursor
            }
        }
        let (rest, writeError) = shared.withLock { state in
            let taken = state.pending
            state.pending = []
            return (taken, state.writeError)
        }
        try flush(rest)
        if let writeError { throw writeError }
        var summary = shared.withLock { $0.summary }
        // Only new files grow the cache: a build that made none skips the walk.
        if summary.made > 0 { cache.trim() }
        let elapsed = ContinuousClock.now - start
        summary.elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }

    /// Removes the state rows and cached files of deleted assets and old revisions.
    ///
    /// Reads only the state table, so it is cheap (an index run calls it when assets
    /// changed). `removeStrays` also walks the cache: it removes files of this library
    /// that no row knows (older than ten minutes, so a thumbnail being made by another
    /// process is left alone), then trims the cache to its size limit.
    /// - Throws: `LibraryError` when the library cannot be written.
    @discardableResult
    public func collectThumbnailGarbage(cache: ThumbnailCache = .default, removeStrays: Bool = false) throws -> ThumbnailCollection {
        let writer = try requireWriter()
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
        let folder = cache.folder(for: location)
        for record in stale where record.state == .ready {
            let a = record.key.prefix(2), b = record.key.dropFirst(2).prefix(2)
            let ext = record.format == "webp" ? "webp" : "jpg"
            if unlink("\(folder)/\(a)/\(b)/\(record.key).\(ext)") == 0 { result.filesRemoved += 1 }
        }
        if removeStrays {
            let ready = try read { db in
                Set(try db.rows("SELECT key FROM thumbnails WHERE state = 'ready'").compactMap { $0.string("key") })
            }
            let cutoff = (Int64(time(nil)) - 600) * 1_000_000_000
            for entry in cache.entries(of: location) where !ready.contains(entry.hash) && entry.lastUsed < cutoff {
                if unlink(entry.path) == 0 { result.filesRemoved += 1 }
            }
        }
        if removeStrays { result.trim = cache.trim() }
        return result
    }

    // MARK: Internals

    private struct BuildState {
        var summary = ThumbnailBuildSummary()
        var pending: [ThumbnailRecord] = []
        var writeError: Error?
    }

    struct ThumbnailOutcome {
        var result: Result<String, ThumbnailUnavailable>
        /// The state to record, when something was made or tried.
        var record: ThumbnailRecord?
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
    func thumbnailOutcome(for asset: Asset, request: ThumbnailRequest, cache: ThumbnailCache,
                          known: [String: ThumbnailRecord]?, retryFailures: Bool) throws -> ThumbnailOutcome {
        guard let primary = asset.primaryResource, let key = thumbnailKey(for: asset, request: request) else {
            return ThumbnailOutcome(result: .failure(ThumbnailUnavailable(
                identifier: asset.id, state: .failed, reason: "the asset has no file")), record: nil)
        }
        let hash = key.hash
        let path = cache.path(for: key, library: location)
        if cache.validFileSize(at: path) != nil {
            cache.markUsed(path)
            return ThumbnailOutcome(result: .success(path), record: nil)
        }
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
            record.bytes = Int64(thumbnail.data.count)
            record.width = thumbnail.width
            record.height = thumbnail.height
            return ThumbnailOutcome(result: .success(path), record: record)
        } catch let error as ThumbnailError {
            record.state = error == .needsFFmpeg ? .needsFFmpeg : .failed
            record.message = error.description
            return ThumbnailOutcome(result: .failure(ThumbnailUnavailable(
                identifier: asset.id, state: record.state, reason: error.description)), record: record)
        }
    }

    /// Decodes the primary resource: the still of a live or motion photo, the JPEG of a
    /// RAW+JPEG pair, a RAW's largest preview, a video's poster frame.
    private func makeThumbnail(of asset: Asset, primary: AssetResource, request: ThumbnailRequest) throws -> EncodedThumbnail {
        if asset.mediaType == .video {
            guard canMakeVideoFrames else { throw ThumbnailError.needsFFmpeg }
            // A live photo's movie on its own: Apple places the still near the middle of
            // the clip; its exact time sits in a timed-metadata sample we do not read.
            var stillTime: Double?
            if let duration = asset.durationSeconds,
               (try? read({ db in
                   try db.scalarInt("SELECT json_extract(metadata, '$.hasStillImageTime') FROM files WHERE path = ?",
                                    [primary.path.bytes])
               })) == 1 {
                stillTime = duration / 2
            }
            return try ThumbnailGenerator.thumbnail(ofFileAt: primary.path.displayString, request: request,
                                                    videoFrameTime: stillTime, durationSeconds: asset.durationSeconds)
        }
        if primary.path.isValidUTF8 {
            return try ThumbnailGenerator.thumbnail(ofFileAt: primary.path.displayString, request: request)
        }
        // A name that is not UTF-8 cannot round-trip through a String path: open it by
        // its bytes and hand the generator the descriptor's /proc name.
        let fd = primary.path.withCString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw ThumbnailError.io("\(primary.path.displayString): \(systemErrorMessage(errno))") }
        defer { close(fd) }
        return try ThumbnailGenerator.thumbnail(ofFileAt: "/proc/self/fd/\(fd)", request: request)
    }

    /// After making a thumbnail one at a time (a picker scrolling), trims the cache at
    /// most every ten minutes: a stamp file's age says when it last ran.
    private func trimOccasionally(_ cache: ThumbnailCache) {
        let stamp = cache.directory + "/last-trim"
        var info = stat()
        if stat(stamp, &info) == 0, time(nil) - info.st_mtim.tv_sec < 600 { return }
        let fd = Glibc.open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        _ = utimensat(AT_FDCWD, stamp, nil, 0)
        cache.trim()
    }
}

extension Asset {
    /// The file URL of this asset's thumbnail in `library`'s cache, made if needed
    /// (Exyte's `getThumbnailURL`). The library is passed in because an `Asset` is a
    /// plain value that does not know where it came from.
    ///
    /// - Throws: `ThumbnailUnavailable`, `LibraryError.io`.
    public func thumbnailURL(size: Int = 256, mode: ThumbnailMode = .fit, in library: MediaLibrary,
                             cache: ThumbnailCache = .default) async throws -> URL {
        try await library.thumbnailURL(for: self, size: size, mode: mode, cache: cache)
    }

    /// The JPEG bytes of this asset's thumbnail in `library`'s cache, made if needed.
    ///
    /// - Throws: `ThumbnailUnavailable`, `LibraryError.io`.
    public func thumbnailData(size: Int = 256, mode: ThumbnailMode = .fit, in library: MediaLibrary,
                              cache: ThumbnailCache = .default) async throws -> Data {
        try await library.thumbnailData(for: self, size: size, mode: mode, cache: cache)
    }
}
