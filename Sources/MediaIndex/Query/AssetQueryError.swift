/// Why a query or an album edit cannot run as asked. Each case carries the values at
/// fault and reads as one sentence; a command-line tool adds its own advice to it.
public enum AssetQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cursor is not one this library handed out (`reason` says which part is wrong).
    case invalidCursor(reason: String)
    /// The cursor was made for another order than the one asked for.
    case cursorSortMismatch(cursor: AssetSort, requested: AssetSort)
    /// `albumOrder` without a user album.
    case albumOrderNeedsUserAlbum
    /// No album with that identifier, name, title or path (as given).
    case unknownAlbum(String)
    /// An album identifier of another kind where a user album's was needed.
    case notAUserAlbum(Album.ID)
    /// Several user albums have this title, case aside (made before titles were
    /// unique): each one's id.
    case ambiguousAlbumTitle(title: String, albumIDs: [Album.ID])
    /// A user album already has this title (titles are unique, case aside).
    case albumTitleTaken(title: String, albumID: Album.ID)
    /// A recursive fetch of an album that is not a folder album.
    case recursiveNeedsFolder(String)
    /// An album title that is empty once trimmed.
    case emptyAlbumTitle
    /// `minimumDuration` is greater than `maximumDuration`.
    case emptyDurationRange(minimum: Double, maximum: Double)
    /// A negative `limit`.
    case negativeLimit(Int)
    /// A place outside the globe: latitudes beyond ±90 (or south above north),
    /// longitudes beyond ±180, a negative radius.
    case invalidPlace(PlaceFilter)
    /// A rating filter outside -1 (rejected) … 5 stars.
    case invalidRating(Int)

    /// One sentence naming what is wrong.
    public var description: String {
        switch self {
        case .invalidCursor(let reason):
            return "the cursor is not valid (\(reason))"
        case .cursorSortMismatch(let cursor, let requested):
            return "the cursor was made for the order \(cursor), not \(requested)"
        case .albumOrderNeedsUserAlbum:
            return "the album order exists only inside a user album"
        case .invalidRating(let stars):
            return "a rating is -1 (rejected) to 5 stars, not \(stars)"
        case .unknownAlbum(let key):
            return "no album matches \(key)"
        case .notAUserAlbum(let id):
            return "\(id) is not a user album"
        case .ambiguousAlbumTitle(let title, let albumIDs):
            return "\(albumIDs.count) albums are titled \(title): \(albumIDs.map(\.rawValue).joined(separator: ", ")); name the album by its id"
        case .albumTitleTaken(let title, let albumID):
            return "an album titled \(title) already exists (\(albumID.rawValue)); choose another title, or add to that album"
        case .recursiveNeedsFolder(let key):
            return "\(key) is not a folder album: only a folder has subfolders to include"
        case .emptyAlbumTitle:
            return "an album needs a title"
        case .emptyDurationRange(let minimum, let maximum):
            return "the minimum duration \(minimum) s is longer than the maximum \(maximum) s"
        case .negativeLimit:
            return "the limit must not be negative"
        case .invalidPlace(.boundingBox):
            return "the bounding box needs latitudes in -90…90 (south ≤ north) and longitudes in -180…180"
        case .invalidPlace(.radius):
            return "a place needs a latitude in -90…90, a longitude in -180…180 and a radius of 0 m or more"
        }
    }
}
