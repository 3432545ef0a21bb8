import Foundation
import MediaMetadata

/// What pairing did to one asset, for a change feed.
public struct PairingChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A file joined the asset as its paired video or RAW alternate.
        case paired
        /// The asset lost its paired video or RAW alternate.
        case unpaired
        /// A file that left a pair got an asset of its own.
        case created
        /// The asset was merged into its partner's (or lost its last file).
        case deleted
        /// Subtypes, pairing rule or burst representative changed.
        case updated
    }
    /// The asset's row id in `assets`.
    public var assetRowID: Int64
    public var identifier: String
    public var kind: Kind
    /// For `updated`: the JSON names of what changed (`mediaSubtypes`, `pairingRule`,
    /// `burstRepresentative`).
    public var fields: [String] = []
}

/// The roles a file plays in its asset (`files.role`).
enum ResourceRole {
    static let photo = "photo", video = "video", pairedVideo = "pairedVideo", alternatePhoto = "alternatePhoto"
    /// An XMP sidecar attached to the asset (see `SidecarAttacher`); never a primary.
    static let sidecar = "sidecar"

    /// Whether the role is the asset's primary still or movie.
    static func isPrimary(_ role: String?) -> Bool { role == photo || role == video }

    /// Whether the role is a secondary resource that pairing attached to another file's asset.
    static func isSecondary(_ role: String?) -> Bool { role == pairedVideo || role == alternatePhoto }
}

/// The pairing rules recorded in `assets.pairing_rule`.
enum PairingRule {
    static let contentIdentifier = "contentIdentifier"
    static let sameStemShortMovie = "sameStemShortMovie"
    static let motionPhoto = "motionPhoto"
    static let rawPlusJpeg = "rawPlusJpeg"
}

/// Pairs live photos, RAW+JPEG and motion photos, and picks burst representatives,
/// for the files an index run touched.
///
/// Runs inside the run's final transaction, after vanished files are deleted. Work is
/// proportional to the files touched: every partner lookup is one indexed query
/// (`assets.content_identifier`, `files (folder, stem_key)`). Pairs that lost a half
/// are found by a sweep over the (few) multi-resource assets.
struct AssetPairer {
    /// A movie no longer than this pairs by name alone (Apple's live-photo movies are 1.5–3 s).
    static let maxStemPairedMovieSeconds = 3.5
    /// Still formats a RAW pairs with, best first.
    static let rawCompanionFormats: [MediaFormat] = [.jpeg, .heic, .heif]

    let db: DatabaseConnection
    let now: Double
    private(set) var changes: [PairingChange] = []
    private(set) var pairedCount = 0
    private(set) var unpairedCount = 0
    /// Assets whose subtypes and rule must be recomputed at the end.
    private var assetsToFinalize = Set<Int64>()

    init(db: DatabaseConnection, now: Double = Date().timeIntervalSince1970) {
        self.db = db
        self.now = now
    }

    /// One media file as pairing sees it.
    struct FileInfo {
        var id: Int64
        var path: PathBytes
        var folder: [UInt8]
        var stemKey: String
        var format: MediaFormat?
        var assetID: Int64?
        var role: String?
        var fingerprint: String?
        /// The file's own content identifier (a paired movie's asset carries the still's).
        var contentIdentifier: String?
        var duration: Double?

        var isMovie: Bool { format?.mediaType == .video }
        var isRaw: Bool { format?.isRaw == true }
        var isStill: Bool { format.map { $0.mediaType == .image && !$0.isRaw } ?? false }
    }

    static let fileColumns = """
        f.id, f.path, f.folder, f.stem_key, f.format, f.asset_id, f.role, f.fingerprint,
        json_extract(f.metadata, '$.contentIdentifier') AS cid, json_extract(f.metadata, '$.durationSeconds') AS duration
        """

    static func fileInfo(_ row: Row) -> FileInfo {
        let path = PathBytes(row.blob("path") ?? [])
        // Written by the indexer; computed here only for rows from before schema 4.
        let folder = row.blob("folder"), stemKey = row.string("stem_key")
        let names = folder == nil || stemKey == nil ? FileName(path) : nil
        return FileInfo(
            id: row.int64("id") ?? 0, path: path, folder: folder ?? names?.folder ?? [],
            stemKey: stemKey ?? names?.stemKey ?? "",
            format: row.string("format").flatMap(MediaFormat.init(rawValue:)), assetID: row.int64("asset_id"),
            role: row.string("role"), fingerprint: row.string("fingerprint"),
            contentIdentifier: row.string("cid").flatMap { $0.isEmpty ? nil : $0 }, duration: row.double("duration"))
    }

