import Foundation

/// The user albums' rows (`userstate.albums`, `userstate.album_assets`): the one place
/// their SQL is written. `MediaLibrary+Albums` decides; this reads and writes.
struct AlbumStore {
    let db: DatabaseConnection

    /// The user albums, by title, with their chosen key asset.
    func listing() throws -> [(identifier: String, title: String, keyAsset: String?)] {
        try db.rows("SELECT identifier, title, key_asset FROM userstate.albums ORDER BY title, identifier").compactMap { row in
            guard let identifier = row.string("identifier") else { return nil }
            return (identifier, row.string("title") ?? "", row.string("key_asset"))
        }
    }

    /// Whether `asset` is in the album and in the library.
    func holds(_ asset: String, album identifier: String) throws -> Bool {
        try db.scalarInt("""
            SELECT 1 FROM userstate.album_assets m JOIN assets a ON a.identifier = m.asset_identifier
            WHERE m.album_id = (SELECT id FROM userstate.albums WHERE identifier = ?) AND m.asset_identifier = ?
            """, [identifier, asset]) == 1
    }

    /// The row id of the user album `id` names.
    ///
    /// - Throws: `AssetQueryError.notAUserAlbum`, `.unknownAlbum`.
    func rowID(of id: Album.ID) throws -> Int64 {
        guard let identifier = id.userAlbumIdentifier else { throw AssetQueryError.notAUserAlbum(id) }
        guard let rowID = try db.row("SELECT id FROM userstate.albums WHERE identifier = ?", [identifier])?.int64("id") else {
            throw AssetQueryError.unknownAlbum(id.rawValue)
        }
        return rowID
    }

    func exists(identifier: String) throws -> Bool {
        try db.scalarInt("SELECT 1 FROM userstate.albums WHERE identifier = ?", [identifier]) == 1
    }

    /// The user albums whose title is `title`, case and surrounding spaces aside, oldest first.
    func titled(_ title: String) throws -> [(rowID: Int64, id: Album.ID, title: String)] {
        let wanted = title.trimmingCharacters(in: .whitespacesAndNewlines)
        return try db.rows("SELECT id, identifier, title FROM userstate.albums ORDER BY created_at, id").compactMap { row in
            guard let rowID = row.int64("id"), let identifier = row.string("identifier"), let existing = row.string("title"),
                  existing.trimmingCharacters(in: .whitespacesAndNewlines)
                      .compare(wanted, options: [.caseInsensitive]) == .orderedSame else { return nil }
            return (rowID, Album.ID(userAlbum: identifier), existing)
        }
    }

    func insert(identifier: String, title: String, now: Double) throws {
        try db.execute("""
            INSERT INTO userstate.albums (identifier, title, created_at, modified_at) VALUES (?, ?, ?, ?)
            """, [identifier, title, now, now])
    }

    func rename(_ album: Int64, to title: String, now: Double) throws {
        try db.execute("UPDATE userstate.albums SET title = ?, modified_at = ? WHERE id = ?", [title, now, album])
    }

    func delete(_ album: Int64) throws {
        try db.execute("DELETE FROM userstate.album_assets WHERE album_id = ?", [album])
        try db.execute("DELETE FROM userstate.albums WHERE id = ?", [album])
    }

    /// Adds assets at the end of the album; ones already in it stay where they are.
    ///
    /// - Returns: how many were added.
    /// - Throws: `LibraryError.assetNotFound` for an asset the library does not hold.
    func append(_ assets: [Asset.ID], to album: Int64, now: Double) throws -> Int {
        var next = (try db.scalarInt("SELECT max(position) FROM userstate.album_assets WHERE album_id = ?", [album]) ?? -1) + 1
        let first = next
        for asset in assets {
            try MediaLibrary.requireAsset(asset, db: db)
            try db.execute("""
                INSERT OR IGNORE INTO userstate.album_assets (album_id, asset_identifier, position, added_at)
                VALUES (?, ?, ?, ?)
                """, [album, asset.rawValue, next, now])
            if db.changes > 0 { next += 1 }
        }
        try db.execute("UPDATE userstate.albums SET modified_at = ? WHERE id = ?", [now, album])
        return next - first
    }

    /// Removes assets from the album, and its key asset when that was one of them.
    func remove(_ assets: [Asset.ID], from album: Int64) throws {
        for asset in assets {
            try db.execute("DELETE FROM userstate.album_assets WHERE album_id = ? AND asset_identifier = ?",
                           [album, asset.rawValue])
        }
        try db.execute("UPDATE userstate.albums SET key_asset = NULL WHERE id = ? AND key_asset NOT IN (SELECT asset_identifier FROM userstate.album_assets WHERE album_id = ?)", [album, album])
    }

    /// The album's asset identifiers in its order.
    func order(of album: Int64) throws -> [String] {
        try db.rows("SELECT asset_identifier FROM userstate.album_assets WHERE album_id = ? ORDER BY position",
                    [album]).compactMap { $0.string("asset_identifier") }
    }

    /// Renumbers the album's assets in `order`.
    func setOrder(_ order: [String], of album: Int64) throws {
        // Positions are unique per album: park them out of the way, then renumber.
        try db.execute("UPDATE userstate.album_assets SET position = -1 - position WHERE album_id = ?", [album])
        for (position, asset) in order.enumerated() {
            try db.execute("UPDATE userstate.album_assets SET position = ? WHERE album_id = ? AND asset_identifier = ?",
                           [position, album, asset])
        }
    }

    func setKeyAsset(_ asset: Asset.ID?, of album: Int64) throws {
        try db.execute("UPDATE userstate.albums SET key_asset = ? WHERE id = ?", [asset?.rawValue, album])
    }
}
