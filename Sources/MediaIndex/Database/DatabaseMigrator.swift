/// Brings a database up to the schema this build knows, one migration at a time.
///
/// Forward-only. Each migration runs inside `BEGIN IMMEDIATE`, records its version
/// in `schema_migrations` in the same transaction, and checks foreign keys before
/// committing, so a crash leaves the database at one version or the next.
public struct DatabaseMigrator: Sendable {
    public let migrations: [SchemaMigration]

    public init(migrations: [SchemaMigration] = EmbeddedMigrations.all) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The newest version this build knows.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The versions already applied to `db`.
    public func appliedVersions(_ db: DatabaseConnection) throws -> Set<Int> {
        let exists = try db.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") ?? 0
        guard exists > 0 else { return [] }
        return Set(try db.rows("SELECT version FROM schema_migrations").compactMap { $0.int("version") })
    }

    /// Whether some migration this build knows is not applied to `db`: a lower version
    /// too, when a higher one is (a migration of a change made in parallel, merged
    /// after a library was migrated past its number).
    public func isBehind(_ db: DatabaseConnection) throws -> Bool {
        let applied = try appliedVersions(db)
        return !migrations.allSatisfy { applied.contains($0.version) }
    }

    /// Applies every migration not yet applied, in version order: one whose number is
    /// below an applied one's is applied after it.
    ///
    /// - Throws: `LibraryError.newerSchema` when the database was made by a newer
    ///   build; `DatabaseError` when a migration fails (the database stays as it was).
    public func migrate(_ db: DatabaseConnection) throws {
        // Up to date: nothing is written, so opening a library never waits for the
        // write lock an index run holds (CREATE TABLE IF NOT EXISTS would take it).
        let current = try appliedVersions(db)
        if let newest = current.max(), newest > latestVersion {
            throw LibraryError.newerSchema(path: db.path, found: newest, known: latestVersion)
        }
        if migrations.allSatisfy({ current.contains($0.version) }) { return }
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
            )
            """)
        let applied = try appliedVersions(db)
        if let newest = applied.max(), newest > latestVersion {
            throw LibraryError.newerSchema(path: db.path, found: newest, known: latestVersion)
        }
        for migration in migrations where !applied.contains(migration.version) {
            try db.inTransaction {
                // Another process may have applied it while we waited for the lock.
                let done = try db.scalarInt("SELECT count(*) FROM schema_migrations WHERE version = ?",
                                            [migration.version]) ?? 0
                guard done == 0 else { return }
                try db.execute(migration.sql)
                try db.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)",
                               [migration.version, migration.name])
                let violations = try db.rows("PRAGMA foreign_key_check")
                if !violations.isEmpty {
                    throw DatabaseError(extendedCode: 787,
                                        message: "migration \(migration.version)_\(migration.name) leaves \(violations.count) foreign key violations",
                                        sql: nil)
                }
            }
        }
    }
}
