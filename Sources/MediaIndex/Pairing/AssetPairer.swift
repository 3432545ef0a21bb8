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
        /// Subtypes, pairing rule, burst representative, adjustments or revision changed.
        case updated
    }
    /// The asset's row id in `assets`.
    public var assetRowID: Int64
    public var identifier: String
    public var kind: Kind
    /// For `updated`: the JSON names of what changed (`mediaSubtypes`, `pairingRule`,
    /// `burstRepresentative`, `hasAdjustments`, `revision`).
    public var fields: [String] = []
    /// Whether the asset was added by the run that paired it (its `added_at` is at least
    /// `AssetPairer.insertedSince`): its insert in the change feed already says everything.
    var assetIsNew = false
}

/// Pairs live photos, RAW+JPEG and motion photos, attaches edits and Apple's
/// adjustments to their originals, and picks burst representatives, for the files an
/// index run touched.
///
/// Names are compared by their base key (`NameLayout`): `IMG_E1234.JPG`,
/// `IMG_1234 (Edited).HEIC`, `IMG_1234_HEVC.MOV` and `IMG_1234.AAE` all have the base
/// `img_1234` of `IMG_1234.HEIC`. An edit joins its original's asset as `fullSizePhoto`
/// (`fullSizeVideo`, `fullSizePairedVideo` for movies), the adjustments file as
/// `adjustmentData`: identity follows the original. An edit without an original stays
/// an asset of its own, until the original comes.
///
/// Runs inside the run's final transaction, after vanished files are deleted. Work is
/// proportional to the files touched: every partner lookup is one indexed query
/// (`assets.content_identifier`, `files (folder, stem_key)`, `files (folder, base_key)`).
/// Pairs that lost a half are found by a sweep over the (few) multi-resource assets.
struct AssetPairer {
    /// A movie no longer than this pairs by name alone (Apple's live-photo movies are 1.5–3 s).
    static let maxStemPairedMovieSeconds = 3.5
    /// Still formats a RAW pairs with, best first.
    static let rawCompanionFormats: [MediaFormat] = [.jpeg, .heic, .heif]

    let db: DatabaseConnection
    let now: Double
    /// Assets added at or after this moment were inserted by this run: a new edit does
    /// not bump their revision (their insert is their first).
    var insertedSince: Double = .infinity
    private(set) var changes: [PairingChange] = []
    private(set) var pairedCount = 0
    private(set) var unpairedCount = 0
    /// Assets whose subtypes and rule must be recomputed at the end.
    private var assetsToFinalize = RowIDSet()
    /// Assets whose edited rendering came, changed or went: a new revision.
    private var renderingsChanged = RowIDSet()

    init(db: DatabaseConnection, now: Double = Date().timeIntervalSince1970) {
        self.db = db
        self.now = now
    }

    private var files: FileStore { FileStore(db: db) }
    private var assets: AssetStore { AssetStore(db: db) }

    /// One media file as pairing sees it.
    struct FileInfo {
        var id: Int64
        var path: PathBytes
        var folder: [UInt8]
        var stemKey: String
        var baseKey: String
        var format: MediaFormat?
        var assetID: Int64?
        var role: FileRole?
        var fingerprint: String?
        /// The file's own content identifier (a paired movie's asset carries the still's).
        var contentIdentifier: String?
        var duration: Double?

        var layout: NameLayout { NameLayout(lowercasedName: FileNameKey(path).lowercasedName) }
        var isMovie: Bool { format?.mediaType == .video }
        var isSecondary: Bool { role?.isSecondary == true }
        var isRaw: Bool { format?.isRaw == true }
        var isStill: Bool { format.map { $0.mediaType == .image && !$0.isRaw } ?? false }
    }

    /// What pairing reads of a file: its name keys, format and role, and the two values
    /// it needs from the file's metadata, which the index run writes as columns of their
    /// own (`content_identifier`, `duration_seconds`), so no lookup decodes JSON.
    static let fileColumns = """
        f.id, f.path, f.folder, f.stem_key, f.base_key, f.format, f.asset_id, f.role, f.fingerprint,
        f.content_identifier AS cid, f.duration_seconds AS duration
        """

