import Foundation
import MediaMetadata
import MediaThumbnails

/// The one writer of `perceptual_hashes`, `content_hashes` and `duplicate_members`
/// (migration 0023), and the reads grouping needs.
struct DuplicateStore {
    let db: DatabaseConnection

    /// An asset whose hash is missing or older than its revision.
    struct HashJob: Sendable {
        var assetRow: Int64
        var revision: Int64
        var path: PathBytes
        var format: MediaFormat?
        var orientation: Int?
        var duration: Double?
    }

    /// The assets to hash: images and videos whose hash is missing or stale.
    func staleHashJobs() throws -> [HashJob] {
        try db.rows("""
            SELECT a.id, a.revision, f.path, f.format, a.orientation, a.duration FROM assets a
            JOIN files f ON f.asset_id = a.id AND f.role IN ('photo', 'video')
            LEFT JOIN perceptual_hashes p ON p.asset_id = a.id
            WHERE p.asset_id IS NULL OR p.revision <> a.revision
            ORDER BY a.id
            """).compactMap { row in
            guard let id = row[0].int64, let revision = row[1].int64, let path = row[2].blob else { return nil }
            return HashJob(assetRow: id, revision: revision, path: PathBytes(path),
                           format: row[3].text.flatMap(MediaFormat.init(rawValue:)),
                           orientation: row[4].int, duration: row[5].double)
        }
    }

    /// Records an asset's hashes, or why there are none.
    func saveHashes(_ hashes: PerceptualHashResult, for job: HashJob, now: Double) throws {
        try db.execute("""
            INSERT INTO perceptual_hashes (asset_id, revision, dct_hash, dct_crop1, dct_crop2, gradient, error, computed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (asset_id) DO UPDATE SET revision = excluded.revision, dct_hash = excluded.dct_hash,
                dct_crop1 = excluded.dct_crop1, dct_crop2 = excluded.dct_crop2, gradient = excluded.gradient,
                error = excluded.error, computed_at = excluded.computed_at
            """, [job.assetRow, job.revision] as [DatabaseValueConvertible] + Self.columns(hashes.hashes) + [hashes.error, now])
    }

    /// Hashes a thumbnail build read from its decode, for an asset at a revision.
    struct ThumbnailHashes: Sendable {
        var identifier: String
        var revision: Int
        var hashes: PerceptualHashes
    }

    /// Records hashes a thumbnail build made, for the assets still at that revision.
    func saveHashes(_ list: [ThumbnailHashes], now: Double) throws {
        for item in list {
            try db.execute("""
                INSERT INTO perceptual_hashes (asset_id, revision, dct_hash, dct_crop1, dct_crop2, gradient, error, computed_at)
                SELECT id, revision, ?, ?, ?, ?, NULL, ? FROM assets WHERE identifier = ? AND revision = ?
                ON CONFLICT (asset_id) DO UPDATE SET revision = excluded.revision, dct_hash = excluded.dct_hash,
                    dct_crop1 = excluded.dct_crop1, dct_crop2 = excluded.dct_crop2, gradient = excluded.gradient,
                    error = NULL, computed_at = excluded.computed_at
                """, Self.columns(item.hashes) + [now, item.identifier, item.revision] as [DatabaseValueConvertible])
        }
    }

    /// The hash columns' values (dct_hash, dct_crop1, dct_crop2, gradient): 64 bits as
    /// SQLite's signed integers; NULL without hashes.
    static func columns(_ hashes: PerceptualHashes?) -> [DatabaseValueConvertible] {
        let crops = hashes?.croppedDCT.map { Int64(bitPattern: $0) } ?? []
        let values: [Int64?] = [hashes.map { Int64(bitPattern: $0.dct) }, crops.first, crops.dropFirst().first,
                                hashes.map { Int64(bitPattern: $0.gradient) }]
        return values.map { $0 }
    }

