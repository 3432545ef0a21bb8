import MediaMetadata

/// The media subtypes MediaIndex records, as a bit set stored in `assets.subtypes`.
///
/// Names follow PHAssetMediaSubtype where Apple has one; `raw`, `motionPhoto`,
/// `selfie` and `animated` are ours. Bit positions are part of the schema: never
/// renumber, only add.
public struct MediaSubtypes: OptionSet, Sendable, Hashable {
    /// The bits, as `assets.subtypes` stores them.
    public let rawValue: Int
    /// The set these bits stand for.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A camera raw (alone or with its JPEG).
    public static let raw = MediaSubtypes(rawValue: 1 << 0)
    /// A still with its movie (Apple live photo).
    public static let livePhoto = MediaSubtypes(rawValue: 1 << 1)
    /// A still with a movie inside (Google, Samsung).
    public static let motionPhoto = MediaSubtypes(rawValue: 1 << 2)
    /// A screenshot.
    public static let screenshot = MediaSubtypes(rawValue: 1 << 3)
    /// A panorama.
    public static let panorama = MediaSubtypes(rawValue: 1 << 4)
    /// An HDR capture.
    public static let hdr = MediaSubtypes(rawValue: 1 << 5)
    /// A portrait (depth effect) photo.
    public static let depthEffect = MediaSubtypes(rawValue: 1 << 6)
    /// Taken with the front camera.
    public static let selfie = MediaSubtypes(rawValue: 1 << 7)
    /// An animated image (GIF, animated WebP/PNG).
    public static let animated = MediaSubtypes(rawValue: 1 << 8)
    /// A slow-motion video.
    public static let slomoVideo = MediaSubtypes(rawValue: 1 << 9)
    /// A time-lapse video.
    public static let timelapseVideo = MediaSubtypes(rawValue: 1 << 10)
    /// A screen recording.
    public static let screenRecording = MediaSubtypes(rawValue: 1 << 11)
    /// A cinematic-mode video.
    public static let cinematicVideo = MediaSubtypes(rawValue: 1 << 12)
    /// Spatial (stereo) photo or video.
    public static let spatialMedia = MediaSubtypes(rawValue: 1 << 13)

    /// Names as they appear in JSON, in a fixed order.
    public static let names: [(MediaSubtypes, String)] = [
        (.livePhoto, "livePhoto"), (.motionPhoto, "motionPhoto"), (.raw, "raw"), (.screenshot, "screenshot"),
        (.panorama, "panorama"), (.hdr, "hdr"), (.depthEffect, "depthEffect"), (.selfie, "selfie"),
        (.animated, "animated"), (.slomoVideo, "slomoVideo"), (.timelapseVideo, "timelapseVideo"),
        (.screenRecording, "screenRecording"), (.cinematicVideo, "cinematicVideo"), (.spatialMedia, "spatialMedia"),
    ]

    /// The names of the subtypes in the set, in the fixed order.
    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

    /// The subtype a name denotes, if any.
    public init?(name: String) {
        guard let match = Self.names.first(where: { $0.1 == name }) else { return nil }
        self = match.0
    }

    /// The subtypes a single file's own metadata shows (pairing adds `livePhoto`).
    public init(inferredFrom metadata: MediaMetadata, fileName: String? = nil) {
        self = SubtypeClassifier.subtypes(of: metadata, fileName: fileName)
    }
}

extension MediaSubtypes: CustomStringConvertible {
    /// The names, as the JSON lists them (`[livePhoto, hdr]`), not the bits.
    public var description: String { "[" + names.joined(separator: ", ") + "]" }
}
