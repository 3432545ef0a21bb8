import Foundation

extension MediaLibrary {
    /// Every album: the smart albums (Recents, Favorites and Hidden always; the others
    /// when they hold something), then user albums by title, then folder albums by path.
    ///
    /// Counts, key assets and date ranges cover what a default fetch of the album
    /// shows: hidden assets and non-representative burst frames are left out (except
    /// in Hidden).
    ///
    /// - Throws: `LibraryError` when the database fails.
    public func fetchAlbums() async throws -> [Album] {
        try fetchAlbumsNow()
    }

    /// Synchronous `fetchAlbums`.
    public func fetchAlbumsNow() throws -> [Album] {
        let now = Date().timeIntervalSince1970
        return try read { db in
            let anyHidden = try db.scalarInt(
                "SELECT EXISTS (SELECT 1 FROM userstate.asset_user_state WHERE hidden = 1)") == 1
            var albums: [Album] = []
            for smart in SmartAlbum.allCases {
                var options = FetchOptions()
                options.album = .smart(smart)
                let album = try summary(of: try AssetQuery(options, now: now), id: AlbumScope.smart(smart).albumID,
                                        kind: .smart, title: smart.title, db: db)
                if album.count > 0 || smart.isListedWhenEmpty { albums.append(album) }
            }
            albums += try userAlbums(anyHidden: anyHidden, db: db)
            albums += try folderAlbums(anyHidden: anyHidden, db: db)
            return albums
        }
    }

    private func summary(of query: AssetQuery, id: String, kind: Album.Kind, title: String,
                         db: DatabaseConnection) throws -> Album {
        // Counts from `asset_kinds` or a covering index; key and dates from the ends of
        // the capture order.
        let query = try query.simplified(db: db)
        let counts = try query.counts(db: db)
        guard counts.total > 0 else {
            return Album(id: id, kind: kind, title: title, path: nil, parentID: nil, imageCount: 0, videoCount: 0,
                         keyAssetID: nil, startDate: nil, endDate: nil)
        }
        let newest = try query.firstByCapture(ascending: false, datedOnly: false, db: db)
        // Undated assets sort oldest: the newest is dated unless none is.
        let newestDated = newest?.capture.map { $0 > -1e300 } == true
            ? newest : try query.firstByCapture(ascending: false, datedOnly: true, db: db)
        let oldestDated = try query.firstByCapture(ascending: true, datedOnly: true, db: db)
        return Album(id: id, kind: kind, title: title, path: nil, parentID: nil,
                     imageCount: counts.images, videoCount: counts.videos, keyAssetID: newest?.id,
                     startDate: oldestDated?.capture, endDate: newestDated?.capture)
    }

    private func userAlbums(anyHidden: Bool, db: DatabaseConnection) throws -> [Album] {
        var albums: [Album] = []
        for row in try db.rows("SELECT identifier, title, key_asset FROM userstate.albums ORDER BY title, identifier") {
            guard let identifier = row.string("identifier") else { continue }
            var options = FetchOptions()
            options.album = .user(identifier)
            var album = try summary(of: try AssetQuery(options), id: AlbumScope.user(identifier).albumID, kind: .user,
                                    title: row.string("title") ?? "", db: db)
            // The user's key asset, while it is still in the album and the library.
            if let chosen = row.string("key_asset"), try db.scalarInt("""
                SELECT 1 FROM userstate.album_assets m JOIN assets a ON a.identifier = m.asset_identifier
                WHERE m.album_id = (SELECT id FROM userstate.albums WHERE identifier = ?) AND m.asset_identifier = ?
                """, [identifier, chosen]) == 1 {
                album.keyAssetID = chosen
            }
            albums.append(album)
        }
        return albums
    }