    /// The folder and stem key of a path.
    struct FileName {
        var folder: [UInt8]
        var stemKey: String
        init(_ path: PathBytes) {
            folder = path.parent.bytes
            var name = path.lastComponent
            if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 { name.removeSubrange(dot...) }
            stemKey = String(decoding: name, as: UTF8.self).lowercased()
        }
    }

    // MARK: Run

    /// Pairs and classifies everything touched since `since` (files whose `indexed_at`
    /// is at least that), repairs pairs that lost a half, and recomputes bursts.
    ///
    /// - Returns: what changed, one entry per asset and kind.
    /// - Throws: `DatabaseError`.
    mutating func run(touchedSince since: Double) throws -> [PairingChange] {
        var touched = try backfillNames()
        try db.cachedStatement("SELECT id FROM files WHERE indexed_at >= ? AND status = 'media'")
            .forEachRow([since]) { row in if let id = row.int64("id") { touched.insert(id) } }

        // Pairs that lost a half (a file deleted, replaced, or turned into an error).
        for assetID in try brokenPairs() {
            for file in try files(ofAsset: assetID) { touched.insert(file.id) }
            try dissolve(assetID: assetID)
        }
        for fileID in try orphanedSecondaries() {
            touched.insert(fileID)
            if let file = try file(id: fileID) { try detach(file) }
        }

        // Which movies and RAWs need a (new) partner decision.
        var movies = Set<Int64>(), raws = Set<Int64>()
        // After a large run (a first index), two index-only scans say which assets have
        // several files and which folder+stem groups several members, so most stills
        // skip the two lookups that would find nothing. Nothing changes until the loop ends.
        var multiFileAssets: Set<Int64>?, sharedStems: Set<StemGroup>?
        if touched.count > Self.bulkTouchedFiles {
            var assets = Set<Int64>(), stems = Set<StemGroup>()
            try db.cachedStatement("""
                SELECT asset_id FROM files WHERE asset_id IS NOT NULL GROUP BY asset_id HAVING count(*) > 1
                """).forEachRow { if let id = $0[0].int64 { assets.insert(id) } }
            try db.cachedStatement("""
                SELECT folder, stem_key FROM files WHERE status = 'media' GROUP BY folder, stem_key HAVING count(*) > 1
                """).forEachRow { row in
                if let folder = row[0].blob, let stem = row[1].text { stems.insert(StemGroup(folder: folder, stem: stem)) }
            }
            multiFileAssets = assets
            sharedStems = stems
        }
        for id in touched.sorted() {
            guard let file = try file(id: id) else { continue }
            if let assetID = file.assetID { assetsToFinalize.insert(assetID) }
            if file.isMovie { movies.insert(file.id) }
            else if file.isRaw { raws.insert(file.id) }
            else if file.isStill {
                // A still's current partners, and the files that could be.
                if let assetID = file.assetID, multiFileAssets?.contains(assetID) ?? true {
                    for other in try files(ofAsset: assetID) where ResourceRole.isSecondary(other.role) {
                        if other.isMovie { movies.insert(other.id) } else if other.isRaw { raws.insert(other.id) }
                    }
                }
                if let identifier = file.contentIdentifier {
                    for other in try files(withIdentifier: identifier) where other.isMovie { movies.insert(other.id) }
                }
                guard sharedStems?.contains(StemGroup(folder: file.folder, stem: file.stemKey)) ?? true else { continue }
                for other in try files(inFolder: file.folder, stem: file.stemKey) where other.id != file.id {
                    if other.isMovie { movies.insert(other.id) } else if other.isRaw { raws.insert(other.id) }
                }
            }
        }
        for id in movies.sorted() {
            guard let movie = try file(id: id) else { continue }
            try settle(movie, with: try liveStill(for: movie), role: ResourceRole.pairedVideo)
        }
        for id in raws.sorted() {
            guard let raw = try file(id: id) else { continue }
            try settle(raw, with: try rawCompanion(for: raw), role: ResourceRole.alternatePhoto)
        }

        var bursts = Set<String>()
        for assetID in assetsToFinalize.sorted() {
            if let burst = try finalize(assetID: assetID) { bursts.insert(burst) }
        }
        try recomputeBursts(bursts)
        return changes
    }

