import MediaMetadata

/// What a picker shows as one item: a photo or a video, with its resources (files).
///
/// Field names match the JSON asset shape documented in the README.
public struct Asset: Sendable, Equatable, Identifiable {
    /// Opaque, URL-safe, stable identifier.
    public var id: String
    public var mediaType: MediaType
    /// Subtype names, such as `livePhoto` or `screenshot`.
    public var mediaSubtypes: [String]
    /// ISO 8601 as the file records it: with the offset when known, `Z` for UTC,
    /// no suffix when only local time is known.
    public var creationDate: String?
    /// Size as displayed, after orientation.
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// EXIF orientation 1–8.
    public var orientation: Int?
    public var durationSeconds: Double?
    public var frameRate: Double?
    public var videoCodec: String?
    public var hasAudio: Bool?
    public var location: GeoLocation?
    public var make: String?
    public var model: String?
    /// The make as people name it (`Nikon` for `NIKON CORPORATION`); see `CameraNames`.
    public var cameraMake: String? { CameraNames.make(make) }
    /// The model without a repeated make (`EOS 6D` for `Canon EOS 6D`); see `CameraNames`.
    public var cameraModel: String? { CameraNames.model(model, make: make) }
    public var software: String?
    public var lensMake: String?
    public var lensModel: String?
    public var focalLength: Double?
    public var fNumber: Double?
    public var exposureTime: Double?
    public var iso: Int?
    public var flash: Int?
    public var contentIdentifier: String?
    public var burstIdentifier: String?
    /// Bumped each time the primary content changes, so caches know.
    public var revision: Int
    /// Unix time the asset was first indexed.
    public var addedDate: Double
    /// Unix time the asset's content or metadata last changed in the index.
    public var modificationDate: Double
    public var resources: [AssetResource]
    /// Which rule made this a multi-resource asset: `contentIdentifier`,
    /// `sameStemShortMovie`, `motionPhoto` or `rawPlusJpeg`; nil for a single file.
    public var pairingRule: String? = nil
    /// The MP4 inside a motion photo's still; nil for every other asset.
    public var embeddedVideo: EmbeddedVideo? = nil
    /// Star rating, -1 (rejected) to 5, from an XMP sidecar (`xmp:Rating`); nil without one.
    public var rating: Int? = nil
    /// The user marked it a favorite (user state, kept by identifier).
    public var favorite: Bool = false
    /// The user hid it; hidden assets are left out of queries unless asked for.
    public var hidden: Bool = false
    /// Identifiers of the user albums that hold it.
    public var albums: [String] = []
}

/// Where a motion photo's video sits inside its still file.
public struct EmbeddedVideo: Sendable, Equatable {
    /// Byte offset from the start of the primary file.
    public var offset: Int64
    public var length: Int64
    public var durationSeconds: Double?
}

/// One file of an asset, as PHAssetResource.
public struct AssetResource: Sendable, Equatable {
    /// `photo`, `video`, `pairedVideo`, `alternatePhoto` or `sidecar`.
    public var role: String
    public var path: PathBytes
    public var bytes: Int64
    public var contentType: String?
}

/// A file that could not be read, as `mediaindex errors` lists it.
public struct IndexedFileError: Sendable, Equatable {
    public var path: PathBytes
    public var message: String
    public var bytes: Int64
    /// Unix time of the run that recorded it.
    public var recordedAt: Double
}

/// A registered root folder.
public struct LibraryRoot: Sendable, Equatable {
    public var path: PathBytes
    public var addedAt: Double
    public var lastIndexedAt: Double?
    /// Assets with a resource under this root.
    public var assetCount: Int
    public var errorCount: Int
}

/// Counts for `mediaindex stats`.
public struct LibraryStatistics: Sendable, Equatable {
    public var assets: Int
    public var images: Int
    public var videos: Int
    public var files: Int
    public var errors: Int
    public var ignored: Int
    public var roots: Int
    public var totalBytes: Int64
    /// Assets by format raw value, most first.
    public var byFormat: [(format: String, count: Int)]
    public var schemaVersion: Int
    public var lastRun: IndexSummary?

    public static func == (a: LibraryStatistics, b: LibraryStatistics) -> Bool {
        a.assets == b.assets && a.files == b.files && a.errors == b.errors && a.ignored == b.ignored
            && a.byFormat.map(\.format) == b.byFormat.map(\.format) && a.byFormat.map(\.count) == b.byFormat.map(\.count)
    }
}
