extension MediaLibrary {
    /// The cache key of `asset`'s thumbnail for `request`: its file name in the cache,
    /// and the HTTP server's `ETag`. Nil when the asset has no file.
    public func thumbnailKey(for asset: Asset, request: ThumbnailRequest) -> ThumbnailKey? {
        // The edited rendering when there is one: thumbnails are made from it.
        guard let source = asset.renderingResource else { return nil }
        return ThumbnailKey(identifier: asset.id.rawValue, revision: asset.revision, sourceBytes: source.bytes, request: request)
    }

    /// The path of `asset`'s exact thumbnail for `request` when the cache holds it whole,
    /// marked as just used; nil when it is not cached (or cut short, or the asset has no
    /// file) and has to be made.
    func cachedPath(for asset: Asset, request: ThumbnailRequest) -> String? {
        guard let key = thumbnailKey(for: asset, request: request) else { return nil }
        let path = thumbnailCache.path(for: key, library: location)
        guard thumbnailCache.validFileSize(at: path) != nil else { return nil }
        thumbnailCache.markUsed(path)
        return path
    }
}
