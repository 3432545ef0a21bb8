import MediaMetadata

/// The only writer of `assets` (and of the `folders` rows a new asset needs): creates
/// assets with the identifier their content gives, updates their columns, and
/// deletes those no file holds any more, keeping their identifiers in tombstones.
struct AssetStore {
    typealias Column = AssetRecord.Column
    typealias MetadataValues = AssetRecord.MetadataValues

    let db: DatabaseConnection

    // MARK: Creation and identifiers

    /// Inserts an asset for content first seen, with the identifier its fingerprint
    /// gives: a tombstone's when the content was seen before and deleted, else the next
    /// free ordinal when identical copies hold the first.
    ///
    /// - Parameter primaryFile: the columns the `files` triggers would otherwise fill by
    ///   updating the new row at once (migration 0010).
    /// - Returns: the asset's row id and identifier.
    func create(_ values: MetadataValues, fingerprint: ContentFingerprint, now: Double,
                primaryFile: PrimaryFileColumns? = nil) throws -> (id: Int64, identifier: String) {
        let identifier = try allocateIdentifier(for: fingerprint)
        let id = try insert(values, identifier: identifier, fingerprint: fingerprint.description, now: now,
                            primaryFile: primaryFile)
        return (id, identifier)
    }

    /// The identifier a new asset of this content gets.
    private func allocateIdentifier(for fingerprint: ContentFingerprint) throws -> String {
        if let identifier = try Tombstones.resurrect(fingerprint: fingerprint.description, db: db) { return identifier }
        // Copies already indexed hold the first ordinals: start after them, so N copies
        // cost N lookups, not N². An identifier is taken while an asset or a tombstone
        // (content that may come back) holds it: one query asks both.
        let copies = try db.cachedStatement("SELECT count(*) AS n FROM assets WHERE fingerprint = ?")
            .rows([fingerprint.description]).first?.int("n") ?? 0
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
        return identifier
    }

