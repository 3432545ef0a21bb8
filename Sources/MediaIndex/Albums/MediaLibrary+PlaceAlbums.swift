import Foundation

extension MediaLibrary {
    /// The albums inside an album of the Places family: Places' countries, a country's
    /// regions, a region's cities. See `Blocking.fetchAlbums(in:)`.
    ///
    /// - Throws: as `Blocking.fetchAlbums(in:)`.
    public func fetchAlbums(in album: Album.ID) async throws -> [Album] {
        try await offExecutor { try $0.fetchAlbums(in: album) }
    }
}

extension MediaLibrary.Blocking {
    /// The albums inside an album of the Places family, by title: Places' countries, a
    /// country's regions (GeoNames' admin1), a region's cities. Counts, key assets and
    /// days are those of a fetch with the album's scope, which selects the same assets as
    /// `FetchOptions.country` and the place columns. A city holds none below it.
    ///
    /// - Throws: `AssetQueryError.unknownAlbum` when `album` is not a Places album,
    ///   `LibraryError.database` when the database fails.
    public func fetchAlbums(in album: Album.ID) throws -> [Album] {
        guard case .place(let parent) = AlbumScope(album) else {
            throw AssetQueryError.unknownAlbum(album.rawValue)
        }
        let now = Date().timeIntervalSince1970
        return try library.read { db in try library.placeAlbums(in: parent, now: now, db: db) }
    }
}

extension MediaLibrary {
    /// Places, and its countries, as `fetchAlbums()` lists them; none when no asset has a country.
    func placeAlbums(now: Double, db: DatabaseConnection) throws -> [Album] {
        let countries = try PlaceAlbum.all.children(db: db)
        // The countries share out Places' assets: its counts are theirs summed.
        let counts = countries.reduce(AssetCounts(images: 0, videos: 0)) {
            AssetCounts(images: $0.images + $1.counts.images, videos: $0.videos + $1.counts.videos)
        }
        let root = try placeAlbum(PlaceAlbum.Child(album: .all, title: "Places", counts: counts), now: now, db: db)
        guard root.count > 0 else { return [] }
        return [root] + (try placeAlbums(countries, now: now, db: db))
    }

    /// The albums one level below `parent` that show something.
    func placeAlbums(in parent: PlaceAlbum, now: Double, db: DatabaseConnection) throws -> [Album] {
        try placeAlbums(try parent.children(db: db), now: now, db: db)
    }

    /// The albums of those children that show something.
    private func placeAlbums(_ children: [PlaceAlbum.Child], now: Double, db: DatabaseConnection) throws -> [Album] {
        try children.compactMap { child in
            let album = try placeAlbum(child, now: now, db: db)
            return album.count > 0 ? album : nil
        }
    }

    /// The album, its counts given: its key asset and dates are read from the ends of its capture order.
    private func placeAlbum(_ place: PlaceAlbum.Child, now: Double, db: DatabaseConnection) throws -> Album {
        var options = FetchOptions()
        options.album = .place(place.album)
        var album = try summary(of: try AssetQuery(options, now: now), counts: place.counts,
                                id: AlbumScope.place(place.album).id, kind: .place, title: place.title, db: db)
        album.parentID = place.album.parent.map { AlbumScope.place($0).id }
        return album
    }
}