    static func fileInfo(_ row: Row) -> FileInfo {
        let path = PathBytes(row.blob("path") ?? [])
        // Written by the indexer; computed here only for rows from before schema 4.
        let folder = row.blob("folder"), stemKey = row.string("stem_key"), baseKey = row.string("base_key")
        let names = folder == nil || stemKey == nil || baseKey == nil ? FileNameKey(path) : nil
        return FileInfo(
            id: row.int64("id") ?? 0, path: path, folder: folder ?? names?.folder ?? [],
            stemKey: stemKey ?? names?.stemKey ?? "", baseKey: baseKey ?? names?.baseKey ?? "",
            format: row.string("format").flatMap(MediaFormat.init(rawValue:)), assetID: row.int64("asset_id"),
            role: FileRole(stored: row.string("role")), fingerprint: row.string("fingerprint"),
            contentIdentifier: row.string("cid").flatMap { $0.isEmpty ? nil : $0 }, duration: row.double("duration"))
    }

    // MARK: Run

    /// Pairs and classifies everything touched since `since` (files whose `indexed_at`
    /// is at least that), repairs pairs that lost a half, and recomputes bursts.
    ///
    /// Pairing is a function of the files' rows: when none was touched and none removed
    /// (`filesRemoved` false), the pairs, adjustments and bursts the last run left stand,
    /// and the sweeps over every asset that look for broken ones are skipped. That is an
    /// unchanged re-index's case, where they cost about a second at a million assets.
    ///
    /// - Returns: what changed, one entry per asset and kind.
    /// - Throws: `DatabaseError`.
    mutating func run(touchedSince since: Double, filesRemoved: Bool = true) throws -> [PairingChange] {
        var touched = try backfillNames()
        try db.cachedStatement("SELECT id FROM files WHERE indexed_at >= ? AND status = \(FileStatus.media.sql)")
            .forEachRow([since]) { row in if let id = row.int64("id") { touched.insert(id) } }
        guard !touched.isEmpty || filesRemoved else { return [] }

        try repairBrokenPairs(touched: &touched)
        var candidates = try adjustmentCandidates(since: since)
        // After a large run (a first index), two index-only scans say which assets have
        // several files and which folder+stem groups several members, so most stills
        // skip the two lookups that would find nothing. Nothing changes until the loop ends.
        let shared = touched.count > Self.bulkTouchedFiles ? try SharedNames(db: db) : nil
        for id in touched {
            guard let file = try file(id: id) else { continue }
            try addCandidates(near: file, to: &candidates, shared: shared)
        }
        try settle(candidates)

        var bursts = Set<String>()
        for assetID in assetsToFinalize {
            if let burst = try finalize(assetID: assetID) { bursts.insert(burst) }
        }
        try recomputeBursts(bursts)
        return changes
    }

    /// The movies, RAWs, edits and adjustments files that need a (new) partner decision.
    struct Candidates {
        var movies = RowIDSet(), raws = RowIDSet(), edits = RowIDSet(), adjustments = RowIDSet()

        /// A movie, a RAW or an edited still; any other file is no candidate.
        mutating func add(_ file: FileInfo) {
            if file.isMovie { movies.insert(file.id) } else if file.isRaw { raws.insert(file.id) }
            else if file.isStill && file.layout.isEdit { edits.insert(file.id) }
        }
    }

    /// Which assets have several files and which folder+stem and folder+base groups have
    /// several members, read in two index-only scans after a large run.
    struct SharedNames {
        var multiFileAssets = RowIDSet(), stems = Set<StemGroup.Digest>(), bases = Set<StemGroup.Digest>()

        init(db: DatabaseConnection) throws {
            try db.cachedStatement("""
                SELECT asset_id FROM files WHERE asset_id IS NOT NULL GROUP BY asset_id HAVING count(*) > 1
                """).forEachRow { if let id = $0[0].int64 { multiFileAssets.insert(id) } }
            try db.cachedStatement("""
                SELECT folder, stem_key FROM files WHERE status = \(FileStatus.media.sql) GROUP BY folder, stem_key HAVING count(*) > 1
                """).forEachRow { row in
                if let folder = row[0].blob, let stem = row[1].text { stems.insert(StemGroup(folder: folder, stem: stem).digest) }
            }
            try db.cachedStatement("""
                SELECT folder, base_key FROM files WHERE base_key IS NOT NULL
                AND (status = \(FileStatus.media.sql) OR role = \(FileRole.adjustmentData.sql))
                GROUP BY folder, base_key HAVING count(*) > 1
                """).forEachRow { row in
                if let folder = row[0].blob, let base = row[1].text { bases.insert(StemGroup(folder: folder, stem: base).digest) }
            }
        }
    }

    /// Pairs that lost a half (a file deleted, replaced, or turned into an error) are
    /// dissolved, and secondaries left without a primary detached; their files count as touched.
    private mutating func repairBrokenPairs(touched: inout RowIDSet) throws {
        for assetID in try brokenPairs() {
            for file in try files(ofAsset: assetID) { touched.insert(file.id) }
            try dissolve(assetID: assetID)
        }
        for fileID in try orphanedSecondaries() {
            touched.insert(fileID)
            if let file = try file(id: fileID) { try detach(file) }
        }
    }

