import MediaMetadata

extension ThumbnailGenerator {
    /// The reduced decode hashes are read from when no thumbnail is being made: large
    /// enough that a camera's 160-pixel EXIF thumbnail (which an editor may leave stale)
    /// never stands in, small enough that a JPEG decodes at 1/8 scale.
    public static let hashingRequest = ThumbnailRequest(maxPixelSize: 256, mode: .fit, format: .jpeg(quality: 50))

    /// Where in a video its hashed frames are taken, as fractions of the duration.
    public static let hashedVideoFractions = [0.25, 0.5, 0.75]

    /// The perceptual hashes of the file at `path` (bytes, passed to ffmpeg exactly),
    /// upright: a still's from a reduced decode, a video's from the average of its frames
    /// at `hashedVideoFractions` of `durationSeconds`.
    ///
    /// - Throws: `ThumbnailError`, as a thumbnail of the file would (`.needsFFmpeg` for a
    ///   video without ffmpeg).
    public static func perceptualHashes(ofFileAtBytes path: [UInt8], format: MediaFormat?, orientation: Int?,
                                        durationSeconds: Double?) throws -> PerceptualHashes {
        if let format, format.mediaType == .video {
            return try videoHashes(ofFileAtBytes: path, durationSeconds: durationSeconds)
        }
        let thumbnail = try thumbnail(ofFileAtBytes: path, request: hashingRequest, format: format, orientation: orientation)
        guard let hashes = thumbnail.hashes else { throw ThumbnailError.decodeFailed("the picture could not be hashed") }
        return hashes
    }

    /// A video's hashes: frames at fixed fractions of its duration (one frame 10 % in
    /// when the duration is unknown), averaged.
    static func videoHashes(ofFileAtBytes path: [UInt8], durationSeconds: Double?) throws -> PerceptualHashes {
        let times = durationSeconds.map { duration in hashedVideoFractions.map { $0 * duration } }
            ?? [VideoFrameExtractor.posterTime(stillTime: nil, duration: nil)]
        let request = ThumbnailRequest(maxPixelSize: 64, mode: .fit)
        var frames: [PixelBuffer] = []
        for seconds in times {
            frames.append(try VideoFrameExtractor.frame(pathBytes: path, seconds: seconds, request: request).image)
        }
        guard let hashes = PerceptualHashes.of(frames: frames) else {
            throw ThumbnailError.decodeFailed("ffmpeg produced no frame to hash")
        }
        return hashes
    }
}
