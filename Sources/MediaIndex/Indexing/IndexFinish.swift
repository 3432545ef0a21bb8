import Foundation

/// Phases 5 and 6 of an index run, in its last transaction: files that are gone and
/// folders that could not be listed are recorded, pairing and sidecars are settled
/// for what the run touched, and the run is closed.
struct IndexFinish {
    let db: DatabaseConnection
    let runID: Int64
    let now: Double
    let tombstoneRetention: Double
    /// The change feed's last token when the run began: the run's entries follow it.
    let lastTokenBefore: Int64
    /// The user's capture-time settings ("adjust date and time"), by asset identifier.
    var userTimes: [String: UserTimeSetting] = [:]

    func run(roots: [(id: Int64, path: PathBytes)], walk: IndexWalk, diff: IndexDiff, plan: IndexPlan,
             summary: inout IndexSummary) throws {
        let started = ContinuousClock.now
        let files = FileStore(db: db), assets = AssetStore(db: db)
        if !diff.links.isEmpty { try settleOtherNames(diff.links, vanished: diff.vanished, summary: &summary) }
        try foldRecordedNames()
        var vanished = diff.vanished
        for (folder, reason) in walk.unreadableFolders {
            guard let rootID = roots.first(where: { folder.isInside($0.path) })?.id else { continue }
            vanished[folder] = nil
            try files.recordUnlistableFolder(folder, rootID: rootID, reason: reason, now: now)
        }
        for (path, row) in vanished {
            try files.delete(id: row.id)
            // A file whose content reappeared elsewhere was moved, not removed.
            if !plan.planner.takenVanishedPaths.contains(path) { summary.removed += 1 }
        }
        for donor in plan.planner.unclaimedDonors { try assets.deleteIfOrphaned(donor.assetID, now: now) }
        for (_, row) in vanished where row.status != .media || row.fingerprint == nil {
            if let assetID = row.assetID { try assets.deleteIfOrphaned(assetID, now: now) }
        }

        let pairing = ContinuousClock.now
        // Files left the index (gone, merged into a moved file's asset, or in a folder that
        // can no longer be listed): pairs may have lost a half.
        let filesRemoved = !vanished.isEmpty || !plan.planner.unclaimedDonors.isEmpty || !walk.unreadableFolders.isEmpty
        try pairAndAttach(vanished: vanished, diff: diff, filesRemoved: filesRemoved, summary: &summary)
        summary.timings.pair = Indexer.seconds(since: pairing)

        try ChangeLog.coalesce(after: lastTokenBefore, db: db)
        for root in roots { try RootStore(db: db).markIndexed(root.id, now: now) }
        try Tombstones.purge(olderThan: now - tombstoneRetention, db: db)
        try SearchTextIndex.tidy(db, changed: summary.added + summary.updated + summary.removed)
        try ChangeLog.trim(now: now, db: db)
        summary.timings.finish = Indexer.seconds(since: started) - summary.timings.pair
    }

    /// Records what the walk found of files' other names (`FileLinkStore`): each change
    /// is an `updated` entry naming `paths` for the file's asset (none for an asset this
    /// run inserted or one whose file is gone: their own entries say it).
    private func settleOtherNames(_ links: IndexDiff.Links, vanished: [PathBytes: FileRecord.Known],
                                  summary: inout IndexSummary) throws {
        let store = FileLinkStore(db: db)
        let goneFiles = Set(vanished.values.map(\.id))
        var changedFiles: [Int64] = []
        for promotion in links.promotions {
            try store.promote(fileID: promotion.file.id, to: promotion.entry, rootID: promotion.rootID)
            changedFiles.append(promotion.file.id)
        }
        for name in links.vanished {
            try store.delete(path: name.path)
            if !goneFiles.contains(name.id) { changedFiles.append(name.id) }
        }
        for entry in links.refreshed { try store.refresh(entry) }
        for (rootID, entry) in links.found {
            // The file it names was recorded before or committed in this run.
            guard let fileID = try store.recordedFile(of: FileIdentity(entry.stat)) else { continue }
            try store.insert(entry, rootID: rootID, fileID: fileID, now: now)
            changedFiles.append(fileID)
        }
        summary.otherNames = links.found.count + links.refreshed.count
        let started = try IndexRunLog(db: db).startedAt(runID) ?? now
        var recorded = Set<String>()
        for fileID in changedFiles {
            guard let asset = try store.asset(ofFile: fileID), asset.addedAt < started,
                  recorded.insert(asset.identifier).inserted else { continue }
            let identifier = asset.identifier
            try ChangeLog.record(.updated, identifier: identifier, fields: [Asset.Field.paths.rawValue], now: now, db: db)
        }
    }

