import Foundation

extension MediaLibrary {
    /// Every album: the smart albums, Places and its countries, then user albums by
    /// title, then folder albums by path. See `Blocking.fetchAlbums()`.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func fetchAlbums() async throws -> [Album] {
        try await offExecutor { try $0.fetchAlbums() }
    }

    /// The scope an album argument names. See `Blocking.albumScope(named:)`.
    ///
    /// - Throws: as `Blocking.albumScope(named:)`.
    public func albumScope(named key: String) async throws -> AlbumScope {
        try await offExecutor { try $0.albumScope(named: key) }
    }

    /// The scope an album argument names; with `recursive`, a folder's covers everything
    /// under it. See `Blocking.albumScope(named:recursive:)`.
    ///
    /// - Throws: as `Blocking.albumScope(named:recursive:)`.
    public func albumScope(named key: String, recursive: Bool) async throws -> AlbumScope {
        try await offExecutor { try $0.albumScope(named: key, recursive: recursive) }
    }

    /// The user album named by its id, its bare identifier or its exact title.
    ///
    /// - Throws: as `Blocking.userAlbumID(named:)`.
    public func userAlbumID(named key: String) async throws -> Album.ID {
        try await offExecutor { try $0.userAlbumID(named: key) }
    }

    /// Creates an empty user album. Titles are unique, case aside.
    ///
    /// - Throws: as `Blocking.createAlbum(title:)`.
    @discardableResult
    public func createAlbum(title: String) async throws -> Album {
        try await offExecutor { try $0.createAlbum(title: title) }
    }

    /// Renames a user album.
    ///
    /// - Throws: as `Blocking.renameAlbum(_:to:)`.
    public func renameAlbum(_ album: Album.ID, to title: String) async throws {
        try await offExecutor { try $0.renameAlbum(album, to: title) }
    }

    /// Deletes a user album; its assets stay in the library.
    ///
    /// - Throws: as `Blocking.deleteAlbum(_:)`.
    public func deleteAlbum(_ album: Album.ID) async throws {
        try await offExecutor { try $0.deleteAlbum(album) }
    }

    /// Adds assets at the end of a user album; ones already in it stay where they are.
    ///
    /// - Returns: how many were added (those already in the album are not counted).
    /// - Throws: as `Blocking.addAssets(_:toAlbum:)`.
    @discardableResult
    public func addAssets(_ assets: [Asset.ID], toAlbum album: Album.ID) async throws -> Int {
        try await offExecutor { try $0.addAssets(assets, toAlbum: album) }
    }

    /// Removes assets from a user album (never from the library).
    ///
    /// - Throws: as `Blocking.removeAssets(_:fromAlbum:)`.
    public func removeAssets(_ assets: [Asset.ID], fromAlbum album: Album.ID) async throws {
        try await offExecutor { try $0.removeAssets(assets, fromAlbum: album) }
    }

    /// Moves assets of a user album so the first of them lands at `index`.
    ///
    /// - Returns: the position the first of them landed at (`index`, or the last there is).
    /// - Throws: as `Blocking.moveAssets(_:inAlbum:to:)`.
    @discardableResult
    public func moveAssets(_ assets: [Asset.ID], inAlbum album: Album.ID, to index: Int) async throws -> Int {
        try await offExecutor { try $0.moveAssets(assets, inAlbum: album, to: index) }
    }

    /// Sets (or clears, with nil) the asset a user album shows as its key.
    ///
    /// - Throws: as `Blocking.setKeyAsset(_:ofAlbum:)`.
    public func setKeyAsset(_ asset: Asset.ID?, ofAlbum album: Album.ID) async throws {
        try await offExecutor { try $0.setKeyAsset(asset, ofAlbum: album) }
    }

    /// Marks assets as favorites, or not.
    ///
    /// - Throws: as `Blocking.setFavorite(_:for:)`.
    public func setFavorite(_ favorite: Bool, for assets: [Asset.ID]) async throws {
        try await offExecutor { try $0.setFavorite(favorite, for: assets) }
    }

    /// Hides assets from default fetches, or shows them again.
    ///
    /// - Throws: as `Blocking.setHidden(_:for:)`.
    public func setHidden(_ hidden: Bool, for assets: [Asset.ID]) async throws {
        try await offExecutor { try $0.setHidden(hidden, for: assets) }
    }

    /// Sets an asset's title and caption (nil clears).
    ///
    /// - Throws: as `Blocking.setTitle(_:caption:for:)`.
    public func setTitle(_ title: String?, caption: String?, for asset: Asset.ID) async throws {
        try await offExecutor { try $0.setTitle(title, caption: caption, for: asset) }
    }
}

