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

/// Reuses identifiers of deleted assets whose content comes back (`tombstones` table).
enum Tombstones {
    /// How long a deleted asset's identifier waits for its content to return.
    static let defaultRetention: Double = 30 * 86_400

    static func bury(identifier: String, fingerprint: String, now: Double, db: DatabaseConnection) throws {
        try db.execute("""
            INSERT INTO tombstones (identifier, fingerprint, deleted_at) VALUES (?, ?, ?)
            ON CONFLICT (identifier) DO UPDATE SET fingerprint = excluded.fingerprint, deleted_at = excluded.deleted_at
            """, [identifier, fingerprint, now])
    }

    /// Takes back the identifier of the most recently deleted asset with this content.
    static func resurrect(fingerprint: String, db: DatabaseConnection) throws -> String? {
        guard let identifier = try db.row(
            "SELECT identifier FROM tombstones WHERE fingerprint = ? ORDER BY deleted_at DESC, identifier LIMIT 1",
            [fingerprint])?.string("identifier") else { return nil }
        try db.execute("DELETE FROM tombstones WHERE identifier = ?", [identifier])
        // The identifier could have been given to other content meanwhile (a copy).
        let taken = try db.scalarInt("SELECT 1 FROM assets WHERE identifier = ?", [identifier]) != nil
        return taken ? nil : identifier
    }

    static func purge(olderThan cutoff: Double, db: DatabaseConnection) throws {
        try db.execute("DELETE FROM tombstones WHERE deleted_at < ?", [cutoff])
    }
}