    /// The adjustments files read this run; and the assets that lost their last edit or
    /// adjustments file (it was deleted or changed) are to be finalized again.
    private mutating func adjustmentCandidates(since: Double) throws -> Candidates {
        var candidates = Candidates()
        try db.cachedStatement("SELECT id FROM files WHERE indexed_at >= ? AND role = \(FileRole.adjustmentData.sql)")
            .forEachRow([since]) { row in if let id = row.int64("id") { candidates.adjustments.insert(id) } }
        try db.cachedStatement("""
            SELECT a.id FROM assets a WHERE a.has_adjustments <> 0 AND NOT EXISTS (
                SELECT 1 FROM files f WHERE f.asset_id = a.id
                AND f.role IN \(FileRole.sqlList(FileRole.renderings + [.adjustmentData])))
            """).forEachRow { row in
            if let id = row.int64("id") { assetsToFinalize.insert(id); renderingsChanged.insert(id) }
        }
        return candidates
    }

    /// A touched file, and the files that are or could be its partners: its asset's
    /// secondaries, its live photo's movie, and the files sharing its stem or base.
    private mutating func addCandidates(near file: FileInfo, to candidates: inout Candidates,
                                        shared: SharedNames?) throws {
        if let assetID = file.assetID {
            assetsToFinalize.insert(assetID)
            // An edited rendering that was attached or read again this run.
            if file.role?.isRendering == true { renderingsChanged.insert(assetID) }
        }
        candidates.add(file)
        guard file.isStill || file.isRaw || !file.isSecondary else { return }
        // A primary's current partners, and the files that could be.
        if let assetID = file.assetID, shared?.multiFileAssets.contains(assetID) ?? true {
            for other in try files(ofAsset: assetID) where other.role?.isSecondary == true { candidates.add(other) }
        }
        if file.isStill, let identifier = file.contentIdentifier {
            // Its movie is nearly always beside it; the whole library only when it is not.
            var partners = try files(withIdentifier: identifier, inFolder: file.folder).filter(\.isMovie)
            if partners.isEmpty { partners = try files(withIdentifier: identifier).filter(\.isMovie) }
            for other in partners { candidates.movies.insert(other.id) }
        }
        // Same stem (`IMG_1234_3.JPG` with `IMG_1234_3.MOV`), then same base (`IMG_E1234.JPG`,
        // `IMG_1234_HEVC.MOV`, `IMG_1234.AAE` with `IMG_1234.HEIC`).
        var others: [FileInfo] = []
        if shared?.stems.contains(StemGroup(folder: file.folder, stem: file.stemKey).digest) ?? true {
            others += try files(inFolder: file.folder, stem: file.stemKey)
        }
        if shared?.bases.contains(StemGroup(folder: file.folder, stem: file.baseKey).digest) ?? true {
            others += try files(inFolder: file.folder, base: file.baseKey)
            for id in try adjustmentFiles(inFolder: file.folder, base: file.baseKey) { candidates.adjustments.insert(id) }
        }
        for other in others where other.id != file.id { candidates.add(other) }
    }

    /// Each candidate settled with its partner: edits, then movies, RAWs and adjustments.
    private mutating func settle(_ candidates: Candidates) throws {
        for id in candidates.edits {
            guard let edit = try file(id: id) else { continue }
            let original = try original(of: edit)
            try settle(edit, with: original, role: .fullSizePhoto)
        }
        for id in candidates.movies {
            guard let movie = try file(id: id) else { continue }
            if movie.layout.isEdit, let original = try original(of: movie) {
                try settle(movie, with: original, role: original.isMovie ? .fullSizeVideo : .fullSizePairedVideo)
            } else {
                try settle(movie, with: try liveStill(for: movie), role: .pairedVideo)
            }
        }
        for id in candidates.raws {
            guard let raw = try file(id: id) else { continue }
            try settle(raw, with: try rawCompanion(for: raw), role: .alternatePhoto)
        }
        for id in candidates.adjustments { try attachAdjustments(fileID: id) }
    }

    /// Above this many touched files the pairer prefetches which assets and stems are shared.
    static let bulkTouchedFiles = 500  // below the corpus size, so the corpus pairing tests take this path

    /// A folder and a stem key: files that may pair by name.
    struct StemGroup: Hashable {
        var folder: [UInt8]
        var stem: String