    /// Hard links recorded as assets of their own by builds before schema 49, folded once
    /// into their first file's asset (`FileLinkStore.foldRecordedNames`).
    private func foldRecordedNames() throws {
        let store = FileLinkStore(db: db)
        let folded = try store.foldRecordedNames(now: now)
        for asset in folded.orphaned { try AssetStore(db: db).deleteIfOrphaned(asset, now: now) }
        for identifier in Set(try folded.files.compactMap { try store.asset(ofFile: $0)?.identifier }) {
            try ChangeLog.record(.updated, identifier: identifier, fields: [Asset.Field.paths.rawValue], now: now, db: db)
        }
    }

    /// Phase 5: pairs what the run touched and attaches Takeout JSON and XMP sidecars (after
    /// pairing, so assets are final).
    private func pairAndAttach(vanished: [PathBytes: FileRecord.Known], diff: IndexDiff, filesRemoved: Bool,
                               summary: inout IndexSummary) throws {
        var pairer = AssetPairer(db: db, now: now)
        let started = try IndexRunLog(db: db).startedAt(runID)
        pairer.insertedSince = started ?? now
        let changes = try pairer.run(touchedSince: try IndexRunLog(db: db).touchedSince(runID), filesRemoved: filesRemoved)
        // Assets this very run inserted: their insert already says everything. Those it
        // also merged away never were, for the feed: their entries go in one pass at the end
        // (the feed has no index by identifier, and a first index merges thousands).
        var neverWere: [String] = []
        for change in changes {
            if change.kind == .deleted, change.assetIsNew, !change.identifier.isEmpty,
               try !AssetStore(db: db).exists(identifier: change.identifier) {
                neverWere.append(change.identifier)
                continue
            }
            // Deletions were recorded when the asset was deleted.
            let kind: AssetChangeKind? = switch change.kind {
                case .paired: .paired
                case .unpaired: .unpaired
                case .created: .inserted
                case .updated: .updated
                case .deleted: nil
            }
            guard let kind, !change.identifier.isEmpty else { continue }
            if kind == .updated && change.assetIsNew { continue }
            try ChangeLog.record(kind, identifier: change.identifier, fields: change.fields, now: now, db: db)
        }
        if let started {
            try ChangeLog.forget(identifiers: neverWere, since: started, db: db)
        }
        let takeoutAssets = try TakeoutAttacher(db: db, now: now).run(runID: runID, vanishedPaths: Array(vanished.keys))
        // The files read are taken a slice at a time: the list may be mostly on disk.
        var formerHolders = SidecarAttacher.formerHolders(toRead: [], vanished: vanished)
        diff.toRead.forEachChunk { _, works in
            formerHolders.formUnion(SidecarAttacher.formerHolders(toRead: works, vanished: [:]))
        }
        try SidecarAttacher(db: db, now: now).run(
            runID: runID, vanishedPaths: Array(vanished.keys), formerHolders: formerHolders,
            takeoutAssets: takeoutAssets)
        // Every write to an asset this run made has its entry in the feed by now.
        let libraryChanged = try db.scalarInt("SELECT EXISTS (SELECT 1 FROM changes WHERE token > ?)", [lastTokenBefore]) == 1
        try CaptureTimePass(db: db, now: now, userTimes: userTimes)
            .run(insertedSince: started ?? now, libraryChanged: libraryChanged)
        summary.placesOff = IndexPlaces.offReason
        summary.paired = pairer.pairedCount
        summary.unpaired = pairer.unpairedCount
    }
}
