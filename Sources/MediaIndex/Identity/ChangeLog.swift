import Foundation

/// Writes and trims the change feed (`changes` table).
enum ChangeLog {
    /// Changes kept at most, and for at most this long; older tokens expire.
    static let maximumEntries = 1_000_000
    static let maximumAge: Double = 90 * 86_400

    static func record(_ kind: AssetChangeKind, identifier: String, fields: [String] = [], now: Double,
                       db: DatabaseConnection) throws {
        var fieldsJSON: String?
        if !fields.isEmpty {
            fieldsJSON = "[" + fields.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        }
        try db.execute("INSERT INTO changes (identifier, kind, fields, changed_at) VALUES (?, ?, ?, ?)",
                       [identifier, kind.rawValue, fieldsJSON, now])
    }

    /// Drops an asset's entries recorded since `since`: an asset that one index run both
    /// inserted and merged into another (an edit or a live photo's movie read before its
    /// original) never existed for the feed's readers.
    static func forget(identifier: String, since: Double, db: DatabaseConnection) throws {
        try db.execute("DELETE FROM changes WHERE identifier = ? AND changed_at >= ?", [identifier, since])
    }

    /// Drops entries beyond the retention limits and moves the history start past them.
    static func trim(now: Double, db: DatabaseConnection) throws {
        guard let newest = try db.scalarInt("SELECT max(token) FROM changes") else { return }
        let byCount = Int64(newest) - Int64(maximumEntries)
        let byAge = Int64(try db.scalarInt("SELECT max(token) FROM changes WHERE changed_at < ?", [now - maximumAge]) ?? 0)
        let cut = max(byCount, byAge)
        guard cut > 0 else { return }
        try db.execute("DELETE FROM changes WHERE token <= ?", [cut])
        try db.execute("""
            INSERT INTO library_meta (key, value) VALUES ('change_history_start', ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, [String(cut + 1)])
    }
}