        /// A hash of the two, which is all the bulk prefetch keeps of each group: at a
        /// million files the groups themselves would take tens of megabytes. Two groups
        /// that share a digest only cost a lookup that finds nothing.
        typealias Digest = Int
        var digest: Digest { hashValue }
    }

    /// Fills `folder`, `stem_key` and `base_key` where they are missing (new rows, moved
    /// files, and every row once after schemas 4 and 14), returning those files: they are
    /// evaluated too.
    private func backfillNames() throws -> RowIDSet {
        var ids = RowIDSet()
        let rows = try db.rows("""
            SELECT id, path FROM files WHERE stem_key IS NULL AND status = \(FileStatus.media.sql)
            UNION SELECT id, path FROM files WHERE base_key IS NULL AND status = \(FileStatus.media.sql)
            """)
        for row in rows {
            guard let id = row.int64("id"), let path = row.blob("path") else { continue }
            try files.setNames(fileID: id, FileNameKey(PathBytes(path)))
            ids.insert(id)
        }
        return ids
    }

    // MARK: Lookups

    private func file(id: Int64) throws -> FileInfo? {
        try db.cachedStatement("SELECT \(Self.fileColumns) FROM files f WHERE f.id = ? AND f.status = \(FileStatus.media.sql)")
            .rows([id]).first.map(Self.fileInfo)
    }

