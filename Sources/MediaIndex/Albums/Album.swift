import Foundation
import MediaMetadata

/// The smart albums: PhotoKit's list, as far as our data supports it.
public enum SmartAlbum: String, Sendable, Hashable, CaseIterable {
    /// The smart albums, by PhotoKit's names (`title` is what Photos shows).
    case recents, favorites, videos, selfies, livePhotos, portrait, panoramas, timelapses, slomos, bursts,
         screenshots, screenRecordings, animated, raw, duplicates, similar, recentlyAdded, hidden, onThisDay

    /// The title Photos shows.
    public var title: String {
        switch self {
        case .recents: return "Recents"
        case .favorites: return "Favorites"
        case .videos: return "Videos"
        case .selfies: return "Selfies"
        case .livePhotos: return "Live Photos"
        case .portrait: return "Portrait"
        case .panoramas: return "Panoramas"
        case .timelapses: return "Time-lapse"
        case .slomos: return "Slo-mo"
        case .bursts: return "Bursts"
        case .screenshots: return "Screenshots"
        case .screenRecordings: return "Screen Recordings"
        case .animated: return "Animated"
        case .raw: return "RAW"
        case .duplicates: return "Duplicates"
        case .similar: return "Similar"
        case .recentlyAdded: return "Recently Added"
        case .hidden: return "Hidden"
        case .onThisDay: return "On This Day"
        }
    }

    /// How far back Recently Added reaches.
    public static let recentlyAddedSeconds: Double = 30 * 24 * 3600

    /// The filter a type album stands for; nil for the user-state and date albums.
    var filter: MediaFilter? {
        switch self {
        case .videos: return .videos
        case .selfies: return .selfies
        case .livePhotos: return .livePhotos
        case .portrait: return .depthEffectPhotos
        case .panoramas: return .panoramas
        case .timelapses: return .timelapseVideos
        case .slomos: return .slomoVideos
        case .bursts: return .bursts
        case .screenshots: return .screenshots
        case .screenRecordings: return .screenRecordings
        case .animated: return .animated
        case .raw: return .raw
        case .duplicates: return .duplicates
        case .similar: return .similar
        case .recents, .favorites, .recentlyAdded, .hidden, .onThisDay: return nil
        }
    }

    /// Recents and the user-state albums are always listed; the others only when
    /// they hold something, as Photos hides an empty Panoramas album.
    public var isListedWhenEmpty: Bool { self == .recents || self == .favorites || self == .hidden }
}

/// The scope of a fetch: one album.
public enum AlbumScope: Sendable, Hashable {
    /// A smart album.
    case smart(SmartAlbum)
    /// A folder album: the assets whose primary file lies directly in this folder, or,
    /// `recursive`, anywhere under it.
    case folder(PathBytes, recursive: Bool = false)
    /// A user album, by its identifier (`album.id` of a user album, `user.…`). A fetch
    /// with the identifier of another kind of album throws `AssetQueryError.notAUserAlbum`.
    case user(Album.ID)
    /// An album of the smart Places family: all placed assets, a country, a region or a city.
    case place(PlaceAlbum)

    /// The scope an album identifier names.
    public init(_ id: Album.ID) {
        // An `Album.ID` is only ever made from text that parses.
        self = AlbumScope(parsing: id.rawValue) ?? .user(id)
    }

    /// The album's identifier: `smart.recents`, `folder.<base64url of the path>`, `user.<id>`,
    /// `place`, `place.<country>`, `place.<country>.<region>`, `place.<country>.<region>.<geonameId>`.
    public var id: Album.ID { Album.ID(scope: self) }

    var idText: String {
        switch self {
        case .smart(let album): return "smart." + album.rawValue
        case .folder(let path, _): return "folder." + Base64URL.encode(path.bytes)
        case .user(let id): return id.rawValue
        case .place(let album): return album.idText
        }
    }

