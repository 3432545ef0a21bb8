import Foundation
import MediaMetadata
import MediaThumbnails
import Synchronization

/// Where a video's compatible rendition stands.
public enum VideoRendition: Sendable, Equatable {
    /// Browsers play the source as it is (H.264 in MP4, VP9 in WebM, …): serve it.
    case asIs(AssetResource)
    /// The H.264 rendition is in the cache.
    case ready(CachedRendition)
    /// ffmpeg is making it: `secondsDone` of `duration` seconds so far (either nil when not known yet).
    case making(key: String, secondsDone: Double?, duration: Double?)
}

/// More transcodes were asked for than may run at once (`VideoRenditionJobs.maxConcurrent`).
public struct RenditionsBusy: Error, CustomStringConvertible, Sendable {
    public var running: Int
    public var description: String {
        "\(running) video renditions are being made, the most at once; ask again in a few seconds"
    }
}

/// The transcodes running in this process, keyed by rendition key, and the ones that
/// failed (a broken source is not retried until the server restarts or the file changes).
public final class VideoRenditionJobs: Sendable {
    public static let shared = VideoRenditionJobs()
    struct Job: Sendable {
        var progressPath: String
        var duration: Double?
    }
    let running = Mutex<[String: Job]>([:])
    let failures = Mutex<[String: String]>([:])
    private let limit = Mutex(2)

    /// How many transcodes may run at once (2: the machine's other work keeps going).
    public var maxConcurrent: Int {
        get { limit.withLock { $0 } }
        set { limit.withLock { $0 = max(1, newValue) } }
    }
}

extension MediaLibrary.Blocking {
    /// The compatible rendition of one of `asset`'s movies (`source`: its video, edited
    /// video or a live photo's paired movie): the source itself when browsers play it,
    /// the cached H.264 rendition, or one being made, started by this call when `start`.
    ///
    /// - Throws: `ThumbnailUnavailable` with state `.needsFFmpeg` without ffmpeg, `.failed`
    ///   (with ffmpeg's sentence) when the source cannot be converted; `RenditionsBusy`
    ///   when as many transcodes as allowed are running; `LibraryError` for the cache.
    public func compatibleVideo(for asset: Asset, source: AssetResource, start: Bool = true) throws -> VideoRendition {
        let metadata = (try? library.read { db in try FileRecord.storedMetadata(ofPath: source.path, db: db) }) ?? nil
        if VideoTranscoder.playsAsIs(codec: metadata?.videoCodec, contentType: source.uniformType?.preferredMIMEType) { return .asIs(source) }
        let key = MediaLibrary.renditionKey(asset, source: source, kind: "h264", options: "\(VideoTranscoder.preset)|crf23|aac160")
        return try videoRendition(of: asset, source: source, slice: nil, key: key, duration: metadata?.durationSeconds,
                                  colour: metadata?.videoColour, start: start)
    }

    /// The compatible rendition of a motion photo's embedded movie (`asset.embeddedVideo`,
    /// Samsung's and Google's MP4 after the still): nil when browsers play it as it is (H.264),
    /// so the movie's bytes are served; otherwise (HEVC, as recent Samsung phones write) the
    /// cached H.264 rendition, or one being made from that part of the file.
    ///
    /// - Throws: as `compatibleVideo(for:source:start:)`; `ThumbnailUnavailable` with state
    ///   `.failed` for an asset without an embedded movie.
    public func compatibleEmbeddedVideo(for asset: Asset, start: Bool = true) throws -> VideoRendition? {
        guard let video = asset.embeddedVideo, let primary = asset.primaryResource else {
            throw ThumbnailUnavailable(identifier: asset.id, state: .failed, reason: "the asset has no embedded video")
        }
        let slice = (offset: UInt64(max(0, video.offset)), length: UInt64(max(0, video.length)))
        let location = try library.confinedLocation(of: primary)
        let file = try FileByteSource(pathBytes: location.path, beneath: location.root)
        let movie = (try? ISOBMFFReader.read(ByteSourceSlice(file, offset: slice.offset, length: slice.length), format: .mp4))?.metadata
        if VideoTranscoder.playsAsIs(codec: movie?.videoCodec, contentType: "video/mp4") { return nil }
        let key = MediaLibrary.renditionKey(asset, source: primary, kind: "h264-embedded\(slice.offset)-\(slice.length)",
                                            options: "\(VideoTranscoder.preset)|crf23|aac160")
        return try videoRendition(of: asset, source: primary, slice: slice, key: key,
                                  duration: movie?.durationSeconds ?? video.duration, colour: movie?.videoColour, start: start)
    }

