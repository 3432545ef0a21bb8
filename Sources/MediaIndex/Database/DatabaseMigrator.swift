/// Brings a database up to the schema this build knows, one migration at a time.
///
/// Forward-only. Each migration runs inside `BEGIN IMMEDIATE`, records its version
/// in `schema_migrations` in the same transaction, and checks foreign keys before
/// committing, so a crash leaves the database at one version or the next.
///
/// One migrator serves both databases: the library's (`Migrations/`, the main schema)
/// and the user state's (`Migrations/user-state/`, attached as `userstate`), each with
/// its own `schema_migrations` table.
package struct DatabaseMigrator: Sendable {
    package let migrations: [SchemaMigration]
    /// The attached schema the migrations apply to (`userstate`); nil for the main one.
    package let schema: String?

    package init(migrations: [SchemaMigration] = EmbeddedMigrations.all, schema: String? = nil) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.schema = schema
    }

    /// `name` in the migrator's schema: `userstate.name`, or `name` for the main one.
    private func qualified(_ name: String) -> String { schema.map { "\($0).\(name)" } ?? name }

    /// The path of the migrator's database file, for messages.
    private func databasePath(_ db: DatabaseConnection) throws -> String {
        guard let schema else { return db.path }
        return try db.rows("PRAGMA database_list").first { $0.string("name") == schema }?.string("file") ?? db.path
    }

    /// The newest version this build knows.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The versions already applied to `db`.
    package func appliedVersions(_ db: DatabaseConnection) throws -> Set<Int> {
        let exists = try db.scalarInt(
            "SELECT count(*) FROM \(qualified("sqlite_master")) WHERE type = 'table' AND name = 'schema_migrations'") ?? 0
        guard exists > 0 else { return [] }
        return Set(try db.rows("SELECT version FROM \(qualified("schema_migrations"))").compactMap { $0.int("version") })
    }

    /// Whether some migration this build knows is not applied to `db`: a lower version
    /// too, when a higher one is (a migration of a change made in parallel, merged
    /// after a library was migrated past its number).
    package func isBehind(_ db: DatabaseConnection) throws -> Bool {
        let applied = try appliedVersions(db)
        return !migrations.allSatisfy { applied.contains($0.version) }
    }

    /// Applies every migration not yet applied, in version order: one whose number is
    /// below an applied one's is applied after it.
    ///
    /// - Throws: `LibraryError.newerSchema` when the database was made by a newer
    ///   build; `DatabaseError` when a migration fails (the database stays as it was).
    package func migrate(_ db: DatabaseConnection) throws {
        // Up to date: nothing is written, so opening a library never waits for the
        // write lock an index run holds (CREATE TABLE IF NOT EXISTS would take it).
        let current = try appliedVersions(db)
        if let newest = current.max(), newest > latestVersion {
            throw LibraryError.newerSchema(path: try databasePath(db), found: newest, known: latestVersion)
        }
        if migrations.allSatisfy({ current.contains($0.version) }) { return }
        try createVersionTable(db)
        let applied = try appliedVersions(db)
        if let newest = applied.max(), newest > latestVersion {
            throw LibraryError.newerSchema(path: try databasePath(db), found: newest, known: latestVersion)
        }
        for migration in migrations where !applied.contains(migration.version) {
            try db.inTransaction {
                // Another process may have applied it while we waited for the lock.
                let done = try db.scalarInt("SELECT count(*) FROM \(qualified("schema_migrations")) WHERE version = ?",
                                            [migration.version]) ?? 0
                guard done == 0 else { return }
                try db.execute(migration.sql)
                try db.execute("INSERT INTO \(qualified("schema_migrations")) (version, name) VALUES (?, ?)",
                               [migration.version, migration.name])
                let violations = try db.rows("PRAGMA \(qualified("foreign_key_check"))")
                if !violations.isEmpty {
                    throw DatabaseError(extendedCode: 787,
                                        message: "migration \(migration.version)_\(migration.name) leaves \(violations.count) foreign key violations",
                                        sql: nil)
                }
            }
        }
    }

    /// Records the migrations up to `version` as applied without running them, when none
    /// is recorded: for a database an earlier MediaIndex stamped with `PRAGMA user_version`
    /// only, before it had a version table.
    ///
    /// - Throws: `LibraryError.newerSchema` when `version` is newer than this build knows.
    package func adoptStampedVersion(_ version: Int, _ db: DatabaseConnection) throws {
        guard version > 0, try appliedVersions(db).isEmpty else { return }
        guard version <= latestVersion else {
            throw LibraryError.newerSchema(path: try databasePath(db), found: version, known: latestVersion)
        }
        try db.inTransaction {
            try createVersionTable(db)
            for migration in migrations where migration.version <= version {
                try db.execute("INSERT OR IGNORE INTO \(qualified("schema_migrations")) (version, name) VALUES (?, ?)",
                               [migration.version, migration.name])
            }
        }
    }

    private func createVersionTable(_ db: DatabaseConnection) throws {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS \(qualified("schema_migrations")) (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
            )
            """)
    }
}
