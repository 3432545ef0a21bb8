import Foundation
import MediaPlaces

extension MediaLibrary {
    /// Sets the UTC offset or zone of assets' capture times, or clears it with nil ("adjust
    /// date and time"). See `Blocking.setCaptureTime(_:for:)`.
    ///
    /// - Throws: as `Blocking.setCaptureTime(_:for:)`.
    public func setCaptureTime(_ setting: UserTimeSetting?, for assets: [Asset.ID]) async throws {
        try await offExecutor { try $0.setCaptureTime(setting, for: assets) }
    }
}

extension MediaLibrary.Blocking {
    /// Sets the UTC offset (`.offset(seconds:)`) or IANA zone (`.zone`) of assets' capture
    /// times, or clears it with nil: Photos' "adjust date and time".
    ///
    /// The setting is kept in user state, so it survives re-indexing and a rebuild of
    /// `library.sqlite`, and it wins over every other rule: `captureOffsetSource` becomes
    /// `user`. A camera's wall clock stays as recorded and its instant moves (a clock that
    /// records UTC, most videos, keeps its instant and its wall clock moves); a zone's rules
    /// give the offset at that instant. The assets move in the timeline, in the day filters
    /// (`local_time`) and in the change feed (`updated` naming `creationDate` and
    /// `captureOffset`). Clearing gives the asset back to the other rules.
    ///
    /// - Throws: `LibraryError.invalidCaptureTime` for an offset beyond ±14:00 or a zone
    ///   tzdata does not know, `.assetNotFound` for an asset the library does not hold
    ///   (nothing changes then), `.readOnly`, `.database`.
    public func setCaptureTime(_ setting: UserTimeSetting?, for assetIDs: [Asset.ID]) throws {
        try UserTimeSettings.check(setting)
        let now = Date().timeIntervalSince1970
        try library.writeUserState { db in
            for assetID in assetIDs { try MediaLibrary.requireAsset(assetID, db: db) }
            for assetID in assetIDs { try UserTimeSettings.store(setting, for: assetID.rawValue, now: now, db: db) }
        }
        // Then the index's columns, at once (the next index run would too).
        try library.requireWriter().transaction { db in
            let attacher = SidecarAttacher(db: db, now: now)
            let find = try db.cachedStatement("SELECT id FROM assets WHERE identifier = ?")
            for assetID in assetIDs {
                guard let id = try find.rows([assetID.rawValue]).first?.int64("id") else { continue }
                try attacher.merge(assetID: id, insertedSince: .infinity, userTime: setting)
            }
            // A cleared asset may be left floating (its neighbours may know its offset), and a
            // set one may teach its floating neighbours theirs: the index run asks again only
            // when it changed something, so the rule runs here, at once.
            try CaptureTimePass(db: db, now: now).learnFromNeighbours(insertedSince: .infinity)
        }
    }
}

/// The user's capture-time settings in `userstate.capture_time_settings` (user-state migration 5).
enum UserTimeSettings {
    /// Every setting, by asset identifier, read from `user-state.sqlite` with a connection of
    /// its own; none when the store cannot be read (then the next run applies them).
    static func read(userStatePath: String) -> [String: UserTimeSetting] {
        guard FileManager.default.fileExists(atPath: userStatePath),
              let connection = try? DatabaseConnection(path: userStatePath, readOnly: true),
              let rows = try? connection.rows("SELECT identifier, offset_seconds, zone FROM capture_time_settings")
        else { return [:] }
        var settings: [String: UserTimeSetting] = [:]
        for row in rows {
            guard let identifier = row.string("identifier") else { continue }
            if let zone = row.string("zone") {
                settings[identifier] = .zone(zone)
            } else if let seconds = row.int("offset_seconds") {
                settings[identifier] = .offset(seconds: seconds)
            }
        }
        return settings
    }

    /// Writes or (nil) removes one asset's setting, in a user-state transaction.
    static func store(_ setting: UserTimeSetting?, for identifier: String, now: Double, db: DatabaseConnection) throws {
        var offset: Int?, zone: String?
        switch setting {
        case nil:
            try db.execute("DELETE FROM userstate.capture_time_settings WHERE identifier = ?", [identifier])
            return
        case .offset(let seconds)?: offset = seconds
        case .zone(let name)?: zone = name
        }
        try db.execute("""
            INSERT INTO userstate.capture_time_settings (identifier, offset_seconds, zone, modified_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (identifier) DO UPDATE SET offset_seconds = excluded.offset_seconds, zone = excluded.zone,
                modified_at = excluded.modified_at
            """, [identifier, offset, zone, now])
    }

    /// Refuses an offset beyond ±14:00 or not in whole minutes, and a zone tzdata does not know.
    static func check(_ setting: UserTimeSetting?) throws {
        switch setting {
        case nil: return
        case .offset(let seconds)?:
            guard abs(seconds) <= 14 * 3600, seconds % 60 == 0 else {
                throw LibraryError.invalidCaptureTime(
                    "a capture-time offset lies between -14:00 and +14:00 in whole minutes, not \(seconds) seconds")
            }
        case .zone(let name)?:
            guard TimeZoneRules.secondsFromUTC(zone: name, at: Date()) != nil else {
                throw LibraryError.invalidCaptureTime("'\(name)' is not a time zone tzdata knows (such as Asia/Tokyo)")
            }
        }
    }
}