extension MediaLibrary.Blocking {
    /// Every album: the smart albums (Recents, Favorites and Hidden always; the others
    /// when they hold something), Places and its countries (when some asset has a country),
    /// then user albums by title, then folder albums by path.
    ///
    /// Counts, key assets and date ranges cover what a default fetch of the album
    /// shows: hidden assets and non-representative burst frames are left out (except
    /// in Hidden).
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func fetchAlbums() throws -> [Album] {
        let now = Date().timeIntervalSince1970
        return try library.read { db in
            let anyHidden = try db.scalarInt(
                "SELECT EXISTS (SELECT 1 FROM userstate.asset_user_state WHERE hidden = 1)") == 1
            var albums: [Album] = []
            for smart in SmartAlbum.allCases {
                var options = FetchOptions()
                options.album = .smart(smart)
                let album = try library.summary(of: try AssetQuery(options, now: now), id: AlbumScope.smart(smart).id,
                                                kind: .smart, title: smart.title, db: db)
                if album.count > 0 || smart.isListedWhenEmpty { albums.append(album) }
            }
            albums += try library.placeAlbums(now: now, db: db)
            albums += try library.userAlbums(anyHidden: anyHidden, db: db)
            albums += try library.folderAlbums(anyHidden: anyHidden, db: db)
            return albums
        }
    }
}

extension MediaLibrary {
    /// The album of `query`: its counts, key asset and dates, as a default fetch shows it.
    func summary(of query: AssetQuery, id: Album.ID, kind: Album.Kind, title: String,
                 db: DatabaseConnection) throws -> Album {
        // Counts from `asset_kinds` or a covering index; key and dates from the ends of
        // the capture order.
        let query = try query.simplified(db: db)
        return try summary(of: query, counts: try query.counts(db: db), id: id, kind: kind, title: title, db: db)
    }

    /// The album of `query`, its counts given (as `query.counts` gives them): the key asset
    /// and dates are read from the ends of its capture order.
    func summary(of query: AssetQuery, counts: AssetCounts, id: Album.ID, kind: Album.Kind, title: String,
                 db: DatabaseConnection) throws -> Album {
        guard counts.total > 0 else {
            return Album(id: id, kind: kind, title: title, path: nil, parentID: nil, imageCount: 0, videoCount: 0,
                         keyAssetID: nil, startDate: nil, endDate: nil)
        }
        let newest = try query.firstByCapture(ascending: false, datedOnly: false, db: db)
        // Undated assets sort oldest: the newest is dated unless none is.
        let newestDated = newest?.capture.map { $0 > -1e300 } == true
            ? newest : try query.firstByCapture(ascending: false, datedOnly: true, db: db)
        let oldestDated = try query.firstByCapture(ascending: true, datedOnly: true, db: db)
        var album = Album(id: id, kind: kind, title: title, path: nil, parentID: nil,
                          imageCount: counts.images, videoCount: counts.videos,
                          keyAssetID: newest.map { Asset.ID(stored: $0.id) },
                          startDate: oldestDated?.capture.map(Date.init(timeIntervalSince1970:)),
                          endDate: newestDated?.capture.map(Date.init(timeIntervalSince1970:)))
        // Days are the camera's days (issue 35 item 12): from the wall clock, not the instant.
        album.startDay = Album.day(ofLocalTime: oldestDated?.localTime)
        album.endDay = Album.day(ofLocalTime: newestDated?.localTime)
        return album
    }