    /// The cached rendition under `key`, or the transcode of `source` (of `slice` of it) that
    /// makes it: running, or started by this call when `start`.
    private func videoRendition(of asset: Asset, source: AssetResource, slice: VideoTranscoder.Slice?, key: String,
                                duration: Double?, colour: CodedVideoColour?, start: Bool) throws -> VideoRendition {
        let cache = library.renditionCache
        if cache.cachedSize(key: key, fileExtension: "mp4") != nil {
            return .ready(CachedRendition(path: cache.path(key: key, fileExtension: "mp4"), key: key, source: source, made: false))
        }
        let jobs = VideoRenditionJobs.shared
        if let failure = jobs.failures.withLock({ $0[key] }) {
            throw ThumbnailUnavailable(identifier: asset.id, state: .failed, reason: failure)
        }
        if let job = jobs.running.withLock({ $0[key] }) {
            return .making(key: key, secondsDone: VideoTranscoder.secondsDone(progressFile: job.progressPath), duration: job.duration)
        }
        guard VideoTranscoder.isAvailable, library.canMakeVideoFrames else {
            throw ThumbnailUnavailable(identifier: asset.id, state: .needsFFmpeg,
                                       reason: "the ffmpeg program is not installed; it converts this video to H.264 for browsers")
        }
        guard start else { return .making(key: key, secondsDone: nil, duration: duration) }
        let location = try library.confinedLocation(of: source)
        _ = try FileByteSource(pathBytes: location.path, beneath: location.root)  // still inside its root, no link followed
        let output = try cache.temporaryPath(key: key, fileExtension: "mp4")
        let progress = output + ".progress"
        let limit = jobs.maxConcurrent
        let admitted: Bool? = jobs.running.withLock { running -> Bool? in
            if running[key] != nil { return nil }
            guard running.count < limit else { return false }
            running[key] = VideoRenditionJobs.Job(progressPath: progress, duration: duration)
            return true
        }
        switch admitted {
        case nil: return .making(key: key, secondsDone: nil, duration: duration)
        case false?: throw RenditionsBusy(running: limit)
        case true?: break
        }
        let library = self.library
        Thread.detachNewThread {
            library.runTranscode(source: source, slice: slice, output: output, progress: progress, key: key, colour: colour)
        }
        return .making(key: key, secondsDone: nil, duration: duration)
    }
}

extension MediaLibrary {
    /// One transcode, on its own thread: ffmpeg writes a temporary file, which is renamed
    /// into place only when it finished; a failure is remembered with its sentence.
    func runTranscode(source: AssetResource, slice: VideoTranscoder.Slice?, output: String, progress: String, key: String,
                      colour: CodedVideoColour?) {
        let cache = renditionCache
        do {
            try VideoTranscoder.transcode(pathBytes: source.path.bytes, slice: slice, output: output, progress: progress,
                                          colour: colour)
            try cache.publish(temporary: output, key: key, fileExtension: "mp4")
            trimRenditionsOccasionally()
        } catch {
            cache.discard(temporary: output)
            var reason = "\(error)"
            if case .decodeFailed(let sentence)? = error as? ThumbnailError { reason = sentence }
            VideoRenditionJobs.shared.failures.withLock { $0[key] = reason }
        }
        cache.discard(temporary: progress)
        VideoRenditionJobs.shared.running.withLock { _ = $0.removeValue(forKey: key) }
    }
}
