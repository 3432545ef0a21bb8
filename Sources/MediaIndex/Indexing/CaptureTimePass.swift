import Foundation
import MediaMetadata
import MediaPlaces

/// The place and local-time work after an index run's pairing and sidecars:
/// 1. assets not yet resolved (an index from before migration 0031) and located assets
///    without a place while the places data are installed are merged again from the
///    metadata the index keeps, without reopening their files;
/// 2. the neighbour rule: an asset still without an offset takes the one every asset with a
///    known offset (not a guess) agrees on within 2 hours of its clock, as `neighbour`.
///    A guess stays until its file changes.
/// Between the two, the user's settings ("adjust date and time", user state) are applied
/// again wherever the columns do not show them (a rebuild, a re-read file), and a setting
/// the user cleared leaves its asset to the other rules.
struct CaptureTimePass {
    let db: DatabaseConnection
    let now: Double
    /// The user's settings by asset identifier (`UserTimeSettings.read`).
    var userTimes: [String: UserTimeSetting] = [:]

    /// Runs the three steps. The neighbour rule runs only when `libraryChanged` (the index
    /// run wrote an asset: inserted, updated, moved or deleted one) or this pass merged an
    /// asset again: otherwise every floating asset has the neighbours it had when the rule
    /// last ran, and would learn nothing (a `neighbour` offset never teaches another), so an
    /// unchanged re-index does not ask again for each floating asset.
    func run(insertedSince: Double, libraryChanged: Bool = true) throws {
        let attacher = SidecarAttacher(db: db, now: now)
        var toMerge = try ids("SELECT id FROM assets WHERE capture_offset_source IS NULL")
        // The located assets without a place first: the places data are opened (32 MB mapped
        // and checksummed) only when some asset would take a place from them.
        let unplaced = try ids("""
            SELECT id FROM assets WHERE place_name IS NULL AND latitude IS NOT NULL
            AND NOT (latitude = 0 AND longitude = 0)
            """)
        if !unplaced.isEmpty, IndexPlaces.data != nil { toMerge += unplaced }
        for id in Set(toMerge).sorted() { try attacher.merge(assetID: id, insertedSince: insertedSince) }
        let settingsApplied = try applyUserTimes(insertedSince: insertedSince)
        guard libraryChanged || !toMerge.isEmpty || settingsApplied else { return }
        try learnFromNeighbours(insertedSince: insertedSince)
    }

    /// Merges again, with the user's setting, each asset whose columns do not come from it,
    /// and without one each asset marked `user` that has none (any longer).
    ///
    /// - Returns: whether it merged any asset.
    private func applyUserTimes(insertedSince: Double) throws -> Bool {
        let attacher = SidecarAttacher(db: db, now: now)
        var merged = false
        let marked = try db.cachedStatement("SELECT id, identifier FROM assets WHERE capture_offset_source = 'user'").rows()
        for row in marked {
            guard let id = row.int64("id"), let identifier = row.string("identifier"), userTimes[identifier] == nil
            else { continue }
            try attacher.merge(assetID: id, insertedSince: insertedSince)
            merged = true
        }
        let find = try db.cachedStatement("SELECT id, capture_offset_source FROM assets WHERE identifier = ?")
        for (identifier, setting) in userTimes {
            guard let row = try find.rows([identifier]).first, let id = row.int64("id"),
                  row.string("capture_offset_source") != CaptureOffsetSource.user.rawValue else { continue }
            try attacher.merge(assetID: id, insertedSince: insertedSince, userTime: setting)
            merged = true
        }
        return merged
    }

    private func ids(_ sql: String) throws -> [Int64] {
        var result: [Int64] = []
        try db.cachedStatement(sql).forEachRow { if let id = $0.int64("id") { result.append(id) } }
        return result
    }

    /// Step 4 of `LocalTime`: floating wall clocks are compared with known wall clocks
    /// (`local_time`), UTC clocks (`…Z` with source `none`) with known instants.
    func learnFromNeighbours(insertedSince: Double) throws {
        let floating = try db.cachedStatement("""
            SELECT id, identifier, added_at, creation_date, creation_timestamp, local_time FROM assets
            WHERE capture_offset_source = 'none' AND creation_date IS NOT NULL
            """).rows()
        guard !floating.isEmpty else { return }
        // `+` keeps SQLite from seeking by the source (every known asset per floating one):
        // the time range's index finds the few neighbours instead.
        let known = "+capture_offset_source IN ('exif', 'gps-time', 'place', 'user')"
        let byWallClock = try db.cachedStatement(
            "SELECT DISTINCT capture_offset FROM assets WHERE local_time BETWEEN ? AND ? AND \(known) LIMIT 2")
        let byInstant = try db.cachedStatement(
            "SELECT DISTINCT capture_offset FROM assets WHERE capture_sort BETWEEN ? AND ? AND \(known) LIMIT 2")
        let window = LocalTime.neighbourWindow
        for row in floating {
            guard let id = row.int64("id"), let text = row.string("creation_date"),
                  let recorded = CaptureDate(recordedText: text),
                  let instant = row.double("creation_timestamp"), let wallClock = row.double("local_time") else { continue }
            let inUTC = recorded.utcOffsetSeconds != nil
            let time = inUTC ? instant : wallClock
            let offsets = try (inUTC ? byInstant : byWallClock).rows([time - window, time + window])
                .compactMap { $0.int("capture_offset") }
            guard offsets.count == 1, let offset = offsets.first else { continue }
            let newInstant = inUTC ? instant : wallClock - Double(offset)
            let columns: [(AssetRecord.Column, DatabaseValueConvertible)] = [
                (.creationDate, CaptureResolution.text(instant: newInstant, nanosecond: recorded.nanosecond, offset: offset)),
                (.creationTimestamp, newInstant), (.localTime, newInstant + Double(offset)),
                (.captureOffset, offset), (.captureOffsetSource, CaptureOffsetSource.neighbour.rawValue),
            ]
            try AssetStore(db: db).update(id, columns: columns, now: now)
            if (row.double("added_at") ?? 0) < insertedSince, let identifier = row.string("identifier") {
                try ChangeLog.record(.updated, identifier: identifier,
                                     fields: [Asset.Field.creationDate.rawValue, Asset.Field.captureOffset.rawValue,
                                              Asset.Field.captureOffsetSource.rawValue], now: now, db: db)
            }
        }
    }
}