    /// Whether any hash was ever computed: then index runs keep them current.
    func hasHashes() throws -> Bool {
        try db.scalarInt("SELECT 1 FROM perceptual_hashes LIMIT 1") != nil
    }

    /// A primary file whose size another primary file shares.
    struct SizeCollision: Sendable {
        var fileID: Int64
        var assetRow: Int64
        var path: PathBytes
        var size: Int64
        var mtime: Int64
        var inode: Int64
        /// The recorded content hash, when its stat still matches.
        var known: (device: Int64, hash: String?)?
    }

    /// Primary files whose size another primary file shares, with their content hash
    /// rows: only these are ever read whole.
    func sizeCollisions() throws -> [SizeCollision] {
        try db.rows("""
            SELECT f.id, f.asset_id, f.path, f.size, f.mtime_ns, f.inode, c.device, c.hash,
                   c.size = f.size AND c.mtime_ns = f.mtime_ns AND c.inode = f.inode
            FROM files f LEFT JOIN content_hashes c ON c.file_id = f.id
            WHERE f.role IN ('photo', 'video') AND f.asset_id IS NOT NULL AND f.size > 0 AND f.size IN (
                SELECT size FROM files WHERE role IN ('photo', 'video') AND asset_id IS NOT NULL
                GROUP BY size HAVING count(*) > 1)
            ORDER BY f.size, f.id
            """).compactMap { row in
            guard let id = row[0].int64, let asset = row[1].int64, let path = row[2].blob, let size = row[3].int64,
                  let mtime = row[4].int64, let inode = row[5].int64 else { return nil }
            let fresh = row[8].int == 1
            return SizeCollision(fileID: id, assetRow: asset, path: PathBytes(path), size: size, mtime: mtime,
                                 inode: inode, known: fresh ? (row[6].int64 ?? 0, row[7].text) : nil)
        }
    }

    /// Records a file's content hash (nil when it could not be read) with the stat it was read under.
    func saveContentHash(_ hash: String?, device: Int64, of file: SizeCollision) throws {
        try db.execute("""
            INSERT INTO content_hashes (file_id, size, mtime_ns, device, inode, hash) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (file_id) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
                device = excluded.device, inode = excluded.inode, hash = excluded.hash
            """, [file.fileID, file.size, file.mtime, device, file.inode, hash])
    }

    /// The current memberships: (kind, asset row) → group key.
    func members() throws -> [MemberKey: String] {
        var members: [MemberKey: String] = [:]
        for row in try db.rows("SELECT kind, asset_id, group_key FROM duplicate_members") {
            guard let kind = row[0].text.flatMap(DuplicateKind.init(rawValue:)), let asset = row[1].int64,
                  let key = row[2].text else { continue }
            members[MemberKey(kind: kind, assetRow: asset)] = key
        }
        return members
    }

    /// A group as last stored, with its members as they are now.
    struct StoredGroup {
        var kind: DuplicateKind
        var rows: [Int64] = []
        var identifiers: [String] = []
        var anyHidden = false

        /// Whether the group lost a member since (removed, so its key no longer matches
        /// its members, or hidden): it must be regrouped.
        func isStale(key: String) -> Bool {
            anyHidden || rows.count < 2 || DuplicateGroup.identifier(kind: kind, members: identifiers) != key
        }
    }

    /// The stored groups by key, each with its members that still exist.
    func storedGroups() throws -> [String: StoredGroup] {
        var groups: [String: StoredGroup] = [:]
        for row in try db.rows("""
            SELECT m.group_key, m.kind, m.asset_id, a.identifier, coalesce(s.hidden, 0)
            FROM duplicate_members m JOIN assets a ON a.id = m.asset_id
            LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier
            """) {
            guard let key = row[0].text, let kind = row[1].text.flatMap(DuplicateKind.init(rawValue:)),
                  let asset = row[2].int64, let identifier = row[3].text else { continue }
            groups[key, default: StoredGroup(kind: kind)].rows.append(asset)
            groups[key]?.identifiers.append(identifier)
            if row[4].int == 1 { groups[key]?.anyHidden = true }
        }
        return groups
    }

