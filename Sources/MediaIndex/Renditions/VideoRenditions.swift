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
        let cache = library.renditionCache
        let key = MediaLibrary.renditionKey(asset, source: source, kind: "h264", options: "veryfast|crf23|aac160")
        if cache.cachedSize(key: key, fileExtension: "mp4") != nil {
            return .ready(CachedRendition(path: cache.path(key: key, fileExtension: "mp4"), key: key, source: source, made: false))
        }
        let jobs = VideoRenditionJobs.shared
        if let failure = jobs.failures.withLock({ $0[key] }) {
            throw ThumbnailUnavailable(identifier: asset.id, state: .failed, reason: failure)
        }
        let duration = metadata?.durationSeconds
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
        let colour = metadata?.videoColour
        let library = self.library
        Thread.detachNewThread {
            library.runTranscode(source: source, output: output, progress: progress, key: key, colour: colour)
        }
        return .making(key: key, secondsDone: nil, duration: duration)
    }
}

extension MediaLibrary {
    /// One transcode, on its own thread: ffmpeg writes a temporary file, which is renamed
    /// into place only when it finished; a failure is remembered with its sentence.
    func runTranscode(source: AssetResource, output: String, progress: String, key: String, colour: CodedVideoColour?) {
        let cache = renditionCache
        do {
            try VideoTranscoder.transcode(pathBytes: source.path.bytes, output: output, progress: progress, colour: colour)
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
