import Foundation
import MediaMetadata

/// Brings the database in line with the files under the roots.
///
/// Walk every root → compare each file's size, mtime and inode with its row → read
/// only new and changed files, in parallel → one writer commits them in batches →
/// files gone since the last run are removed. A batch is one transaction: a run
/// killed at any point loses nothing already committed, and the next run finishes
/// the work because unfinished files still differ from their rows.
struct Indexer {
    let writer: DatabaseWriter
    let location: LibraryLocation
    /// Folders never walked: the library's own.
    let excludedFolders: [PathBytes]
    var batchSize = 256
    /// How long a deleted asset's identifier is kept for its content's return.
    var tombstoneRetention = Tombstones.defaultRetention
    var concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// A row of `files` as the run found it.
    struct KnownFile {
        var id: Int64
        var rootID: Int64
        var stat: FileStat
        var status: String
        var assetID: Int64?
        var fingerprint: String?
        var role: String?
        /// Whether this run's walk found the file (set while comparing).
        var seen = false
    }

    /// What reading one file gave.
    enum Outcome {
        /// The metadata, its JSON for `files.metadata`, and the content fingerprint;
        /// the JSON is made by the reading thread, off the single writer's path.
        case media(MediaMetadata, String, ContentFingerprint)
        case failed(String)
        case ignored
        /// An XMP sidecar's values, as JSON for `files.metadata` (see `SidecarAttacher`).
        case sidecar(String)
    }

    struct Work {
        var entry: FileWalker.Entry
        var rootID: Int64
    }

