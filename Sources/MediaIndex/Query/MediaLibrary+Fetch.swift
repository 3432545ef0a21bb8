import Foundation

extension MediaLibrary {
    /// Opens the library in `directory` for reading and user-state writes (PhotoKit's
    /// shared library, for app code). Creates nothing when the folder holds no library.
    ///
    /// - Throws: `LibraryError.noLibrary` when there is none yet, or another `LibraryError`.
    public static func open(at directory: String) async throws -> MediaLibrary {
        let location = LibraryLocation(directory: directory)
        guard FileManager.default.fileExists(atPath: location.databasePath) else {
            throw LibraryError.noLibrary(path: location.directory)
        }
        let writable = FileManager.default.isWritableFile(atPath: location.databasePath)
        return try MediaLibrary(location: location, mode: writable ? .readWrite : .readOnly)
    }

    /// Opens the library in the folder at `url`. See `open(at:)`.
    public static func open(at url: URL) async throws -> MediaLibrary {
        try await open(at: url.path)
    }

    /// One page of assets matching `options`, in its order, with the cursor of the next.
    ///
    /// Keyset paging: a page starts strictly after the cursor's (sort key, row id), so
    /// rows inserted or deleted between pages never shift the others: no asset present
    /// throughout is repeated or skipped.
    ///
    /// - Throws: `AssetQueryError` for a bad cursor or option, `LibraryError` when the
    ///   database fails.
    public func fetchAssets(_ options: FetchOptions = FetchOptions()) async throws -> AssetPage {
        try fetchAssetsNow(options)
    }

    /// Counts of images and videos matching `options`, without fetching rows.
    ///
    /// - Throws: `AssetQueryError`, `LibraryError`.
    public func countAssets(_ options: FetchOptions = FetchOptions()) async throws -> AssetCounts {
        try countAssetsNow(options)
    }

    /// The asset with this identifier, with its user state, or nil.
    public func asset(id: String) async throws -> Asset? {
        try assetNow(id: id)
    }

    /// Synchronous `fetchAssets`, for the CLI and tests.
    public func fetchAssetsNow(_ options: FetchOptions) throws -> AssetPage {
        let query = try AssetQuery(options)
        let (sql, values) = query.pageSQL()
        return try read { db in
            var rows = try db.rows(sql, values)
            var nextCursor: String?
            if let limit = query.limit, rows.count > limit {
                rows.removeLast(rows.count - limit)
                if let last = rows.last {
                    nextCursor = AssetCursor(sort: query.sort, value: last["sort_key"],
                                             rowID: last.int64("row_id") ?? 0).encoded
                }
            }
            return AssetPage(assets: try Self.assetsWithUserState(rows, db: db), nextCursor: nextCursor)
        }
    }

    /// Synchronous `countAssets`.
    public func countAssetsNow(_ options: FetchOptions) throws -> AssetCounts {
        var options = options
        options.after = nil
        let query = try AssetQuery(options)
        return try read { db in try query.counts(db: db) }
    }

    /// Synchronous `asset(id:)`.
    public func assetNow(id: String) throws -> Asset? {
        try read { db in
            let rows = try db.rows("""
                SELECT \(AssetQueries.assetColumns), coalesce(s.favorite, 0) AS user_favorite,
                    coalesce(s.hidden, 0) AS user_hidden
                FROM assets a LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier
                WHERE a.identifier = ?
                """, [id])
            return try Self.assetsWithUserState(rows, db: db).first
        }
    }

    /// Assets for rows selecting `assetColumns`, `user_favorite` and `user_hidden`,
    /// with resources and user album membership.
    static func assetsWithUserState(_ rows: [Row], db: DatabaseConnection) throws -> [Asset] {
        var assets = try AssetQueries.assets(rows, db: db)
        guard !assets.isEmpty else { return assets }
        var albums: [String: [String]] = [:]
        var start = 0
        while start < assets.count {
            let chunk = assets[start..<min(start + 500, assets.count)].map(\.id)
            start += chunk.count
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            for row in try db.rows("""
                SELECT m.asset_identifier, al.identifier FROM userstate.album_assets m
                JOIN userstate.albums al ON al.id = m.album_id
                WHERE m.asset_identifier IN (\(placeholders)) ORDER BY al.title, al.identifier
                """, chunk) {
                if let asset = row.string("asset_identifier"), let album = row.string("identifier") {
                    albums[asset, default: []].append(album)
                }
            }
        }
        for index in assets.indices {
            assets[index].favorite = rows[index].bool("user_favorite") ?? false
            assets[index].hidden = rows[index].bool("user_hidden") ?? false
            assets[index].albums = albums[assets[index].id] ?? []
        }
        return assets
    }
}

extension Asset {
    /// The primary resource's file URL (Exyte's `getURL()`): the photo of a live photo,
    /// the JPEG of a RAW+JPEG pair.
    public func url() async -> URL? { primaryResource?.fileURL }

    /// The primary resource's bytes, read whole: for app code that shows or shares one item.
    ///
    /// - Throws: `LibraryError.assetNotFound` when the asset has no resource, or the
    ///   read error when the file is gone or unreadable.
    public func data() async throws -> Data {
        guard let url = primaryResource?.fileURL else { throw LibraryError.assetNotFound(id) }
        return try Data(contentsOf: url)
    }

    /// The resource shown for the asset: the photo or video, else the first one.
    public var primaryResource: AssetResource? {
        resources.first { $0.role == "photo" || $0.role == "video" } ?? resources.first
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
