import MediaMetadata

/// The media subtypes MediaIndex records, as a bit set stored in `assets.subtypes`.
///
/// Names follow PHAssetMediaSubtype where Apple has one; `raw`, `motionPhoto`,
/// `selfie` and `animated` are ours. Bit positions are part of the schema: never
/// renumber, only add.
public struct MediaSubtypes: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let raw = MediaSubtypes(rawValue: 1 << 0)
    public static let livePhoto = MediaSubtypes(rawValue: 1 << 1)
    public static let motionPhoto = MediaSubtypes(rawValue: 1 << 2)
    public static let screenshot = MediaSubtypes(rawValue: 1 << 3)
    public static let panorama = MediaSubtypes(rawValue: 1 << 4)
    public static let hdr = MediaSubtypes(rawValue: 1 << 5)
    public static let depthEffect = MediaSubtypes(rawValue: 1 << 6)
    public static let selfie = MediaSubtypes(rawValue: 1 << 7)
    public static let animated = MediaSubtypes(rawValue: 1 << 8)
    public static let slomoVideo = MediaSubtypes(rawValue: 1 << 9)
    public static let timelapseVideo = MediaSubtypes(rawValue: 1 << 10)
    public static let screenRecording = MediaSubtypes(rawValue: 1 << 11)
    public static let cinematicVideo = MediaSubtypes(rawValue: 1 << 12)
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