    private func folderAlbums(anyHidden: Bool, db: DatabaseConnection) throws -> [Album] {
        // Counts, key asset and oldest date come from `folder_stats`, kept by triggers:
        // one row per folder. Hidden assets (user state) are unknown to the triggers, so
        // the few folders that hold some are subtracted from and reread apart.
        var hiddenCounts: [Int64: (images: Int, videos: Int)] = [:]
        if anyHidden {
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
        }
        var albums: [Album] = []
        // By path, as SQLite orders BLOBs: bytes, then length, as `PathBytes` does.
        // Rows are read by position and as they come: one per folder, 10,000s of them.
        try db.cachedStatement("""
            SELECT s.folder_id, f.path, s.images, s.videos, s.key_identifier, s.key_capture, s.first_capture
            FROM folder_stats s JOIN folders f ON f.id = s.folder_id
            WHERE s.images + s.videos > 0
            ORDER BY f.path
            """).forEachRow { row in
            guard let folder = row[0].int64, let pathBytes = row[1].blob else { return }
            var images = row[2].int ?? 0, videos = row[3].int ?? 0
            var key = row[4].text, newest = row[5].double, first = row[6].double
            if let hidden = hiddenCounts[folder] {
                images -= hidden.images
                videos -= hidden.videos
                guard images + videos > 0 else { return }
                (key, newest, first) = try visibleKeyAndRange(folder: folder, db: db)
            }
            guard images + videos > 0 else { return }
            let path = PathBytes(pathBytes)
            albums.append(Album(
                id: AlbumScope.folder(path).albumID, kind: .folder,
                title: String(decoding: path.lastComponent, as: UTF8.self), path: path, parentID: nil,
                imageCount: images, videoCount: videos, keyAssetID: key,
                // The newest asset is dated unless none is (undated ones sort oldest).
                startDate: first, endDate: newest.flatMap { $0 > -1e300 ? $0 : nil }))
        }
        // Nest: the parent is the nearest enclosing folder album.
        var idsByPath: [PathBytes: String] = [:]
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
        var indexByID: [String: Int] = [:]
        indexByID.reserveCapacity(albums.count)
        for (index, album) in albums.enumerated() { indexByID[album.id] = index }
        for index in albums.indices.reversed() {
            guard let parent = albums[index].parentID.flatMap({ indexByID[$0] }) else { continue }
            albums[parent].subfolderImageCount += albums[index].imageCountWithSubfolders
            albums[parent].subfolderVideoCount += albums[index].videoCountWithSubfolders
        }
        return albums
    }

    /// A folder's key asset, its capture key, and its oldest dated capture, leaving
    /// hidden assets out: two seeks on `assets_by_folder` that step over hidden ones.
    private func visibleKeyAndRange(folder: Int64, db: DatabaseConnection) throws
        -> (key: String?, newest: Double?, first: Double?) {
        let visible = "a.folder_id = ? AND a.is_burst_representative = 1 AND " + AssetQuery.hiddenCondition.sql
        let newest = try db.cachedStatement("""
            SELECT a.identifier, a.capture_sort FROM assets a WHERE \(visible)
            ORDER BY a.capture_sort DESC, a.id DESC LIMIT 1
            """).rows([folder]).first
        let first = try db.cachedStatement("""
            SELECT a.capture_sort FROM assets a WHERE \(visible) AND a.capture_sort > -1e300
            ORDER BY a.capture_sort LIMIT 1
            """).rows([folder]).first
        return (newest?.string("identifier"), newest?.double("capture_sort"), first?.double("capture_sort"))
    }

    // MARK: User albums

