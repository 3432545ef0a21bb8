import Dispatch
import Foundation
import MediaMetadata

/// Phase 4 of an index run: the files to read are read in batches on all cores, and
/// one writer commits each batch in one transaction while the next batch is read.
///
/// A batch is one transaction: a run killed at any point loses nothing already
/// committed, and the next run finishes the work because unfinished files still
/// differ from their rows.
struct IndexCommit {
    let writer: DatabaseWriter
    let runID: Int64
    let batchSize: Int
    /// Each root's path by id: a file is opened only inside its root.
    let roots: [Int64: PathBytes]

    /// Reads and commits `toRead`; `progress` gets the number of files read and failed so far after each batch.
    func run(_ toRead: ToReadList, plan: inout IndexPlan, summary: inout IndexSummary,
             progress: (_ read: Int, _ failed: Int) -> Void) throws {
        // The first batches are small, so the writer starts while the rest is read (the
        // writer waits for the whole first batch), then they grow to `batchSize`.
        var batchStarts: [Int] = []
        var start = 0, size = min(batchSize, 64)
        while start < toRead.count {
            batchStarts.append(start)
            start += size
            size = min(batchSize, size * 4)
        }
        // Batches are taken from `toRead` in order, one at a time: at most two are held.
        var reader = toRead.makeReader()
        func cutBatch(_ number: Int) -> (works: [Indexer.Work], held: [FileOutcome?]) {
            let range = batchStarts[number]..<(number + 1 < batchStarts.count ? batchStarts[number + 1] : toRead.count)
            return (reader.next(range.count), range.map { plan.takeOutcome($0) })
        }
        var ahead = batchStarts.isEmpty ? nil : startReading(cutBatch(0))
        var read = 0
        for index in batchStarts.indices {
            let waited = ContinuousClock.now
            let (batch, outcomes) = ahead?.wait() ?? ([], [])
            summary.timings.read += Indexer.seconds(since: waited)
            ahead = index + 1 < batchStarts.count ? startReading(cutBatch(index + 1)) : nil
            summary.opened += batch.count
            let writing = ContinuousClock.now
            try writer.transaction { db in
                var recorder = BatchRecorder(db: db, now: Date().timeIntervalSince1970)
                // The batch's new assets get their words in one statement at its end.
                try SearchTextIndex.deferring(db) {
                    for (work, outcome) in zip(batch, outcomes) {
                        try recorder.record(work, outcome, planner: &plan.planner, summary: &summary)
                    }
                }
                try IndexRunLog(db: db).recordProgress(runID, summary)
            }
            summary.timings.write += Indexer.seconds(since: writing)
            read += batch.count
            progress(read, summary.failed)
        }
    }

    /// Starts reading every file of the batch on all cores (those the plan read are
    /// not read again); `wait()` gives the batch and its outcomes.
    private func startReading(_ batch: (works: [Indexer.Work], held: [FileOutcome?])) -> PendingOutcomes {
        let pending = PendingOutcomes(batch.works)
        DispatchQueue.global(qos: .userInitiated).async(group: pending.group) {
            DispatchQueue.concurrentPerform(iterations: batch.works.count) { index in
                let work = batch.works[index]
                pending.slots.set(index, batch.held[index]
                    ?? FileReader.read(work.entry, beneath: roots[work.rootID], fingerprint: work.fingerprint))
            }
        }
        return pending
    }
}

/// A batch's outcomes being read in the background.
private final class PendingOutcomes: Sendable {
    let group = DispatchGroup()
    let works: [Indexer.Work]
    let slots: ConcurrentSlots<FileOutcome>
    init(_ works: [Indexer.Work]) {
        self.works = works
        slots = ConcurrentSlots(count: works.count, initial: .ignored)
    }
    func wait() -> ([Indexer.Work], [FileOutcome]) {
        group.wait()
        return (works, slots.values)
    }
}

/// Writes what reading one file gave, in the batch's transaction: its `files` row,
/// its asset as the identity plan decided, and the change feed.
struct BatchRecorder {
    let db: DatabaseConnection
    let now: Double
    var files: FileStore { FileStore(db: db) }
    var assets: AssetStore { AssetStore(db: db) }