    private func files(ofAsset assetID: Int64) throws -> [FileInfo] {
        // Describing files ride along with the asset; pairing never moves them (SidecarAttacher
        // and TakeoutAttacher do). Adjustments files are attached apart (`attachAdjustments`).
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f WHERE f.asset_id = ?
            AND (f.role IS NULL OR f.role NOT IN \(FileRole.sqlList(FileRole.describing))) ORDER BY f.path
            """)
            .rows([assetID]).map(Self.fileInfo)
    }

    /// Files whose asset carries the identifier and that carry it themselves, in `folder`
    /// only (`files_by_content_identifier`): a library of many copies of the same pictures
    /// must not answer every copy to every copy. Callers look further (`files(withIdentifier:)`)
    /// only when the folder holds no partner.
    private func files(withIdentifier identifier: String, inFolder folder: [UInt8]) throws -> [FileInfo] {
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f JOIN assets a ON a.id = f.asset_id
            WHERE f.content_identifier = ? AND f.folder = ? AND a.content_identifier = f.content_identifier
            AND f.status = \(FileStatus.media.sql) ORDER BY f.path
            """).rows([identifier, folder]).map(Self.fileInfo)
    }

    /// Files whose asset carries the identifier and that carry it themselves, anywhere.
    private func files(withIdentifier identifier: String) throws -> [FileInfo] {
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f JOIN assets a ON a.id = f.asset_id
            WHERE f.content_identifier = ? AND a.content_identifier = f.content_identifier
            AND f.status = \(FileStatus.media.sql) ORDER BY f.path
            """).rows([identifier]).map(Self.fileInfo)
    }

    private func files(inFolder folder: [UInt8], stem: String) throws -> [FileInfo] {
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f
            WHERE f.folder = ? AND f.stem_key = ? AND f.status = \(FileStatus.media.sql) ORDER BY f.path
            """).rows([folder, stem]).map(Self.fileInfo)
    }

    /// The media files whose name has the base key `base` (`NameLayout`).
    private func files(inFolder folder: [UInt8], base: String) throws -> [FileInfo] {
        try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f
            WHERE f.folder = ? AND f.base_key = ? AND f.status = \(FileStatus.media.sql) ORDER BY f.path
            """).rows([folder, base]).map(Self.fileInfo)
    }

    /// The adjustments files whose name has the base key `base`.
    private func adjustmentFiles(inFolder folder: [UInt8], base: String) throws -> [Int64] {
        try db.cachedStatement("""
            SELECT id FROM files WHERE folder = ? AND base_key = ? AND role = \(FileRole.adjustmentData.sql)
            """).rows([folder, base]).compactMap { $0.int64("id") }
    }

    /// Whether a primary's asset already has a secondary of `role` other than `file`.
    private func hasOtherSecondary(_ primary: FileInfo, role: FileRole, than file: FileInfo) throws -> Bool {
        guard let assetID = primary.assetID else { return false }
        return try db.cachedStatement("SELECT 1 FROM files WHERE asset_id = ? AND role = ? AND id <> ? LIMIT 1")
            .rows([assetID, role, file.id]).isEmpty == false
    }

    /// The still a live-photo movie belongs with: the same content identifier anywhere
    /// (same folder first), or, when neither carries one, the same folder and stem
    /// with a movie of at most 3.5 s. Identifiers that differ never pair.
    private func liveStill(for movie: FileInfo) throws -> FileInfo? {
        func freeStills(_ candidates: [FileInfo]) throws -> [FileInfo] {
            var free: [FileInfo] = []
            for still in candidates where still.isStill && still.role == .photo && still.assetID != nil {
                if try !hasOtherSecondary(still, role: .pairedVideo, than: movie) { free.append(still) }
            }
            return free
        }
        var free: [FileInfo]
        if let identifier = movie.contentIdentifier {
            // Its folder and the pair it is in first; the whole library only when neither
            // offers a free still (many copies of one library must not meet every copy).
            var near = try files(withIdentifier: identifier, inFolder: movie.folder)
            if let assetID = movie.assetID {
                near += try files(ofAsset: assetID).filter { $0.contentIdentifier == identifier && $0.folder != movie.folder }
            }
            free = try freeStills(near)
            if free.isEmpty { free = try freeStills(try files(withIdentifier: identifier)) }
        } else {
            guard let duration = movie.duration, duration > 0, duration <= Self.maxStemPairedMovieSeconds else { return nil }
            // The same stem first; else a renamed movie's base (`IMG_1234_HEVC.MOV`, `IMG_1234_3.mov`,
            // `IMG_1234.JPG.MOV`), an edited movie with an edited still standing alone.
            let isEdit = movie.layout.isEdit
            let sameStem = try files(inFolder: movie.folder, stem: movie.stemKey)
                .filter { $0.contentIdentifier == nil && $0.isStill && $0.role == .photo && $0.assetID != nil }
            var anyFree = false
            for still in sameStem where try !hasOtherSecondary(still, role: .pairedVideo, than: movie) { anyFree = true }
            free = try freeStills(anyFree ? sameStem : try files(inFolder: movie.folder, base: movie.baseKey).filter {
                $0.contentIdentifier == nil && $0.layout.isEdit == isEdit
            })
        }
        // Keep a pair that still holds; else same folder first, then path order.
        if let current = free.first(where: { $0.assetID == movie.assetID }) { return current }
        return free.first(where: { $0.folder == movie.folder }) ?? free.first
    }

    /// The JPEG (or HEIC) beside a RAW with the same stem, else with the same base (Pixel's
    /// `….RAW-01.MP.COVER.jpg` beside `….RAW-02.ORIGINAL.dng`); never an edited copy.
    private func rawCompanion(for raw: FileInfo) throws -> FileInfo? {
        func companions(_ files: [FileInfo]) -> [FileInfo] {
            files.filter {
                $0.role == .photo && $0.assetID != nil && $0.format.map(Self.rawCompanionFormats.contains) == true
                    && !$0.layout.isEdit
            }
        }
        var candidates = companions(try files(inFolder: raw.folder, stem: raw.stemKey))
        if candidates.isEmpty { candidates = companions(try files(inFolder: raw.folder, base: raw.baseKey)) }
        candidates.sort { a, b in
            let ra = Self.rawCompanionFormats.firstIndex(of: a.format ?? .jpeg) ?? 9
            let rb = Self.rawCompanionFormats.firstIndex(of: b.format ?? .jpeg) ?? 9
            return ra != rb ? ra < rb : a.path < b.path
        }
        var free: [FileInfo] = []
        for companion in candidates where try !hasOtherSecondary(companion, role: .alternatePhoto, than: raw) {
            free.append(companion)
        }
        return free.first(where: { $0.assetID == raw.assetID }) ?? free.first
    }

    /// The original an edit (`IMG_E1234.JPG`, `IMG_1234 (Edited).HEIC`, `IMG_E1234.MOV`) or
    /// adjustments file belongs with: a primary of the same folder and base key whose name
    /// is no edit, a photo for a still (a live photo's still or a video for a movie, the
    /// still first), and whose asset has no other rendering of that kind. Same asset first,
    /// then stills before movies, then path order.
    private func original(of file: FileInfo) throws -> FileInfo? {
        let wantsMovieToo = file.isMovie || file.role == .adjustmentData
        let candidates = try files(inFolder: file.folder, base: file.baseKey).filter { other in
            other.id != file.id && other.assetID != nil && !other.layout.isEdit
                && (other.role == .photo || (wantsMovieToo && other.role == .video))
        }.sorted { a, b in a.isMovie != b.isMovie ? !a.isMovie : a.path < b.path }
        var free: [FileInfo] = []
        for original in candidates {
            let role: FileRole = !file.isMovie ? .fullSizePhoto : original.isMovie ? .fullSizeVideo : .fullSizePairedVideo
            let taken = file.role == .adjustmentData ? false : try hasOtherSecondary(original, role: role, than: file)
            if !taken { free.append(original) }
        }
        return free.first(where: { $0.assetID == file.assetID }) ?? free.first
    }

    /// Where a new media file goes when its name is an edit's and its original is indexed:
    /// the original's asset and the rendering role, so that the edit never gets an asset of
    /// its own (the index run's writer asks this before it creates one).
    static func editTarget(forNewFile path: PathBytes, format: MediaFormat,
                           db: DatabaseConnection) throws -> (assetID: Int64, role: FileRole)? {
        let names = FileNameKey(path)
        guard NameLayout(lowercasedName: names.lowercasedName).isEdit else { return nil }
        let edit = FileInfo(id: -1, path: path, folder: names.folder, stemKey: names.stemKey, baseKey: names.baseKey,
                            format: format, assetID: nil, role: nil, fingerprint: nil, contentIdentifier: nil,
                            duration: nil)
        guard edit.isMovie || edit.isStill, let original = try AssetPairer(db: db).original(of: edit),
              let assetID = original.assetID else { return nil }
        return (assetID, !edit.isMovie ? .fullSizePhoto : original.isMovie ? .fullSizeVideo : .fullSizePairedVideo)
    }

    /// The displayed size of an asset's edited rendering (`fullSizePhoto`, or `fullSizeVideo`
    /// for a video): PhotoKit gives an edited asset the size of its current version.
    /// nil when the asset has no rendering or its size is unknown.
    static func renderingSize(ofAsset assetID: Int64, db: DatabaseConnection) throws -> (width: Int, height: Int)? {
        guard let row = try db.cachedStatement("""
            SELECT f.metadata FROM files f JOIN assets a ON a.id = f.asset_id
            WHERE f.asset_id = ? AND f.status = \(FileStatus.media.sql)
            AND f.role = CASE a.media_type WHEN 'video' THEN \(FileRole.fullSizeVideo.sql) ELSE \(FileRole.fullSizePhoto.sql) END
            ORDER BY f.path LIMIT 1
            """).rows([assetID]).first else { return nil }
        return FileRecord.decodeMetadata(row.string("metadata"))?.displaySize
    }

    /// Attaches an adjustments file to its original's asset (or detaches it: no original).
    private mutating func attachAdjustments(fileID: Int64) throws {
        guard let row = try db.cachedStatement("""
            SELECT \(Self.fileColumns) FROM files f WHERE f.id = ? AND f.role = \(FileRole.adjustmentData.sql)
            """).rows([fileID]).first else { return }
        let adjustments = Self.fileInfo(row)
        let target = try original(of: adjustments)?.assetID
        if let old = adjustments.assetID { assetsToFinalize.insert(old) }
        if let target { assetsToFinalize.insert(target) }
        if target != adjustments.assetID { try files.setSidecarAsset(fileID: fileID, assetID: target) }
    }

    // MARK: Changes

    /// Makes `file` the `role` resource of `primary`'s asset, or a primary of its own
    /// when `primary` is nil.
    private mutating func settle(_ file: FileInfo, with primary: FileInfo?, role: FileRole) throws {
        guard let primary, let target = primary.assetID else {
            if file.isSecondary { try detach(file) }
            return
        }
        if file.assetID == target && file.role == role { return }
        if file.isSecondary { try leavePair(file) }
        try files.attach(fileID: file.id, to: target, role: role)
        if !file.isSecondary, let own = file.assetID, own != target {
            try record(own, .deleted)
            try assets.deleteIfOrphaned(own, now: now)
            assetsToFinalize.remove(own)
        }
        try pairChanged(target, byRendering: role.isRendering, .paired)
    }

    /// A secondary file leaves the asset it belonged to: an edit's original only changes
    /// rendering; any other pair loses its half (`unpaired`).
    private mutating func leavePair(_ file: FileInfo) throws {
        guard let previous = file.assetID else { return }
        try pairChanged(previous, byRendering: file.role?.isRendering == true, .unpaired)
    }

    /// `assetID` gained (`.paired`) or lost (`.unpaired`) a secondary file. An edit or its
    /// original changes only the asset's rendering (`hasAdjustments`, `revision`: see
    /// `finalize`); any other file changes the pair, recorded and counted.
    private mutating func pairChanged(_ assetID: Int64, byRendering: Bool, _ kind: PairingChange.Kind) throws {
        if byRendering {
            renderingsChanged.insert(assetID)
        } else {
            try record(assetID, kind)
            if kind == .paired { pairedCount += 1 } else { unpairedCount += 1 }
        }
        assetsToFinalize.insert(assetID)
    }

    /// Gives a secondary file its own asset again, with the identifier its content
    /// gives, as the indexer would.
    private mutating func detach(_ file: FileInfo) throws {
        guard let metadata = try files.storedMetadata(fileID: file.id),
              let fingerprintText = file.fingerprint, let fingerprint = ContentFingerprint(hex: fingerprintText) else {
            // Unreadable row: drop it from the pair; the next index run reads it afresh.
            try files.dropForReread(fileID: file.id)
            return
        }
        try leavePair(file)
        let values = AssetRecord.MetadataValues(metadata, fileName: String(decoding: file.path.lastComponent, as: UTF8.self))
        let assetID = try assets.create(values, fingerprint: fingerprint, now: now).id
        try files.attach(fileID: file.id, to: assetID, role: FileRole(primaryFor: metadata.format))
        try record(assetID, .created)
        assetsToFinalize.insert(assetID)
    }

    /// Multi-file assets missing their primary or every secondary.
    private func brokenPairs() throws -> [Int64] {
        try db.rows("""
            SELECT a.id FROM assets a
            WHERE a.pairing_rule IN \(PairingRule.sqlList(PairingRule.multiFile)) AND (
                NOT EXISTS (SELECT 1 FROM files f WHERE f.asset_id = a.id AND f.role IN \(FileRole.sqlList(FileRole.primaries)))
                OR NOT EXISTS (SELECT 1 FROM files f WHERE f.asset_id = a.id AND f.role IN \(FileRole.sqlList(FileRole.pairingSecondaries))))
            """).compactMap { $0.int64("id") }
    }

    /// Secondary files whose asset has no primary (or no asset at all).
    private func orphanedSecondaries() throws -> [Int64] {
        try db.rows("""
            SELECT f.id FROM files f
            WHERE f.role IN \(FileRole.sqlList(FileRole.secondaries)) AND NOT EXISTS (
                SELECT 1 FROM files p WHERE p.asset_id = f.asset_id AND p.role IN \(FileRole.sqlList(FileRole.primaries)))
            """).compactMap { $0.int64("id") }
    }

    /// Splits a broken pair: secondaries get their own assets; an asset left without a
    /// primary is deleted.
    private mutating func dissolve(assetID: Int64) throws {
        let members = try files(ofAsset: assetID)
        if !members.contains(where: { $0.role.map(FileRole.pairingSecondaries.contains) == true }) {
            // The secondary was deleted, or the indexer gave a changed one its own asset.
            try record(assetID, .unpaired)
            unpairedCount += 1
        }
        for file in members where file.isSecondary { try detach(file) }
        if !members.contains(where: { !$0.isSecondary }) {
            try record(assetID, .deleted)
            try assets.deleteIfOrphaned(assetID, now: now)
            assetsToFinalize.remove(assetID)
        } else {
            assetsToFinalize.insert(assetID)
        }
    }

    /// Recomputes an asset's pairing rule and pairing-dependent subtypes from its
    /// files; returns its burst identifier.
    private mutating func finalize(assetID: Int64) throws -> String? {
        guard let asset = try db.cachedStatement("""
            SELECT subtypes, pairing_rule, content_identifier, burst_identifier, embedded_video_offset,
                has_adjustments, added_at, pixel_width, pixel_height
            FROM assets WHERE id = ?
            """).rows([assetID]).first else { return nil }
        let members = try files(ofAsset: assetID)
        guard let primary = members.first(where: { !$0.isSecondary }) else {
            if members.isEmpty {
                try record(assetID, .deleted)
                try assets.deleteIfOrphaned(assetID, now: now)
            }
            return nil
        }
        let pairedVideo = members.first { $0.role == .pairedVideo }
        let alternates = members.filter { $0.role == .alternatePhoto }
        let isMotionPhoto = asset.int64("embedded_video_offset") != nil

        var rule: PairingRule?
        if let movie = pairedVideo {
            rule = primary.contentIdentifier != nil && primary.contentIdentifier == movie.contentIdentifier
                ? .contentIdentifier : .sameStemShortMovie
        } else if !alternates.isEmpty {
            rule = .rawPlusJpeg
        } else if isMotionPhoto {
            rule = .motionPhoto
        }
        let old = MediaSubtypes(rawValue: asset.int("subtypes") ?? 0)
        var subtypes = old.subtracting([.livePhoto, .motionPhoto, .raw])
        if pairedVideo != nil || isMotionPhoto { subtypes.insert(.livePhoto) }
        if isMotionPhoto { subtypes.insert(.motionPhoto) }
        if primary.isRaw || alternates.contains(where: \.isRaw) { subtypes.insert(.raw) }

        if subtypes != old || rule?.rawValue != asset.string("pairing_rule") {
            try assets.setPairing(assetID, subtypes: subtypes, rule: rule, now: now)
            try record(assetID, .updated, fields: (subtypes != old ? ["mediaSubtypes"] : [])
                + (rule?.rawValue != asset.string("pairing_rule") ? ["pairingRule"] : []))
        }

        // An edited rendering or adjustments file: `hasAdjustments`; a rendering that came,
        // changed or went: a new revision (thumbnails are made from it), unless the asset is
        // new this run.
        let hadAdjustments = (asset.int("has_adjustments") ?? 0) != 0
        let hasAdjustments = try members.contains { $0.role?.isRendering == true } || !db.cachedStatement(
            "SELECT 1 FROM files WHERE asset_id = ? AND role = \(FileRole.adjustmentData.sql) LIMIT 1").rows([assetID]).isEmpty
        let bump = renderingsChanged.contains(assetID) && (asset.double("added_at") ?? 0) < insertedSince
        var sizeFields: [String] = []
        if renderingsChanged.contains(assetID) {
            // The size as displayed is the current version's: the rendering's, else the original's again.
            let wanted = try Self.renderingSize(ofAsset: assetID, db: db)
                ?? files.storedMetadata(fileID: primary.id)?.displaySize
            if let wanted, wanted.width != asset.int("pixel_width") || wanted.height != asset.int("pixel_height") {
                try assets.update(assetID, columns: [(.pixelWidth, wanted.width), (.pixelHeight, wanted.height)], now: now)
                sizeFields = ["pixelWidth", "pixelHeight"]
            }
        }
        if hasAdjustments != hadAdjustments || bump {
            try assets.setAdjustments(assetID, hasAdjustments: hasAdjustments, bumpRevision: bump, now: now)
        }
        if hasAdjustments != hadAdjustments || bump || !sizeFields.isEmpty {
            try record(assetID, .updated, fields: (hasAdjustments != hadAdjustments ? ["hasAdjustments"] : [])
                + sizeFields + (bump ? ["revision"] : []))
        }
        return asset.string("burst_identifier")
    }

    /// One representative per burst: the frame named the cover (Pixel, Sony, Huawei),
    /// else the earliest frame by capture time, then path. Apple's maker note has no
    /// known "picked by the user" flag, so the first frame stands for the burst. Bursts touched this run, and any burst whose count of
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
                    (SELECT min(f.path) FROM files f WHERE f.asset_id = a.id AND f.role IN \(FileRole.sqlList(FileRole.primaries))) AS path
                FROM assets a WHERE a.burst_identifier = ?
                """).rows([burst])
            // A frame its name calls the cover (`…_BURST…_COVER.jpg`) stands for the burst.
            func isCover(_ row: Row) -> Bool {
                NameLayout.burst(ofFileName: String(decoding: PathBytes(row.blob("path") ?? []).lastComponent, as: UTF8.self))?
                    .isCover == true
            }
            let ordered = frames.sorted { a, b in
                let ca = isCover(a), cb = isCover(b)
                if ca != cb { return ca }
                let ta = a.double("creation_timestamp") ?? .infinity, tb = b.double("creation_timestamp") ?? .infinity
                if ta != tb { return ta < tb }
                return (a.blob("path") ?? []).lexicographicallyPrecedes(b.blob("path") ?? [])
            }
            for (index, frame) in ordered.enumerated() {
                guard let id = frame.int64("id") else { continue }
                let wanted = index == 0 ? 1 : 0
                if frame.int("is_burst_representative") != wanted {
                    try assets.setBurstRepresentative(id, wanted == 1)
                    try record(id, .updated, fields: ["burstRepresentative"])
                }
            }
        }
    }

    private mutating func record(_ assetID: Int64, _ kind: PairingChange.Kind, fields: [String] = []) throws {
        if let last = changes.last, last.assetRowID == assetID && last.kind == kind {
            changes[changes.count - 1].fields += fields.filter { !last.fields.contains($0) }
            return
        }
        let asset = try db.cachedStatement("SELECT identifier, added_at FROM assets WHERE id = ?").rows([assetID]).first
        var change = PairingChange(assetRowID: assetID, identifier: asset?.string("identifier") ?? "", kind: kind,
                                   fields: fields)
        change.assetIsNew = (asset?.double("added_at") ?? -.infinity) >= insertedSince
        changes.append(change)
    }
}
