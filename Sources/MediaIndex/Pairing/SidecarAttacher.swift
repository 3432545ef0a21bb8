import Foundation
import MediaMetadata

/// What an XMP sidecar says that the index uses: the fields people edit in a photo
/// manager (darktable, digiKam, Lightroom write them there). Stored as the sidecar
/// row's `files.metadata`.
struct SidecarValues: Codable, Equatable {
    /// `exif:DateTimeOriginal`, else `photoshop:DateCreated`, else `xmp:CreateDate`.
    var captureDate: CaptureDate?
    /// `exif:GPSLatitude`/`GPSLongitude` (and `GPSAltitude`), when plausible.
    var location: GeoLocation?
    /// `xmp:Rating`, rounded and clamped to -1 (rejected) … 5.
    var rating: Int?
    /// `photoshop:SidecarForExtension`, lowercased: which same-stem file it describes.
    var sidecarForExtension: String?
    var warnings: [String] = []

    init(_ properties: XMPProperties) {
        captureDate = properties.captureDate
        location = properties.location.flatMap { $0.isPlausible ? $0 : nil }
        rating = properties.rating.flatMap { $0.isFinite ? Int(max(-1, min(5, $0.rounded()))) : nil }
        sidecarForExtension = properties.sidecarForExtension.map {
            String($0.lowercased().drop { $0 == "." })
        }.flatMap { $0.isEmpty ? nil : $0 }
        warnings = properties.warnings
    }

    static func decode(_ json: String?) -> SidecarValues? {
        guard let json else { return nil }
        return try? JSONDecoder().decode(SidecarValues.self, from: Data(json.utf8))
    }

    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// XMP sidecar files: `IMG_1.JPG.xmp` or `IMG_1.xmp` beside `IMG_1.JPG`.
enum SidecarFile {
    /// Whether the path names a sidecar (extension `.xmp`, any case).
    static func isSidecar(_ path: PathBytes) -> Bool { path.lowercasedExtension == "xmp" }

    /// Reads a sidecar, at most `XMPReader.maxPacketBytes` of it. Malformed XML gives
    /// what could be read; only an I/O failure is an error (of the sidecar's row).
    static func read(_ source: ByteSource) -> Indexer.Outcome {
        do {
            return .sidecar(SidecarValues(try XMPReader.readSidecar(source)).encoded())
        } catch {
            return .failed(Indexer.sentence(error))
        }
    }

    /// The lowercased name of the file a sidecar describes: `img_1.jpg` for
    /// `IMG_1.JPG.xmp`, `img_1` for `IMG_1.xmp` (its stem key).
    static func describedName(_ path: PathBytes) -> String { AssetPairer.FileName(path).stemKey }

    /// The stem key of a lowercased file name: the name without its last extension.
    static func stemKey(ofName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The lowercased name of a path's last component.
    static func lowercasedName(_ path: PathBytes) -> String {
        String(decoding: path.lastComponent, as: UTF8.self).lowercased()
    }
}

extension Indexer {
    /// Records a sidecar's row: status `ignored` (not an image or video), role
    /// `sidecar`, its values as metadata. The attachment is kept until the attacher,
    /// at the end of the run, decides it afresh.
    func recordSidecar(work: Work, metadataJSON: String, known: KnownFile?, summary: inout IndexSummary,
                       now: Double, db: DatabaseConnection) throws {
        summary.skipped += 1
        let entry = work.entry
        let names = AssetPairer.FileName(entry.path)
        try db.execute("""
            INSERT INTO files (root_id, path, size, mtime_ns, inode, status, role, metadata, indexed_at, folder, stem_key)
            VALUES (?, ?, ?, ?, ?, 'ignored', 'sidecar', ?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
                mtime_ns = excluded.mtime_ns, inode = excluded.inode, status = 'ignored', format = NULL,
                fingerprint = NULL, error = NULL, asset_id = CASE WHEN files.role = 'sidecar' THEN files.asset_id END,
                role = 'sidecar', metadata = excluded.metadata, indexed_at = excluded.indexed_at,
                folder = excluded.folder, stem_key = excluded.stem_key
            """, [work.rootID, entry.path.bytes, entry.stat.size, entry.stat.modificationNanoseconds, entry.stat.inode,
                  metadataJSON, now, names.folder, names.stemKey])
        // The path held a media file before: its asset goes unless another file holds it.
        if let known, known.role != ResourceRole.sidecar, let assetID = known.assetID {
            try deleteAssetIfOrphaned(assetID, now: now, db: db)
        }
    }
}

/// Attaches XMP sidecars to the assets of the media files they describe, and merges
/// their values into those assets.
///
/// Which file a sidecar describes, in its folder, names compared case-insensitively:
/// `NAME.EXT.xmp` describes the file named `NAME.EXT`; failing that, `NAME.xmp` (and
/// `NAME.EXT.xmp` too) describes the files whose name without its extension is `NAME`.
/// When several files share that stem, the sidecar goes to the asset of the one its
/// `photoshop:SidecarForExtension` names, else of the still (JPEG/HEIC before RAW),
/// else of the movie; paired files are one asset anyway. A sidecar is never an asset;
/// one whose media file is not indexed waits, unattached, and attaches when it comes.
///
/// Which value wins: the sidecar's, for the fields people edit (capture date,
/// location, rating), where the sidecar has one; the file's fill the rest. With
/// several sidecars on one asset, the one naming the primary file exactly comes first.
///
/// Runs in the index run's final transaction, after pairing (so assets are final).
/// Work is proportional to the files the run touched, plus sidecars still unattached.
struct SidecarAttacher {
    let db: DatabaseConnection
    let now: Double

