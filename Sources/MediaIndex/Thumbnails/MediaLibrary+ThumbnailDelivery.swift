import Foundation
import MediaMetadata
import MediaThumbnails
import Synchronization

/// How soon, and how good, a thumbnail is delivered (PHImageRequestOptions' delivery modes).
public enum ThumbnailDelivery: String, Sendable, CaseIterable {
    /// At once: the exact thumbnail when cached, else the file's own EXIF or HEIF
    /// thumbnail (or a raw's preview), else another cached size — even when smaller than
    /// asked or another shape. Made from the picture only when none of those exists.
    case fast
    /// The exact size, made from the picture when not cached.
    case highQuality
    /// Fast first, flagged `isDegraded`, then the exact size: two results (one when the
    /// exact thumbnail is already cached, or when nothing quicker exists).
    case opportunistic
}

/// One thumbnail as delivered.
public struct DeliveredThumbnail: Sendable, Equatable {
    /// The encoded file (JPEG or WebP).
    public var data: Data
    /// The size as displayed.
    public var width: Int
    /// The height as displayed.
    public var height: Int
    /// Whether this is a quick stand-in (the file's embedded thumbnail, or another
    /// cached size) rather than the thumbnail asked for.
    public var isDegraded: Bool

    /// A delivered thumbnail.
    public init(data: Data, width: Int, height: Int, isDegraded: Bool) {
        self.data = data
        self.width = width
        self.height = height
        self.isDegraded = isDegraded
    }
}

