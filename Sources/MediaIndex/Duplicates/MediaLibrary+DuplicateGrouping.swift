import Foundation
import MediaMetadata

extension MediaLibrary {
    /// Groups as the stored hashes say, with the asset rows by identifier (of the assets
    /// grouping read): of every asset, or of the assets in `scope` alone (`regroupScope`
    /// says which assets a change can touch). Of every asset, whole records are read only
    /// for those `groupingScope` finds can be in a group.
    func computeGroups(scope: Set<Int64>? = nil) throws -> (groups: [DuplicateGroup], rows: [String: Int64]) {
        let scope = try scope ?? groupingScope()
        let loaded = try read { db in
            (try Self.loadCandidates(db: db, scope: scope), try Self.fileIdentities(db: db))
        }
        let (candidates, rows) = loaded.0
        let index = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1, $0) })
        let sameBytes = loaded.1.sameFile.map { set in set.compactMap { index[$0] } }.filter { $0.count > 1 }
        let sharedFiles = loaded.1.sharedFiles.map { set in set.compactMap { index[$0] } }.filter { $0.count > 1 }
        // One same-file group per set of assets linked by equal bytes or a shared inode.
        var linked = UnionFind(count: candidates.count)
        for set in sameBytes + sharedFiles {
            for member in set.dropFirst() { linked.union(set[0], member) }
        }
        var bySet: [Int: Set<Int>] = [:]
        for set in sameBytes + sharedFiles { for member in set { bySet[linked.find(member), default: []].insert(member) } }
        let grouper = DuplicateGrouper(candidates: candidates, sameFile: bySet.values.map { $0.sorted() },
                                       sharedFiles: sharedFiles)
        let groups = grouper.groups().sorted { ($0.kind.rawValue, $0.assets.first?.rawValue ?? "") < ($1.kind.rawValue, $1.assets.first?.rawValue ?? "") }
        return (groups, Dictionary(uniqueKeysWithValues: rows.enumerated().map { (candidates[$0].facts.identifier, $1) }))
    }

    /// Every visible (not hidden) asset with its primary file (of `scope` when given), as
    /// grouping sees it, and its row.
    static func loadCandidates(db: DatabaseConnection, scope: Set<Int64>? = nil) throws -> ([DuplicateCandidate], [Int64]) {
        var candidates: [DuplicateCandidate] = []
        var rows: [Int64] = []
        let statement = try db.cachedStatement("""
            SELECT a.id, a.identifier, a.media_type, a.creation_date, a.make, a.model, a.burst_identifier,
                   a.pixel_width, a.pixel_height, a.latitude, a.format, p.dct_hash, min(f.mtime_ns),
                   EXISTS (SELECT 1 FROM userstate.album_assets u WHERE u.asset_identifier = a.identifier),
                   coalesce(s.favorite, 0), p.dct_crop1, p.dct_crop2
            FROM assets a JOIN files f ON f.asset_id = a.id AND f.role IN ('photo', 'video')
            LEFT JOIN perceptual_hashes p ON p.asset_id = a.id AND p.revision = a.revision
            LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier
            WHERE coalesce(s.hidden, 0) = 0 AND (?1 IS NULL OR a.id IN (SELECT value FROM json_each(?1)))
            GROUP BY a.id ORDER BY a.id
            """)
        let list = scope.map { "[" + $0.sorted().map(String.init).joined(separator: ",") + "]" }
        try statement.forEachRow([list]) { row in
            guard let id = row[0].int64, let identifier = row[1].text else { return }
            let creation = row[3].text
            let make = row[4].text?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            let model = row[5].text?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            let camera = make.isEmpty && model.isEmpty ? nil : make + "\u{1F}" + model
            let facts = KeeperFacts(identifier: identifier, hasCamera: camera != nil,
                                    pixels: (row[7].int ?? 0) * (row[8].int ?? 0), hasGPS: row[9].double != nil,
                                    hasCaptureDate: creation != nil, hasKeywords: false, format: row[10].text,
                                    modified: row[12].int64 ?? 0, inAlbum: row[13].int == 1, isFavorite: row[14].int == 1)
            candidates.append(DuplicateCandidate(
                facts: facts,
                gate: DuplicateGate.Facts(capture: creation.flatMap(CaptureInstant.init(recorded:)), camera: camera,
                                          burst: row[6].text),
                hash: row[11].int64.map { UInt64(bitPattern: $0) },
                croppedHashes: [row[15].int64, row[16].int64].compactMap { $0.map { UInt64(bitPattern: $0) } },
                isVideo: row[2].text == "video"))
            rows.append(id)
        }
        return (candidates, rows)
    }

    /// Asset rows whose primary files are the same bytes (`sameFile`: an equal content
    /// hash) or the same file (`sharedFiles`: an equal device and inode), from
    /// `content_hashes` as `updateContentHashes` left it.
    static func fileIdentities(db: DatabaseConnection) throws -> (sameFile: [[Int64]], sharedFiles: [[Int64]]) {
        var byHash: [String: Set<Int64>] = [:]
        var byInode: [[Int64]: Set<Int64>] = [:]
        for row in try db.rows("""
            SELECT f.asset_id, c.hash, c.device, c.inode FROM content_hashes c JOIN files f ON f.id = c.file_id
            WHERE f.asset_id IS NOT NULL AND c.size = f.size AND c.mtime_ns = f.mtime_ns AND c.inode = f.inode
            """) {
            guard let asset = row[0].int64, let device = row[2].int64, let inode = row[3].int64 else { continue }
            byInode[[device, inode], default: []].insert(asset)
            if let hash = row[1].text { byHash[hash, default: []].insert(asset) }
        }
        return (byHash.values.filter { $0.count > 1 }.map { $0.sorted() },
                byInode.values.filter { $0.count > 1 }.map { $0.sorted() })
    }

    /// Reads whole only the primary files whose size another shares, one per device and
    /// inode, and records their content hash with the stat it was read under; a file
    /// whose recorded hash still matches its stat is not read again.
    func updateContentHashes(writer: DatabaseWriter) throws {
        let collisions = try writer.write { db in try DuplicateStore(db: db).sizeCollisions() }
        var hashByInode: [[Int64]: String?] = [:]
        var results: [(DuplicateStore.SizeCollision, device: Int64, hash: String?)] = []
        for file in collisions {
            if let known = file.known {
                hashByInode[[known.device, file.inode]] = known.hash
                continue
            }
            guard let stat = FileStat.of(file.path), stat.size == file.size,
                  stat.modificationNanoseconds == file.mtime, Int64(bitPattern: stat.inode) == file.inode else { continue }
            let key = [Int64(bitPattern: stat.device), file.inode]
            let hash = hashByInode[key] ?? Self.contentHash(of: file.path)
            hashByInode[key] = hash
            results.append((file, Int64(bitPattern: stat.device), hash))
        }
        guard !results.isEmpty else { return }
        try writer.transaction { db in
            let store = DuplicateStore(db: db)
            for (file, device, hash) in results { try store.saveContentHash(hash, device: device, of: file) }
        }
    }

    /// XXH64 of every byte of the file, hex; nil when it cannot be read.
    static func contentHash(of path: PathBytes) -> String? {
        guard let source = try? FileByteSource(pathBytes: path.bytes) else { return nil }
        var hasher = XXHash64()
        var offset: UInt64 = 0
        while offset < source.size {
            let count = Int(min(UInt64(1 << 20), source.size - offset))
            guard let bytes = try? source.readExactly(at: offset, count: count) else { return nil }
            hasher.update(bytes)
            offset += UInt64(count)
        }
        let hex = String(hasher.finalize(), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
