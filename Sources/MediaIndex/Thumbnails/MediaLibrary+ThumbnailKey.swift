extension MediaLibrary {
    /// The cache key of `asset`'s thumbnail for `request`: its file name in the cache,
    /// and the HTTP server's `ETag`. Nil when the asset has no file.
    public func thumbnailKey(for asset: Asset, request: ThumbnailRequest) -> ThumbnailKey? {
        // The edited rendering when there is one: thumbnails are made from it.
        guard let source = asset.renderingResource else { return nil }
        return ThumbnailKey(identifier: asset.id.rawValue, revision: asset.revision, sourceBytes: source.bytes, request: request)
    }
}
