import Foundation
import MediaMetadata
import MediaPlaces

/// What an XMP sidecar says that the index uses: the fields people edit in a photo
/// manager (darktable, digiKam, Lightroom write them there). Stored as the sidecar
/// row's `files.metadata`.
struct SidecarValues: StoredFileValues, Equatable {
    /// `exif:DateTimeOriginal`, else `photoshop:DateCreated`, else `xmp:CreateDate`.
    var captureDate: CaptureDate?
    /// `exif:GPSLatitude`/`GPSLongitude` (and `GPSAltitude`), when plausible.
    var location: GeoLocation?
    /// `xmp:Rating`, rounded and clamped to -1 (rejected) … 5. Kept beside `descriptive`
    /// for sidecar rows written before it existed.
    var rating: Int?
    /// Keywords, title, caption, rating, label, people, creator, copyright.
    var descriptive: DescriptiveMetadata?
    /// `photoshop:SidecarForExtension`, lowercased: which same-stem file it describes.
    var sidecarForExtension: String?
    var warnings: [String] = []
    /// A Sony clip's `C0001M01.XML` (`SonyClipMetadata`), instead of XMP: it fills what
    /// the clip lacks (and gives its date an offset) rather than overriding it.
    var clip: SonyClipMetadata?

    init(clip: SonyClipMetadata) { self.clip = clip }

    init(_ properties: XMPProperties) {
        captureDate = properties.captureDate
        location = properties.location.flatMap { $0.isPlausible ? $0 : nil }
        rating = properties.rating.flatMap(MediaMetadata.starRating(xmp:))
        descriptive = properties.descriptiveMetadata
        sidecarForExtension = properties.sidecarForExtension.map {
            String($0.lowercased().drop { $0 == "." })
        }.flatMap { $0.isEmpty ? nil : $0 }
        warnings = properties.warnings
    }
}

/// Sidecar files: XMP (`IMG_1.JPG.xmp` or `IMG_1.xmp` beside `IMG_1.JPG`), and the XML
/// Sony XAVC cameras write beside each clip (`C0001M01.XML` beside `C0001.MP4`, in
/// `PRIVATE/M4ROOT/CLIP` on the card; M01 is the metadata's first revision).
enum SidecarFile {
    /// Whether the path names a sidecar (extension `.xmp`, any case, or Sony's clip XML).
    static func isSidecar(_ path: PathBytes) -> Bool { path.lowercasedExtension == "xmp" || isClipXML(path) }

    /// Whether the name is Sony's clip XML: a stem, `M`, two digits, `.XML` (any case).
    static func isClipXML(_ path: PathBytes) -> Bool { clipStem(FileNameKey(path).lowercasedName) != nil }

    /// `c0001` for `c0001m01.xml`; nil for any other lowercased name.
    static func clipStem(_ lowercasedName: String) -> String? {
        guard lowercasedName.hasSuffix(".xml") else { return nil }
        let stem = Array(lowercasedName.dropLast(4))
        guard stem.count > 3, stem[stem.count - 3] == "m", stem.suffix(2).allSatisfy(\.isASCII),
              stem.suffix(2).allSatisfy(\.isNumber) else { return nil }
        return String(stem.dropLast(3))
    }

    /// Reads a sidecar's values, at most `XMPReader.maxPacketBytes` of it (a clip XML:
    /// `SonyClipMetadata.maxBytes`). Malformed XML gives what could be read; nil for a
    /// clip-XML name holding no `NonRealTimeMeta` document.
    /// - Throws: `MetadataError.io` when the read fails.
    static func read(_ source: ByteSource, path: PathBytes) throws -> SidecarValues? {
        if isClipXML(path) { return try SonyClipMetadata.read(source).map(SidecarValues.init(clip:)) }
        return SidecarValues(try XMPReader.readSidecar(source))
    }

    /// The lowercased name of the file a sidecar describes: `img_1.jpg` for
    /// `IMG_1.JPG.xmp`, `img_1` for `IMG_1.xmp` (its stem key), `c0001` for `C0001M01.XML`.
    static func describedName(_ path: PathBytes) -> String {
        let names = FileNameKey(path)
        return clipStem(names.lowercasedName) ?? names.stemKey
    }

