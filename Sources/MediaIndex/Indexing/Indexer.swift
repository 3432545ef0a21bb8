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
    var concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// A row of `files` as the run found it.
    struct KnownFile {
        var id: Int64
        var rootID: Int64
        var stat: FileStat
        var status: String
        var assetID: Int64?
        var fingerprint: String?
        var role: String? = nil
    }

    /// What reading one file gave.
    enum Outcome {
        case media(MediaMetadata, ContentFingerprint)
        case failed(String)
        case ignored
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
        let runID = try writer.write { db -> Int64 in
            try db.execute("UPDATE index_runs SET status = 'interrupted' WHERE status = 'running'")
            try db.execute("INSERT INTO index_runs (started_at) VALUES (?)", [Date().timeIntervalSince1970])
            return db.lastInsertedRowID
        }

        // 1. Walk.
        let walker = FileWalker(excluding: excludedFolders)
        var seen: [(Work)] = []
        var unreadable: [(PathBytes, String)] = []
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
        }
        summary.scanned = seen.count
        summary.unreadableFolders = unreadable.count

        // 2. Compare with what is recorded.
        let rootIDs = Set(roots.map(\.id))
        var known: [PathBytes: KnownFile] = [:]
        try writer.write { db in
            let statement = try db.cachedStatement(
                "SELECT id, root_id, path, size, mtime_ns, inode, status, asset_id, fingerprint, role FROM files")
            try statement.forEachRow { row in
                guard let rootID = row.int64("root_id"), rootIDs.contains(rootID),
                      let id = row.int64("id"), let path = row.blob("path") else { return }
                known[PathBytes(path)] = KnownFile(
                    id: id, rootID: rootID,
                    stat: FileStat(size: row.int64("size") ?? -1, modificationNanoseconds: row.int64("mtime_ns") ?? -1,
                                   inode: UInt64(bitPattern: row.int64("inode") ?? -1), device: 0),
                    status: row.string("status") ?? "", assetID: row.int64("asset_id"),
                    fingerprint: row.string("fingerprint"), role: row.string("role"))
            }
        }
        var toRead: [Work] = []
        var seenPaths = Set<PathBytes>()
        seenPaths.reserveCapacity(seen.count)
        for work in seen {
            seenPaths.insert(work.entry.path)
            if let row = known[work.entry.path], row.rootID == work.rootID,
               row.stat.size == work.entry.stat.size,
               row.stat.modificationNanoseconds == work.entry.stat.modificationNanoseconds,
               row.stat.inode == work.entry.stat.inode {
                summary.unchanged += 1
            } else {
                toRead.append(work)
            }
        }
        // Files recorded but not seen: gone, unless under a folder we could not list.
        var vanished: [PathBytes: KnownFile] = [:]
        for (path, row) in known where !seenPaths.contains(path) {
            if unreadable.contains(where: { path.isInside($0.0) }) && row.status != "error" { continue }
            if row.stat.size == 0 && row.status == "error" && unreadable.contains(where: { $0.0 == path }) { continue }
            vanished[path] = row
        }
        var vanishedByFingerprint: [String: [PathBytes]] = [:]
        for (path, row) in vanished where row.status == "media" {
            if let fingerprint = row.fingerprint { vanishedByFingerprint[fingerprint, default: []].append(path) }
        }
        for key in vanishedByFingerprint.keys { vanishedByFingerprint[key]?.sort() }
        toRead.sort { $0.entry.path < $1.entry.path }

        // 3. Read changed files in parallel; one writer commits each batch.
        var read = 0
        var batchStart = 0
        while batchStart < toRead.count {
            let batch = Array(toRead[batchStart..<min(batchStart + batchSize, toRead.count)])
            batchStart += batch.count
            let outcomes = readInParallel(batch)
            summary.opened += batch.count
            try writer.transaction { db in
                let now = Date().timeIntervalSince1970
                for (work, outcome) in zip(batch, outcomes) {
                    try record(work: work, outcome: outcome, known: known[work.entry.path],
                               vanished: &vanished, vanishedByFingerprint: &vanishedByFingerprint,
                               summary: &summary, now: now, db: db)
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

        // 4. Folders that could not be listed, then files that are gone.
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
            for (_, row) in vanished {
                try db.execute("DELETE FROM files WHERE id = ?", [row.id])
                if let assetID = row.assetID { try deleteAssetIfOrphaned(assetID, db: db) }
                summary.removed += 1
            }
            var pairer = AssetPairer(db: db, now: now)
            _ = try pairer.run(touchedSince: try runStartedAt(runID, db: db))
            summary.paired = pairer.pairedCount
            summary.unpaired = pairer.unpairedCount
            for root in roots {
                try db.execute("UPDATE roots SET last_indexed_at = ? WHERE id = ?", [now, root.id])
            }
            summary.elapsedSeconds = elapsed()
            try db.execute("""
                UPDATE index_runs SET finished_at = ?, status = 'completed', scanned = ?, added = ?, updated = ?,
                    removed = ?, unchanged = ?, failed = ?, skipped = ?, opened = ?, message = ?
                WHERE id = ?
                """, [now, summary.scanned, summary.added, summary.updated + summary.moved, summary.removed,
                      summary.unchanged, summary.failed, summary.skipped, summary.opened,
                      summary.moved > 0 ? "\(summary.moved) moved" : nil, runID])
        }
        return summary
    }

    /// Reads every file of the batch, `concurrency` at a time.
    private func readInParallel(_ batch: [Work]) -> [Outcome] {
        let results = OutcomeSlots(count: batch.count)
        DispatchQueue.concurrentPerform(iterations: batch.count) { index in
            results.set(index, Self.read(batch[index].entry))
        }
        return results.values
    }

    /// Reads one file's metadata and fingerprint. Never throws: failures become `.failed`.
    static func read(_ entry: FileWalker.Entry) -> Outcome {
        let source: FileByteSource
        do {
            source = try FileByteSource(pathBytes: entry.path.bytes)
        } catch {
            return .failed(Self.sentence(error))
        }
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
            return .media(metadata, fingerprint)
        } catch {
            return .failed(Self.sentence(error))
        }
    }

    static func sentence(_ error: Error) -> String {
        if let error = error as? MetadataError { return error.description }
        return String(describing: error)
    }

    private func record(work: Work, outcome: Outcome, known: KnownFile?,
                        vanished: inout [PathBytes: KnownFile], vanishedByFingerprint: inout [String: [PathBytes]],
                        summary: inout IndexSummary, now: Double, db: DatabaseConnection) throws {
        let entry = work.entry
        let statValues: [DatabaseValueConvertible] = [entry.stat.size, entry.stat.modificationNanoseconds,
                                                      entry.stat.inode]
        switch outcome {
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
                """, [work.rootID, entry.path.bytes] + statValues + [status, message, now])
            if let assetID = known?.assetID { try deleteAssetIfOrphaned(assetID, db: db) }

        case .media(let metadata, let fingerprint):
            let fingerprintText = fingerprint.description
            let columns = AssetColumns(metadata, fileName: String(decoding: entry.path.lastComponent, as: UTF8.self))
            let metadataJSON = AssetColumns.encode(metadata)
            let role = metadata.format.mediaType == .video ? "video" : "photo"

            if let known, known.assetID != nil, ResourceRole.isSecondary(known.role) {
                // A paired video or RAW alternate changed: it gets its own asset again,
                // and the pairer decides afresh whether it still belongs with its partner.
                summary.updated += 1
                let ownID = try AssetPairer.insertAsset(columns: columns, fingerprint: fingerprint, now: now, db: db)
                try upsertFile(work: work, format: metadata.format, fingerprint: fingerprintText, assetID: ownID,
                               role: role, metadataJSON: metadataJSON, now: now, db: db)
                return
            }
            if let known, let assetID = known.assetID {
                // Known path, new content or metadata: same asset, new revision.
                summary.updated += 1
                let contentChanged = known.fingerprint != fingerprintText
                try columns.update(assetID: assetID, fingerprint: fingerprintText, bumpRevision: contentChanged,
                                   now: now, db: db)
                try upsertFile(work: work, format: metadata.format, fingerprint: fingerprintText, assetID: assetID,
                               role: role, metadataJSON: metadataJSON, now: now, db: db)
                return
            }
            // Known content at a new path: a rename or move keeps its asset.
            if var candidates = vanishedByFingerprint[fingerprintText], !candidates.isEmpty {
                let oldPath = candidates.removeFirst()
                vanishedByFingerprint[fingerprintText] = candidates
                if let old = vanished.removeValue(forKey: oldPath), let assetID = old.assetID {
                    summary.moved += 1
                    if known != nil { try db.execute("DELETE FROM files WHERE path = ?", [entry.path.bytes]) }
                    try db.execute("""
                        UPDATE files SET root_id = ?, path = ?, size = ?, mtime_ns = ?, inode = ?, indexed_at = ?,
                            metadata = ?, format = ?
                        WHERE id = ?
                        """, [work.rootID, entry.path.bytes] + statValues + [now, metadataJSON, metadata.format.rawValue, old.id])
                    if !ResourceRole.isSecondary(old.role) {
                        try columns.update(assetID: assetID, fingerprint: fingerprintText, bumpRevision: false, now: now, db: db)
                    }
                    return
                }
            }
            summary.added += 1
            var ordinal = 0
            var identifier = AssetIdentifierFactory.identifier(for: fingerprint)
            while try db.scalarInt("SELECT 1 FROM assets WHERE identifier = ?", [identifier]) != nil {
                ordinal += 1
                identifier = AssetIdentifierFactory.identifier(for: fingerprint, ordinal: ordinal)
            }
            let assetID = try columns.insert(identifier: identifier, fingerprint: fingerprintText, now: now, db: db)
            try upsertFile(work: work, format: metadata.format, fingerprint: fingerprintText, assetID: assetID,
                           role: role, metadataJSON: metadataJSON, now: now, db: db)
        }
    }

    private func upsertFile(work: Work, format: MediaFormat, fingerprint: String, assetID: Int64, role: String,
                            metadataJSON: String, now: Double, db: DatabaseConnection) throws {
        let entry = work.entry
        try db.execute("""
            INSERT INTO files (root_id, path, size, mtime_ns, inode, status, format, fingerprint, error,
                               asset_id, role, metadata, indexed_at)
            VALUES (?, ?, ?, ?, ?, 'media', ?, ?, NULL, ?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET root_id = excluded.root_id, size = excluded.size,
                mtime_ns = excluded.mtime_ns, inode = excluded.inode, status = 'media', format = excluded.format,
                fingerprint = excluded.fingerprint, error = NULL, asset_id = excluded.asset_id,
                role = excluded.role, metadata = excluded.metadata, indexed_at = excluded.indexed_at
            """, [work.rootID, entry.path.bytes, entry.stat.size, entry.stat.modificationNanoseconds, entry.stat.inode,
                  format.rawValue, fingerprint, assetID, role, metadataJSON, now])
    }
}

/// Deletes an asset that no file refers to any more.
func deleteAssetIfOrphaned(_ assetID: Int64, db: DatabaseConnection) throws {
    try db.execute("""
        DELETE FROM assets WHERE id = ? AND NOT EXISTS (SELECT 1 FROM files WHERE asset_id = ?)
        """, [assetID, assetID])
}

/// Result slots filled concurrently, one index per worker.
private final class OutcomeSlots: @unchecked Sendable {
    // @unchecked: each index is written by exactly one worker, and read only after
    // concurrentPerform has returned.
    private var storage: [Indexer.Outcome]
    init(count: Int) { storage = Array(repeating: .ignored, count: count) }
    func set(_ index: Int, _ value: Indexer.Outcome) {
        storage.withUnsafeMutableBufferPointer { $0[index] = value }
    }
    var values: [Indexer.Outcome] { storage }
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
