import Foundation
import MediaMetadata
import MediaThumbnails
import Synchronization

/// Which version of an asset a rendition shows (PhotoKit's `PHImageRequestOptionsVersion`).
public enum RenditionVersion: String, Sendable, CaseIterable {
    /// With the edit applied: the edited rendering (`fullSizePhoto`, `fullSizeVideo`)
    /// when there is one.
    case current
    /// The original, as captured: the primary resource.
    case original
}

/// A rendition in the cache.
public struct CachedRendition: Sendable, Equatable {
    /// Its file.
    public var path: String
    /// Its cache key (16 hex digits): the file's name, and the HTTP `ETag`.
    public var key: String
    /// The resource it was made from.
    public var source: AssetResource
    /// Whether this call made it.
    public var made: Bool
}

extension Asset {
    /// The resource a version of the asset is: `original` the primary resource, `current`
    /// the edited rendering when there is one.
    public func resource(for version: RenditionVersion) -> AssetResource? {
        version == .current ? renderingResource : primaryResource
    }

    /// Where a live photo's movie is: a file of the asset, or the MP4 inside a motion
    /// photo's still.
    public enum LivePhotoMovie: Sendable, Equatable {
        /// A movie file: `pairedVideo`, or the edited `fullSizePairedVideo`.
        case file(AssetResource)
        /// The movie inside `in`'s file (a motion photo), at `EmbeddedVideo`'s bytes.
        case embedded(EmbeddedVideo, in: AssetResource)
    }

    /// The live photo's movie (PhotoKit's paired video), the one accessor for it: for the
    /// `current` version the edited movie (`fullSizePairedVideo`) when there is one, else
    /// the paired movie file, else the movie inside a motion photo's still; nil for an
    /// asset without a movie of its own (a still, or a video).
    public func livePhotoMovie(_ version: RenditionVersion = .current) -> LivePhotoMovie? {
        if version == .current, let edited = resources.first(where: { $0.type == .fullSizePairedVideo }) {
            return .file(edited)
        }
        if let paired = resources.first(where: { $0.type == .pairedVideo }) { return .file(paired) }
        if let embeddedVideo, let still = primaryResource { return .embedded(embeddedVideo, in: still) }
        return nil
    }
}

extension MediaLibrary {
    /// The library's rendition folder in its thumbnail cache.
    public var renditionCache: RenditionCache { RenditionCache(cache: thumbnailCache, library: location) }

    /// The cache key of a rendition: the asset, its revision, the source file (path and
    /// size) and every option, hashed.
    static func renditionKey(_ asset: Asset, source: AssetResource, kind: String, options: String) -> String {
        let text = "r1|\(kind)|\(asset.id.rawValue)|\(asset.revision)|\(source.bytes)|\(options)|"
        return ThumbnailKey.hex(XXHash64.hash(Array(text.utf8) + source.path.bytes))
    }
}

extension MediaLibrary.Blocking {
    /// `asset`'s `version` as a full-size JPEG (PhotoKit's `.compatible`): upright, with
    /// its EXIF (orientation 1; GPS unless `omitsLocation`) and ICC profile (or in sRGB),
    /// from the cache when it was made before for the same revision and options.
    ///
    /// - Throws: `ThumbnailUnavailable` for an asset that is not a still or whose file
    ///   cannot be decoded; `LibraryError` when the cache cannot be written.
    public func compatiblePhoto(for asset: Asset, version: RenditionVersion = .current,
                                options: CompatibleImageOptions = CompatibleImageOptions()) throws -> CachedRendition {
        guard asset.mediaType == .image, let source = asset.resource(for: version) else {
            throw ThumbnailUnavailable(identifier: asset.id, state: .failed, reason: "the asset has no still image")
        }
        let cache = library.renditionCache
        let key = MediaLibrary.renditionKey(asset, source: source, kind: "jpeg", options:
            "\(options.convertsToSRGB ? "srgb" : "icc")|\(options.omitsLocation ? "nogps" : "gps")|\(options.quality)")
        let path = cache.path(key: key, fileExtension: "jpg")
        if cache.cachedSize(key: key, fileExtension: "jpg") != nil {
            return CachedRendition(path: path, key: key, source: source, made: false)
        }
        let (format, orientation) = library.stillFormatAndOrientation(of: asset, resource: source)
        let made: EncodedThumbnail
        do {
            let location = try library.confinedLocation(of: source)
            made = try ThumbnailGenerator.compatibleImage(ofFileAtBytes: location.path, beneath: location.root,
                                                          format: format, orientation: orientation, options: options)
        } catch let error as ThumbnailError {
            throw ThumbnailUnavailable(identifier: asset.id, state: .failed, reason: error.description)
        }
        try cache.store(made.data, key: key, fileExtension: "jpg")
        library.trimRenditionsOccasionally()
        return CachedRendition(path: path, key: key, source: source, made: true)
    }
}

extension MediaLibrary {
    private static let lastRenditionTrim = Mutex<[String: Date]>([:])

    /// Trims the rendition folder at most once a minute per library, after a rendition
    /// was made.
    func trimRenditionsOccasionally() {
        let cache = renditionCache
        let due = Self.lastRenditionTrim.withLock { last -> Bool in
            if let previous = last[cache.folderPath], Date().timeIntervalSince(previous) < 60 { return false }
            last[cache.folderPath] = Date()
            return true
        }
        if due { cache.trim() }
    }
}