    /// Creates an empty user album. Titles are unique, case aside.
    ///
    /// - Throws: `AssetQueryError.invalidOption` for an empty title,
    ///   `.albumTitleTaken` naming the album that has it, `LibraryError`.
    @discardableResult
    public func createAlbum(title: String) async throws -> Album {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw AssetQueryError.invalidOption("an album needs a title") }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        let identifier = String((0..<13).map { _ in alphabet[Int(generator.next(upperBound: UInt32(32)))] })
        let now = Date().timeIntervalSince1970
        try writeUserState { db in
            if let taken = try albumsTitled(title, db: db).first {
                throw AssetQueryError.albumTitleTaken(title: taken.title, albumID: AlbumScope.user(taken.identifier).albumID)
            }
            try db.execute("""
                INSERT INTO userstate.albums (identifier, title, created_at, modified_at) VALUES (?, ?, ?, ?)
                """, [identifier, title, now, now])
        }
        return Album(id: AlbumScope.user(identifier).albumID, kind: .user, title: title, path: nil, parentID: nil,
                     imageCount: 0, videoCount: 0, keyAssetID: nil, startDate: nil, endDate: nil)
    }

    /// Renames a user album (by id, identifier or title, case aside).
    ///
    /// - Throws: `AssetQueryError.albumTitleTaken` when another album has the title.
    public func renameAlbum(_ album: String, to title: String) async throws {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw AssetQueryError.invalidOption("an album needs a title") }
        try writeUserState { db in
            let id = try userAlbumRowID(album, db: db)
            if let taken = try albumsTitled(title, db: db).first(where: { $0.rowID != id }) {
                throw AssetQueryError.albumTitleTaken(title: taken.title, albumID: AlbumScope.user(taken.identifier).albumID)
            }
            try db.execute("UPDATE userstate.albums SET title = ?, modified_at = ? WHERE id = ?",
                           [title, Date().timeIntervalSince1970, id])
        }
    }

    /// Deletes a user album; its assets stay in the library.
    public func deleteAlbum(_ album: String) async throws {
        try writeUserState { db in
            let id = try userAlbumRowID(album, db: db)
            try db.execute("DELETE FROM userstate.album_assets WHERE album_id = ?", [id])
            try db.execute("DELETE FROM userstate.albums WHERE id = ?", [id])
        }
    }

    /// Adds assets (by identifier) at the end of a user album; ones already in it stay where they are.
    ///
    /// - Returns: how many were added (those already in the album are not counted).
    /// - Throws: `LibraryError.assetNotFound` for an identifier the library does not hold.
    @discardableResult
    public func addAssets(_ assetIDs: [String], toAlbum album: String) async throws -> Int {
        try writeUserState { db in
            let id = try userAlbumRowID(album, db: db)
            var next = (try db.scalarInt("SELECT max(position) FROM userstate.album_assets WHERE album_id = ?", [id]) ?? -1) + 1
            let first = next
            let now = Date().timeIntervalSince1970
            for assetID in assetIDs {
                guard try db.scalarInt("SELECT 1 FROM assets WHERE identifier = ?", [assetID]) == 1 else {
                    throw LibraryError.assetNotFound(assetID)
                }
                try db.execute("""
                    INSERT OR IGNORE INTO userstate.album_assets (album_id, asset_identifier, position, added_at)
                    VALUES (?, ?, ?, ?)
                    """, [id, assetID, next, now])
                if db.changes > 0 { next += 1 }
            }
            try db.execute("UPDATE userstate.albums SET modified_at = ? WHERE id = ?", [now, id])
            return next - first
        }
    }

    /// Removes assets from a user album (never from the library).
    public func removeAssets(_ assetIDs: [String], fromAlbum album: String) async throws {
        try writeUserState { db in
            let id = try userAlbumRowID(album, db: db)
            for assetID in assetIDs {
                try db.execute("DELETE FROM userstate.album_assets WHERE album_id = ? AND asset_identifier = ?", [id, assetID])
            }
            try db.execute("UPDATE userstate.albums SET key_asset = NULL WHERE id = ? AND key_asset NOT IN (SELECT asset_identifier FROM userstate.album_assets WHERE album_id = ?)", [id, id])
        }
    }

    /// Moves assets of a user album so the first of them lands at `index` (0-based) of
    /// the album's order, keeping their relative order.
    ///
    /// - Returns: the position the first of them landed at (`index`, or the last
    ///   position there is room for).
    /// - Throws: `LibraryError.assetNotFound` for an asset not in the album.
    @discardableResult
    public func moveAssets(_ assetIDs: [String], inAlbum album: String, to index: Int) async throws -> Int {
        try writeUserState { db in
            let id = try userAlbumRowID(album, db: db)
            var order = try db.rows("SELECT asset_identifier FROM userstate.album_assets WHERE album_id = ? ORDER BY position",
                                    [id]).compactMap { $0.string("asset_identifier") }
            for assetID in assetIDs where !order.contains(assetID) { throw LibraryError.assetNotFound(assetID) }
            let moving = order.filter { assetIDs.contains($0) }
            order.removeAll { assetIDs.contains($0) }
            let landed = max(0, min(index, order.count))
            order.insert(contentsOf: moving, at: landed)
            // Positions are unique per album: park them out of the way, then renumber.
            try db.execute("UPDATE userstate.album_assets SET position = -1 - position WHERE album_id = ?", [id])
            for (position, assetID) in order.enumerated() {
                try db.execute("UPDATE userstate.album_assets SET position = ? WHERE album_id = ? AND asset_identifier = ?",
                               [position, id, assetID])
            }
            return landed
        }
    }

    /// Sets (or clears, with nil) the asset a user album shows as its key.
    public func setKeyAsset(_ assetID: String?, ofAlbum album: String) async throws {
        try writeUserState { db in
            let id = try userAlbumRowID(album, db: db)
            try db.execute("UPDATE userstate.albums SET key_asset = ? WHERE id = ?", [assetID, id])
        }
    }

    // MARK: User state of assets

    /// Marks assets as favorites, or not.
    ///
    /// - Throws: `LibraryError.assetNotFound` for an identifier the library does not hold.
    public func setFavorite(_ favorite: Bool, for assetIDs: [String]) async throws {
        try setUserFlag("favorite", favorite, for: assetIDs)
    }

    /// Hides assets from default queries, or shows them again.
    public func setHidden(_ hidden: Bool, for assetIDs: [String]) async throws {
        try setUserFlag("hidden", hidden, for: assetIDs)
    }

    /// Sets an asset's title and caption (nil clears).
    public func setTitle(_ title: String?, caption: String?, for assetID: String) async throws {
        try writeUserState { db in
            guard try db.scalarInt("SELECT 1 FROM assets WHERE identifier = ?", [assetID]) == 1 else {
                throw LibraryError.assetNotFound(assetID)
            }
            try db.execute("""
                INSERT INTO userstate.asset_user_state (identifier, title, caption, modified_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (identifier) DO UPDATE SET title = excluded.title, caption = excluded.caption,
                    modified_at = excluded.modified_at
                """, [assetID, title, caption, Date().timeIntervalSince1970])
        }
    }

    private func setUserFlag(_ column: String, _ value: Bool, for assetIDs: [String]) throws {
        precondition(column == "favorite" || column == "hidden")
        try writeUserState { db in
            let now = Date().timeIntervalSince1970
            for assetID in assetIDs {
                guard try db.scalarInt("SELECT 1 FROM assets WHERE identifier = ?", [assetID]) == 1 else {
                    throw LibraryError.assetNotFound(assetID)
                }
                try db.execute("""
                    INSERT INTO userstate.asset_user_state (identifier, \(column), modified_at) VALUES (?, ?, ?)
                    ON CONFLICT (identifier) DO UPDATE SET \(column) = excluded.\(column), modified_at = excluded.modified_at
                    """, [assetID, value, now])
            }
        }
    }

    /// Runs a user-state write in a deferred transaction on the user-state connection,
    /// so it locks only user-state.sqlite (library.sqlite is only read) and never waits
    /// for an index run's batch, in this process or another.
    func writeUserState<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        let writer = try requireUserStateWriter()
        do {
            return try writer.write { db in try db.inTransaction(immediate: false) { try body(db) } }
        } catch let error as DatabaseError {
            throw LibraryError.database(error)
        }
    }

    /// The row id of a user album named by album id (`user.x`), identifier or title
    /// (case aside).
    ///
    /// - Throws: `AssetQueryError.ambiguousAlbum` naming every album with that title,
    ///   `.unknownAlbum`.
    func userAlbumRowID(_ key: String, db: DatabaseConnection) throws -> Int64 {
        var identifier = key
        if case .user(let inner)? = AlbumScope(albumID: key) { identifier = inner }
        if let id = try db.row("SELECT id FROM userstate.albums WHERE identifier = ?", [identifier])?.int64("id") {
            return id
        }
        let byTitle = try albumsTitled(key, db: db)
        if byTitle.count == 1 { return byTitle[0].rowID }
        if byTitle.count > 1 {
            throw AssetQueryError.ambiguousAlbum(key, albumIDs: byTitle.map { AlbumScope.user($0.identifier).albumID })
        }
        throw AssetQueryError.unknownAlbum(key)
    }

    /// The user albums whose title is `title`, case and surrounding spaces aside, oldest first.
    private func albumsTitled(_ title: String, db: DatabaseConnection) throws
        -> [(rowID: Int64, identifier: String, title: String)] {
        let wanted = title.trimmingCharacters(in: .whitespacesAndNewlines)
        return try db.rows("SELECT id, identifier, title FROM userstate.albums ORDER BY created_at, id").compactMap { row in
            guard let id = row.int64("id"), let identifier = row.string("identifier"), let existing = row.string("title"),
                  existing.trimmingCharacters(in: .whitespacesAndNewlines)
                      .compare(wanted, options: [.caseInsensitive]) == .orderedSame else { return nil }
            return (id, identifier, existing)
        }
    }

    /// The scope an album argument names: an album id, a smart album's name or title,
    /// a user album's identifier or title, or a folder album's path.
    ///
    /// - Throws: `AssetQueryError.unknownAlbum`, `.ambiguousAlbum` naming every user
    ///   album with that title.
    public func albumScope(named key: String) async throws -> AlbumScope {
        try await albumScope(named: key, recursive: false)
    }

    /// The scope an album argument names, as `albumScope(named:)`; with `recursive`, a
    /// folder covers everything under it (a folder with only subfolders qualifies).
    ///
    /// - Throws: `AssetQueryError.unknownAlbum`, `.ambiguousAlbum`, `.invalidOption`
    ///   when `recursive` names an album that is not a folder.
    public func albumScope(named key: String, recursive: Bool) async throws -> AlbumScope {
        if let scope = AlbumScope(albumID: key) {
            guard recursive else { return scope }
            guard case .folder(let path, _) = scope else {
                throw AssetQueryError.invalidOption("--recursive needs a folder album, and \(key) is not one")
            }
            return .folder(path, recursive: true)
        }
        let simplified = key.lowercased().filter { $0.isLetter }
        if !recursive, let smart = SmartAlbum.allCases.first(where: {
            $0.rawValue.lowercased() == simplified || $0.title.lowercased().filter(\.isLetter) == simplified
        }) {
            return .smart(smart)
        }
        return try read { db in
            do {
                guard !recursive else { throw AssetQueryError.unknownAlbum(key) }
                let rowID = try userAlbumRowID(key, db: db)
                if let identifier = try db.row("SELECT identifier FROM userstate.albums WHERE id = ?", [rowID])?.string("identifier") {
                    return .user(identifier)
                }
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
}
