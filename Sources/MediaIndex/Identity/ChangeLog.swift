import Foundation

/// Writes and trims the change feed (`changes` table).
enum ChangeLog {
    /// Changes kept at most, and for at most this long; older tokens expire.
    static let maximumEntries = 1_000_000
    static let maximumAge: Double = 90 * 86_400

    static func record(_ kind: AssetChangeKind, identifier: String, fields: [String] = [], now: Double,
                       db: DatabaseConnection) throws {
        try db.execute("INSERT INTO changes (identifier, kind, fields, changed_at) VALUES (?, ?, ?, ?)",
                       [identifier, kind.rawValue, fieldsJSON(fields), now])
    }

    /// The fields as a JSON array, each once, in the order first named; nil for none.
    static func fieldsJSON(_ fields: [String]) -> String? {
        var seen = Set<String>()
        let unique = fields.filter { seen.insert($0).inserted }
        return unique.isEmpty ? nil : "[" + unique.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    /// Makes one event one entry: of the entries after `token` (one index run's) that
    /// say the same of the same asset (a live photo's two moved halves, an update seen
    /// by the commit and again by the pairer), only the last is kept, naming every
    /// field of them all once.
    ///
    /// Only the few repeated (asset, kind) pairs are read back, found by one grouping pass.
    static func coalesce(after token: Int64, db: DatabaseConnection) throws {
        let repeated = try db.rows("""
            SELECT identifier, kind FROM changes WHERE token > ? GROUP BY identifier, kind HAVING count(*) > 1
            """, [token])
        for group in repeated {
            guard let identifier = group.string("identifier"), let kind = group.string("kind") else { continue }
            let entries = try db.rows("""
                SELECT token, fields FROM changes WHERE token > ? AND identifier = ? AND kind = ? ORDER BY token
                """, [token, identifier, kind])
            guard let last = entries.last?.int64("token") else { continue }
            var fields: [String] = []
            for entry in entries {
                guard let text = entry.string("fields"),
                      let names = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else { continue }
                fields += names
            }
            try db.execute("DELETE FROM changes WHERE token > ? AND token < ? AND identifier = ? AND kind = ?",
                           [token, last, identifier, kind])
            try db.execute("UPDATE changes SET fields = ? WHERE token = ?", [fieldsJSON(fields), last])
        }
    }

    /// Drops the entries of every one of `identifiers` recorded since `since`: an asset
    /// that one index run both inserted and merged into another (an edit or a live
    /// photo's movie read before its original) never existed for the feed's readers.
    ///
    /// One pass over the feed per 10,000 identifiers: the feed has no index by identifier,
    /// and a first index merges thousands of movies and edits into their originals.
    static func forget(identifiers: [String], since: Double, db: DatabaseConnection) throws {
        var start = identifiers.startIndex
        while start < identifiers.endIndex {
            let end = min(start + 10_000, identifiers.endIndex)
            let list = "[" + identifiers[start..<end].map { "\"\($0)\"" }.joined(separator: ",") + "]"
            try db.execute("""
                DELETE FROM changes WHERE changed_at >= ? AND identifier IN (SELECT value FROM json_each(?))
                """, [since, list])
            start = end
        }
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
