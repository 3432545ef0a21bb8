import Foundation
import MediaMetadata

/// Attaches Google Takeout JSON files to the assets of the media files they describe,
/// and records the favorites they carry for the user-state side to apply.
///
/// Which file a JSON describes, in its folder, names compared case-insensitively: the
/// media file for which Takeout would write that JSON name
/// (`TakeoutSidecar.metadataKeys(forMediaName:)`: `IMG_1.jpg.json`,
/// `IMG_1.jpg.supplemental-metadata.json` and its cut forms, `IMG_1.jpg(1).json` for
/// `IMG_1(1).jpg`); failing that, the file its `title` names (with the JSON's `(n)`
/// counter). Among several, the still before the RAW before the movie. An edited copy
/// (`IMG_1-edited.jpg`) has no JSON of its own: it takes its original's values
/// (`TakeoutSidecar.values(forPrimaryName:members:db:)`), the JSON staying the
/// original's resource. A JSON is never an asset; one whose media file is not indexed
/// waits, unattached.
///
/// The values themselves are merged by `SidecarAttacher` with the XMP sidecars':
/// the JSON fills only what the file lacks.
///
/// Runs in the index run's final transaction, after pairing and before the XMP
/// attacher. Work is proportional to the folders holding Takeout JSON that the run touched.
struct TakeoutAttacher {
    let db: DatabaseConnection
    let now: Double

    /// Attaches the JSON files of every folder the run touched that holds some, and
    /// records their favorites (`takeout_favorites`).
    ///
    /// - Returns: the assets whose Takeout values may have changed: those a JSON
    ///   attached to or left, those of JSON files and media files the run wrote, and
    ///   the edited copies of those folders. `SidecarAttacher` merges them.
    /// - Throws: `DatabaseError`.
    func run(runID: Int64, vanishedPaths: [PathBytes]) throws -> Set<Int64> {
        var takeoutFolders = Set<[UInt8]>()
        try db.cachedStatement("SELECT DISTINCT folder FROM files WHERE role = \(FileRole.takeoutMetadata.sql)")
            .forEachRow { if let folder = $0.blob("folder") { takeoutFolders.insert(folder) } }
        let since = try IndexRunLog(db: db).touchedSince(runID)
        var affected = Set<[UInt8]>()
        for path in vanishedPaths {
            let names = FileNameKey(path)
            // A JSON that went leaves its folder's assets to merge again.
            if TakeoutSidecar.isJSON(path) || takeoutFolders.contains(names.folder) { affected.insert(names.folder) }
        }
        if !takeoutFolders.isEmpty {
            try db.cachedStatement("SELECT DISTINCT folder FROM files WHERE indexed_at >= ?").forEachRow([since]) { row in
                if let folder = row.blob("folder"), takeoutFolders.contains(folder) { affected.insert(folder) }
            }
        }
        var toMerge = Set<Int64>()
        for folder in affected.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            toMerge.formUnion(try attach(inFolder: folder, since: since))
        }
        return toMerge
    }

    /// A media file of a folder, as a JSON's candidate.
    private struct MediaFile {
        var path: PathBytes
        var name: String
        var assetID: Int64
        var rank: Int
        /// Written by this run.
        var touched: Bool
    }

    /// Attaches every JSON of one folder; returns the assets whose values may have changed.
    private func attach(inFolder folder: [UInt8], since: Double) throws -> Set<Int64> {
        var media: [MediaFile] = []
        try db.cachedStatement("""
            SELECT path, role, format, asset_id, indexed_at FROM files
            WHERE folder = ? AND status = \(FileStatus.media.sql) AND asset_id IS NOT NULL
            """).forEachRow([folder]) { row in
            guard let path = row.blob("path"), let assetID = row.int64("asset_id") else { return }
            let role = FileRole(stored: row.string("role"))
            let isRaw = row.string("format").flatMap(MediaFormat.init(rawValue:))?.isRaw == true
            let rank = switch role {
                case .photo: isRaw ? 1 : 0
                case .alternatePhoto: 2
                default: 3
            }
            media.append(MediaFile(path: PathBytes(path), name: FileNameKey(PathBytes(path)).fileName,
                                   assetID: assetID, rank: rank, touched: (row.double("indexed_at") ?? 0) >= since))
        }
        // Every JSON name Takeout would give each media file (edited copies have none).
        var byKey: [String: [(keyRank: Int, file: MediaFile)]] = [:]
        var byName: [String: [MediaFile]] = [:]
        for file in media {
            byName[file.name.lowercased(), default: []].append(file)
            guard TakeoutSidecar.originalName(ofEdited: file.name) == nil else { continue }
            for (keyRank, key) in TakeoutSidecar.metadataKeys(forMediaName: file.name).enumerated() {
                byKey[key, default: []].append((keyRank, file))
            }
        }
        func best(_ files: [(keyRank: Int, file: MediaFile)]) -> MediaFile? {
            files.min { a, b in
                (a.keyRank, a.file.rank) != (b.keyRank, b.file.rank)
                    ? (a.keyRank, a.file.rank) < (b.keyRank, b.file.rank) : a.file.path < b.file.path
            }?.file
        }

        let files = FileStore(db: db)
        // Media the run wrote (their own values were written over the merged ones) and
        // edited copies (their original's JSON may have changed).
        var toMerge = Set(media.filter { $0.touched || TakeoutSidecar.originalName(ofEdited: $0.name) != nil }.map(\.assetID))
        // Read whole first: the loop writes `files`.
        let jsonRows = try db.cachedStatement("""
            SELECT id, path, asset_id, stem_key, metadata, indexed_at FROM files WHERE folder = ? AND role = \(FileRole.takeoutMetadata.sql)
            """).rows([folder])
        for row in jsonRows {
            guard let id = row.int64("id"), let pathBytes = row.blob("path") else { continue }
            let path = PathBytes(pathBytes)
            let key = row.string("stem_key") ?? FileNameKey(path).stemKey
            let values = TakeoutValues.decode(row.string("metadata"))
            var target = best(byKey[key] ?? [])
            if target == nil, let title = values?.title {
                // The name it had when uploaded, with this JSON's counter.
                let named = TakeoutSidecar.name(title, withCounter: TakeoutSidecar.trailingCounter(key))
                target = best((byName[named.lowercased()] ?? []).map { (0, $0) })
            }
            let old = row.int64("asset_id")
            if target?.assetID != old {
                try files.setSidecarAsset(fileID: id, assetID: target?.assetID)
                if let old { toMerge.insert(old) }
                if let target { toMerge.insert(target.assetID) }
            }
            // A JSON written this run may say something new.
            if let target, (row.double("indexed_at") ?? 0) >= since { toMerge.insert(target.assetID) }
            if let target, values?.favorited == true {
                try recordFavorite(assetID: target.assetID)
            }
        }
        return toMerge
    }

    /// Records that Takeout marked the asset a favorite. The user-state side applies it
    /// once (`MediaLibrary.applyTakeoutFavorites`): the index never writes user state.
    private func recordFavorite(assetID: Int64) throws {
        guard let identifier = try AssetStore(db: db).identifier(of: assetID) else { return }
        try db.cachedStatement("""
            INSERT INTO takeout_favorites (asset_identifier, recorded_at) VALUES (?, ?)
            ON CONFLICT (asset_identifier) DO NOTHING
            """).execute([identifier, now])
    }
}

