import Foundation
import MediaMetadata

/// A Swift enumeration whose raw values are what a column stores: a typo is a compile
/// error, not a silent non-match. The raw values are the stored strings, unchanged
/// since they were first written (the JSON, the CLI and old libraries read them too).
protocol StoredEnumeration: RawRepresentable, CaseIterable, DatabaseValueConvertible, Sendable
where RawValue == String {}

extension StoredEnumeration {
    package var databaseValue: DatabaseValue { .text(rawValue) }

    /// The value as an SQL string literal, for statements that name it (`'photo'`).
    var sql: String { "'" + rawValue.replacingOccurrences(of: "'", with: "''") + "'" }

    /// Values as an SQL list (`('photo', 'video')`), for `IN`.
    static func sqlList(_ values: [Self]) -> String { "(" + values.map(\.sql).joined(separator: ", ") + ")" }

    /// The value a column holds, or nil for NULL or an unknown string.
    init?(stored text: String?) {
        guard let text else { return nil }
        self.init(rawValue: text)
    }
}

/// The role a file plays in its asset (`files.role`, `AssetResource.type`): PhotoKit's
/// `PHAssetResourceType` names, and MediaIndex's own for the files that describe an asset.
public enum FileRole: String, Sendable, CaseIterable, StoredEnumeration {
    case photo, video
    /// A live photo's movie, attached to the still's asset by pairing.
    case pairedVideo
    /// A RAW (or JPEG) attached to its companion's asset by pairing.
    case alternatePhoto
    /// An XMP sidecar attached to the asset (see `SidecarAttacher`); never a primary.
    case sidecar
    /// An edited rendering of the asset's photo (`IMG_E1234.JPG`, `IMG_1234 (Edited).HEIC`).
    case fullSizePhoto
    /// An edited rendering of the asset's video.
    case fullSizeVideo
    /// An edited rendering of a live photo's movie (`IMG_E1234.MOV`).
    case fullSizePairedVideo
    /// Apple's adjustments (`IMG_1234.AAE`, a property list; see `AdjustmentFile`): not
    /// an image or video, never a primary.
    case adjustmentData
    /// A Google Takeout JSON (`IMG_1.jpg.json`, `….supplemental-metadata.json`)
    /// attached to the asset of the media file it describes (see `TakeoutAttacher`).
    case takeoutMetadata
    /// A Google Takeout album folder's `metadata.json`: the folder album's title. It
    /// belongs to no asset.
    case takeoutAlbumMetadata

    /// The primary roles: an asset's still or movie.
    static let primaries: [FileRole] = [.photo, .video]
    /// The roles pairing gives a media file that joins another file's asset.
    static let secondaries: [FileRole] = [.pairedVideo, .alternatePhoto, .fullSizePhoto, .fullSizeVideo,
                                          .fullSizePairedVideo]
    /// The roles that make a pair (a live photo, RAW+JPEG): an asset of a multi-file
    /// pairing rule without one is broken.
    static let pairingSecondaries: [FileRole] = [.pairedVideo, .alternatePhoto]
    /// The roles of an edited rendering.
    static let renderings: [FileRole] = [.fullSizePhoto, .fullSizeVideo, .fullSizePairedVideo]

    /// The primary role of a file of this media type.
    init(primaryFor format: MediaFormat) { self = format.mediaType == .video ? .video : .photo }

    /// The roles of files that describe an asset without being its media (not images
    /// or videos: an XMP sidecar, Apple's adjustments, a Takeout JSON): they never keep
    /// an asset alive, pairing never moves them, and a run that rereads one keeps the
    /// asset its attacher gave it.
    static let describing: [FileRole] = [.sidecar, .adjustmentData, .takeoutMetadata, .takeoutAlbumMetadata]

    var isPrimary: Bool { self == .photo || self == .video }
    var isSecondary: Bool { Self.secondaries.contains(self) }
    /// An edited rendering (`fullSizePhoto`, `fullSizeVideo`, `fullSizePairedVideo`).
    var isRendering: Bool { Self.renderings.contains(self) }
    /// One of `describing`: a file that describes an asset without being its media.
    var isDescribing: Bool { Self.describing.contains(self) }
}

/// What the index made of a file (`files.status`).
enum FileStatus: String, StoredEnumeration {
    /// An image or video, with its metadata and asset.
    case media
    /// The file (or its folder) could not be read; `files.error` says why.
    case error
    /// Not an image or video (sidecars too: they are never assets).
    case ignored
}

/// Which rule made an asset of several resources (`assets.pairing_rule`, `Asset.pairingRule`).
public enum PairingRule: String, Sendable, CaseIterable, StoredEnumeration {
    /// Still and movie carry the same Apple content identifier.
    case contentIdentifier
    /// Same folder and stem, the movie at most `AssetPairer.maxStemPairedMovieSeconds` long.
    case sameStemShortMovie
    /// A still with its movie inside (Google/Samsung motion photos).
    case motionPhoto
    /// A RAW beside its JPEG (or HEIC).
    case rawPlusJpeg

    /// The rules that join two files (a motion photo is one file).
    static let multiFile: [PairingRule] = [.contentIdentifier, .sameStemShortMovie, .rawPlusJpeg]
}

/// The state of an index run (`index_runs.status`).
enum IndexRunStatus: String, StoredEnumeration {
    case running, interrupted, completed
}