    fileprivate func userAlbums(anyHidden: Bool, db: DatabaseConnection) throws -> [Album] {
        var albums: [Album] = []
        let store = AlbumStore(db: db)
        for (identifier, title, keyAsset) in try store.listing() {
            var options = FetchOptions()
            let id = Album.ID(userAlbum: identifier)
            options.album = .user(id)
            var album = try summary(of: try AssetQuery(options), id: id, kind: .user, title: title, db: db)
            // The user's key asset, while it is still in the album and the library.
            if let chosen = keyAsset, try store.holds(chosen, album: identifier) {
                album.keyAssetID = Asset.ID(stored: chosen)
            }
            albums.append(album)
        }
        return albums
    }

    fileprivate func folderAlbums(anyHidden: Bool, db: DatabaseConnection) throws -> [Album] {
        // Counts, key asset and oldest date come from `folder_stats`, kept by triggers:
        // one row per folder. Hidden assets (user state) are unknown to the triggers, so
        // the few folders that hold some are subtracted from and reread apart.
        let hiddenCounts = anyHidden ? try hiddenCountsByFolder(db: db) : [:]
        let takeoutTitles = try takeoutAlbumTitles(db: db)
        var albums: [Album] = []
        // By path, as SQLite orders BLOBs: bytes, then length, as `PathBytes` does.
        // Rows are read by position and as they come: one per folder, 10,000s of them.
        try db.cachedStatement("""
            SELECT s.folder_id, f.path, s.images, s.videos, s.key_identifier, s.key_capture, s.first_capture,
                   s.key_local_time, s.first_local_time
            FROM folder_stats s JOIN folders f ON f.id = s.folder_id
            WHERE s.images + s.videos > 0
            ORDER BY f.path
            """).forEachRow { row in
            guard let folder = row[0].int64, let pathBytes = row[1].blob else { return }
            var images = row[2].int ?? 0, videos = row[3].int ?? 0
            var key = row[4].text, newest = row[5].double, first = row[6].double
            var newestLocal = row[7].double, firstLocal = row[8].double
            if let hidden = hiddenCounts[folder] {
                images -= hidden.images
                videos -= hidden.videos
                guard images + videos > 0 else { return }
                (key, newest, first, newestLocal, firstLocal) = try visibleKeyAndRange(folder: folder, db: db)
            }
            guard images + videos > 0 else { return }
            let path = PathBytes(pathBytes)
            let newestDated = newest.map { $0 > -1e300 } == true
            var album = Album(
                id: AlbumScope.folder(path).id, kind: .folder,
                title: takeoutTitles[pathBytes] ?? String(decoding: path.lastComponent, as: UTF8.self), path: path, parentID: nil,
                imageCount: images, videoCount: videos, keyAssetID: key.map(Asset.ID.init(stored:)),
                // The newest asset is dated unless none is (undated ones sort oldest).
                startDate: first.map(Date.init(timeIntervalSince1970:)),
                endDate: newestDated ? newest.map(Date.init(timeIntervalSince1970:)) : nil)
            // The camera's days (issue 35 item 12), kept next to the instants (schema 48).
            album.startDay = Album.day(ofLocalTime: first == nil ? nil : firstLocal)
            album.endDay = Album.day(ofLocalTime: newestDated ? newestLocal : nil)
            albums.append(album)
        }
        Self.nestFolderAlbums(&albums)
        return albums
    }