    /// Every current whole hash with its centre hashes, in compact columns.
    struct CompactHashes {
        var rows: [Int64] = []
        var whole: [UInt64] = []
        var crop1: [UInt64?] = []
        var crop2: [UInt64?] = []
    }

    /// The current (this revision's) hashes of every hashed asset.
    func compactHashes() throws -> CompactHashes {
        var hashes = CompactHashes()
        try db.cachedStatement("""
            SELECT p.asset_id, p.dct_hash, p.dct_crop1, p.dct_crop2 FROM perceptual_hashes p
            JOIN assets a ON a.id = p.asset_id AND a.revision = p.revision WHERE p.dct_hash IS NOT NULL
            """).forEachRow { row in
            guard let id = row[0].int64, let whole = row[1].int64 else { return }
            hashes.rows.append(id)
            hashes.whole.append(UInt64(bitPattern: whole))
            hashes.crop1.append(row[2].int64.map { UInt64(bitPattern: $0) })
            hashes.crop2.append(row[3].int64.map { UInt64(bitPattern: $0) })
        }
        return hashes
    }

    struct MemberKey: Hashable {
        var kind: DuplicateKind
        var assetRow: Int64
    }

    /// Replaces the memberships of `kinds` by `groups` (of the assets in `scope` alone
    /// when given: the others keep theirs), recording a change-feed entry for each asset
    /// that joined, left or moved between groups.
    ///
    /// - Returns: how many assets' memberships changed.
    @discardableResult
    func replaceMembers(_ groups: [DuplicateGroup], kinds: Set<DuplicateKind>, rows: [String: Int64],
                        identifiers: [Int64: String], scope: Set<Int64>? = nil, now: Double) throws -> Int {
        let old = try members().filter { kinds.contains($0.key.kind) && scope?.contains($0.key.assetRow) != false }
        var new: [MemberKey: (key: String, keeper: Bool)] = [:]
        for group in groups where kinds.contains(group.kind) {
            for asset in group.assets {
                guard let row = rows[asset.rawValue] else { continue }
                new[MemberKey(kind: group.kind, assetRow: row)] = (group.id, asset == group.keeper)
            }
        }
        var changed = Set<Int64>()
        for (key, group) in old where new[key]?.key != group {
            try db.execute("DELETE FROM duplicate_members WHERE kind = ? AND asset_id = ?", [key.kind.rawValue, key.assetRow])
            changed.insert(key.assetRow)
        }
        for (key, value) in new {
            try db.execute("""
                INSERT INTO duplicate_members (asset_id, kind, group_key, is_keeper) VALUES (?, ?, ?, ?)
                ON CONFLICT (kind, asset_id) DO UPDATE SET group_key = excluded.group_key, is_keeper = excluded.is_keeper
                """, [key.assetRow, key.kind.rawValue, value.key, value.keeper ? 1 : 0])
            if old[key] != value.key { changed.insert(key.assetRow) }
        }
        for row in changed.sorted() {
            // An asset that left every group was not read by grouping: its identifier from its row.
            guard let identifier = try identifiers[row]
                    ?? db.rows("SELECT identifier FROM assets WHERE id = ?", [row]).first?[0].text else { continue }
            try ChangeLog.record(.updated, identifier: identifier, fields: [Asset.Field.duplicateGroups.rawValue],
                                 now: now, db: db)
        }
        return changed.count
    }
}

/// The outcome of hashing one asset: its hashes, or why there are none.
struct PerceptualHashResult: Sendable {
    var hashes: PerceptualHashes?
    var error: String?
}

extension Asset.Field {
    /// The asset joined, left or moved between duplicate or similar groups.
    public static let duplicateGroups = Asset.Field(rawValue: "duplicateGroups")
}
