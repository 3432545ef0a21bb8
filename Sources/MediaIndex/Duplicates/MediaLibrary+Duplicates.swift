import Foundation
import MediaMetadata
import MediaThumbnails

extension MediaLibrary {
    /// The duplicate groups of `kind` (all kinds when nil), after computing the hashes
    /// still missing. See `Blocking.duplicateGroups(kind:)`.
    ///
    /// - Throws: as `Blocking.duplicateGroups(kind:)`.
    public func duplicateGroups(kind: DuplicateKind? = nil) async throws -> [DuplicateGroup] {
        try await offExecutor { try $0.duplicateGroups(kind: kind) }
    }

    /// Hides a duplicate group's other members and merges their user state onto the
    /// keeper. See `Blocking.resolveDuplicateGroup(_:keep:)`.
    ///
    /// - Throws: as `Blocking.resolveDuplicateGroup(_:keep:)`.
    public func resolveDuplicateGroup(_ group: String, keep: Asset.ID? = nil) async throws -> DuplicateResolution {
        try await offExecutor { try $0.resolveDuplicateGroup(group, keep: keep) }
    }
}

/// What resolving a duplicate group did.
public struct DuplicateResolution: Sendable, Hashable {
    public var group: DuplicateGroup
    /// The member kept.
    public var keeper: Asset.ID
    /// The members hidden, with their files' paths (for `--print0`).
    public var hidden: [Asset.ID]
    public var hiddenPaths: [PathBytes]
    /// What was copied onto the keeper in user state (`favorite`, `album`, `keywords`, `gps`).
    public var merged: [String]
}

extension MediaLibrary.Blocking {
    /// The groups of `kind` (all kinds when nil): same files, duplicates (keeper first)
    /// and similar shots, of the assets not hidden. With write access, hashes still
    /// missing are computed first and kept, and the memberships the `duplicates` and
    /// `similar` filters read are brought up to date; read-only, the stored hashes are used.
    ///
    /// - Throws: `LibraryError.database`.
    public func duplicateGroups(kind: DuplicateKind? = nil) throws -> [DuplicateGroup] {
        if library.isWritable { return try updateDuplicates().filter { kind == nil || $0.kind == kind } }
        return try library.computeGroups().groups.filter { kind == nil || $0.kind == kind }
    }

    /// Computes the missing and stale hashes, regroups, and stores the memberships with
    /// change-feed entries for the assets whose groups changed.
    ///
    /// - Returns: every group.
    /// - Throws: `LibraryError.readOnly`, `.database`.
    @discardableResult
    public func updateDuplicates() throws -> [DuplicateGroup] {
        let writer = try library.requireWriter()
        do {
            try library.updatePerceptualHashes(writer: writer)
            try library.updateContentHashes(writer: writer)
            let computed = try library.computeGroups()
            try writer.write { db in
                try db.inTransaction {
                    try DuplicateStore(db: db).replaceMembers(
                        computed.groups, kinds: Set(DuplicateKind.allCases), rows: computed.rows,
                        identifiers: Dictionary(uniqueKeysWithValues: computed.rows.map { ($1, $0) }),
                        now: Date().timeIntervalSince1970)
                }
            }
            return computed.groups
        } catch let error as DatabaseError {
            throw LibraryError.database(error)
        }
    }