    /// The hidden images and videos of each folder that holds some.
    private func hiddenCountsByFolder(db: DatabaseConnection) throws -> [Int64: (images: Int, videos: Int)] {
        var hiddenCounts: [Int64: (images: Int, videos: Int)] = [:]
        // CROSS JOIN keeps the hidden assets outside: left to itself the planner walks
        // every asset by folder and looks each up in the user state (0.6 s at 1M).
        for row in try db.rows("""
            SELECT a.folder_id, sum(a.media_type = 'image') AS images, sum(a.media_type = 'video') AS videos
            FROM userstate.asset_user_state u CROSS JOIN assets a ON a.identifier = u.identifier
            WHERE u.hidden = 1 AND a.is_burst_representative = 1 AND a.folder_id IS NOT NULL
            GROUP BY a.folder_id
            """) {
            if let folder = row.int64("folder_id") {
                hiddenCounts[folder] = (row.int("images") ?? 0, row.int("videos") ?? 0)
            }
        }
        return hiddenCounts
    }

    /// A Google Takeout album folder's title (its `metadata.json`), by folder path.
    private func takeoutAlbumTitles(db: DatabaseConnection) throws -> [[UInt8]: String] {
        var takeoutTitles: [[UInt8]: String] = [:]
        try db.cachedStatement("SELECT folder, metadata FROM files WHERE role = \(FileRole.takeoutAlbumMetadata.sql)")
            .forEachRow { row in
                if let folder = row.blob("folder"), let title = TakeoutAlbumValues.decode(row.string("metadata"))?.title {
                    takeoutTitles[folder] = title
                }
            }
        return takeoutTitles
    }

    /// Each folder album's parent, the nearest enclosing folder album, and its counts with subfolders.
    private static func nestFolderAlbums(_ albums: inout [Album]) {
        // Nest: the parent is the nearest enclosing folder album.
        var idsByPath: [PathBytes: Album.ID] = [:]
        idsByPath.reserveCapacity(albums.count)
        for album in albums { if let path = album.path { idsByPath[path] = album.id } }
        for index in albums.indices {
            guard var path = albums[index].path else { continue }
            while path.bytes.count > 1, path.bytes.contains(UInt8(ascii: "/")) {
                path = path.parent
                if let id = idsByPath[path] {
                    albums[index].parentID = id
                    break
                }
            }
        }
        // Counts with subfolders: children sort after their parent (a path before its
        // extensions), so adding each album into its parent from the end sums whole trees.
        var indexByID: [Album.ID: Int] = [:]
        indexByID.reserveCapacity(albums.count)
        for (index, album) in albums.enumerated() { indexByID[album.id] = index }
        for index in albums.indices.reversed() {
            guard let parent = albums[index].parentID.flatMap({ indexByID[$0] }) else { continue }
            albums[parent].subfolderImageCount += albums[index].imageCountWithSubfolders
            albums[parent].subfolderVideoCount += albums[index].videoCountWithSubfolders
        }
    }

    /// A folder's key asset, its capture key, and its oldest dated capture, with the
    /// wall clocks of both, leaving hidden assets out: two seeks on `assets_by_folder`
    /// that step over hidden ones.
    private func visibleKeyAndRange(folder: Int64, db: DatabaseConnection) throws
        -> (key: String?, newest: Double?, first: Double?, newestLocal: Double?, firstLocal: Double?) {
        let visible = "a.folder_id = ? AND a.is_burst_representative = 1 AND " + AssetQuery.hiddenCondition.sql
        let newest = try db.cachedStatement("""
            SELECT a.identifier, a.capture_sort, a.local_time FROM assets a WHERE \(visible)
            ORDER BY a.capture_sort DESC, a.id DESC LIMIT 1
            """).rows([folder]).first
        let first = try db.cachedStatement("""
            SELECT a.capture_sort, a.local_time FROM assets a WHERE \(visible) AND a.capture_sort > -1e300
            ORDER BY a.capture_sort, a.id LIMIT 1
            """).rows([folder]).first
        return (newest?.string("identifier"), newest?.double("capture_sort"), first?.double("capture_sort"),
                newest?.double("local_time"), first?.double("local_time"))
    }

