import MediaMetadata

/// Decides a file's media subtypes from its own metadata and name.
///
/// Every rule rests on a tag or naming convention seen in real files (see
/// `docs/subtypes.md` for the evidence). Where no file-level signal is known the
/// subtype stays unset: `screenRecording`, `cinematicVideo` and `spatialMedia` are
/// never inferred yet. Pairing adds `livePhoto` (Apple pairs) and `raw` (RAW+JPEG).
public enum SubtypeClassifier {
    /// The capture rate from which a movie is slow motion.
    public static let slowMotionMinimumFrameRate = 100.0
    /// The aspect ratio (long side over short side) from which a camera photo is a panorama:
    /// wider than any frame a camera takes in one shot (phones crop up to 21:9, 2.33).
    public static let panoramaMinimumAspectRatio = 2.5

    /// The subtypes one file shows on its own.
    ///
    /// - Parameter fileName: the file's name (last path component), for naming
    ///   conventions such as Android's `Screenshot_…`; nil when unknown.
    public static func subtypes(of m: MediaMetadata, fileName: String?) -> MediaSubtypes {
        var subtypes: MediaSubtypes = []
        if m.format.isRaw { subtypes.insert(.raw) }
        if m.motionPhoto != nil { subtypes.formUnion([.livePhoto, .motionPhoto]) }
        switch m.format.mediaType {
        case .image:
            if isScreenshot(m, fileName: fileName) { subtypes.insert(.screenshot) }
            if isPanorama(m) { subtypes.insert(.panorama) }
            if m.hasGainMap == true { subtypes.insert(.hdr) }
            if m.hasDepth == true || m.hasPortraitMatte == true { subtypes.insert(.depthEffect) }
            if isFrontCamera(m) { subtypes.insert(.selfie) }
            if m.isAnimated == true || (m.frameCount ?? 0) > 1 { subtypes.insert(.animated) }
        case .video:
            if isSlowMotion(m) { subtypes.insert(.slomoVideo) }
            if isTimeLapse(m) { subtypes.insert(.timelapseVideo) }
            if isFrontCamera(m) { subtypes.insert(.selfie) }
        }
        return subtypes
    }

    /// iOS writes `UserComment = "Screenshot"`; Android names screenshots
    /// `Screenshot_<date>…` and, unlike a camera, writes no make.
    static func isScreenshot(_ m: MediaMetadata, fileName: String?) -> Bool {
        if let comment = m.userComment, comment.caseInsensitiveCompare("Screenshot") == .orderedSame { return true }
        guard m.make == nil, let name = fileName?.lowercased() else { return false }
        return name.hasPrefix("screenshot_")
    }

    /// A photo sphere or panorama by its GPano projection or viewer flag, or a camera
    /// photo (it has a make) at least 2.5 times as long as it is high.
    static func isPanorama(_ m: MediaMetadata) -> Bool {
        if let projection = m.panoramaProjectionType?.lowercased(),
           projection == "equirectangular" || projection == "cylindrical" { return true }
        if m.usesPanoramaViewer == true { return true }
        guard m.make != nil, let w = m.pixelWidth, let h = m.pixelHeight, w > 0, h > 0 else { return false }
        return Double(max(w, h)) / Double(min(w, h)) >= panoramaMinimumAspectRatio
    }

    /// Phone makers name the lens in `LensModel`: "iPhone 5 front camera 2.18mm f/2.4".
    static func isFrontCamera(_ m: MediaMetadata) -> Bool {
        guard let lens = m.lensModel?.lowercased() else { return false }
        return lens.contains("front")
    }

    /// Captured at 100 fps or more: Android's `com.android.capture.fps`, else the
    /// track's nominal rate (iPhone slow-motion movies keep their 120/240 fps track).
    static func isSlowMotion(_ m: MediaMetadata) -> Bool {
        if let capture = m.captureFrameRate { return capture >= slowMotionMinimumFrameRate }
        return (m.frameRate ?? 0) >= slowMotionMinimumFrameRate
    }

    /// Captured at less than half the playback rate (Android time-lapse: capture fps
    /// 2, playback 30).
    static func isTimeLapse(_ m: MediaMetadata) -> Bool {
        guard let capture = m.captureFrameRate, let playback = m.frameRate, capture > 0, playback > 0 else { return false }
        return capture < playback / 2
    }
}