    /// Hides the members of `group` other than the keeper (`keep`, else the group's) in
    /// user state, and copies onto the keeper, in user state: their favourite mark,
    /// user-album memberships, keywords (the union of every member's, read from the files
    /// and the user's own) and, when the keeper has none, a GPS position. Never deletes,
    /// moves or writes a file; `unhide` undoes the hiding.
    ///
    /// - Throws: `LibraryError.duplicateGroupNotFound`, `.assetNotFound` when `keep` is
    ///   not a member, `.readOnly`, `.database`.
    public func resolveDuplicateGroup(_ groupID: String, keep: Asset.ID? = nil) throws -> DuplicateResolution {
        guard let group = try duplicateGroups().first(where: { $0.id == groupID }) else {
            throw LibraryError.duplicateGroupNotFound(groupID)
        }
        guard let keeper = keep ?? group.keeper ?? group.assets.first, group.assets.contains(keeper) else {
            throw LibraryError.assetNotFound(keep?.rawValue ?? groupID)
        }
        let others = group.assets.filter { $0 != keeper }
        let keywords = try mergedKeywords(keeper: keeper, others: others)
        let location = try library.read { db in try MediaLibrary.locations(of: [keeper] + others, db: db) }
        var merged: [String] = []
        try library.writeUserState { db in
            merged = try mergeFavoriteAndAlbums(db, keeper: keeper, others: others)
            if let keywords {
                try db.execute("INSERT INTO userstate.asset_user_state (identifier, modified_at) VALUES (?, ?) ON CONFLICT (identifier) DO NOTHING",
                               [keeper.rawValue, Date().timeIntervalSince1970])
                try db.execute("UPDATE userstate.asset_user_state SET keywords = ?, modified_at = ? WHERE identifier = ?",
                               [keywords, Date().timeIntervalSince1970, keeper.rawValue])
                merged.append("keywords")
            }
            if location[keeper] == nil, let found = others.lazy.compactMap({ location[$0] }).first {
                try db.execute("""
                    INSERT INTO userstate.asset_user_state (identifier, latitude, longitude, modified_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (identifier) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude,
                        modified_at = excluded.modified_at
                    """, [keeper.rawValue, found.latitude, found.longitude, Date().timeIntervalSince1970])
                merged.append("gps")
            }
            for other in others { try setUserFlag(db, "hidden", for: other) }
        }
        // Every name of the others' files, but never one that is the keeper's file itself
        // (the same device and inode: a hard link or a view recorded before schema 49).
        let paths = try library.read { db in
            let kept = Set(try MediaLibrary.primaryPaths(of: keeper, db: db).compactMap { FileStat.of($0).map(FileIdentity.init) })
            return try others.flatMap { try MediaLibrary.primaryPaths(of: $0, db: db) }
                .filter { path in FileStat.of(path).map { !kept.contains(FileIdentity($0)) } ?? true }
        }
        return DuplicateResolution(group: group, keeper: keeper, hidden: others, hiddenPaths: paths, merged: merged)
    }

    /// Copies the others' favourite mark and user-album memberships onto the keeper;
    /// returns what it copied (`favorite`, `album`).
    private func mergeFavoriteAndAlbums(_ db: DatabaseConnection, keeper: Asset.ID, others: [Asset.ID]) throws -> [String] {
        var merged: [String] = []
        let list = "[" + others.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        if try db.scalarInt("""
            SELECT 1 FROM userstate.asset_user_state WHERE favorite = 1 AND identifier IN (SELECT value FROM json_each(?))
            """, [list]) != nil {
            try setUserFlag(db, "favorite", for: keeper)
            merged.append("favorite")
        }
        let albums = try db.rows("""
            SELECT DISTINCT album_id FROM userstate.album_assets WHERE asset_identifier IN (SELECT value FROM json_each(?))
            """, [list]).compactMap { $0.int64("album_id") }
        for album in albums {
            let next = (try db.scalarInt("SELECT max(position) FROM userstate.album_assets WHERE album_id = ?", [album]) ?? -1) + 1
            try db.execute("""
                INSERT OR IGNORE INTO userstate.album_assets (album_id, asset_identifier, position, added_at)
                VALUES (?, ?, ?, ?)
                """, [album, keeper.rawValue, next, Date().timeIntervalSince1970])
            if db.changes > 0 && !merged.contains("album") { merged.append("album") }
        }
        return merged
    }