    func run(roots: [(id: Int64, path: PathBytes)], progress: (@Sendable (IndexProgress) -> Void)?) throws -> IndexSummary {
        let clock = ContinuousClock.now
        func elapsed() -> Double {
            let d = ContinuousClock.now - clock
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
        var summary = IndexSummary()
        // Changes after this token are this run's: an asset it inserted needs no `updated` too.
        let firstToken = try writer.write { db in Int64(try db.scalarInt("SELECT max(token) FROM changes") ?? 0) }
        let runID = try writer.write { db -> Int64 in
            try db.execute("UPDATE index_runs SET status = 'interrupted' WHERE status = 'running'")
            try db.execute("INSERT INTO index_runs (started_at) VALUES (?)", [Date().timeIntervalSince1970])
            return db.lastInsertedRowID
        }

        // 1. Walk.
        let walker = FileWalker(excluding: excludedFolders)
        var seen: [(Work)] = []
        var unreadable: [(PathBytes, String)] = []
        var special: [SkippedFile] = []
        for root in roots {
            let before = seen.count
            let result = walker.walk(root.path) { count in
                if count % 2048 == 0 {
                    progress?(IndexProgress(phase: .walking, scanned: before + count, toRead: 0, read: 0,
                                            failed: 0, elapsedSeconds: elapsed()))
                }
            }
            seen.append(contentsOf: result.files.map { Work(entry: $0, rootID: root.id) })
            unreadable.append(contentsOf: result.unreadableFolders.map { ($0.path, $0.reason) })
            special += result.specialFiles.map { SkippedFile(path: $0.path, reason: "\($0.kind), not a regular file: never opened") }
        }
        // Special files are seen and skipped, never opened (a FIFO would block a reader).
        summary.scanned = seen.count + special.count
        summary.skipped = special.count
        summary.specialFiles = special.sorted { $0.path < $1.path }
        summary.unreadableFolders = unreadable.count

        // 2. Compare with what is recorded.
        let rootIDs = Set(roots.map(\.id))
        var known: [PathBytes: KnownFile] = [:]
        known.reserveCapacity(seen.count)
        try writer.write { db in
            let statement = try db.cachedStatement(
                "SELECT id, root_id, path, size, mtime_ns, inode, status, asset_id, fingerprint, role FROM files")
            // By position: this reads every file row of the library on each run.
            try statement.forEachRow { row in
                guard let rootID = row[1].int64, rootIDs.contains(rootID),
                      let id = row[0].int64, let path = row[2].blob else { return }
                known[PathBytes(path)] = KnownFile(
                    id: id, rootID: rootID,
                    stat: FileStat(size: row[3].int64 ?? -1, modificationNanoseconds: row[4].int64 ?? -1,
                                   inode: UInt64(bitPattern: row[5].int64 ?? -1), device: 0),
                    status: row[6].text ?? "", assetID: row[7].int64,
                    fingerprint: row[8].text, role: row[9].text)
            }
        }
        var toRead: [Work] = []
        for work in seen {
            var row: KnownFile?
            if let index = known.index(forKey: work.entry.path) {
                known.values[index].seen = true
                row = known.values[index]
            }
            if let row, row.rootID == work.rootID,
               row.stat.size == work.entry.stat.size,
               row.stat.modificationNanoseconds == work.entry.stat.modificationNanoseconds,
               row.stat.inode == work.entry.stat.inode {
                summary.unchanged += 1
            } else {
                toRead.append(work)
            }
        }
        // Files recorded but not seen: gone, unless under a folder we could not list.
        let unseen = known.filter { !$0.value.seen }
        var vanished: [PathBytes: KnownFile] = [:]
        for (path, row) in unseen {
            if unreadable.contains(where: { path.isInside($0.0) }) && row.status != "error" { continue }
            if row.stat.size == 0 && row.status == "error" && unreadable.contains(where: { $0.0 == path }) { continue }
            vanished[path] = row
        }
        toRead.sort { $0.entry.path < $1.entry.path }

        // 3. Decide which asset each changed or new file belongs to, before writing.
        var planner = planIdentity(toRead: toRead, known: known, vanished: vanished)

        // 4. Read changed files in parallel; one writer commits each batch.
        // The next batch is read while this one is written.
        // Batches are cut from `toRead` one at a time: the list is not held twice.
        seen = []
        var read = 0
        // The first batches are small, so the writer starts while the rest is read (the
        // writer waits for the whole first batch), then they grow to `batchSize`.
        var batchStarts: [Int] = []
        var start = 0, size = min(batchSize, 64)
        while start < toRead.count {
            batchStarts.append(start)
            start += size
            size = min(batchSize, size * 4)
        }
        func cutBatch(_ number: Int) -> [Work] {
            let end = number + 1 < batchStarts.count ? batchStarts[number + 1] : toRead.count
            return Array(toRead[batchStarts[number]..<end])
        }
        var ahead = batchStarts.isEmpty ? nil : startReading(cutBatch(0))
        for index in batchStarts.indices {
            let batch = cutBatch(index)
            let outcomes = ahead?.wait() ?? []
            ahead = index + 1 < batchStarts.count ? startReading(cutBatch(index + 1)) : nil
            summary.opened += batch.count
            try writer.transaction { db in
                let now = Date().timeIntervalSince1970
                for (work, outcome) in zip(batch, outcomes) {
                    try record(work: work, outcome: outcome, known: known[work.entry.path],
                               planner: &planner, summary: &summary, now: now, db: db)
                }
                try db.execute("""
                    UPDATE index_runs SET scanned = ?, added = ?, updated = ?, failed = ?, skipped = ?, opened = ?
                    WHERE id = ?
                    """, [summary.scanned, summary.added, summary.updated + summary.moved, summary.failed,
                          summary.skipped, summary.opened, runID])
            }
            read += batch.count
            progress?(IndexProgress(phase: .reading, scanned: summary.scanned, toRead: toRead.count, read: read,
                                    failed: summary.failed, elapsedSeconds: elapsed()))
        }

        // 5. Folders that could not be listed, then files that are gone.
        progress?(IndexProgress(phase: .finishing, scanned: summary.scanned, toRead: toRead.count, read: read,
                                failed: summary.failed, elapsedSeconds: elapsed()))
        try writer.transaction { db in
            let now = Date().timeIntervalSince1970
            for (folder, reason) in unreadable {
                guard let rootID = roots.first(where: { folder.isInside($0.path) })?.id else { continue }
                vanished[folder] = nil
                try db.execute("""
                    INSERT INTO files (root_id, path, size, mtime_ns, inode, status, error, indexed_at)
                    VALUES (?, ?, 0, 0, 0, 'error', ?, ?)
                    ON CONFLICT (path) DO UPDATE SET status = 'error', error = excluded.error,
                        indexed_at = excluded.indexed_at, asset_id = NULL
                    """, [rootID, folder.bytes, "cannot list folder: \(reason)", now])
            }
            for (path, row) in vanished {
                try db.execute("DELETE FROM files WHERE id = ?", [row.id])
                // A file whose content reappeared elsewhere was moved, not removed.
                if !planner.takenVanishedPaths.contains(path) { summary.removed += 1 }
            }
            for donor in planner.unclaimedDonors {
                try deleteAssetIfOrphaned(donor.assetID, now: now, db: db)
            }
            for (_, row) in vanished where row.status != "media" || row.fingerprint == nil {
                if let assetID = row.assetID { try deleteAssetIfOrphaned(assetID, now: now, db: db) }
            }
            var pairer = AssetPairer(db: db, now: now)
            let pairingChanges = try pairer.run(touchedSince: try runStartedAt(runID, db: db))
            // Assets this very run inserted: their insert already says everything.
            var insertedThisRun: Set<String> = []
            if pairingChanges.contains(where: { $0.kind == .updated }) {
                insertedThisRun = Set(try db.rows("SELECT identifier FROM changes WHERE token > ? AND kind = 'inserted'",
                                                  [firstToken]).compactMap { $0.string("identifier") })
            }
            for change in pairingChanges {
                // Deletions were recorded when the asset was deleted.
                let kind: AssetChangeKind? = switch change.kind {
                    case .paired: .paired
                    case .unpaired: .unpaired
                    case .created: .inserted
                    case .updated: .updated
                    case .deleted: nil
                }
                guard let kind, !change.identifier.isEmpty else { continue }
                if kind == .updated && insertedThisRun.contains(change.identifier) { continue }
                try ChangeLog.record(kind, identifier: change.identifier, fields: change.fields, now: now, db: db)
            }
            try SidecarAttacher(db: db, now: now).run(
                runID: runID, vanishedPaths: Array(vanished.keys),
                formerHolders: SidecarAttacher.formerHolders(toRead: toRead, known: known, vanished: vanished))
            summary.paired = pairer.pairedCount
            summary.unpaired = pairer.unpairedCount
            for root in roots {
                try db.execute("UPDATE roots SET last_indexed_at = ? WHERE id = ?", [now, root.id])
            }
            try Tombstones.purge(olderThan: now - tombstoneRetention, db: db)
            try ChangeLog.trim(now: now, db: db)
            summary.elapsedSeconds = elapsed()
            try db.execute("""
                UPDATE index_runs SET finished_at = ?, status = 'completed', scanned = ?, added = ?, updated = ?,
                    removed = ?, unchanged = ?, failed = ?, skipped = ?, opened = ?, message = ?, summary = ?
                WHERE id = ?
                """, [now, summary.scanned, summary.added, summary.updated + summary.moved, summary.removed,
                      summary.unchanged, summary.failed, summary.skipped, summary.opened,
                      summary.moved > 0 ? "\(summary.moved) moved" : nil,
                      (try? JSONEncoder().encode(summary)).map { String(decoding: $0, as: UTF8.self) }, runID])
        }
        return summary
    }

    /// Fingerprints known files whose stat changed (and, when some content changed,
    /// the new files too, to tell a rename-and-rewrite from an edit), then plans.
    private func planIdentity(toRead: [Work], known: [PathBytes: KnownFile],
                              vanished: [PathBytes: KnownFile]) -> IdentityPlanner {
        let vanishedDonors = vanished.compactMap { path, row -> IdentityPlanner.Donor? in
            guard row.status == "media", let assetID = row.assetID, let fingerprint = row.fingerprint else { return nil }
            return IdentityPlanner.Donor(path: path, assetID: assetID, role: row.role ?? "photo",
                                         fingerprint: fingerprint, vanished: true)
        }
        let changedKnown = toRead.filter { work in
            guard let row = known[work.entry.path] else { return false }
            return row.status == "media" && row.assetID != nil && row.fingerprint != nil
        }
        let changedFingerprints = fingerprintInParallel(changedKnown.map(\.entry.path))
        var changed: [IdentityPlanner.ChangedFile] = []
        for (work, fingerprint) in zip(changedKnown, changedFingerprints) {
            guard let row = known[work.entry.path], let assetID = row.assetID, let old = row.fingerprint else { continue }
            changed.append(IdentityPlanner.ChangedFile(path: work.entry.path, assetID: assetID, role: row.role ?? "photo",
                                                       oldFingerprint: old, newFingerprint: fingerprint))
        }
        var newFiles: [(path: PathBytes, fingerprint: String)] = []
        if changed.contains(where: { $0.newFingerprint != $0.oldFingerprint }) {
            let fresh = toRead.filter { known[$0.entry.path]?.assetID == nil }.map(\.entry.path)
            for (path, fingerprint) in zip(fresh, fingerprintInParallel(fresh)) {
                if let fingerprint { newFiles.append((path, fingerprint)) }
            }
        }
        // These files are read again in their batch; `opened` counts each file once.
        return IdentityPlanner(vanished: vanishedDonors, changed: changed, newFiles: newFiles)
    }

    private func fingerprintInParallel(_ paths: [PathBytes]) -> [String?] {
        let results = ConcurrentSlots<String?>(count: paths.count, initial: nil)
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let fingerprint = (try? FileByteSource(pathBytes: paths[index].bytes))
                .flatMap { try? ContentFingerprint(of: $0) }
            results.set(index, fingerprint?.description)
        }
        return results.values
    }