    mutating func record(_ work: Indexer.Work, _ outcome: FileOutcome, planner: inout IdentityPlanner,
                         summary: inout IndexSummary) throws {
        switch outcome {
        case .describing(let role, let valuesJSON):
            summary.skipped += 1
            try recordDescribing(work, role: role, valuesJSON: valuesJSON)
        case .failed(let message):
            summary.failed += 1
            try recordNotMedia(work, status: .error, message: message)
        case .ignored:
            summary.skipped += 1
            try recordNotMedia(work, status: .ignored, message: nil)
        case .media(let metadata, let metadataJSON, let fingerprint):
            let media = MediaFile(work: work, metadata: metadata, metadataJSON: metadataJSON, fingerprint: fingerprint)
            switch try decide(media, planner: &planner) {
            case .keep(_, let role, true) where role.isSecondary:
                summary.updated += 1
                try separate(media)
            case .keep(let assetID, let role, let edited):
                try keep(media, assetID: assetID, role: role, edited: edited, summary: &summary)
            case .take(let donor):
                summary.moved += 1
                try move(media, from: donor)
            case .fresh:
                summary.added += 1
                if try !attachEdit(media) { try create(media) }
            }
        }
    }

    /// One image or video as read.
    struct MediaFile {
        var work: Indexer.Work
        var metadata: MediaMetadata
        var metadataJSON: String
        var fingerprint: ContentFingerprint
        var path: PathBytes { work.entry.path }
        var values: AssetRecord.MetadataValues {
            AssetRecord.MetadataValues(metadata, fileName: String(decoding: path.lastComponent, as: UTF8.self))
        }
        var primaryFile: PrimaryFileColumns {
            PrimaryFileColumns(path: path, size: work.entry.stat.size, format: metadata.format.rawValue)
        }
    }

    /// The plan's decision for the file; a file the plan did not cover (new, or an error
    /// or ignored before) claims a donor of its content now.
    private func decide(_ media: MediaFile, planner: inout IdentityPlanner) throws -> IdentityPlanner.Decision {
        var decision = planner.decisions[media.path]
            ?? planner.claim(fingerprint: media.fingerprint.description, for: media.path).map { .take($0) } ?? .fresh
        if case .take(let donor) = decision {
            if donor.vanished { planner.takenVanishedPaths.insert(donor.path) }
            // A donor whose asset was deleted meanwhile (its file failed) is gone: the
            // content starts afresh, and its tombstone gives the identifier back.
            if try !assets.exists(donor.assetID) { decision = .fresh }
        }
        return decision
    }

    /// A new asset for new content.
    private func create(_ media: MediaFile) throws {
        let (assetID, identifier) = try assets.create(media.values, fingerprint: media.fingerprint, now: now,
                                                      primaryFile: media.primaryFile)
        try writeRow(media, assetID: assetID, role: FileRole(primaryFor: media.metadata.format))
        try ChangeLog.record(.inserted, identifier: identifier, now: now, db: db)
    }

    /// A paired video or RAW alternate with new content gets its own asset again; the
    /// pairer decides afresh whether it still belongs with its partner. An edited
    /// rendering stays with its original.
    private func separate(_ media: MediaFile) throws {
        if try !attachEdit(media) { try create(media) }
    }

    /// An edit (`IMG_E1234.JPG`, `IMG_1234 (Edited).HEIC`, …) whose original is indexed
    /// joins the original's asset at once: it never becomes an asset of its own. The
    /// pairer then updates the asset (`hasAdjustments`, `revision`). False when the
    /// name is no edit's or no original is indexed.
    private func attachEdit(_ media: MediaFile) throws -> Bool {
        guard let target = try AssetPairer.editTarget(forNewFile: media.path, format: media.metadata.format, db: db)
        else { return false }
        try writeRow(media, assetID: target.assetID, role: target.role)
        return true
    }