    /// Runs a user-state write in a deferred transaction on the user-state connection,
    /// so it locks only user-state.sqlite (library.sqlite is only read) and never waits
    /// for an index run's batch, in this process or another.
    ///
    /// The transaction takes user-state.sqlite's write lock before it reads anything
    /// (`UserStateStore.writeLockStatement`): a read first and a write after would upgrade
    /// a read transaction, which SQLite refuses at once with `SQLITE_BUSY` (or
    /// `SQLITE_BUSY_SNAPSHOT` when another connection committed in between) instead of
    /// waiting for the busy timeout. Any busy answer left is retried, the whole
    /// transaction again, until the busy timeout has passed.
    func writeUserState<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        let writer = try requireUserStateWriter()
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(DatabaseConnection.busyTimeoutMilliseconds))
        var attempt: UInt32 = 0
        while true {
            do {
                return try writer.write { db in
                    try db.inTransaction(immediate: false) {
                        try db.execute(UserStateStore.writeLockStatement)
                        return try body(db)
                    }
                }
            } catch let error as DatabaseError where error.isBusy && clock.now < deadline {
                attempt += 1
                usleep(min(attempt, 10) * 1_000)
            } catch let error as DatabaseError {
                throw LibraryError.database(error)
            }
        }
    }

    /// The row id of the user album `id` names.
    func userAlbumRowID(_ id: Album.ID, db: DatabaseConnection) throws -> Int64 {
        try AlbumStore(db: db).rowID(of: id)
    }

    /// The identifier of the user album named by album id (`user.x`), bare identifier or
    /// title (case and surrounding spaces aside).
    ///
    /// - Throws: `AssetQueryError.ambiguousAlbumTitle` naming every album with that
    ///   title, `.unknownAlbum`.
    func userAlbumID(named key: String, db: DatabaseConnection) throws -> Album.ID {
        var identifier = key
        if case .user(let id)? = AlbumScope(parsing: key), let inner = id.userAlbumIdentifier { identifier = inner }
        if try AlbumStore(db: db).exists(identifier: identifier) {
            return Album.ID(userAlbum: identifier)
        }
        let byTitle = try albumsTitled(key, db: db)
        if byTitle.count == 1 { return byTitle[0].id }
        if byTitle.count > 1 { throw AssetQueryError.ambiguousAlbumTitle(title: key, albumIDs: byTitle.map(\.id)) }
        throw AssetQueryError.unknownAlbum(key)
    }

    /// The user albums whose title is `title`, case and surrounding spaces aside, oldest first.
    func albumsTitled(_ title: String, db: DatabaseConnection) throws -> [(rowID: Int64, id: Album.ID, title: String)] {
        try AlbumStore(db: db).titled(title)
    }

    /// Throws `assetNotFound` unless the library holds the asset.
    static func requireAsset(_ id: Asset.ID, db: DatabaseConnection) throws {
        guard try db.scalarInt("SELECT 1 FROM assets WHERE identifier = ?", [id.rawValue]) == 1 else {
            throw LibraryError.assetNotFound(id.rawValue)
        }
    }

    /// Applies the favorites Google Takeout recorded (`takeout_favorites`, written by
    /// the index run) that were never applied: each asset becomes a favorite once, on
    /// its first attach, and is remembered in `userstate.imported_favorites`, so a later
    /// change by the user (or a rebuild of `library.sqlite`) is never overridden.
    ///
    /// A user-state write like `setFavorite`: it never waits for an index run, and the
    /// index writer never touches user state. Called after every index run; what a
    /// failure leaves unapplied is applied after the next one.
    ///
    /// - Returns: how many assets became favorites.
    /// - Throws: `LibraryError.readOnly`, `.database`.
    @discardableResult
    func applyTakeoutFavorites() throws -> Int {
        try writeUserState { db in
            let now = Date().timeIntervalSince1970
            let pending = try db.rows("""
                SELECT t.asset_identifier FROM takeout_favorites t
                WHERE NOT EXISTS (SELECT 1 FROM userstate.imported_favorites i WHERE i.identifier = t.asset_identifier)
                """).compactMap { $0.string("asset_identifier") }
            for identifier in pending {
                try db.execute("""
                    INSERT INTO userstate.asset_user_state (identifier, favorite, modified_at) VALUES (?, 1, ?)
                    ON CONFLICT (identifier) DO UPDATE SET favorite = 1, modified_at = excluded.modified_at
                    """, [identifier, now])
                try db.execute("INSERT INTO userstate.imported_favorites (identifier, applied_at) VALUES (?, ?)",
                               [identifier, now])
            }
            return pending.count
        }
    }

    fileprivate func setUserFlag(_ column: String, _ value: Bool, for assetIDs: [Asset.ID]) throws {
        precondition(column == "favorite" || column == "hidden")
        try writeUserState { db in
            let now = Date().timeIntervalSince1970
            for assetID in assetIDs {
                try Self.requireAsset(assetID, db: db)
                try db.execute("""
                    INSERT INTO userstate.asset_user_state (identifier, \(column), modified_at) VALUES (?, ?, ?)
                    ON CONFLICT (identifier) DO UPDATE SET \(column) = excluded.\(column), modified_at = excluded.modified_at
                    """, [assetID.rawValue, value, now])
            }
        }
    }
}

