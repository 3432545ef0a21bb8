/// What a sort orders by.
public enum AssetSortKey: String, Sendable, Hashable, CaseIterable {
    case captureDate, modificationDate, addedDate, fileName, duration, fileSize
    /// A user album's own order; only with a user album scope.
    case albumOrder

    /// The direction a key sorts in unless told: names and album order A→Z / first→last,
    /// everything else newest, longest or largest first.
    public var defaultAscending: Bool { self == .fileName || self == .albumOrder }
}

/// An order: a key and a direction. Ties are always broken by the asset's row id, so
/// the order is total and keyset paging never skips or repeats.
public struct AssetSort: Sendable, Hashable {
    public var key: AssetSortKey
    public var ascending: Bool

    public init(_ key: AssetSortKey, ascending: Bool? = nil) {
        self.key = key
        self.ascending = ascending ?? key.defaultAscending
    }

    /// Capture date, newest first: the default.
    public static let newestFirst = AssetSort(.captureDate)
}

/// Why a query cannot run as asked. Each case is one sentence a user can act on.
public enum AssetQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cursor is not one this library handed out.
    case invalidCursor(String)
    /// The cursor was made for another order.
    case cursorSortMismatch(cursor: String, requested: String)
    /// `albumOrder` without a user album.
    case albumOrderNeedsUserAlbum
    /// No album with that identifier or name.
    case unknownAlbum(String)
    /// An option value outside its range.
    case invalidOption(String)
    /// A user album already has this title (titles are unique, case aside).
    case albumTitleTaken(title: String, albumID: String)
    /// Several albums have this title (made before titles were unique): each album id.
    case ambiguousAlbum(String, albumIDs: [String])

    public var description: String {
        switch self {
        case .invalidCursor(let reason):
            return "the cursor is not valid (\(reason)); pass a nextCursor exactly as a previous page printed it"
        case .cursorSortMismatch(let cursor, let requested):
            return "the cursor was made for the order \(cursor), not \(requested); page with the same --sort"
        case .albumOrderNeedsUserAlbum:
            return "the album order exists only inside a user album; pass --album with a user album"
        case .unknownAlbum(let key):
            return "no album matches \(key); 'mediaindex albums' lists them"
        case .invalidOption(let reason):
            return reason
        case .albumTitleTaken(let title, let albumID):
            return "an album titled \(title) already exists (\(albumID)); choose another title, or add to that album"
        case .ambiguousAlbum(let key, let albumIDs):
            return "\(albumIDs.count) albums are titled \(key): \(albumIDs.joined(separator: ", ")); name the album by its id"
        }
    }
}
