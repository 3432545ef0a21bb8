import Foundation
import MediaMetadata

/// What a picker shows as one item: a photo or a video, with its resources (files)
/// and the user's marks, always whole (PHAsset).
///
/// Property names match the JSON asset shape documented in the README. Each field is
/// declared once, in the field table (`AssetFields.all`): its column, how it is read
/// and filled, and how the JSON writes it.
public struct Asset: Sendable, Equatable, Identifiable {
    /// Opaque, URL-safe, stable identifier.
    public var id: ID
    /// Image or video.
    public var mediaType: MediaType
    /// Live photo, screenshot, panorama…
    public var mediaSubtypes: MediaSubtypes
    /// The capture time: the instant with the offset it was written with; nil when the
    /// file records none. The JSON's `creationDate` (as `captureTime.iso8601`).
    public var captureTime: CaptureTime?
    /// Size as displayed, after orientation.
    public var pixelWidth: Int?
    /// Height as displayed, after orientation.
    public var pixelHeight: Int?
    /// EXIF orientation 1–8.
    public var orientation: Int?
    /// A video's length in seconds, or a live photo's movie's (PHAsset's `duration`); nil
    /// for a still, or when the file does not say. The JSON's `durationSeconds`.
    public var duration: TimeInterval?
    /// A video's frames per second.
    public var frameRate: Double?
    /// A video's codec (`hvc1`, `avc1`…).
    public var videoCodec: String?
    /// Whether a video has a sound track.
    public var hasAudio: Bool?
    /// Where it was taken.
    public var location: GeoLocation?
    /// The place of `location` (offline places data); nil without a position or without the data.
    public var place: Place?
    /// The IANA time zone of `location`.
    public var timeZone: String?
    /// Where `captureTime`'s offset (`CaptureTime.offsetSeconds`) came from; `none` when no
    /// rule gave one.
    public var captureOffsetSource: CaptureOffsetSource?
    /// Camera maker.
    public var make: String?
    /// Camera model.
    public var model: String?
    /// The make as people name it (`Nikon` for `NIKON CORPORATION`); see `CameraNames`.
    public var cameraMake: String? { CameraNames.make(make) }
    /// The model without a repeated make (`EOS 6D` for `Canon EOS 6D`); see `CameraNames`.
    public var cameraModel: String? { CameraNames.model(model, make: make) }
    /// The exposure as `show` prints it: focal length, aperture, exposure time and ISO,
    /// those the file records (`4.2 mm, f/1.8, 1/120 s, ISO 100`); nil when it records none.
    package var exposureSummary: String? {
        var parts: [String] = []
        if let f = focalLength { parts.append(String(format: "%g mm", f)) }
        if let n = fNumber { parts.append(String(format: "f/%g", n)) }
        if let t = exposureTime { parts.append(t < 1 && t > 0 ? "1/\(Int((1 / t).rounded())) s" : String(format: "%g s", t)) }
        if let iso { parts.append("ISO \(iso)") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
    /// The software that wrote the file.
    public var software: String?
    /// Lens maker.
    public var lensMake: String?
    /// Lens model.
    public var lensModel: String?
    /// Focal length in millimetres.
    public var focalLength: Double?
    /// Aperture (f-number).
    public var fNumber: Double?
    /// Exposure time in seconds.
    public var exposureTime: Double?
    /// ISO speed.
    public var iso: Int?
    /// EXIF flash value.
    public var flash: Int?
    /// Apple's content identifier, shared by a live photo's still and movie.
    public var contentIdentifier: String?
    /// The burst this frame belongs to.
    public var burstIdentifier: String?
    /// Bumped each time the primary content changes, so caches know.
    public var revision: Int
    /// When the asset was first indexed.
    public var addedDate: Date
    /// When the asset's content or metadata last changed in the index.
    public var modificationDate: Date
    /// Its files, the primary one first.
    public var resources: [AssetResource]
    /// Every path of its primary file: the one indexed first, then its other names
    /// (hard links, bind-mounted or linked views) in byte order. The JSON's `paths`,
    /// written only when there is more than one.
    public var paths: [PathBytes] { resources.first.map { [$0.path] + $0.otherPaths } ?? [] }
    /// Which rule made this a multi-resource asset; nil for a single file.
    public var pairingRule: PairingRule?
    /// The MP4 inside a motion photo's still; nil for every other asset.
    public var embeddedVideo: EmbeddedVideo?
    /// Star rating, -1 (rejected) to 5: an XMP sidecar's `xmp:Rating`, else the file's own
    /// (`xmp:Rating`, EXIF `Rating`/`RatingPercent`, Microsoft's; see `docs/descriptive-metadata.md`).
    public var rating: Int?
    /// Keywords as a set of paths (`Places|France|Paris`): an XMP sidecar's, else the
    /// file's (every keyword family reconciled, `docs/descriptive-metadata.md`), else the
    /// user's own when set through MediaIndex (`userDescribed` says so).
    public var keywords: [String] = []
    /// The title: `dc:title`, IPTC `ObjectName`, `XPTitle`, QuickTime's, Takeout's.
    public var title: String?
    /// The caption: `dc:description`, IPTC `Caption-Abstract`, EXIF `ImageDescription` …
    public var caption: String?
    /// The colour label (`xmp:Label`: `Red`, `Green` …).
    public var label: String?
    /// The people named in the picture, with their faces' rectangles where given.
    public var people: [PersonInImage] = []
    /// The creators (`dc:creator`, `Artist`, `By-line`), joined by `; `.
    public var creator: String?
    /// The copyright notice (`dc:rights`, `Copyright`, `CopyrightNotice`).
    public var copyright: String?
    /// The fields whose value is the user's own, set through MediaIndex (user state) over
    /// the file's: among `rating`, `title`, `caption`, `keywords`. Empty when all are the files'.
    public var userDescribed: [Asset.Field] = []
    /// The asset has an edit (PHAsset's `hasAdjustments`): an edited rendering
    /// (`fullSizePhoto`, `fullSizeVideo`, `fullSizePairedVideo`) or Apple's adjustments
    /// (`adjustmentData`, an `.AAE` file) among its resources.
    public var hasAdjustments: Bool = false
    /// What the asset's Apple adjustments file says; nil without one.
    public var adjustments: Adjustments?
    /// The `title` of its Google Takeout JSON: the name the file was uploaded to Google
    /// Photos under; nil without one.
    public var takeoutTitle: String?
    /// The `description` of its Google Takeout JSON: the caption written in Google
    /// Photos; nil without one (or when empty).
    public var takeoutDescription: String?
    /// The user marked it a favorite (user state, kept by identifier). The JSON's `favorite`.
    public var isFavorite: Bool = false
    /// The user hid it; hidden assets are left out of fetches unless asked for. The JSON's `hidden`.
    public var isHidden: Bool = false
    /// The user albums that hold it, by title (their `Album.id`s).
    public var albums: [Album.ID] = []

    /// An asset with these resources and every field empty, for the field table's reads
    /// to fill (`AssetFields.asset(from:offset:resources:)`).
    init(resources: [AssetResource]) {
        id = ID(stored: "")
        mediaType = .image
        mediaSubtypes = []
        revision = 1
        addedDate = Date(timeIntervalSince1970: 0)
        modificationDate = addedDate
        self.resources = resources
    }
}

extension Asset {
    /// The identifier's text (PHAsset's `localIdentifier`); `id` is the typed `Asset.ID`.
    public var localIdentifier: String { id.rawValue }

    /// The moment of capture (PHAsset's `creationDate`): `captureTime.date`. When the
    /// file records only the local time, that wall-clock time is read as UTC.
    public var creationDate: Date? { captureTime?.date }
}

extension CaptureDate {
    /// Parses the ISO 8601 text `iso8601` writes: `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction, then `Z`, `±HH:MM` or nothing.
    init?(recordedText text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var index = 19
        var nanosecond = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                if digits < 9 { nanosecond = nanosecond * 10 + Int(bytes[index] - 0x30); digits += 1 }
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanosecond *= 10 }
        }
        var offset: Int?
        if index < bytes.count {
            guard let parsed = CaptureDate.parseOffset(String(decoding: bytes[index...], as: UTF8.self)) else { return nil }
            offset = parsed
        }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                  nanosecond: nanosecond, utcOffsetSeconds: offset)
    }
}

