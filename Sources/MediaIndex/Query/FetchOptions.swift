import Foundation

/// What to fetch, in which order, from where: PHFetchOptions for a MediaIndex library.
///
/// ```swift
/// var options = FetchOptions()
/// options.album = album.scope
/// options.filter = .all(of: [.images, .not(.screenshots)])
/// options.limit = 100
/// let page = try await library.fetchAssets(options)
/// options.after = page.nextCursor   // the next page
/// ```
public struct FetchOptions: Sendable, Hashable {
    /// Which kinds of assets; nil is Apple's default (every asset).
    public var filter: MediaFilter?
    /// Only the assets a search finds (`SearchQuery`: words, `field:value` terms); with
    /// `is:hidden` in it, hidden assets are searched too.
    public var search: SearchQuery?
    /// Only the assets of this album.
    public var album: AlbumScope?
    /// Captured at or after this moment (assets without a capture date never match).
    public var capturedFrom: Date?
    /// Captured before this moment.
    public var capturedBefore: Date?
    /// Captured at or after this local wall-clock time (the camera's, as `creationDate` shows
    /// it, given as seconds since 1970 read as UTC): days are the camera's days.
    public var capturedFromLocalTime: Date?
    /// Captured before this local wall-clock time (seconds since 1970 read as UTC).
    public var capturedBeforeLocalTime: Date?
    /// Only the assets of this day, month or year (the asset's day, as the timeline
    /// keys it), or only the undated ones.
    public var period: CapturePeriod?
    /// Only the assets taken on this month and day in earlier years, by the asset's day
    /// (the camera's calendar day): Photos' "On This Day".
    public var onThisDay: OnThisDay?
    /// Taken inside this place.
    public var place: PlaceFilter?
    /// Taken in this country: its ISO 3166-1 code or English name, without regard to case.
    public var country: String?
    /// Taken in a place of this name at any level (locality, subregion, region, country),
    /// without regard to case or accents.
    public var placeName: String?
    /// Camera make, compared case-insensitively with the normalised make
    /// (`CameraNames.make`: `nikon` finds `NIKON CORPORATION`).
    public var make: String?
    /// Camera model, compared case-insensitively with the normalised model
    /// (`CameraNames.model`: `EOS 6D` finds `Canon EOS 6D`).
    public var model: String?
    /// At least this wide, in displayed pixels.
    public var minimumPixelWidth: Int?
    /// At least this high, in displayed pixels.
    public var minimumPixelHeight: Int?
    /// At least this many pixels (width × height).
    public var minimumPixelCount: Int?
    /// At least this long in seconds (assets without a duration never match).
    public var minimumDuration: Double?
    /// At most this long in seconds (assets without a duration never match).
    public var maximumDuration: Double?
    /// Formats of the primary resource (`MediaFormat` raw values such as `jpeg`, `heic`, `mov`).
    public var formats: [String] = []
    /// Has every one of these keywords, or one below it (`Places` finds `Places|France|Paris`;
    /// `France` finds it too: any run of a path's levels), case and accents aside.
    public var keywords: [String] = []
    /// Shows every one of these people: a name, whole or one of its words (`alice` finds
    /// `Alice Smith`), case and accents aside.
    public var people: [String] = []
    /// Rated at least this many stars (-1 rejected … 5); the user's rating over the file's.
    public var minimumRating: Int?
    /// Rated exactly this many stars (0 and unrated are not the same).
    public var rating: Int?
    /// Has this colour label (`xmp:Label`), case aside.
    public var label: String?
    /// Has a caption (true) or has none (false).
    public var hasCaption: Bool?
    /// Has a title (true) or has none (false).
    public var hasTitle: Bool?
    /// Include assets the user hid (PHFetchOptions.includeHiddenAssets).
    public var includeHidden = false
    /// Include every frame of a burst, not only its representative (PHFetchOptions.includeAllBurstAssets).
    public var includeAllBurstAssets = false
    /// The order; nil means the album's own order for a user album, the album's
    /// natural order for Recently Added (date added), else capture date, newest first.
    public var sort: AssetSort?
    /// At most this many assets per page; nil for all.
    public var limit: Int?
    /// The `nextCursor` of the previous page.
    public var after: String?

    /// Apple's defaults: every asset the user did not hide, one per burst, newest first.
    public init() {}

    /// Every asset of the library, hidden ones and every burst frame included, newest first.
    public static var everyAsset: FetchOptions {
        var options = FetchOptions()
        options.includeHidden = true
        options.includeAllBurstAssets = true
        return options
    }
}

extension FetchOptions {
    /// Whether a describing filter (keywords, people, rating, label, caption, title) is set.
    var filtersDescription: Bool {
        !keywords.isEmpty || !people.isEmpty || minimumRating != nil || rating != nil || label != nil
            || hasCaption != nil || hasTitle != nil
    }
}

/// A place to search in.
public enum PlaceFilter: Sendable, Hashable {
    /// A box in degrees; `minLongitude > maxLongitude` crosses the antimeridian.
    case boundingBox(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double)
    /// Within `radiusMeters` of a point (great-circle distance).
    case radius(latitude: Double, longitude: Double, radiusMeters: Double)
}


/// One page of a fetch.
public struct AssetPage: Sendable {
    /// The page's assets, in the fetch's order.
    public var assets: [Asset]
    /// Pass as `FetchOptions.after` for the next page; nil on the last page.
    public var nextCursor: String?
}

/// Asset counts without fetching rows.
public struct AssetCounts: Sendable, Equatable {
    /// Image assets.
    public var images: Int
    /// Video assets.
    public var videos: Int
    /// Images and videos.
    public var total: Int { images + videos }
}


extension FetchOptions {
    /// Whether these options show hidden assets: `includeHidden`, the Hidden album, or a
    /// search that names them (`is:hidden`).
    public var showsHidden: Bool {
        if includeHidden || search?.expression?.mentionsHidden == true { return true }
        if case .smart(.hidden)? = album { return true }
        return false
    }
}