    /// Above this many touched files the pairer prefetches which assets and stems are shared.
    static let bulkTouchedFiles = 500  // below the corpus size, so the corpus pairing tests take this path

    /// A folder and a stem key: files that may pair by name.
    struct StemGroup: Hashable {
        var folder: [UInt8]
        var stem: String
    }

    /// Fills `folder` and `stem_key` where they are missing (new rows, moved files, and
    /// every row once after schema 4), returning those files: they are evaluated too.
    private func backfillNames() throws -> Set<Int64> {
        var ids = Set<Int64>()
        let rows = try db.rows("SELECT id, path FROM files WHERE stem_key IS NULL AND status = 'media'")
        let update = try db.cachedStatement("UPDATE files SET folder = ?, stem_key = ? WHERE id = ?")
        for row in rows {
            guard let id = row.int64("id"), let path = row.blob("path") else { continue }
            let names = FileName(PathBytes(path))
            try update.execute([names.folder, names.stemKey, id])
            ids.insert(id)
        }
        return ids
    }

    // MARK: Lookups

    private func file(id: Int64) throws -> FileInfo? {
        try db.cachedStatement("SELECT \(Self.fileColumns) FROM files f WHERE f.id = ? AND f.status = 'media'")
            .rows([id]).first.map(Self.fileInfo)
    }