    /// The path keeps its asset: its content is unchanged or was edited in place.
    private func keep(_ media: MediaFile, assetID: Int64, role: FileRole, edited: Bool,
                      summary: inout IndexSummary) throws {
        if role.isSecondary {
            summary.updated += 1
        } else {
            // Its sidecars' values still win: touching the file changes nothing.
            // Nor does it change the size of an edited asset, which is its rendering's.
            let values = try SidecarAttacher.values(media.values, withSidecarsOf: assetID, primary: media.metadata,
                                                    primaryPath: media.path, db: db)
                .overlaying(displaySize: try AssetPairer.renderingSize(ofAsset: assetID, db: db))
            var fields = try assets.changedFields(assetID, values)
            try assets.update(assetID, values, fingerprint: media.fingerprint.description, bumpRevision: edited,
                              now: now)
            if edited { fields.append("revision") }
            if !fields.isEmpty, let identifier = try assets.identifier(of: assetID) {
                summary.updated += 1
                try ChangeLog.record(.updated, identifier: identifier, fields: fields, now: now, db: db)
            } else {
                summary.unchanged += 1
            }
        }
        try writeRow(media, assetID: assetID, role: role)
    }

    /// Content that left `donor.path` arrived here: same asset, new place.
    private func move(_ media: MediaFile, from donor: IdentityPlanner.Donor) throws {
        // A path that is not gone now holds other content, decided on its own turn.
        try files.releaseAsset(atPath: donor.path, assetID: donor.assetID, clearingFingerprint: !donor.vanished)
        try writeRow(media, assetID: donor.assetID, role: donor.role)
        if !donor.role.isSecondary {
            let values = media.values.overlaying(displaySize: try AssetPairer.renderingSize(ofAsset: donor.assetID, db: db))
            try assets.update(donor.assetID, values, fingerprint: media.fingerprint.description,
                              bumpRevision: false, now: now)
        }
        if let identifier = try assets.identifier(of: donor.assetID) {
            try ChangeLog.record(.moved, identifier: identifier, now: now, db: db)
        }
    }

    private func writeRow(_ media: MediaFile, assetID: Int64, role: FileRole) throws {
        // The pairer's folder and stem key are written now rather than filled in later.
        try files.upsert(FileStore.Write(
            rootID: media.work.rootID, entry: media.work.entry, status: .media, format: media.metadata.format,
            fingerprint: media.fingerprint.description, assetID: assetID, role: role, metadata: media.metadataJSON,
            contentIdentifier: media.metadata.contentIdentifier, durationSeconds: media.metadata.durationSeconds,
            names: FileNameKey(media.path)), now: now)
    }

    /// An error or a file that is not media. Its asset goes unless its content
    /// reappeared elsewhere (then another row refers to it); a later arrival of the
    /// content finds the tombstone.
    private func recordNotMedia(_ work: Indexer.Work, status: FileStatus, message: String?) throws {
        try files.upsert(FileStore.Write(rootID: work.rootID, entry: work.entry, status: status, error: message),
                         now: now)
        if let assetID = work.known?.assetID { try assets.deleteIfOrphaned(assetID, now: now) }
    }

    /// A describing file's row (an XMP sidecar, an adjustments file, a Takeout JSON):
    /// status `ignored` (not an image or video), its role, its values as metadata. Its
    /// attachment is kept until its attacher (the sidecar or Takeout attacher, the
    /// pairer for adjustments) decides it afresh; a Takeout album's `metadata.json`
    /// belongs to no asset.
    private func recordDescribing(_ work: Indexer.Work, role: FileRole, valuesJSON: String) throws {
        try files.upsert(FileStore.Write(
            rootID: work.rootID, entry: work.entry, status: .ignored, role: role, metadata: valuesJSON,
            names: FileNameKey(work.entry.path), keepsAttachment: role != .takeoutAlbumMetadata), now: now)
        // The path held a media file before: its asset goes unless another file holds it.
        if let known = work.known, known.role?.isDescribing != true, let assetID = known.assetID {
            try assets.deleteIfOrphaned(assetID, now: now)
        }
    }
}