    /// The keeper's new keywords (a JSON array) when the others hold keywords it lacks:
    /// the union of every member's, each member's being its own (set through MediaIndex)
    /// or else its file's. nil when nothing is to add.
    private func mergedKeywords(keeper: Asset.ID, others: [Asset.ID]) throws -> String? {
        func keywords(of asset: Asset.ID) throws -> Set<String> {
            let own = try userDescription(of: asset).keywords
            return Set(own.isEmpty ? try fileKeywords(of: asset) : own)
        }
        let kept = try keywords(of: keeper)
        var union = kept
        for other in others { union.formUnion(try keywords(of: other)) }
        guard union != kept else { return nil }
        let set = DescriptiveMetadata.keywordSet(union.sorted())
        return (try? JSONEncoder().encode(set)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The keywords an asset's primary file records (read again: file keywords are not
    /// stored in the index), opened beneath its root; none when it cannot be read.
    private func fileKeywords(of asset: Asset.ID) throws -> [String] {
        let paths = try library.read { db in try MediaLibrary.primaryPaths(of: asset, db: db) }
        return paths.flatMap { path -> [String] in
            guard let root = try? root(ofIndexedFile: path),
                  let source = try? FileByteSource(pathBytes: path.bytes, beneath: root.bytes),
                  let metadata = try? MetadataReader.read(source) else { return [] }
            return metadata.descriptive?.keywords ?? []
        }
    }

    private func setUserFlag(_ db: DatabaseConnection, _ column: String, for asset: Asset.ID) throws {
        try db.execute("""
            INSERT INTO userstate.asset_user_state (identifier, \(column), modified_at) VALUES (?, 1, ?)
            ON CONFLICT (identifier) DO UPDATE SET \(column) = 1, modified_at = excluded.modified_at
            """, [asset.rawValue, Date().timeIntervalSince1970])
    }
}

extension MediaLibrary {
    /// The GPS position of each asset that has one: the file's, else one a resolve
    /// copied onto it in user state.
    static func locations(of assets: [Asset.ID], db: DatabaseConnection) throws -> [Asset.ID: GeoLocation] {
        var found: [Asset.ID: GeoLocation] = [:]
        for asset in assets {
            guard let row = try db.rows("""
                SELECT coalesce(a.latitude, s.latitude) AS latitude, coalesce(a.longitude, s.longitude) AS longitude
                FROM assets a LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier WHERE a.identifier = ?
                """, [asset.rawValue]).first,
                  let latitude = row.double("latitude"), let longitude = row.double("longitude") else { continue }
            found[asset] = GeoLocation(latitude: latitude, longitude: longitude)
        }
        return found
    }

    /// The paths of an asset's primary files.
    static func primaryPaths(of asset: Asset.ID, db: DatabaseConnection) throws -> [PathBytes] {
        try db.rows("""
            SELECT f.path FROM files f JOIN assets a ON a.id = f.asset_id
            WHERE a.identifier = ?1 AND f.role IN ('photo', 'video')
            UNION ALL SELECT l.path FROM file_links l JOIN files f ON f.id = l.file_id JOIN assets a ON a.id = f.asset_id
            WHERE a.identifier = ?1 AND f.role IN ('photo', 'video') ORDER BY 1
            """, [asset.rawValue]).compactMap { $0[0].blob.map(PathBytes.init) }
    }

    /// Hashes the assets whose hash is missing or stale, on every core, committing a
    /// batch at a time.
    ///
    /// - Returns: the rows of the assets hashed.
    @discardableResult
    func updatePerceptualHashes(writer: DatabaseWriter) throws -> Set<Int64> {
        let jobs = try writer.write { db in try DuplicateStore(db: db).staleHashJobs() }
        let batch = 256
        var start = 0
        while start < jobs.count {
            let chunk = Array(jobs[start..<min(start + batch, jobs.count)])
            let results = ConcurrentSlots<PerceptualHashResult>(count: chunk.count, initial: PerceptualHashResult())
            DispatchQueue.concurrentPerform(iterations: chunk.count) { i in
                results.set(i, Self.hash(chunk[i]))
            }
            let values = results.values
            try writer.write { db in
                try db.inTransaction {
                    let store = DuplicateStore(db: db), now = Date().timeIntervalSince1970
                    for (job, result) in zip(chunk, values) { try store.saveHashes(result, for: job, now: now) }
                }
            }
            start += batch
        }
        return Set(jobs.map(\.assetRow))
    }

    static func hash(_ job: DuplicateStore.HashJob) -> PerceptualHashResult {
        do {
            let hashes = try ThumbnailGenerator.perceptualHashes(ofFileAtBytes: job.path.bytes, format: job.format,
                                                                 orientation: job.orientation, durationSeconds: job.duration)
            return PerceptualHashResult(hashes: hashes)
        } catch {
            return PerceptualHashResult(error: "\(error)")
        }
    }
}