extension MediaLibrary.Blocking {
    /// The scope an album argument names: an album id, a smart album's name or title,
    /// a user album's identifier or title (case aside), or a folder album's path
    /// (absolute or relative to the working folder).
    ///
    /// - Throws: `AssetQueryError.unknownAlbum` when nothing matches,
    ///   `.ambiguousAlbumTitle` naming every user album with that title,
    ///   `LibraryError.database` when the database fails.
    public func albumScope(named key: String) throws -> AlbumScope {
        try albumScope(named: key, recursive: false)
    }

    /// The scope an album argument names, as `albumScope(named:)`; with `recursive`, a
    /// folder's scope covers everything under it (a folder with only subfolders qualifies).
    ///
    /// - Throws: `AssetQueryError.unknownAlbum`, `.ambiguousAlbumTitle`,
    ///   `.recursiveNeedsFolder` when `recursive` names an album that is not a folder,
    ///   `LibraryError.database`.
    public func albumScope(named key: String, recursive: Bool) throws -> AlbumScope {
        if let scope = AlbumScope(parsing: key) {
            guard recursive else { return scope }
            guard case .folder(let path, _) = scope else { throw AssetQueryError.recursiveNeedsFolder(key) }
            return .folder(path, recursive: true)
        }
        let simplified = key.lowercased().filter { $0.isLetter }
        if let smart = SmartAlbum.allCases.first(where: {
            $0.rawValue.lowercased() == simplified || $0.title.lowercased().filter(\.isLetter) == simplified
        }) {
            guard !recursive else { throw AssetQueryError.recursiveNeedsFolder(key) }
            return .smart(smart)
        }
        return try library.read { db in
            do {
                let id = try library.userAlbumID(named: key, db: db)
                guard !recursive else { throw AssetQueryError.recursiveNeedsFolder(key) }
                return .user(id)
            } catch AssetQueryError.unknownAlbum {
                // Not a user album: maybe a folder.
            }
            var path = key
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
            let bytes = Array(path.utf8)
            if try db.scalarInt("SELECT 1 FROM folders WHERE path = ?", [bytes]) == 1 {
                return .folder(PathBytes(path), recursive: recursive)
            }
            let base = bytes.last == UInt8(ascii: "/") ? Array(bytes.dropLast()) : bytes
            if recursive, try db.scalarInt("SELECT 1 FROM folders WHERE path >= ? AND path < ? LIMIT 1",
                                           [base + [UInt8(ascii: "/")], base + [UInt8(ascii: "0")]]) == 1 {
                return .folder(PathBytes(path), recursive: true)
            }
            throw AssetQueryError.unknownAlbum(key)
        }
    }