extension Asset {
    /// How an asset plays, as PhotoKit's `PHAsset.PlaybackStyle` names it (the raw values
    /// are the JSON's `playbackStyle`).
    public enum PlaybackStyle: String, Sendable, CaseIterable {
        /// A still image.
        case image
        /// An animated image: a GIF, WebP or PNG (APNG) with several frames.
        case imageAnimated
        /// A live photo: a still with its movie (paired, or inside a motion photo).
        case livePhoto
        /// A video.
        case video
        /// A video that loops (a live photo's Loop or Bounce effect). No file MediaIndex
        /// reads records that effect (Photos keeps it in its library database), so no
        /// asset has this style today.
        case videoLooping
    }

    /// How the asset plays: `video` for a video, `livePhoto` for a live or motion photo,
    /// `imageAnimated` for an animated image, else `image`.
    public var playbackStyle: PlaybackStyle {
        if mediaType == .video { return .video }
        if mediaSubtypes.contains(.livePhoto) { return .livePhoto }
        if mediaSubtypes.contains(.animated) { return .imageAnimated }
        return .image
    }

    /// The resource thumbnails are made from: the edited rendering (`fullSizePhoto`, or
    /// `fullSizeVideo` for a video) when the asset has one, else the primary resource.
    public var renderingResource: AssetResource? {
        let edited: FileRole = mediaType == .video ? .fullSizeVideo : .fullSizePhoto
        return resources.first { $0.type == edited } ?? primaryResource
    }

