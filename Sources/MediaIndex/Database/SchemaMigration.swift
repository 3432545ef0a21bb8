/// One forward-only schema step, embedded from `Migrations/NNNN_name.sql` at build time.
public struct SchemaMigration: Sendable, Equatable {
    /// The migration's number: 1, 2, 3… with no gaps.
    public let version: Int
    /// The file name's part after the number.
    public let name: String
    /// The SQL, run inside one `BEGIN IMMEDIATE` transaction.
    public let sql: String
}

/// The migrations built into this library, generated from `Migrations/*.sql`.
public enum EmbeddedMigrations {}