    /// The user album named by its id (`user.…`), its bare identifier or its title (case aside).
    ///
    /// - Throws: `AssetQueryError.unknownAlbum` when none matches,
    ///   `.ambiguousAlbumTitle` naming every album with that title, `LibraryError.database`.
    public func userAlbumID(named key: String) throws -> Album.ID {
        try library.read { db in try library.userAlbumID(named: key, db: db) }
    }

    /// Creates an empty user album. Titles are unique, case aside.
    ///
    /// - Throws: `AssetQueryError.emptyAlbumTitle` for an empty title,
    ///   `.albumTitleTaken` naming the album that has it, `LibraryError.readOnly`,
    ///   `LibraryError.database`.
    @discardableResult
    public func createAlbum(title: String) throws -> Album {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw AssetQueryError.emptyAlbumTitle }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        let identifier = String((0..<13).map { _ in alphabet[Int(generator.next(upperBound: UInt32(32)))] })
        let now = Date().timeIntervalSince1970
        try library.writeUserState { db in
            if let taken = try library.albumsTitled(title, db: db).first {
                throw AssetQueryError.albumTitleTaken(title: taken.title, albumID: taken.id)
            }
            try AlbumStore(db: db).insert(identifier: identifier, title: title, now: now)
        }
        return Album(id: Album.ID(userAlbum: identifier), kind: .user, title: title, path: nil, parentID: nil,
                     imageCount: 0, videoCount: 0, keyAssetID: nil, startDate: nil, endDate: nil)
    }

    /// Renames a user album. Titles are unique, case aside.
    ///
    /// - Throws: `AssetQueryError.emptyAlbumTitle`, `.albumTitleTaken` when another
    ///   album has the title, `.unknownAlbum`, `.notAUserAlbum`, `LibraryError.readOnly`,
    ///   `LibraryError.database`.
    public func renameAlbum(_ album: Album.ID, to title: String) throws {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw AssetQueryError.emptyAlbumTitle }
        try library.writeUserState { db in
            let id = try library.userAlbumRowID(album, db: db)
            if let taken = try library.albumsTitled(title, db: db).first(where: { $0.rowID != id }) {
                throw AssetQueryError.albumTitleTaken(title: taken.title, albumID: taken.id)
            }
            try AlbumStore(db: db).rename(id, to: title, now: Date().timeIntervalSince1970)
        }
    }

    /// Deletes a user album; its assets stay in the library.
    ///
    /// - Throws: `AssetQueryError.unknownAlbum`, `.notAUserAlbum`, `LibraryError.readOnly`,
    ///   `LibraryError.database`.
    public func deleteAlbum(_ album: Album.ID) throws {
        try library.writeUserState { db in
            try AlbumStore(db: db).delete(try library.userAlbumRowID(album, db: db))
        }
    }

    /// Adds assets at the end of a user album; ones already in it stay where they are.
    ///
    /// - Returns: how many were added (those already in the album are not counted).
    /// - Throws: `LibraryError.assetNotFound` for an asset the library does not hold
    ///   (nothing is added then), `AssetQueryError.unknownAlbum`, `.notAUserAlbum`,
    ///   `LibraryError.readOnly`, `LibraryError.database`.
    @discardableResult
    public func addAssets(_ assetIDs: [Asset.ID], toAlbum album: Album.ID) throws -> Int {
        try library.writeUserState { db in
            try AlbumStore(db: db).append(assetIDs, to: try library.userAlbumRowID(album, db: db),
                                          now: Date().timeIntervalSince1970)
        }
    }

    /// Removes assets from a user album (never from the library); ones not in it are ignored.
    ///
    /// - Throws: `AssetQueryError.unknownAlbum`, `.notAUserAlbum`, `LibraryError.readOnly`,
    ///   `LibraryError.database`.
    public func removeAssets(_ assetIDs: [Asset.ID], fromAlbum album: Album.ID) throws {
        try library.writeUserState { db in
            try AlbumStore(db: db).remove(assetIDs, from: try library.userAlbumRowID(album, db: db))
        }
    }

    /// Moves assets of a user album so the first of them lands at `index` (0-based) of
    /// the album's order, keeping their relative order.
    ///
    /// - Returns: the position the first of them landed at (`index`, or the last
    ///   position there is room for).
    /// - Throws: `LibraryError.assetNotFound` for an asset not in the album,
    ///   `AssetQueryError.unknownAlbum`, `.notAUserAlbum`, `LibraryError.readOnly`,
    ///   `LibraryError.database`.
    @discardableResult
    public func moveAssets(_ assetIDs: [Asset.ID], inAlbum album: Album.ID, to index: Int) throws -> Int {
        let moved = assetIDs.map(\.rawValue)
        return try library.writeUserState { db in
            let store = AlbumStore(db: db), id = try library.userAlbumRowID(album, db: db)
            var order = try store.order(of: id)
            for assetID in moved where !order.contains(assetID) { throw LibraryError.assetNotFound(assetID) }
            let moving = order.filter { moved.contains($0) }
            order.removeAll { moved.contains($0) }
            let landed = max(0, min(index, order.count))
            order.insert(contentsOf: moving, at: landed)
            try store.setOrder(order, of: id)
            return landed
        }
    }

    /// Sets (or clears, with nil) the asset a user album shows as its key; listings use
    /// it while it is in the album.
    ///
    /// - Throws: `AssetQueryError.unknownAlbum`, `.notAUserAlbum`, `LibraryError.readOnly`,
    ///   `LibraryError.database`.
    public func setKeyAsset(_ assetID: Asset.ID?, ofAlbum album: Album.ID) throws {
        try library.writeUserState { db in
            try AlbumStore(db: db).setKeyAsset(assetID, of: try library.userAlbumRowID(album, db: db))
        }
    }

    /// Marks assets as favorites, or not.
    ///
    /// - Throws: `LibraryError.assetNotFound` for an asset the library does not hold
    ///   (nothing changes then), `LibraryError.readOnly`, `LibraryError.database`.
    public func setFavorite(_ favorite: Bool, for assetIDs: [Asset.ID]) throws {
        try library.setUserFlag("favorite", favorite, for: assetIDs)
    }

    /// Hides assets from default fetches, or shows them again.
    ///
    /// - Throws: `LibraryError.assetNotFound` for an asset the library does not hold
    ///   (nothing changes then), `LibraryError.readOnly`, `LibraryError.database`.
    public func setHidden(_ hidden: Bool, for assetIDs: [Asset.ID]) throws {
        try library.setUserFlag("hidden", hidden, for: assetIDs)
    }

    /// Sets an asset's title and caption (nil clears).
    ///
    /// - Throws: `LibraryError.assetNotFound` when the library does not hold the asset,
    ///   `LibraryError.readOnly`, `LibraryError.database`.
    public func setTitle(_ title: String?, caption: String?, for assetID: Asset.ID) throws {
        try library.writeUserState { db in
            try MediaLibrary.requireAsset(assetID, db: db)
            try db.execute("""
                INSERT INTO userstate.asset_user_state (identifier, title, caption, modified_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (identifier) DO UPDATE SET title = excluded.title, caption = excluded.caption,
                    modified_at = excluded.modified_at
                """, [assetID.rawValue, title, caption, Date().timeIntervalSince1970])
        }
    }
}