    /// Starts reading every file of the batch on all cores; `wait()` gives the outcomes.
    private func startReading(_ batch: [Work]) -> PendingOutcomes {
        let pending = PendingOutcomes(count: batch.count)
        DispatchQueue.global(qos: .userInitiated).async(group: pending.group) {
            DispatchQueue.concurrentPerform(iterations: batch.count) { index in
                pending.slots.set(index, Self.read(batch[index].entry))
            }
        }
        return pending
    }

    /// Reads one file's metadata and fingerprint. Never throws: failures become `.failed`.
    static func read(_ entry: FileWalker.Entry) -> Outcome {
        let source: FileByteSource
        do {
            source = try FileByteSource(pathBytes: entry.path.bytes)
        } catch {
            return .failed(Self.sentence(error))
        }
        if SidecarFile.isSidecar(entry.path) { return SidecarFile.read(source) }
        if source.size == 0 {
            return MediaFileKind.looksLikeMedia(entry.path) ? .failed("the file is empty") : .ignored
        }
        do {
            guard let metadata = try MetadataReader.read(source) else {
                if MediaFileKind.looksLikeMedia(entry.path) {
                    return .failed("the content is not a recognised image or video, although the name ends in .\(entry.path.lowercasedExtension ?? "")")
                }
                return .ignored
            }
            let fingerprint = try ContentFingerprint(of: source)
            return .media(metadata, AssetColumns.encode(metadata), fingerprint)
        } catch {
            return .failed(Self.sentence(error))
        }
    }