    /// Assets that held a sidecar whose row this run rewrote (it may have become an
    /// error, which drops the attachment) or removed: their values are merged again.
    static func formerHolders(toRead: [Indexer.Work], known: [PathBytes: Indexer.KnownFile],
                              vanished: [PathBytes: Indexer.KnownFile]) -> Set<Int64> {
        var holders = Set<Int64>()
        for row in vanished.values where row.role == ResourceRole.sidecar {
            if let assetID = row.assetID { holders.insert(assetID) }
        }
        for work in toRead where SidecarFile.isSidecar(work.entry.path) {
            if let row = known[work.entry.path], row.role == ResourceRole.sidecar, let assetID = row.assetID {
                holders.insert(assetID)
            }
        }
        return holders
    }

    /// Attaches the sidecars the run may have affected and merges the values of every
    /// asset whose sidecars or primary file changed, recording `updated` changes.
    ///
    /// - Parameters:
    ///   - runID: the index run (`index_runs.id`): rows it wrote are newer than its start.
    ///   - vanishedPaths: files removed by the run.
    ///   - formerHolders: see `formerHolders(toRead:known:vanished:)`.
    /// - Throws: `DatabaseError`.
    func run(runID: Int64, vanishedPaths: [PathBytes], formerHolders: Set<Int64>) throws {
        let since = try runStartedAt(runID, db: db)
        // Assets inserted by this run (no margin here: a previous run's are older).
        let insertedSince = try db.row("SELECT started_at FROM index_runs WHERE id = ?", [runID])?
            .double("started_at") ?? now
        let sidecarCount = try db.scalarInt("SELECT count(*) FROM files WHERE role = 'sidecar'") ?? 0
        guard sidecarCount > 0 || !formerHolders.isEmpty else { return }
        var toMerge = formerHolders

        // Files the run wrote or removed: the sidecars that may name them. When they
        // outnumber the sidecars (a first run), every sidecar is looked at instead, and
        // their name keys are not collected (tens of MB at 100,000 files).
        let touchedCount = try db.scalarInt(
            "SELECT count(*) FROM files WHERE indexed_at >= ? AND role IS NOT 'sidecar'", [since]) ?? 0
        let mostTouched = touchedCount + vanishedPaths.count > sidecarCount
        var keys = Set<NameKey>()
        var touchedPrimaryAssets = Set<Int64>()
        try db.cachedStatement("""
            SELECT path, asset_id, role FROM files WHERE indexed_at >= ? AND role IS NOT 'sidecar'
            """).forEachRow([since]) { row in
            guard let path = row.blob("path") else { return }
            if !mostTouched { keys.formUnion(NameKey.keys(naming: PathBytes(path))) }
            // The indexer wrote this primary's own values over the merged ones.
            if let assetID = row.int64("asset_id"), ResourceRole.isPrimary(row.string("role")) {
                touchedPrimaryAssets.insert(assetID)
            }
        }
        if !mostTouched { for path in vanishedPaths { keys.formUnion(NameKey.keys(naming: path)) } }

        var sidecars = Set<Int64>()
        try db.cachedStatement("SELECT id FROM files WHERE role = 'sidecar' AND indexed_at >= ?")
            .forEachRow([since]) { if let id = $0.int64("id") { sidecars.insert(id) } }
        // Unattached sidecars wait for a file of their name: its arrival is a touched
        // file whose name keys find them below, so they are not re-read on every run.
        if mostTouched {
            // Most of the library was touched (a first run): every sidecar, in one pass.
            try db.cachedStatement("SELECT id, asset_id FROM files WHERE role = 'sidecar'").forEachRow { row in
                if let id = row.int64("id") { sidecars.insert(id) }
                if let assetID = row.int64("asset_id"), touchedPrimaryAssets.contains(assetID) { toMerge.insert(assetID) }
            }
        } else {
            let byName = try db.cachedStatement("SELECT id FROM files WHERE role = 'sidecar' AND folder = ? AND stem_key = ?")
            for key in keys {
                try byName.forEachRow([key.folder, key.stemKey]) { if let id = $0.int64("id") { sidecars.insert(id) } }
            }
            let held = try db.cachedStatement("SELECT 1 FROM files WHERE asset_id = ? AND role = 'sidecar' LIMIT 1")
            for assetID in touchedPrimaryAssets where try !held.rows([assetID]).isEmpty { toMerge.insert(assetID) }
        }

        for id in sidecars.sorted() {
            guard let row = try db.cachedStatement("""
                SELECT path, asset_id, indexed_at, metadata FROM files WHERE id = ? AND role = 'sidecar'
                """).rows([id]).first, let path = row.blob("path") else { continue }
            let old = row.int64("asset_id")
            let target = try attachmentTarget(ofSidecar: PathBytes(path),
                                              values: SidecarValues.decode(row.string("metadata")))
            if target != old {
                try db.cachedStatement("UPDATE files SET asset_id = ? WHERE id = ?").execute([target, id])
                if let old { toMerge.insert(old) }
            }
            // A sidecar written this run may say something new.
            if let target, target != old || (row.double("indexed_at") ?? 0) >= since { toMerge.insert(target) }
        }

        for assetID in toMerge.sorted() { try merge(assetID: assetID, insertedSince: insertedSince) }
    }