extension MediaLibrary {
    /// `asset`'s thumbnail, delivered as `delivery` says: one result, or for
    /// `.opportunistic` a degraded one and then the exact one (PHImageManager's
    /// `requestImage` with its delivery modes).
    ///
    /// `size` is the longer side for `.fit`, the square's side for `.fill`. The exact
    /// thumbnail is cached in the library's cache as by `thumbnail(for:size:mode:format:)`;
    /// quick stand-ins are not. The work runs on the library's thumbnail threads (one per
    /// core, shared by every request); ending the iteration early cancels what is left.
    ///
    /// - Throws (from the sequence): `ThumbnailUnavailable` with the reason, `LibraryError.io`
    ///   when the cache cannot be written or read.
    public func thumbnail(for asset: Asset, size: Int = 256, mode: ThumbnailMode = .fit,
                          delivery: ThumbnailDelivery, format: ThumbnailFormat = .jpeg)
        -> AsyncThrowingStream<DeliveredThumbnail, Error> {
        let request = ThumbnailRequest(maxPixelSize: size, mode: mode, format: format)
        return AsyncThrowingStream { continuation in
            let cancelled = Atomic<Bool>(false)
            continuation.onTermination = { _ in cancelled.store(true, ordering: .relaxed) }
            DatabaseThreads.thumbnails.enqueue { [self] in
                guard !cancelled.load(ordering: .relaxed) else { return continuation.finish() }
                do {
                    if let exact = try cachedThumbnail(for: asset, request: request) {
                        continuation.yield(exact)
                        continuation.finish()
                        return
                    }
                    if delivery != .highQuality, let quick = try quickThumbnail(for: asset, request: request) {
                        continuation.yield(quick)
                        if delivery == .fast || cancelled.load(ordering: .relaxed) { continuation.finish(); return }
                    }
                    continuation.yield(try exactThumbnail(for: asset, request: request))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }

    /// The exact thumbnail when it is already in the cache.
    func cachedThumbnail(for asset: Asset, request: ThumbnailRequest) throws -> DeliveredThumbnail? {
        guard let path = cachedPath(for: asset, request: request) else { return nil }
        return try delivered(path: path, isDegraded: false)
    }

    /// The exact thumbnail, made (and cached) when needed.
    func exactThumbnail(for asset: Asset, request: ThumbnailRequest) throws -> DeliveredThumbnail {
        let made = try blocking.thumbnail(for: asset, size: request.maxPixelSize, mode: request.mode, format: request.format)
        return try delivered(path: made.path, isDegraded: false)
    }

    /// The file's own thumbnail, else the largest other cached size of the same revision,
    /// mode and format; nil when neither exists.
    func quickThumbnail(for asset: Asset, request: ThumbnailRequest) throws -> DeliveredThumbnail? {
        // The edited rendering's own thumbnail when the asset has one.
        guard let source = asset.renderingResource, let key = thumbnailKey(for: asset, request: request) else { return nil }
        let (format, orientation) = stillFormatAndOrientation(of: asset, resource: source)
        if asset.mediaType == .image, let location = try? confinedLocation(of: source),
           let embedded = try? ThumbnailGenerator.embeddedThumbnail(
               ofFileAtBytes: location.path, beneath: location.root, request: request, format: format, orientation: orientation) {
            return DeliveredThumbnail(data: Data(embedded.data), width: embedded.width, height: embedded.height, isDegraded: true)
        }
        let sizes = try read { db in
            try ThumbnailStateStore.readySizes(of: asset.id, revision: asset.revision, mode: request.mode,
                                               format: key.formatName, excluding: request.maxPixelSize, db: db)
        }
        let cache = thumbnailCache
        for size in sizes {
            var other = request
            other.maxPixelSize = size
            guard let otherKey = thumbnailKey(for: asset, request: other) else { continue }
            let path = cache.path(for: otherKey, library: location)
            if cache.validFileSize(at: path) != nil { return try delivered(path: path, isDegraded: true) }
        }
        return nil
    }

    private func delivered(path: String, isDegraded: Bool) throws -> DeliveredThumbnail {
        let data = try CachedThumbnail(url: URL(fileURLWithPath: path), made: false).data()
        let size = Self.encodedSize(data) ?? (0, 0)
        return DeliveredThumbnail(data: data, width: size.width, height: size.height, isDegraded: isDegraded)
    }

    /// The frame size of a JPEG (SOF) or a lossy WebP (VP8 header), read from its bytes.
    static func encodedSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(64 * 1024))
        if bytes.count > 30, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[12..<16]) == Array("VP8 ".utf8) {
            return (Int(bytes[26]) | Int(bytes[27] & 0x3F) << 8, Int(bytes[28]) | Int(bytes[29] & 0x3F) << 8)
        }
        return (try? JPEGSegments.read(MemoryByteSource(bytes)))?.segments.first(where: \.isFrameHeader).flatMap { frame in
            let at = Int(frame.payloadOffset)
            guard at + 5 <= bytes.count else { return nil }
            return (Int(bytes[at + 3]) << 8 | Int(bytes[at + 4]), Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]))
        }
    }

    // MARK: Prefetching

    /// Makes the thumbnails of `assets` in the background, ahead of a scrolling grid
    /// (PHCachingImageManager's `startCachingImages`): the most recently asked first, on
    /// one thread, at most `ThumbnailPrefetcher.capacity` waiting (the oldest dropped).
    public func startCaching(_ assets: [Asset], size: Int = 256, mode: ThumbnailMode = .fit,
                             format: ThumbnailFormat = .jpeg) {
        let request = ThumbnailRequest(maxPixelSize: size, mode: mode, format: format)
        ThumbnailPrefetcher.shared.enqueue(assets.map { .init(library: self, asset: $0, request: request) })
    }

    /// Takes `assets` off the background queue (those being made finish).
    public func stopCaching(_ assets: [Asset], size: Int = 256, mode: ThumbnailMode = .fit,
                            format: ThumbnailFormat = .jpeg) {
        let request = ThumbnailRequest(maxPixelSize: size, mode: mode, format: format)
        ThumbnailPrefetcher.shared.remove(Set(assets.map { "\($0.id)|\($0.revision)" }), request: request, library: self)
    }

    /// Empties this library's background queue.
    public func stopCachingAll() {
        ThumbnailPrefetcher.shared.removeAll(library: self)
    }

    /// How many thumbnails wait in this library's background queue.
    public var cachingQueueCount: Int { ThumbnailPrefetcher.shared.count(library: self) }
}

