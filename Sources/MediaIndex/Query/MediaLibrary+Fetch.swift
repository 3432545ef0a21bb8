import Foundation
import MediaMetadata

extension MediaLibrary {
    /// One page of assets matching `options`, in its order, with the cursor of the next.
    /// See `Blocking.fetchAssets(_:)`.
    ///
    /// - Throws: as `Blocking.fetchAssets(_:)`.
    public func fetchAssets(_ options: FetchOptions = FetchOptions()) async throws -> AssetPage {
        try await offExecutor { try $0.fetchAssets(options) }
    }

    /// Counts of images and videos matching `options`, without fetching rows.
    ///
    /// - Throws: as `Blocking.countAssets(_:)`.
    public func countAssets(_ options: FetchOptions = FetchOptions()) async throws -> AssetCounts {
        try await offExecutor { try $0.countAssets(options) }
    }

    /// The asset with this identifier, whole (user state, albums, resources), or nil.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func asset(id: Asset.ID) async throws -> Asset? {
        try await offExecutor { try $0.asset(id: id) }
    }

    /// The asset one of whose resources is the file at `path`, or nil. See
    /// `Blocking.asset(path:)`.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func asset(path: PathBytes) async throws -> Asset? {
        try await offExecutor { try $0.asset(path: path) }
    }

    /// The assets at `range` of a fetch result (PHFetchResult's `objects(at:)`). See
    /// `Blocking.assets(in:at:)`.
    ///
    /// - Throws: as `Blocking.assets(in:at:)`.
    public func assets(in result: FetchResult, at range: Range<Int>) async throws -> [Asset] {
        try await offExecutor { try $0.assets(in: result, at: range) }
    }
}

extension MediaLibrary.Blocking {
    /// One page of assets matching `options`, in its order, with the cursor of the next.
    ///
    /// Keyset paging: a page starts strictly after the cursor's (sort key, row id), so
    /// rows inserted or deleted between pages never shift the others: no asset present
    /// throughout is repeated or skipped.
    ///
    /// - Throws: `AssetQueryError` for a bad cursor or option, `LibraryError.database`
    ///   when the database fails.
    public func fetchAssets(_ options: FetchOptions = FetchOptions()) throws -> AssetPage {
        let query = try AssetQuery(options)
        return try library.read { db in
            try query.checkSearch(db: db)
            var rows: [Row]
            if let probed = try SearchPlan.probedPage(query, db: db) {
                rows = probed
            } else {
                let (sql, values) = query.pageSQL()
                rows = try db.rows(sql, values)
            }
            var nextCursor: String?
            if let limit = query.limit, rows.count > limit {
                rows.removeLast(rows.count - limit)
                if let last = rows.last {
                    nextCursor = AssetCursor(sort: query.sort, value: last["sort_key"],
                                             rowID: last.int64("row_id") ?? 0).encoded
                }
            }
            return AssetPage(assets: try MediaLibrary.assetsWithUserState(rows, db: db), nextCursor: nextCursor)
        }
    }

    /// Counts of images and videos matching `options` (its cursor and limit are
    /// ignored), without fetching rows.
    ///
    /// - Throws: `AssetQueryError` for a bad option, `LibraryError.database`.
    public func countAssets(_ options: FetchOptions = FetchOptions()) throws -> AssetCounts {
        var options = options
        options.after = nil
        let query = try AssetQuery(options)
        return try library.read { db in
            try query.checkSearch(db: db)
            return try query.counts(db: db)
        }
    }

    /// The asset with this identifier, whole (user state, albums, resources), or nil.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func asset(id: Asset.ID) throws -> Asset? {
        try library.read { db in
            let rows = try db.rows("""
                SELECT \(AssetQueries.assetColumns), coalesce(s.favorite, 0) AS user_favorite,
                    coalesce(s.hidden, 0) AS user_hidden, s.latitude AS user_latitude, s.longitude AS user_longitude
                FROM assets a LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier
                WHERE a.identifier = ?
                """, [id.rawValue])
            return try MediaLibrary.assetsWithUserState(rows, db: db).first
        }
    }

    /// The assets at `range` of a fetch result, whole, in the result's order: the result
    /// holds only identifiers, and a grid reads the page it shows. An asset deleted since
    /// the result was read is left out; one changed since is read as it is now.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func assets(in result: FetchResult, at range: Range<Int>) throws -> [Asset] {
        let identifiers = Array(result.identifiers[range.clamped(to: result.identifiers.indices)])
        guard !identifiers.isEmpty else { return [] }
        let found: [Asset] = try library.read { db in
            let rows = try db.rows(inList: identifiers.map(\.rawValue)) { """
                SELECT \(AssetQueries.assetColumns), coalesce(s.favorite, 0) AS user_favorite,
                    coalesce(s.hidden, 0) AS user_hidden
                FROM assets a LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier
                WHERE a.identifier IN (\($0))
                """ }
            return try MediaLibrary.assetsWithUserState(rows, db: db)
        }
        let byIdentifier = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return identifiers.compactMap { byIdentifier[$0] }
    }

    /// The asset one of whose resources is the file at `path` or has it as another name
    /// (a hard link, a view; absolute or relative
    /// to the working folder; symlinks in its folders are resolved), whole, or nil.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func asset(path: PathBytes) throws -> Asset? {
        var candidates = [path]
        if path.bytes.first != UInt8(ascii: "/") {
            candidates.append(PathBytes(FileManager.default.currentDirectoryPath).appending(path.bytes))
        }
        if let last = candidates.last, let folder = try? MediaLibrary.resolveRoot(last.parent) {
            candidates.append(folder.appending(path.lastComponent))
        }
        let identifier: String? = try library.read { db in
            for candidate in candidates {
                if let row = try db.row("""
                    SELECT a.identifier FROM assets a JOIN files f ON f.asset_id = a.id WHERE f.path = ?1
                    UNION ALL SELECT a.identifier FROM file_links l JOIN files f ON f.id = l.file_id
                    JOIN assets a ON a.id = f.asset_id WHERE l.path = ?1
                    """, [candidate.bytes]) {
                    return row.string("identifier")
                }
            }
            return nil
        }
        return try identifier.flatMap { try asset(id: Asset.ID(stored: $0)) }
    }
}