    static func sentence(_ error: Error) -> String {
        if let error = error as? MetadataError { return error.description }
        return String(describing: error)
    }

    private func record(work: Work, outcome: Outcome, known: KnownFile?, planner: inout IdentityPlanner,
                        summary: inout IndexSummary, now: Double, db: DatabaseConnection) throws {
        let entry = work.entry
        switch outcome {
        case .sidecar(let metadataJSON):
            try recordSidecar(work: work, metadataJSON: metadataJSON, known: known, summary: &summary, now: now, db: db)

        case .failed, .ignored:
            let status: String
            let message: String?
            if case .failed(let m) = outcome { status = "error"; message = m; summary.failed += 1 }
            else { status = "ignored"; message = nil; summary.skipped += 1 }
            try db.execute("""
                INSERT INTO files (root_id, path, size, mtime_ns, inode, status, error, indexed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
                    mtime_ns = excluded.mtime_ns, inode = excluded.inode, status = excluded.status,
                    error = excluded.error, format = NULL, fingerprint = NULL, metadata = NULL,
                    asset_id = NULL, role = NULL, indexed_at = excluded.indexed_at
                """, [work.rootID, entry.path.bytes, entry.stat.size, entry.stat.modificationNanoseconds,
                      entry.stat.inode, status, message, now])
            // Its asset goes unless its content reappeared elsewhere (then another row
            // refers to it). A later arrival of the content finds the tombstone.
            if let assetID = known?.assetID { try deleteAssetIfOrphaned(assetID, now: now, db: db) }

        case .media(let metadata, let metadataJSON, let fingerprint):
            let fingerprintText = fingerprint.description
            let columns = AssetColumns(metadata, fileName: String(decoding: entry.path.lastComponent, as: UTF8.self))
            let primaryFile = PrimaryFileColumns(path: entry.path, size: entry.stat.size, format: metadata.format.rawValue)
            var decision = planner.decisions[entry.path]
            if decision == nil {
                // Not planned: a new file, or one that was an error or ignored before.
                decision = planner.claim(fingerprint: fingerprintText, for: entry.path).map { .take($0) } ?? .fresh
                if case .take(let donor)? = decision, donor.vanished { planner.takenVanishedPaths.insert(donor.path) }
            } else if case .take(let donor)? = decision, donor.vanished {
                planner.takenVanishedPaths.insert(donor.path)
            }
            // A donor whose asset was deleted meanwhile (its file failed) is gone:
            // the content starts afresh, and its tombstone gives the identifier back.
            if case .take(let donor)? = decision,
               try db.scalarInt("SELECT 1 FROM assets WHERE id = ?", [donor.assetID]) == nil {
                decision = .fresh
            }
            switch decision ?? .fresh {
            case .keep(_, let role, true) where ResourceRole.isSecondary(role):
                // A paired video or RAW alternate with new content gets its own asset
                // again; the pairer decides afresh whether it still belongs with its partner.
                summary.updated += 1
                let (ownID, identifier) = try AssetPairer.insertAsset(
                    columns: columns, fingerprint: fingerprint, now: now, primaryFile: primaryFile, db: db)
                let ownRole = metadata.format.mediaType == .video ? "video" : "photo"
                try upsertFile(work: work, format: metadata.format, fingerprint: fingerprintText, assetID: ownID,
                               role: ownRole, metadataJSON: metadataJSON, now: now, db: db)
                try ChangeLog.record(.inserted, identifier: identifier, now: now, db: db)

            case .keep(let assetID, let role, let edited):
                let isPrimary = !ResourceRole.isSecondary(role)
                if isPrimary {
                    // Its sidecars' values still win: touching the file changes nothing.
                    let columns = try columns.applyingSidecars(ofAsset: assetID, primary: metadata,
                                                               primaryPath: entry.path, db: db)
                    var fields = try columns.changedFields(assetID: assetID, db: db)
                    try columns.update(assetID: assetID, fingerprint: fingerprintText, bumpRevision: edited,
                                       now: now, db: db)
                    if edited { fields.append("revision") }
                    if !fields.isEmpty, let identifier = try identifier(of: assetID, db: db) {
                        summary.updated += 1
                        try ChangeLog.record(.updated, identifier: identifier, fields: fields, now: now, db: db)
                    } else {
                        summary.unchanged += 1
                    }
                } else {
                    summary.updated += 1
                }
                try upsertFile(work: work, format: metadata.format, fingerprint: fingerprintText, assetID: assetID,
                               role: role, metadataJSON: metadataJSON, now: now, db: db)

            case .take(let donor):
                // Content that left `donor.path` arrived here: same asset, new place.
                summary.moved += 1
                if !donor.vanished {
                    // Its old path now holds other content, decided on its own turn.
                    try db.execute("UPDATE files SET asset_id = NULL, fingerprint = NULL WHERE path = ? AND asset_id = ?",
                                   [donor.path.bytes, donor.assetID])
                } else {
                    try db.execute("UPDATE files SET asset_id = NULL WHERE path = ?", [donor.path.bytes])
                }
                try upsertFile(work: work, format: metadata.format, fingerprint: fingerprintText, assetID: donor.assetID,
                               role: donor.role, metadataJSON: metadataJSON, now: now, db: db)
                if !ResourceRole.isSecondary(donor.role) {
                    try columns.update(assetID: donor.assetID, fingerprint: fingerprintText, bumpRevision: false,
                                       now: now, db: db)
                }
                if let identifier = try identifier(of: donor.assetID, db: db) {
                    try ChangeLog.record(.moved, identifier: identifier, now: now, db: db)
                }

            case .fresh:
                summary.added += 1
                let (assetID, identifier) = try AssetPairer.insertAsset(
                    columns: columns, fingerprint: fingerprint, now: now, primaryFile: primaryFile, db: db)
                let role = metadata.format.mediaType == .video ? "video" : "photo"
                try upsertFile(work: work, format: metadata.format, fingerprint: fingerprintText, assetID: assetID,
                               role: role, metadataJSON: metadataJSON, now: now, db: db)
                try ChangeLog.record(.inserted, identifier: identifier, now: now, db: db)
            }
        }
    }