    /// The lowercased name of a path's last component.
    static func lowercasedName(_ path: PathBytes) -> String { FileNameKey(path).lowercasedName }
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
/// location, and the descriptive fields: keywords, title, caption, rating, label,
/// people, creator, copyright), field by field where the sidecar has one (a sidecar's
/// keywords replace the file's, they are not merged); the file's fill the rest. With
/// several sidecars on one asset, the one naming the primary file exactly comes first.
///
/// Runs in the index run's final transaction, after pairing (so assets are final).
/// Work is proportional to the files the run touched, plus sidecars still unattached.
struct SidecarAttacher {
    let db: DatabaseConnection
    let now: Double

    /// Assets that held a sidecar whose row this run rewrote (it may have become an
    /// error, which drops the attachment) or removed: their values are merged again.
    static func formerHolders(toRead: [Indexer.Work], vanished: [PathBytes: FileRecord.Known]) -> Set<Int64> {
        var holders = Set<Int64>()
        for row in vanished.values where row.role == .sidecar || row.role == .takeoutMetadata {
            if let assetID = row.assetID { holders.insert(assetID) }
        }
        for work in toRead where SidecarFile.isSidecar(work.entry.path) || TakeoutSidecar.isJSON(work.entry.path) {
            if let row = work.known, row.role == .sidecar || row.role == .takeoutMetadata, let assetID = row.assetID {
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
    ///   - formerHolders: see `formerHolders(toRead:vanished:)`.
    ///   - takeoutAssets: assets whose Takeout JSON values may have changed (`TakeoutAttacher.run`).
    /// - Throws: `DatabaseError`.
    func run(runID: Int64, vanishedPaths: [PathBytes], formerHolders: Set<Int64>, takeoutAssets: Set<Int64> = []) throws {
        let runs = IndexRunLog(db: db)
        let since = try runs.touchedSince(runID)
        // Assets inserted by this run (no margin here: a previous run's are older).
        let insertedSince = try runs.startedAt(runID) ?? now
        let sidecarCount = try db.scalarInt("SELECT count(*) FROM files WHERE role = \(FileRole.sidecar.sql)") ?? 0
        guard sidecarCount > 0 || !formerHolders.isEmpty || !takeoutAssets.isEmpty else { return }
        var toMerge = formerHolders.union(takeoutAssets)
        guard sidecarCount > 0 else {
            for assetID in toMerge.sorted() { try merge(assetID: assetID, insertedSince: insertedSince) }
            return
        }

        // Files the run wrote or removed: the sidecars that may name them. When they
        // outnumber the sidecars (a first run), every sidecar is looked at instead, and
        // their name keys are not collected (tens of MB at 100,000 files).
        let touchedCount = try db.scalarInt(
            "SELECT count(*) FROM files WHERE indexed_at >= ? AND role IS NOT \(FileRole.sidecar.sql)", [since]) ?? 0
        let mostTouched = touchedCount + vanishedPaths.count > sidecarCount
        var keys = Set<NameKey>()
        var touchedPrimaryAssets = Set<Int64>()
        try db.cachedStatement("""
            SELECT path, asset_id, role FROM files WHERE indexed_at >= ? AND role IS NOT \(FileRole.sidecar.sql)
            """).forEachRow([since]) { row in
            guard let path = row.blob("path") else { return }
            if !mostTouched { keys.formUnion(NameKey.keys(naming: PathBytes(path))) }
            // The indexer wrote this primary's own values over the merged ones.
            if let assetID = row.int64("asset_id"), FileRole(stored: row.string("role"))?.isPrimary == true {
                touchedPrimaryAssets.insert(assetID)
            }
        }
        if !mostTouched { for path in vanishedPaths { keys.formUnion(NameKey.keys(naming: path)) } }

        var sidecars = Set<Int64>()
        try db.cachedStatement("SELECT id FROM files WHERE role = \(FileRole.sidecar.sql) AND indexed_at >= ?")
            .forEachRow([since]) { if let id = $0.int64("id") { sidecars.insert(id) } }
        // Unattached sidecars wait for a file of their name: its arrival is a touched
        // file whose name keys find them below, so they are not re-read on every run.
        if mostTouched {
            // Most of the library was touched (a first run): every sidecar, in one pass.
            try db.cachedStatement("SELECT id, asset_id FROM files WHERE role = \(FileRole.sidecar.sql)").forEachRow { row in
                if let id = row.int64("id") { sidecars.insert(id) }
                if let assetID = row.int64("asset_id"), touchedPrimaryAssets.contains(assetID) { toMerge.insert(assetID) }
            }
        } else {
            let byName = try db.cachedStatement("SELECT id FROM files WHERE role = \(FileRole.sidecar.sql) AND folder = ? AND stem_key = ?")
            for key in keys {
                try byName.forEachRow([key.folder, key.stemKey]) { if let id = $0.int64("id") { sidecars.insert(id) } }
            }
            let held = try db.cachedStatement("SELECT 1 FROM files WHERE asset_id = ? AND role = \(FileRole.sidecar.sql) LIMIT 1")
            for assetID in touchedPrimaryAssets where try !held.rows([assetID]).isEmpty { toMerge.insert(assetID) }
        }

        for id in sidecars.sorted() {
            guard let row = try db.cachedStatement("""
                SELECT path, asset_id, indexed_at, metadata FROM files WHERE id = ? AND role = \(FileRole.sidecar.sql)
                """).rows([id]).first, let path = row.blob("path") else { continue }
            let old = row.int64("asset_id")
            let target = try attachmentTarget(ofSidecar: PathBytes(path),
                                              values: SidecarValues.decode(row.string("metadata")))
            if target != old {
                try FileStore(db: db).setSidecarAsset(fileID: id, assetID: target)
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
        var role: FileRole?
        var format: MediaFormat?
        var assetID: Int64
    }

    /// The asset of the media file the sidecar at `path` describes, or nil.
    func attachmentTarget(ofSidecar path: PathBytes, values: SidecarValues?) throws -> Int64? {
        let folder = FileNameKey(path).folder
        let described = SidecarFile.describedName(path)
        let lookup = try db.cachedStatement("""
            SELECT path, role, format, asset_id FROM files
            WHERE folder = ? AND stem_key = ? AND status = \(FileStatus.media.sql) AND asset_id IS NOT NULL
            """)
        func candidates(stem: String) throws -> [Candidate] {
            try lookup.rows([folder, stem]).compactMap { row in
                guard let path = row.blob("path"), let assetID = row.int64("asset_id") else { return nil }
                return Candidate(path: PathBytes(path), role: FileRole(stored: row.string("role")),
                                 format: row.string("format").flatMap(MediaFormat.init(rawValue:)), assetID: assetID)
            }
        }
        // NAME.EXT.xmp: the file named NAME.EXT; the one whose case matches exactly first.
        let exactName = Array(path.lastComponent.dropLast(4))
        let exact = try candidates(stem: FileNameKey.stemKey(ofName: described)).filter {
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
            case .photo: kind = c.format?.isRaw == true ? 1 : 0
            case .alternatePhoto: kind = 2
            case .video: kind = 3
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

    /// Recomputes the sidecar-editable columns of an asset: its XMP sidecars' values
    /// where they have one, else its primary file's, else its Takeout JSON's.
    func merge(assetID: Int64, insertedSince: Double, userTime: UserTimeSetting? = nil) throws {
        guard let asset = try db.cachedStatement("""
            SELECT identifier, added_at, \(AssetRecord.sidecarColumns.map(\.name).joined(separator: ", "))
            FROM assets WHERE id = ?
            """).rows([assetID]).first else { return }
        let members = try Self.members(ofAsset: assetID, db: db)
        guard let primary = members.first(where: { FileRole(stored: $0.string("role"))?.isPrimary == true }),
              var metadata = FileRecord.decodeMetadata(primary.string("metadata")) else { return }
        let primaryPath = PathBytes(primary.blob("path") ?? [])
        let sidecars = Self.orderedSidecars(members, primaryPath: primaryPath)
        TakeoutSidecar.fill(&metadata, from: try TakeoutSidecar.values(forPrimary: primaryPath, members: members, db: db),
                            primaryName: FileNameKey(primaryPath).fileName)
        Self.apply(sidecars, to: &metadata)

        let wanted = Set(AssetRecord.sidecarColumns)
        let values = AssetRecord.MetadataValues(metadata, userTime: userTime).values.filter { wanted.contains($0.0) }
        var fields: [String] = []
        for (column, value) in values where asset[column.name] != value.databaseValue {
            let field = column.changedFieldName
            if !fields.contains(field) { fields.append(field) }
        }
        guard !fields.isEmpty else { return }
        try AssetStore(db: db).update(assetID, columns: values, now: now)
        // An asset inserted by this run is reported as inserted, with these values.
        if (asset.double("added_at") ?? 0) < insertedSince, let identifier = asset.string("identifier") {
            try ChangeLog.record(.updated, identifier: identifier, fields: fields, now: now, db: db)
        }
    }

    /// The sidecar values among an asset's file rows (`path`, `role`, `metadata`), in
    /// precedence order: the one naming the primary exactly, then one naming another
    /// member, then by path.
    static func orderedSidecars(_ members: [Row], primaryPath: PathBytes) -> [SidecarValues] {
        let primaryName = SidecarFile.lowercasedName(primaryPath)
        let memberNames = Set(members.filter { $0.string("role") != FileRole.sidecar.rawValue }
            .map { SidecarFile.lowercasedName(PathBytes($0.blob("path") ?? [])) })
        return members.filter { $0.string("role") == FileRole.sidecar.rawValue }.map { row in
            let described = SidecarFile.describedName(PathBytes(row.blob("path") ?? []))
            return (rank: described == primaryName ? 0 : memberNames.contains(described) ? 1 : 2,
                    path: row.blob("path") ?? [], values: SidecarValues.decode(row.string("metadata")))
        }.sorted { $0.rank != $1.rank ? $0.rank < $1.rank : $0.path.lexicographicallyPrecedes($1.path) }
            .compactMap(\.values)
    }

    /// `values` (of the primary file, `primary`) with the values of the asset's attached
    /// sidecars put over them and its Takeout JSON's filling what is missing, as `merge`
    /// does; unchanged when the asset has none.
    static func values(_ values: AssetRecord.MetadataValues, withSidecarsOf assetID: Int64, primary: MediaMetadata,
                       primaryPath: PathBytes, db: DatabaseConnection) throws -> AssetRecord.MetadataValues {
        let members = try Self.members(ofAsset: assetID, db: db)
        let takeout = try TakeoutSidecar.values(forPrimary: primaryPath, members: members, db: db)
        guard takeout != nil || members.contains(where: { $0.string("role") == FileRole.sidecar.rawValue }) else { return values }
        var metadata = primary
        TakeoutSidecar.fill(&metadata, from: takeout, primaryName: FileNameKey(primaryPath).fileName)
        apply(orderedSidecars(members, primaryPath: primaryPath), to: &metadata)
        return values.overlaying(sidecarColumnsOf: metadata)
    }

    /// An asset's file rows (`path`, `role`, `metadata`), by path: its resources and sidecars.
    private static func members(ofAsset assetID: Int64, db: DatabaseConnection) throws -> [Row] {
        try db.cachedStatement("SELECT path, role, metadata FROM files WHERE asset_id = ? ORDER BY path").rows([assetID])
    }

    /// Puts the sidecars' values over the file's where they have one (a clip XML only
    /// fills, before the XMP values go over): the first sidecar (in precedence order)
    /// that has a field gives it.
    static func apply(_ sidecars: [SidecarValues], to metadata: inout MediaMetadata) {
        for clip in sidecars.compactMap(\.clip) { clip.apply(to: &metadata) }
        if let date = sidecars.lazy.compactMap(\.captureDate).first {
            metadata.captureDate = date
            metadata.captureDateSource = .xmpExifDateTimeOriginal
        }
        if let location = sidecars.lazy.compactMap(\.location).first { metadata.location = location }
        var descriptive = metadata.descriptive ?? DescriptiveMetadata()
        for sidecar in sidecars.reversed() {
            let values = sidecar.descriptive ?? DescriptiveMetadata(rating: sidecar.rating)
            descriptive = values.replacingFields(of: descriptive)
        }
        metadata.descriptive = descriptive.isEmpty ? nil : descriptive
    }
}

/// A folder and a stem key: where sidecars naming a file are found.
private struct NameKey: Hashable {
    var folder: [UInt8]
    var stemKey: String

    /// The keys of the sidecars that can name `path`: `NAME.EXT.xmp` (stem key
    /// `name.ext`), `NAME.xmp` (stem key `name`) and Sony's `NAMEM01.XML` (`namem01`).
    static func keys(naming path: PathBytes) -> [NameKey] {
        let names = FileNameKey(path)
        let whole = names.lowercasedName
        let clip = NameKey(folder: names.folder, stemKey: names.stemKey + "m01")
        return whole == names.stemKey ? [NameKey(folder: names.folder, stemKey: whole), clip]
            : [NameKey(folder: names.folder, stemKey: whole), NameKey(folder: names.folder, stemKey: names.stemKey), clip]
    }
}
