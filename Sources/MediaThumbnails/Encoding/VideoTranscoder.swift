import ChildProcesses
import Foundation
import MediaMetadata

/// Makes a video's compatible rendition (PhotoKit's `.compatible`) with the `ffmpeg`
/// program: H.264 (libx264, `ultrafast`, CRF 23, yuv420p) and AAC in an MP4 whose index
/// comes first (`+faststart`), upright (ffmpeg's autorotate), interlaced frames
/// deinterlaced, HDR tone-mapped to SDR as thumbnails are (`VideoFrameExtractor.toneMapping`).
public enum VideoTranscoder {
    /// libx264's preset: `ultrafast`, the one that makes a 1080p30 HEVC clip at 2× real
    /// time or faster on two cores (`superfast` took 1.5 times its CPU; docs/performance.md).
    public static let preset = "ultrafast"

    /// Whether `ffmpeg` is on `PATH`.
    public static var isAvailable: Bool { VideoFrameExtractor.ffmpegPath != nil }

    /// Whether browsers play the file as it is: H.264 in MP4 or QuickTime, VP8, VP9 or AV1
    /// in WebM. Everything else (HEVC, MPEG-4 Part 2, ProRes, MJPEG, DV, MPEG-1/2, WMV,
    /// Theora, H.264 in Matroska, AVI or MPEG-TS) gets a rendition.
    public static func playsAsIs(codec: String?, contentType: String?) -> Bool {
        switch (codec?.lowercased(), contentType?.lowercased()) {
        case ("h264", "video/mp4"?), ("h264", "video/quicktime"?): return true
        case ("vp8", "video/webm"?), ("vp9", "video/webm"?), ("av1", "video/webm"?): return true
        default: return false
        }
    }

    /// Part of a file that holds a movie of its own: a motion photo's embedded MP4.
    public typealias Slice = (offset: UInt64, length: UInt64)

    /// The ffmpeg arguments that transcode `path` (or `slice` of it, through ffmpeg's
    /// `subfile` protocol, which shows the movie its own offsets) into `output`, writing
    /// progress (`key=value` blocks with `out_time_us`) to `progress`.
    static func arguments(path: [UInt8], slice: Slice? = nil, output: String, progress: String,
                          colour: CodedVideoColour?) -> [[UInt8]] {
        let toneMap = colour.flatMap(VideoFrameExtractor.toneMapping).map { $0 + "," } ?? ""
        // Even sizes (4:2:0 needs them), square pixels in the shape players show.
        let filters = "yadif=deint=interlaced," + toneMap
            + "scale=w='trunc(iw*sar/2)*2':h='trunc(ih/2)*2',setsar=1,format=yuv420p"
        let head = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i"].map { Array($0.utf8) }
        let tail = ["-map", "0:v:0", "-map", "0:a:0?", "-vf", filters,
                    "-c:v", "libx264", "-preset", preset, "-crf", "23", "-profile:v", "high",
                    "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709",
                    "-c:a", "aac", "-b:a", "160k", "-ac", "2", "-movflags", "+faststart",
                    "-map_metadata", "0", "-progress", "file:" + progress, "-nostats", "-f", "mp4", "file:" + output]
        let input = slice.map { "subfile,,start,\($0.offset),end,\($0.offset + $0.length),,:file:" } ?? "file:"
        return head + [Array(input.utf8) + path] + tail.map { Array($0.utf8) }
    }

    /// Transcodes the video at `path` into `output` (which the caller renames into place
    /// once this returns), reporting progress to the file `progress`.
    ///
    /// - Throws: `ThumbnailError.needsFFmpeg` without ffmpeg; `.decodeFailed` with
    ///   ffmpeg's last line when it fails or outlives `timeoutSeconds`.
    public static func transcode(pathBytes path: [UInt8], slice: Slice? = nil, output: String, progress: String,
                                 colour: CodedVideoColour?, timeoutSeconds: Double = 4 * 3600) throws {
        guard let ffmpeg = VideoFrameExtractor.ffmpegPath else { throw ThumbnailError.needsFFmpeg }
        var transcoding = ChildProcess(executable: ffmpeg, argumentBytes: arguments(path: path, slice: slice, output: output,
                                                                                    progress: progress, colour: colour))
        transcoding.standardError = .collectLast(bytes: 65_536)
        let outcome: ChildProcess.Outcome
        do { outcome = try transcoding.run(timeoutSeconds: timeoutSeconds) } catch {
            throw ThumbnailError.decodeFailed("\(error)")
        }
        if outcome.timedOut { throw ThumbnailError.decodeFailed("ffmpeg took longer than \(Int(timeoutSeconds)) s and was stopped") }
        guard outcome.exitStatus == 0 else {
            let lines = String(decoding: outcome.standardError, as: UTF8.self).split(separator: "\n")
            if lines.contains(where: { $0.contains("'0:v:0' matches no streams") }) {
                throw ThumbnailError.decodeFailed("ffmpeg finds no video stream in the file")
            }
            let lastLine = lines.last.map(String.init) ?? "it stopped without a message"
            throw ThumbnailError.decodeFailed("ffmpeg could not convert the video: \(lastLine)")
        }
        // ffmpeg ends well when the container opens but no frame decodes (a cut-off file).
        if value("frame", progressFile: progress) == 0 {
            throw ThumbnailError.decodeFailed("ffmpeg found no video frame it could decode in the file")
        }
    }

    /// The last value of `key` in a progress file.
    static func value(_ key: String, progressFile: String) -> Double? {
        guard let text = try? String(contentsOfFile: progressFile, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n").reversed() where line.hasPrefix(key + "=") {
            if let number = Double(line.dropFirst(key.count + 1)), number >= 0 { return number }
        }
        return nil
    }

    /// How many seconds of the video a running transcode has written, read from its
    /// progress file (the last `out_time_us`); nil before the first report.
    public static func secondsDone(progressFile: String) -> Double? {
        value("out_time_us", progressFile: progressFile).map { $0 / 1_000_000 }
    }
}