    private func identifier(of assetID: Int64, db: DatabaseConnection) throws -> String? {
        try db.row("SELECT identifier FROM assets WHERE id = ?", [assetID])?.string("identifier")
    }

    private func upsertFile(work: Work, format: MediaFormat, fingerprint: String, assetID: Int64, role: String,
                            metadataJSON: String, now: Double, db: DatabaseConnection) throws {
        let entry = work.entry
        // The pairer's folder and stem key, written now rather than filled in later.
        let names = AssetPairer.FileName(entry.path)
        try db.execute("""
            INSERT INTO files (root_id, path, size, mtime_ns, inode, status, format, fingerprint, error,
                               asset_id, role, metadata, indexed_at, folder, stem_key)
            VALUES (?, ?, ?, ?, ?, 'media', ?, ?, NULL, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
                mtime_ns = excluded.mtime_ns, inode = excluded.inode, status = 'media', format = excluded.format,
                fingerprint = excluded.fingerprint, error = NULL, asset_id = excluded.asset_id,
                role = excluded.role, metadata = excluded.metadata, indexed_at = excluded.indexed_at,
                folder = excluded.folder, stem_key = excluded.stem_key
            """, [work.rootID, entry.path.bytes, entry.stat.size, entry.stat.modificationNanoseconds, entry.stat.inode,
                  format.rawValue, fingerprint, assetID, role, metadataJSON, now, names.folder, names.stemKey])
    }
}

