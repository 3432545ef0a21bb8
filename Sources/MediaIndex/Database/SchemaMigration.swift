/// One forward-only schema step, embedded from `Migrations/NNNN_name.sql` at build time.
package struct SchemaMigration: Sendable, Equatable {
    /// The migration's number: 1, 2, 3… with no gaps.
    package let version: Int
    /// The file name's part after the number.
    package let name: String
    /// The SQL, run inside one `BEGIN IMMEDIATE` transaction.
    package let sql: String
}

/// The migrations built into this library, generated from `Migrations/*.sql`.
package enum EmbeddedMigrations {}