extension MediaLibrary.Blocking {
    /// For `mediaindex thumbnail --fast`: the exact thumbnail when cached, else the quick
    /// stand-in (`.fast` delivery) written to the cache's `fast/` folder (outside the keyed
    /// cache, replaced on each call, never followed through a symlink); nil when there is
    /// no stand-in.
    ///
    /// - Throws: `LibraryError.io` (or `.cacheDiskFull`) when the stand-in cannot be written.
    public func fastThumbnail(for asset: Asset, size: Int = 256, mode: ThumbnailMode = .fit,
                              format: ThumbnailFormat = .jpeg) throws -> CachedThumbnail? {
        let request = ThumbnailRequest(maxPixelSize: size, mode: mode, format: format)
        if let exact = library.cachedPath(for: asset, request: request) {
            return CachedThumbnail(url: URL(fileURLWithPath: exact), made: false)
        }
        guard let key = library.thumbnailKey(for: asset, request: request) else { return nil }
        let cache = library.thumbnailCache
        guard let quick = try library.quickThumbnail(for: asset, request: request) else { return nil }
        let path = "\(cache.folderPath)/fast/\(key.hash).\(request.format.fileExtension)"
        try cache.store(Array(quick.data), at: path)
        return CachedThumbnail(url: URL(fileURLWithPath: path), made: true)
    }
}

/// The bounded background queue behind `startCaching`: newest first, one worker thread
/// for every library of the process.
final class ThumbnailPrefetcher: Sendable {
    struct Job: Sendable {
        var library: MediaLibrary
        var asset: Asset
        var request: ThumbnailRequest

        func matches(_ other: Job) -> Bool {
            library === other.library && asset.id == other.asset.id && request == other.request
        }
    }

    /// Jobs waiting beyond this are dropped, oldest first: a grid scrolled far away no
    /// longer needs them.
    static let capacity = 512
    static let shared = ThumbnailPrefetcher()

    private struct State {
        /// Waiting jobs, oldest first.
        var jobs: [Job] = []
        var running = false
    }

    private let state = Mutex(State())

    func enqueue(_ jobs: [Job]) {
        let start: Bool = state.withLock { state in
            state.jobs.removeAll { old in jobs.contains { $0.matches(old) } }
            state.jobs.append(contentsOf: jobs)
            if state.jobs.count > Self.capacity { state.jobs.removeFirst(state.jobs.count - Self.capacity) }
            guard !state.running, !state.jobs.isEmpty else { return false }
            state.running = true
            return true
        }
        // A thread of its own: decoding must not hold one of the shared pool's few threads.
        if start {
            let thread = Thread { self.drain() }
            thread.name = "mediaindex-thumbnail-prefetch"
            thread.start()
        }
    }

    func remove(_ keys: Set<String>, request: ThumbnailRequest, library: MediaLibrary) {
        state.withLock { state in
            state.jobs.removeAll { $0.library === library && $0.request == request && keys.contains("\($0.asset.id)|\($0.asset.revision)") }
        }
    }

    func removeAll(library: MediaLibrary) {
        state.withLock { state in state.jobs.removeAll { $0.library === library } }
    }

    func count(library: MediaLibrary) -> Int {
        state.withLock { state in state.jobs.filter { $0.library === library }.count }
    }

    /// Makes thumbnails, newest first, until the queue is empty.
    private func drain() {
        while let job = (state.withLock { state -> Job? in
            let next = state.jobs.popLast()
            if next == nil { state.running = false }
            return next
        }) {
            _ = try? job.library.blocking.thumbnail(for: job.asset, size: job.request.maxPixelSize,
                                                    mode: job.request.mode, format: job.request.format)
        }
    }
}