/// Deletes an asset that no file refers to any more, keeping its identifier in a
/// tombstone and recording the deletion in the change feed.
func deleteAssetIfOrphaned(_ assetID: Int64, now: Double, db: DatabaseConnection) throws {
    // A sidecar does not keep an asset: deleting it detaches the sidecar (ON DELETE SET NULL).
    guard try db.scalarInt("SELECT 1 FROM files WHERE asset_id = ? AND role IS NOT 'sidecar' LIMIT 1",
                           [assetID]) == nil,
          let row = try db.row("SELECT identifier, fingerprint FROM assets WHERE id = ?", [assetID]),
          let identifier = row.string("identifier") else { return }
    try db.execute("DELETE FROM assets WHERE id = ?", [assetID])
    try Tombstones.bury(identifier: identifier, fingerprint: row.string("fingerprint") ?? "", now: now, db: db)
    try ChangeLog.record(.deleted, identifier: identifier, now: now, db: db)
}

/// Outcomes of a batch being read in the background.
private final class PendingOutcomes: Sendable {
    let group = DispatchGroup()
    let slots: ConcurrentSlots<Indexer.Outcome>
    init(count: Int) { slots = ConcurrentSlots(count: count, initial: .ignored) }
    func wait() -> [Indexer.Outcome] {
        group.wait()
        return slots.values
    }
}

/// Names that promise an image or video, used only to decide whether an unreadable
/// or unrecognised file is worth reporting as an error rather than ignored.
enum MediaFileKind {
    static let mediaExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "gif", "webp", "bmp", "tif", "tiff", "heic", "heif", "hif", "avif",
        "jxl", "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "orf", "rw2", "raf", "pef", "srw",
        "x3f", "iiq", "3fr", "erf", "kdc", "mrw", "raw", "mov", "mp4", "m4v", "3gp", "3g2", "mkv", "webm", "avi",
        "mts", "m2ts", "ts", "mpg", "mpeg", "wmv", "asf", "flv", "dv", "mxf", "ogv",
    ]

    static func looksLikeMedia(_ path: PathBytes) -> Bool {
        guard let ext = path.lowercasedExtension else { return false }
        return mediaExtensions.contains(ext)
    }
}