extension TakeoutSidecar {
    /// The Takeout values for an asset whose primary file is named `primaryName`: of
    /// the JSON attached to it that names the primary (else the first attached, by
    /// path), else, for an edited copy, of its original's JSON in the same folder.
    ///
    /// - Parameter members: the asset's file rows (`path`, `role`, `metadata`).
    static func values(forPrimary primaryPath: PathBytes, members: [Row], db: DatabaseConnection) throws -> TakeoutValues? {
        let names = FileNameKey(primaryPath)
        let keys = metadataKeys(forMediaName: names.fileName)
        let attached = members.filter { $0.string("role") == FileRole.takeoutMetadata.rawValue }
            .compactMap { row -> (rank: Int, path: [UInt8], values: TakeoutValues)? in
                guard let path = row.blob("path"), let values = TakeoutValues.decode(row.string("metadata")) else { return nil }
                return (keys.firstIndex(of: FileNameKey(PathBytes(path)).stemKey) ?? keys.count, path, values)
            }
            .sorted { $0.rank != $1.rank ? $0.rank < $1.rank : $0.path.lexicographicallyPrecedes($1.path) }
        if let first = attached.first { return first.values }
        guard let original = originalName(ofEdited: names.fileName) else { return nil }
        let lookup = try db.cachedStatement("""
            SELECT metadata FROM files WHERE folder = ? AND stem_key = ? AND role = \(FileRole.takeoutMetadata.sql)
            ORDER BY path LIMIT 1
            """)
        for key in metadataKeys(forMediaName: original) {
            if let values = TakeoutValues.decode(try lookup.rows([names.folder, key]).first?.string("metadata")) {
                return values
            }
        }
        return nil
    }

    /// Fills what the file lacks from the JSON: the capture time (UTC), the location, the
    /// caption (`description`) and the title, unless that is only a file name (Takeout's
    /// `title` is the name the file was uploaded with). The file's own values win.
    static func fill(_ metadata: inout MediaMetadata, from values: TakeoutValues?, primaryName: String) {
        guard let values else { return }
        if metadata.captureDate == nil, let date = values.captureDate { metadata.captureDate = date }
        if metadata.location == nil, let location = values.location { metadata.location = location }
        var descriptive = metadata.descriptive ?? DescriptiveMetadata()
        if descriptive.caption == nil { descriptive.caption = DescriptiveMetadata.cleanText(values.description) }
        if descriptive.title == nil, let title = DescriptiveMetadata.cleanText(values.title),
           !isFileName(title, primaryName: primaryName) {
            descriptive.title = title
        }
        metadata.descriptive = descriptive.isEmpty ? nil : descriptive
    }

    /// Whether a Takeout title is a file name: the primary's name or stem, or any name
    /// ending in a short extension (`IMG_1234.HEIC`, `PXL_20230101.jpg`).
    static func isFileName(_ title: String, primaryName: String) -> Bool {
        let lower = title.lowercased(), name = primaryName.lowercased()
        if lower == name || name.hasPrefix(lower + ".") { return true }
        guard let dot = lower.lastIndex(of: "."), dot != lower.startIndex else { return false }
        let ext = lower[lower.index(after: dot)...]
        return (2...5).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            && !lower.contains(" ")
    }
}