    private static let baseInsertColumns = MetadataValues.columns + [.identifier, .fingerprint, .revision, .addedAt,
                                                                     .modifiedAt]
    private static let insertSQL = insertStatement(baseInsertColumns)
    private static let insertWithFileSQL = insertStatement(baseInsertColumns + [.fileName, .fileSize, .format,
                                                                                .folderID])
    private static func insertStatement(_ columns: [Column]) -> String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "INSERT INTO assets (\(columns.map(\.name).joined(separator: ", "))) VALUES (\(placeholders))"
    }

    /// Inserts an asset with a given identifier; returns its row id.
    func insert(_ values: MetadataValues, identifier: String, fingerprint: String, now: Double,
                primaryFile: PrimaryFileColumns? = nil) throws -> Int64 {
        let base: [DatabaseValueConvertible] = values.values.map(\.1) + [identifier, fingerprint, 1, now, now]
        if let primaryFile {
            let folderID = try folderID(primaryFile.folder)
            try db.cachedStatement(Self.insertWithFileSQL).execute(
                base + [primaryFile.fileName, primaryFile.size, primaryFile.format, folderID])
        } else {
            try db.cachedStatement(Self.insertSQL).execute(base)
        }
        return db.lastInsertedRowID
    }

    /// The folder's row id, inserting the folder when it is new.
    private func folderID(_ folder: [UInt8]) throws -> Int64 {
        if let id = try db.cachedStatement("SELECT id FROM folders WHERE path = ?").rows([folder]).first?.int64("id") {
            return id
        }
        try db.cachedStatement("INSERT INTO folders (path) VALUES (?)").execute([folder])
        return db.lastInsertedRowID
    }

    // MARK: Deletion

    /// Deletes an asset that no file refers to any more, keeping its identifier in a
    /// tombstone and recording the deletion in the change feed.
    func deleteIfOrphaned(_ assetID: Int64, now: Double) throws {
        // A describing file (sidecar, adjustments, Takeout JSON) does not keep an asset:
        // deleting the asset detaches it (ON DELETE SET NULL).
        guard try db.cachedStatement("""
                SELECT 1 FROM files WHERE asset_id = ? AND (role IS NULL OR role NOT IN \(FileRole.sqlList(FileRole.describing))) LIMIT 1
                """)
                .rows([assetID]).isEmpty,
              let row = try db.cachedStatement("SELECT identifier, fingerprint FROM assets WHERE id = ?")
                .rows([assetID]).first,
              let identifier = row.string("identifier") else { return }
        try db.cachedStatement("DELETE FROM assets WHERE id = ?").execute([assetID])
        try Tombstones.bury(identifier: identifier, fingerprint: row.string("fingerprint") ?? "", now: now, db: db)
        try ChangeLog.record(.deleted, identifier: identifier, now: now, db: db)
    }

    // MARK: Reads the writers need

    func exists(_ assetID: Int64) throws -> Bool {
        try !db.cachedStatement("SELECT 1 FROM assets WHERE id = ?").rows([assetID]).isEmpty
    }

    func exists(identifier: String) throws -> Bool {
        try !db.cachedStatement("SELECT 1 FROM assets WHERE identifier = ?").rows([identifier]).isEmpty
    }

    func identifier(of assetID: Int64) throws -> String? {
        try db.cachedStatement("SELECT identifier FROM assets WHERE id = ?").rows([assetID]).first?.string("identifier")
    }

    private static let selectMetadataSQL =
        "SELECT \(MetadataValues.columns.map(\.name).joined(separator: ", ")) FROM assets WHERE id = ?"

    /// The subtype bits the pairer owns (`AssetPairer.finalize` sets them from the asset's
    /// files): a primary file's values never change them, so a live photo whose still is
    /// re-read or moved stays one without a passing "not live" the pairer must undo.
    static let pairingSubtypes: MediaSubtypes = [.livePhoto, .motionPhoto, .raw]

    /// The change feed's names of the columns whose stored value differs from `values`
    /// (the pairer's subtype bits aside).
    func changedFields(_ assetID: Int64, _ values: MetadataValues) throws -> [String] {
        guard let row = try db.cachedStatement(Self.selectMetadataSQL).rows([assetID]).first else { return [] }
        var changed: [String] = []
        for (index, (column, value)) in values.values.enumerated() {
            let others = ~Int64(Self.pairingSubtypes.rawValue)
            let differs = column == .subtypes
                ? (row[index].int64 ?? 0) & others != (value.databaseValue.int64 ?? 0) & others
                : row[index] != value.databaseValue
            if differs { changed.append(column.changedFieldName) }
        }
        return changed
    }

    // MARK: Updates

    private static let updateSQL: String = {
        let pairing = pairingSubtypes.rawValue
        let assignments = MetadataValues.columns.map { column in
            column == .subtypes ? "subtypes = (? & ~\(pairing)) | (subtypes & \(pairing))" : "\(column.name) = ?"
        }.joined(separator: ", ")
        return "UPDATE assets SET \(assignments), fingerprint = ?, revision = revision + ?, modified_at = ? WHERE id = ?"
    }()

    /// Writes the columns a primary file's metadata gives, and its fingerprint.
    /// - Parameter bumpRevision: the content changed (caches keyed by revision go stale).
    func update(_ assetID: Int64, _ values: MetadataValues, fingerprint: String, bumpRevision: Bool,
                now: Double) throws {
        try db.cachedStatement(Self.updateSQL)
            .execute(values.values.map(\.1) + [fingerprint, bumpRevision ? 1 : 0, now, assetID])
    }

    /// Writes some columns (a sidecar merge).
    func update(_ assetID: Int64, columns: [(Column, DatabaseValueConvertible)], now: Double) throws {
        let assignments = columns.map { "\($0.0.name) = ?" }.joined(separator: ", ")
        try db.cachedStatement("UPDATE assets SET \(assignments), modified_at = ? WHERE id = ?")
            .execute(columns.map(\.1) + [now, assetID])
    }

    /// Writes what pairing decides: subtypes and pairing rule.
    func setPairing(_ assetID: Int64, subtypes: MediaSubtypes, rule: PairingRule?, now: Double) throws {
        try db.cachedStatement("UPDATE assets SET subtypes = ?, pairing_rule = ?, modified_at = ? WHERE id = ?")
            .execute([subtypes.rawValue, rule, now, assetID])
    }

    /// Writes what an edit decides: whether the asset has adjustments, and a new revision
    /// when its edited rendering came, changed or went (thumbnails are made from it).
    func setAdjustments(_ assetID: Int64, hasAdjustments: Bool, bumpRevision: Bool, now: Double) throws {
        try db.cachedStatement("""
            UPDATE assets SET has_adjustments = ?, revision = revision + ?, modified_at = ? WHERE id = ?
            """).execute([hasAdjustments ? 1 : 0, bumpRevision ? 1 : 0, now, assetID])
    }

    func setBurstRepresentative(_ assetID: Int64, _ isRepresentative: Bool) throws {
        try db.cachedStatement("UPDATE assets SET is_burst_representative = ? WHERE id = ?")
            .execute([isRepresentative ? 1 : 0, assetID])
    }
}