    /// A media file as a candidate for a sidecar.
    private struct Candidate {
        var path: PathBytes
        var role: String?
        var format: MediaFormat?
        var assetID: Int64
    }

    /// The asset of the media file the sidecar at `path` describes, or nil.
    func attachmentTarget(ofSidecar path: PathBytes, values: SidecarValues?) throws -> Int64? {
        let folder = AssetPairer.FileName(path).folder
        let described = SidecarFile.describedName(path)
        let lookup = try db.cachedStatement("""
            SELECT path, role, format, asset_id FROM files
            WHERE folder = ? AND stem_key = ? AND status = 'media' AND asset_id IS NOT NULL
            """)
        func candidates(stem: String) throws -> [Candidate] {
            try lookup.rows([folder, stem]).compactMap { row in
                guard let path = row.blob("path"), let assetID = row.int64("asset_id") else { return nil }
                return Candidate(path: PathBytes(path), role: row.string("role"),
                                 format: row.string("format").flatMap(MediaFormat.init(rawValue:)), assetID: assetID)
            }
        }
        // NAME.EXT.xmp: the file named NAME.EXT; the one whose case matches exactly first.
        let exactName = Array(path.lastComponent.dropLast(4))
        let exact = try candidates(stem: SidecarFile.stemKey(ofName: described)).filter {
            SidecarFile.lowercasedName($0.path) == described
        }.sorted { a, b in
            let ea = a.path.lastComponent == exactName, eb = b.path.lastComponent == exactName
            return ea != eb ? ea : a.path < b.path
        }
        if let first = exact.first { return first.assetID }

        // NAME.xmp: the files whose stem is NAME.
        let extensionWanted = values?.sidecarForExtension
        func rank(_ c: Candidate) -> Int {
            let named = extensionWanted != nil && c.path.lowercasedExtension == extensionWanted ? 0 : 10
            let kind: Int
            switch c.role {
            case ResourceRole.photo: kind = c.format?.isRaw == true ? 1 : 0
            case ResourceRole.alternatePhoto: kind = 2
            case ResourceRole.video: kind = 3
            default: kind = 4
            }
            return named + kind
        }
        let byStem = try candidates(stem: described).sorted { a, b in
            let ra = rank(a), rb = rank(b)
            return ra != rb ? ra < rb : a.path < b.path
        }
        return byStem.first?.assetID
    }