    /// The scope an album identifier's text names, or nil when it is not one.
    init?(parsing text: String) {
        if text.hasPrefix("smart."), let album = SmartAlbum(rawValue: String(text.dropFirst(6))) {
            self = .smart(album)
        } else if text.hasPrefix("folder."), let bytes = Base64URL.decode(String(text.dropFirst(7))),
                  !bytes.isEmpty {
            self = .folder(PathBytes(bytes))
        } else if let album = PlaceAlbum(parsing: text) {
            self = .place(album)
        } else if text.hasPrefix("user."), text.count > 5 {
            self = .user(Album.ID(userAlbum: String(text.dropFirst(5))))
        } else {
            return nil
        }
    }
}

/// An album as `fetchAlbums()` lists it (PHAssetCollection).
public struct Album: Sendable, Equatable, Identifiable {
    /// What kind of album.
    public enum Kind: String, Sendable {
        /// One of PhotoKit's smart albums (`SmartAlbum`).
        case smart
        /// A folder on disk holding assets' primary files.
        case folder
        /// An album the user made.
        case user
        /// An album of the smart Places family (`PlaceAlbum`): Places, a country, a region, a city.
        case place
    }

    /// Stable identifier; see `AlbumScope.id`.
    public var id: ID
    /// What kind of album.
    public var kind: Kind
    /// The title Photos would show: a smart album's name, a user album's title, a folder's name.
    public var title: String
    /// The folder of a folder album.
    public var path: PathBytes?
    /// The nearest enclosing folder album, for nesting as on disk.
    public var parentID: ID?
    /// Images the album shows (hidden assets and non-representative burst frames left out).
    public var imageCount: Int
    /// Videos the album shows.
    public var videoCount: Int
    /// The newest asset, or the one the user chose for a user album.
    public var keyAssetID: Asset.ID?
    /// Capture date of the oldest dated asset.
    public var startDate: Date?
    /// Capture date of the newest dated asset.
    public var endDate: Date?
    /// The camera's calendar day (`yyyy-MM-dd`, its wall clock, no zone applied) of the
    /// oldest dated asset; nil for undated albums.
    public var startDay: String?
    /// The camera's calendar day of the newest dated asset.
    public var endDay: String?

    /// The calendar day of a wall clock stored as seconds since 1970 read as UTC (`local_time`).
    /// Written digit by digit: the album list makes two per folder album, 100,000s of them.
    static func day(ofLocalTime seconds: Double?) -> String? {
        guard let seconds, seconds.isFinite, abs(seconds) < 1e14 else { return nil }
        let date = CaptureDate(timestamp: seconds.rounded(.down), utcOffsetSeconds: 0)
        let (year, month, day) = (date.year, date.month, date.day)
        guard (0...9999).contains(year) else { return String(date.iso8601.prefix(10)) }
        let zero = UInt8(ascii: "0"), dash = UInt8(ascii: "-")
        let bytes: [UInt8] = [zero + UInt8(year / 1000), zero + UInt8(year / 100 % 10), zero + UInt8(year / 10 % 10),
                              zero + UInt8(year % 10), dash, zero + UInt8(month / 10), zero + UInt8(month % 10), dash,
                              zero + UInt8(day / 10), zero + UInt8(day % 10)]
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Images and videos.
    public var count: Int { imageCount + videoCount }
    /// Of a folder album: images in its subfolders, at any depth (0 for other albums).
    public var subfolderImageCount = 0
    /// Of a folder album: videos in its subfolders, at any depth (0 for other albums).
    public var subfolderVideoCount = 0
    /// Images directly in the folder and in all its subfolders (`AlbumScope.folder(_, recursive: true)`).
    public var imageCountWithSubfolders: Int { imageCount + subfolderImageCount }
    /// Videos directly in the folder and in all its subfolders.
    public var videoCountWithSubfolders: Int { videoCount + subfolderVideoCount }
    /// Everything under the folder: what a recursive fetch of it returns.
    public var countWithSubfolders: Int { imageCountWithSubfolders + videoCountWithSubfolders }

    /// The scope to fetch this album's assets with.
    public var scope: AlbumScope { AlbumScope(id) }
}