    /// What an Apple adjustments file (`IMG_1234.AAE`, a property list) says.
    public struct Adjustments: Sendable, Equatable {
        /// `adjustmentFormatIdentifier`: who can read the edit (`com.apple.photo`,
        /// `com.apple.video.slomo`, …).
        public var formatIdentifier: String?
        /// `adjustmentFormatVersion`.
        public var formatVersion: String?
        /// `adjustmentEditorBundleID`: the app that made the edit.
        public var editorBundleID: String?
        /// `adjustmentTimestamp`: when the edit was made.
        public var date: Date?
    }
}

/// Where a motion photo's video sits inside its still file.
public struct EmbeddedVideo: Sendable, Equatable {
    /// Byte offset from the start of the primary file.
    public var offset: Int64
    /// Its length in bytes.
    public var length: Int64
    /// Its length in seconds, when its header says (the JSON's `durationSeconds`).
    public var duration: TimeInterval?
}

/// One file of an asset, as PHAssetResource.
public struct AssetResource: Sendable, Equatable {
    /// PhotoKit's `PHAssetResourceType` names: `photo`, `video`, `pairedVideo`,
    /// `alternatePhoto`, `fullSizePhoto`, `fullSizeVideo`, `fullSizePairedVideo`,
    /// `adjustmentData`; and `sidecar` (an XMP sidecar) or `takeoutMetadata` (a Google
    /// Takeout JSON).
    /// (PHAssetResource's `type`; the JSON's `role`.)
    public var type: FileRole
    /// The file's exact path (its bytes; names need not be UTF-8).
    public var path: PathBytes
    /// The file's size.
    public var bytes: Int64
    /// Its type: uniform type identifier, MIME type (the JSON's `contentType`) and
    /// extension, from the format recognised when the file was indexed; nil for a
    /// format MediaIndex does not know.
    public var uniformType: UniformType?
    /// The file's other names, in byte order: hard links, or the file seen again through a
    /// bind mount or a followed link to a folder (one file, never a second asset). Empty
    /// for a file with one name.
    public var otherPaths: [PathBytes] = []

    /// The file's name (PHAssetResource's `originalFilename`), for display (invalid UTF-8
    /// shown as U+FFFD; `path` has the exact bytes).
    public var originalFilename: String { String(decoding: path.lastComponent, as: UTF8.self) }
    /// The uniform type identifier (PHAssetResource's `uniformTypeIdentifier`): `uniformType`'s.
    public var uniformTypeIdentifier: String? { uniformType?.identifier }
}

/// A file that could not be read, as `mediaindex errors` lists it.
public struct IndexedFileError: Sendable, Equatable {
    /// The file.
    public var path: PathBytes
    /// Why it could not be read, one sentence.
    public var message: String
    /// The file's size.
    public var bytes: Int64
    /// When the run that recorded it looked at the file.
    public var recordedDate: Date
}

/// A file that was read, but not all of it: what the reader reported (a damaged
/// structure, a size it could not find, a box it skipped), as `mediaindex errors
/// --warnings` lists it. Its asset has what could be read.
public struct IndexedFileWarning: Sendable, Equatable {
    /// The file.
    public var path: PathBytes
    /// What the reader reported, one sentence each, in the order it reported them.
    public var messages: [String]
    /// The file's size.
    public var bytes: Int64
    /// When the run that recorded them looked at the file.
    public var recordedDate: Date
}

/// A registered root folder.
public struct LibraryRoot: Sendable, Equatable {
    /// The folder, absolute and symlink-resolved.
    public var path: PathBytes
    /// When it was registered.
    public var addedDate: Date
    /// When an index run last finished it; nil before the first.
    public var lastIndexedDate: Date?
    /// Assets with a resource under this root.
    public var assetCount: Int
    /// Files under it that could not be read.
    public var errorCount: Int
}

/// Counts for `mediaindex stats`.
public struct LibraryStatistics: Sendable, Equatable {
    /// Assets in all.
    public var assets: Int
    /// Image assets.
    public var images: Int
    /// Video assets.
    public var videos: Int
    /// Files the index knows (media, sidecars, ignored and unreadable ones).
    public var files: Int
    /// Files that could not be read.
    public var errors: Int
    /// Files that are not images or videos.
    public var ignored: Int
    /// Registered roots.
    public var roots: Int
    /// Bytes of the media files.
    public var totalBytes: Int64
    /// Primary files by format raw value, most first.
    public var byFormat: [(format: String, count: Int)]
    /// The database's schema version.
    public var schemaVersion: Int
    /// The last completed index run.
    public var lastRun: IndexSummary?

    /// Equal counts and formats.
    public static func == (a: LibraryStatistics, b: LibraryStatistics) -> Bool {
        a.assets == b.assets && a.files == b.files && a.errors == b.errors && a.ignored == b.ignored
            && a.byFormat.map(\.format) == b.byFormat.map(\.format) && a.byFormat.map(\.count) == b.byFormat.map(\.count)
    }
}
