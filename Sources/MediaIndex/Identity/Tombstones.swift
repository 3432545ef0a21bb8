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