    /// Recomputes the sidecar-editable columns of an asset: its sidecars' values where
    /// they have one, else its primary file's.
    private func merge(assetID: Int64, insertedSince: Double) throws {
        guard let asset = try db.cachedStatement("""
            SELECT identifier, added_at, creation_date, creation_timestamp, latitude, longitude, altitude, rating
            FROM assets WHERE id = ?
            """).rows([assetID]).first else { return }
        let members = try db.cachedStatement("SELECT path, role, metadata FROM files WHERE asset_id = ? ORDER BY path")
            .rows([assetID])
        guard let primary = members.first(where: { ResourceRole.isPrimary($0.string("role")) }),
              let primaryJSON = primary.string("metadata"),
              var metadata = try? JSONDecoder().decode(MediaMetadata.self, from: Data(primaryJSON.utf8)) else { return }
        let sidecars = Self.orderedSidecars(members, primaryPath: PathBytes(primary.blob("path") ?? []))
        let rating = Self.apply(sidecars, to: &metadata)

        let wanted = Set(Self.mergedColumns)
        let values: [(String, DatabaseValueConvertible)] = AssetColumns(metadata).values.filter { wanted.contains($0.0) }
            + [("rating", rating)]
        var fields: [String] = []
        for (name, value) in values where asset[name] != value.databaseValue {
            let field = AssetColumns.jsonNames[name] ?? name
            if !fields.contains(field) { fields.append(field) }
        }
        guard !fields.isEmpty else { return }
        let assignments = values.map { "\($0.0) = ?" }.joined(separator: ", ")
        try db.cachedStatement("UPDATE assets SET \(assignments), modified_at = ? WHERE id = ?")
            .execute(values.map(\.1) + [now, assetID])
        // An asset inserted by this run is reported as inserted, with these values.
        if (asset.double("added_at") ?? 0) < insertedSince, let identifier = asset.string("identifier") {
            try ChangeLog.record(.updated, identifier: identifier, fields: fields, now: now, db: db)
        }
    }

    /// The `assets` columns a sidecar may set (besides `rating`).
    static let mergedColumns = ["creation_date", "creation_timestamp", "latitude", "longitude", "altitude"]

    /// The sidecar values among an asset's file rows (`path`, `role`, `metadata`), in
    /// precedence order: the one naming the primary exactly, then one naming another
    /// member, then by path.
    static func orderedSidecars(_ members: [Row], primaryPath: PathBytes) -> [SidecarValues] {
        let primaryName = SidecarFile.lowercasedName(primaryPath)
        let memberNames = Set(members.filter { $0.string("role") != ResourceRole.sidecar }
            .map { SidecarFile.lowercasedName(PathBytes($0.blob("path") ?? [])) })
        return members.filter { $0.string("role") == ResourceRole.sidecar }.map { row in
            let described = SidecarFile.describedName(PathBytes(row.blob("path") ?? []))
            return (rank: described == primaryName ? 0 : memberNames.contains(described) ? 1 : 2,
                    path: row.blob("path") ?? [], values: SidecarValues.decode(row.string("metadata")))
        }.sorted { $0.rank != $1.rank ? $0.rank < $1.rank : $0.path.lexicographicallyPrecedes($1.path) }
            .compactMap(\.values)
    }

    /// Puts the sidecars' values over the file's where they have one; returns the rating.
    static func apply(_ sidecars: [SidecarValues], to metadata: inout MediaMetadata) -> Int? {
        if let date = sidecars.lazy.compactMap(\.captureDate).first { metadata.captureDate = date }
        if let location = sidecars.lazy.compactMap(\.location).first { metadata.location = location }
        return sidecars.lazy.compactMap(\.rating).first
    }
}

extension AssetColumns {
    /// These columns with the values of the asset's attached sidecars put over the
    /// primary file's (`primary`), as `SidecarAttacher` merges them; unchanged when the
    /// asset has none.
    func applyingSidecars(ofAsset assetID: Int64, primary: MediaMetadata, primaryPath: PathBytes,
                          db: DatabaseConnection) throws -> AssetColumns {
        let members = try db.cachedStatement("SELECT path, role, metadata FROM files WHERE asset_id = ? ORDER BY path")
            .rows([assetID])
        guard members.contains(where: { $0.string("role") == ResourceRole.sidecar }) else { return self }
        var metadata = primary
        _ = SidecarAttacher.apply(SidecarAttacher.orderedSidecars(members, primaryPath: primaryPath), to: &metadata)
        let merged = Dictionary(AssetColumns(metadata).values.filter { SidecarAttacher.mergedColumns.contains($0.0) },
                                uniquingKeysWith: { first, _ in first })
        var result = self
        result.values = values.map { name, value in (name, merged[name] ?? value) }
        return result
    }
}

/// A folder and a stem key: where sidecars naming a file are found.
private struct NameKey: Hashable {
    var folder: [UInt8]
    var stemKey: String

    /// The keys of the sidecars that can name `path`: `NAME.EXT.xmp` (stem key
    /// `name.ext`) and `NAME.xmp` (stem key `name`).
    static func keys(naming path: PathBytes) -> [NameKey] {
        let names = AssetPairer.FileName(path)
        let whole = SidecarFile.lowercasedName(path)
        return whole == names.stemKey ? [NameKey(folder: names.folder, stemKey: whole)]
            : [NameKey(folder: names.folder, stemKey: whole), NameKey(folder: names.folder, stemKey: names.stemKey)]
    }
}