extension MediaLibrary {
    /// Assets for rows selecting `assetColumns`, `user_favorite` and `user_hidden`,
    /// with resources and user album membership.
    static func assetsWithUserState(_ rows: [Row], db: DatabaseConnection) throws -> [Asset] {
        var assets = try AssetQueries.assets(rows, db: db)
        guard !assets.isEmpty else { return assets }
        var albums: [String: [Album.ID]] = [:]
        var words: [String: DescriptiveMetadata] = [:]
        let identifiers = assets.map(\.id.rawValue)
        for row in try db.rows(inList: identifiers, { """
            SELECT m.asset_identifier, al.identifier FROM userstate.album_assets m
            JOIN userstate.albums al ON al.id = m.album_id
            WHERE m.asset_identifier IN (\($0)) ORDER BY al.title, al.identifier
            """ }) {
            if let asset = row.string("asset_identifier"), let album = row.string("identifier") {
                albums[asset, default: []].append(Album.ID(userAlbum: album))
            }
        }
        for row in try db.rows(inList: identifiers, { """
            SELECT identifier, rating, title, caption, keywords FROM userstate.asset_user_state
            WHERE identifier IN (\($0)) AND coalesce(rating, title, caption, keywords) IS NOT NULL
            """ }) {
            guard let identifier = row.string("identifier") else { continue }
            words[identifier] = DescriptiveMetadata(
                keywords: DescriptiveColumns.decode([String].self, row.string("keywords")) ?? [],
                title: row.string("title"), caption: row.string("caption"), rating: row.int("rating"))
        }
        let takeout = try db.cachedStatement(
            "SELECT metadata FROM files WHERE path = ? AND role = \(FileRole.takeoutMetadata.sql)")
        for index in assets.indices {
            // A Takeout JSON's title and description (the primary's JSON is listed first).
            if let json = assets[index].resources.first(where: { $0.type == .takeoutMetadata }),
               let values = TakeoutValues.decode(try takeout.rows([json.path.bytes]).first?.string("metadata")) {
                assets[index].takeoutTitle = values.title
                assets[index].takeoutDescription = values.description
            }
            assets[index].isFavorite = rows[index].bool("user_favorite") ?? false
            assets[index].isHidden = rows[index].bool("user_hidden") ?? false
            // A position a duplicate resolve copied onto an asset without one.
            if assets[index].location == nil, let latitude = rows[index].double("user_latitude"),
               let longitude = rows[index].double("user_longitude") {
                assets[index].location = GeoLocation(latitude: latitude, longitude: longitude)
            }
            assets[index].albums = albums[assets[index].id.rawValue] ?? []
            if let own = words[assets[index].id.rawValue] { assets[index].applyUserDescription(own) }
        }
        return assets
    }
}

extension Asset {
    /// The primary resource's file URL (Exyte's `getURL()`): the photo of a live photo,
    /// the JPEG of a RAW+JPEG pair; nil for an asset without files.
    public func url() -> URL? { primaryResource?.fileURL }

    /// The primary resource's bytes, read whole on MediaIndex's threads: for app code
    /// that shows or shares one item.
    ///
    /// - Throws: `LibraryError.assetNotFound` when the asset has no resource, or the
    ///   read error when the file is gone or unreadable.
    public func data() async throws -> Data {
        guard let url = primaryResource?.fileURL else { throw LibraryError.assetNotFound(id.rawValue) }
        return try await DatabaseThreads.shared.run { try Data(contentsOf: url) }
    }

    /// The resource shown for the asset: the photo or video, else the first one.
    public var primaryResource: AssetResource? {
        resources.first { $0.type.isPrimary } ?? resources.first
    }
}

extension AssetResource {
    /// The file's URL, built from its exact bytes so names that are not UTF-8 still open.
    public var fileURL: URL {
        path.bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                var terminated = Array(chars)
                terminated.append(0)
                return terminated.withUnsafeBufferPointer { pointer in
                    pointer.baseAddress.map {
                        URL(fileURLWithFileSystemRepresentation: $0, isDirectory: false, relativeTo: nil)
                    } ?? URL(fileURLWithPath: path.displayString)
                }
            }
        }
    }
}