    private func files(ofAsset assetID: Int64) throws -> [FileInfo] {
        // Sidecars ride along with the asset; pairing never moves them (SidecarAttacher does).
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f WHERE f.asset_id = ? AND f.role IS NOT 'sidecar' ORDER BY f.path
            """)
            .rows([assetID]).map(Self.fileInfo)
    }

    /// Files whose asset carries the identifier and that carry it themselves.
    private func files(withIdentifier identifier: String) throws -> [FileInfo] {
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM assets a JOIN files f ON f.asset_id = a.id
            WHERE a.content_identifier = ? AND f.status = 'media' ORDER BY f.path
            """).rows([identifier]).map(Self.fileInfo).filter { $0.contentIdentifier == identifier }
    }

    private func files(inFolder folder: [UInt8], stem: String) throws -> [FileInfo] {
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f
            WHERE f.folder = ? AND f.stem_key = ? AND f.status = 'media' ORDER BY f.path
            """).rows([folder, stem]).map(Self.fileInfo)
    }

    /// Whether a primary's asset already has a secondary of `role` other than `file`.
    private func hasOtherSecondary(_ primary: FileInfo, role: String, than file: FileInfo) throws -> Bool {
        guard let assetID = primary.assetID else { return false }
        return try db.cachedStatement("SELECT 1 FROM files WHERE asset_id = ? AND role = ? AND id <> ? LIMIT 1")
            .rows([assetID, role, file.id]).isEmpty == false
    }

    /// The still a live-photo movie belongs with: the same content identifier anywhere
    /// (same folder first), or, when neither carries one, the same folder and stem
    /// with a movie of at most 3.5 s. Identifiers that differ never pair.
    private func liveStill(for movie: FileInfo) throws -> FileInfo? {
        var candidates: [FileInfo]
        if let identifier = movie.contentIdentifier {
            candidates = try files(withIdentifier: identifier)
        } else {
            guard let duration = movie.duration, duration > 0, duration <= Self.maxStemPairedMovieSeconds else { return nil }
            candidates = try files(inFolder: movie.folder, stem: movie.stemKey).filter { $0.contentIdentifier == nil }
        }
        candidates = candidates.filter { $0.isStill && $0.role == ResourceRole.photo && $0.assetID != nil }
        var free: [FileInfo] = []
        for still in candidates where try !hasOtherSecondary(still, role: ResourceRole.pairedVideo, than: movie) {
            free.append(still)
        }
        // Keep a pair that still holds; else same folder first, then path order.
        if let current = free.first(where: { $0.assetID == movie.assetID }) { return current }
        return free.first(where: { $0.folder == movie.folder }) ?? free.first
    }

    /// The JPEG (or HEIC) beside a RAW with the same stem.
    private func rawCompanion(for raw: FileInfo) throws -> FileInfo? {
        var candidates = try files(inFolder: raw.folder, stem: raw.stemKey).filter {
            $0.role == ResourceRole.photo && $0.assetID != nil && $0.format.map(Self.rawCompanionFormats.contains) == true
        }
        candidates.sort { a, b in
            let ra = Self.rawCompanionFormats.firstIndex(of: a.format ?? .jpeg) ?? 9
            let rb = Self.rawCompanionFormats.firstIndex(of: b.format ?? .jpeg) ?? 9
            return ra != rb ? ra < rb : a.path < b.path
        }
        var free: [FileInfo] = []
        for companion in candidates where try !hasOtherSecondary(companion, role: ResourceRole.alternatePhoto, than: raw) {
            free.append(companion)
        }
        return free.first(where: { $0.assetID == raw.assetID }) ?? free.first
    }

    // MARK: Changes

    /// Makes `file` the `role` resource of `primary`'s asset, or a primary of its own
    /// when `primary` is nil.
    private mutating func settle(_ file: FileInfo, with primary: FileInfo?, role: String) throws {
        guard let primary, let target = primary.assetID else {
            if ResourceRole.isSecondary(file.role) { try detach(file) }
            return
        }
        if file.assetID == target && file.role == role { return }
        if ResourceRole.isSecondary(file.role), let previous = file.assetID {
            // Leaving another pair: that asset loses its half.
            try record(previous, .unpaired)
            unpairedCount += 1
            assetsToFinalize.insert(previous)
        }
        try db.cachedStatement("UPDATE files SET asset_id = ?, role = ? WHERE id = ?").execute([target, role, file.id])
        if !ResourceRole.isSecondary(file.role), let own = file.assetID, own != target {
            try record(own, .deleted)
            try deleteAssetIfOrphaned(own, now: now, db: db)
            assetsToFinalize.remove(own)
        }
        try record(target, .paired)
        pairedCount += 1
        assetsToFinalize.insert(target)
    }

    /// Gives a secondary file its own asset again, with the identifier its content
    /// gives, as the indexer would.
    private mutating func detach(_ file: FileInfo) throws {
        let metadataJSON = try db.cachedStatement("SELECT metadata FROM files WHERE id = ?").rows([file.id]).first?
            .string("metadata")
        guard let json = metadataJSON,
              let metadata = try? JSONDecoder().decode(MediaMetadata.self, from: Data(json.utf8)),
              let fingerprintText = file.fingerprint, let fingerprint = ContentFingerprint(hex: fingerprintText) else {
            // Unreadable row: drop it from the pair; the next index run reads it afresh.
            try db.execute("UPDATE files SET asset_id = NULL, role = NULL, mtime_ns = -1 WHERE id = ?", [file.id])
            return
        }
        if let previous = file.assetID {
            try record(previous, .unpaired)
            unpairedCount += 1
            assetsToFinalize.insert(previous)
        }
        let columns = AssetColumns(metadata, fileName: String(decoding: file.path.lastComponent, as: UTF8.self))
        let assetID = try Self.insertAsset(columns: columns, fingerprint: fingerprint, now: now, db: db).id
        let role = metadata.format.mediaType == .video ? ResourceRole.video : ResourceRole.photo
        try db.cachedStatement("UPDATE files SET asset_id = ?, role = ? WHERE id = ?").execute([assetID, role, file.id])
        try record(assetID, .created)
        assetsToFinalize.insert(assetID)
    }

    /// Inserts an asset for content first seen, with the identifier its fingerprint
    /// gives (the next ordinal when an identical copy holds the first).
    /// Inserts an asset and returns its row id and the identifier it was given.
    static func insertAsset(columns: AssetColumns, fingerprint: ContentFingerprint, now: Double,
                            primaryFile: PrimaryFileColumns? = nil, db: DatabaseConnection) throws
        -> (id: Int64, identifier: String) {
        // Content seen before and deleted takes its identifier back from the tombstone.
        if let identifier = try Tombstones.resurrect(fingerprint: fingerprint.description, db: db) {
            let id = try columns.insert(identifier: identifier, fingerprint: fingerprint.description, now: now,
                                        primaryFile: primaryFile, db: db)
            return (id, identifier)
        }
        // Copies already indexed hold the first ordinals: start after them, so N copies
        // cost N lookups, not N². An identifier is taken while an asset or a tombstone
        // (content that may come back) holds it: one query asks both.
        let copies = try db.scalarInt("SELECT count(*) FROM assets WHERE fingerprint = ?", [fingerprint.description]) ?? 0
        let taken = try db.cachedStatement("""
            SELECT EXISTS (SELECT 1 FROM assets WHERE identifier = ?1)
                OR EXISTS (SELECT 1 FROM tombstones WHERE identifier = ?1) AS taken
            """)
        var ordinal = copies
        var identifier = AssetIdentifierFactory.identifier(for: fingerprint, ordinal: ordinal)
        while try taken.rows([identifier]).first?.int("taken") == 1, ordinal < copies + 10_000 {
            ordinal += 1
            identifier = AssetIdentifierFactory.identifier(for: fingerprint, ordinal: ordinal)
        }
        let id = try columns.insert(identifier: identifier, fingerprint: fingerprint.description, now: now,
                                    primaryFile: primaryFile, db: db)
        return (id, identifier)
    }

    /// Multi-file assets missing their primary or every secondary.
    private func brokenPairs() throws -> [Int64] {
        try db.rows("""
            SELECT a.id FROM assets a
            WHERE a.pairing_rule IN ('contentIdentifier', 'sameStemShortMovie', 'rawPlusJpeg') AND (
                NOT EXISTS (SELECT 1 FROM files f WHERE f.asset_id = a.id AND f.role IN ('photo', 'video'))
                OR NOT EXISTS (SELECT 1 FROM files f WHERE f.asset_id = a.id AND f.role IN ('pairedVideo', 'alternatePhoto')))
            """).compactMap { $0.int64("id") }
    }

    /// Secondary files whose asset has no primary (or no asset at all).
    private func orphanedSecondaries() throws -> [Int64] {
        try db.rows("""
            SELECT f.id FROM files f
            WHERE f.role IN ('pairedVideo', 'alternatePhoto') AND NOT EXISTS (
                SELECT 1 FROM files p WHERE p.asset_id = f.asset_id AND p.role IN ('photo', 'video'))
            """).compactMap { $0.int64("id") }
    }

    /// Splits a broken pair: secondaries get their own assets; an asset left without a
    /// primary is deleted.
    private mutating func dissolve(assetID: Int64) throws {
        let members = try files(ofAsset: assetID)
        if !members.contains(where: { ResourceRole.isSecondary($0.role) }) {
            // The secondary was deleted, or the indexer gave a changed one its own asset.
            try record(assetID, .unpaired)
            unpairedCount += 1
        }
        for file in members where ResourceRole.isSecondary(file.role) { try detach(file) }
        if !members.contains(where: { !ResourceRole.isSecondary($0.role) }) {
            try record(assetID, .deleted)
            try deleteAssetIfOrphaned(assetID, now: now, db: db)
            assetsToFinalize.remove(assetID)
        } else {
            assetsToFinalize.insert(assetID)
        }
    }

    /// Recomputes an asset's pairing rule and pairing-dependent subtypes from its
    /// files; returns its burst identifier.
    private mutating func finalize(assetID: Int64) throws -> String? {
        guard let asset = try db.cachedStatement("""
            SELECT subtypes, pairing_rule, content_identifier, burst_identifier, embedded_video_offset
            FROM assets WHERE id = ?
            """).rows([assetID]).first else { return nil }
        let members = try files(ofAsset: assetID)
        guard let primary = members.first(where: { !ResourceRole.isSecondary($0.role) }) else {
            if members.isEmpty {
                try record(assetID, .deleted)
                try deleteAssetIfOrphaned(assetID, now: now, db: db)
            }
            return nil
        }
        let pairedVideo = members.first { $0.role == ResourceRole.pairedVideo }
        let alternates = members.filter { $0.role == ResourceRole.alternatePhoto }
        let isMotionPhoto = asset.int64("embedded_video_offset") != nil

        var rule: String?
        if let movie = pairedVideo {
            rule = primary.contentIdentifier != nil && primary.contentIdentifier == movie.contentIdentifier
                ? PairingRule.contentIdentifier : PairingRule.sameStemShortMovie
        } else if !alternates.isEmpty {
            rule = PairingRule.rawPlusJpeg
        } else if isMotionPhoto {
            rule = PairingRule.motionPhoto
        }
        let old = MediaSubtypes(rawValue: asset.int("subtypes") ?? 0)
        var subtypes = old.subtracting([.livePhoto, .motionPhoto, .raw])
        if pairedVideo != nil || isMotionPhoto { subtypes.insert(.livePhoto) }
        if isMotionPhoto { subtypes.insert(.motionPhoto) }
        if primary.isRaw || alternates.contains(where: \.isRaw) { subtypes.insert(.raw) }

        if subtypes != old || rule != asset.string("pairing_rule") {
            try db.cachedStatement("UPDATE assets SET subtypes = ?, pairing_rule = ?, modified_at = ? WHERE id = ?")
                .execute([subtypes.rawValue, rule, now, assetID])
            try record(assetID, .updated, fields: (subtypes != old ? ["mediaSubtypes"] : [])
                + (rule != asset.string("pairing_rule") ? ["pairingRule"] : []))
        }
        return asset.string("burst_identifier")
    }

    /// One representative per burst: the earliest frame by capture time, then path.
    /// Apple's maker note has no known "picked by the user" flag, so the first frame
    /// stands for the burst. Bursts touched this run, and any burst whose count of
    /// representatives is not one (a frame added or deleted), are recomputed.
    private mutating func recomputeBursts(_ touched: Set<String>) throws {
        var bursts = touched
        for row in try db.rows("""
            SELECT burst_identifier FROM assets WHERE burst_identifier IS NOT NULL
            GROUP BY burst_identifier HAVING sum(is_burst_representative) <> 1
            """) {
            if let burst = row.string("burst_identifier") { bursts.insert(burst) }
        }
        for burst in bursts.sorted() {
            let frames = try db.cachedStatement("""
                SELECT a.id, a.creation_timestamp, a.is_burst_representative,
                    (SELECT min(f.path) FROM files f WHERE f.asset_id = a.id AND f.role IN ('photo', 'video')) AS path
                FROM assets a WHERE a.burst_identifier = ?
                """).rows([burst])
            let ordered = frames.sorted { a, b in
                let ta = a.double("creation_timestamp") ?? .infinity, tb = b.double("creation_timestamp") ?? .infinity
                if ta != tb { return ta < tb }
                return (a.blob("path") ?? []).lexicographicallyPrecedes(b.blob("path") ?? [])
            }
            for (index, frame) in ordered.enumerated() {
                guard let id = frame.int64("id") else { continue }
                let wanted = index == 0 ? 1 : 0
                if frame.int("is_burst_representative") != wanted {
                    try db.cachedStatement("UPDATE assets SET is_burst_representative = ? WHERE id = ?")
                        .execute([wanted, id])
                    try record(id, .updated, fields: ["burstRepresentative"])
                }
            }
        }
    }

    private mutating func record(_ assetID: Int64, _ kind: PairingChange.Kind, fields: [String] = []) throws {
        let identifier = try db.cachedStatement("SELECT identifier FROM assets WHERE id = ?").rows([assetID]).first?
            .string("identifier") ?? ""
        if let last = changes.last, last.assetRowID == assetID && last.kind == kind {
            changes[changes.count - 1].fields += fields.filter { !last.fields.contains($0) }
            return
        }
        changes.append(PairingChange(assetRowID: assetID, identifier: identifier, kind: kind, fields: fields))
    }
}

/// Since when files count as touched by an index run: its start, or the start of an
/// earlier run that never completed (killed after committing some batches), less a
/// margin for wall-clock steps. Files whose `indexed_at` is later are paired again.
func runStartedAt(_ runID: Int64, db: DatabaseConnection) throws -> Double {
    // From the start of the oldest run since the last completed one: a run killed after
    // committing batches never paired them, so this run pairs them too. Two seconds of
    // margin cover a wall clock stepped back between runs.
    let started = try db.row("""
        SELECT min(started_at) AS started FROM index_runs
        WHERE id <= ?1 AND id > coalesce((SELECT max(id) FROM index_runs WHERE status = 'completed' AND id < ?1), 0)
        """, [runID])?.double("started")
    return (started ?? 0) - 2
}
