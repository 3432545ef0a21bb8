import Foundation
import MediaMetadata

/// A made-up file for seeding a library at scale (MediaIndexTestSupport's
/// `seedSyntheticAssets`): its metadata as a parser would give it, a path that need not
/// exist, its fingerprint and what `stat` would say.
package struct SeededFile: Sendable {
    package var metadata: MediaMetadata
    package var path: PathBytes
    package var fingerprint: ContentFingerprint
    package var stat: FileStat

    package init(metadata: MediaMetadata, path: PathBytes, fingerprint: ContentFingerprint, stat: FileStat) {
        self.metadata = metadata
        self.path = path
        self.fingerprint = fingerprint
        self.stat = stat
    }
}

extension MediaLibrary {
    /// Copies the library's WAL back and empties it, as an index run ends
    /// (`BackgroundCheckpoint.truncate`): for a benchmark whose writer stopped.
    package func emptyWAL() throws {
        try requireWriter().write { db in BackgroundCheckpoint.truncate(db) }
    }

    /// Writes one asset per file, each with its file row under `root` (registered when
    /// missing), in one transaction, through the same asset and file statements an index
    /// run uses (so triggers and indexes do the same work). For benchmarks and scale
    /// tests: the next index run of that root would remove them.
    package func insertSeededFiles(_ files: [SeededFile], root: PathBytes) throws {
        let writer = try requireWriter()
        let rootID = try writer.write { db in
            try RootStore(db: db).insertIfMissing(root, now: Date().timeIntervalSince1970)
        }
        try writer.transaction { db in try SearchTextIndex.deferring(db) {
            let now = Date().timeIntervalSince1970
            for file in files {
                let assetID = try AssetStore(db: db).insert(
                    AssetRecord.MetadataValues(file.metadata, fileName: String(decoding: file.path.lastComponent, as: UTF8.self)),
                    identifier: AssetIdentifierFactory.identifier(for: file.fingerprint),
                    fingerprint: file.fingerprint.description, now: now)
                try FileStore(db: db).upsert(FileStore.Write(
                    rootID: rootID, entry: FileWalker.Entry(path: file.path, stat: file.stat),
                    status: .media, format: file.metadata.format, fingerprint: file.fingerprint.description,
                    assetID: assetID, role: FileRole(primaryFor: file.metadata.format)), now: now)
            }
        } }
    }

    /// Runs `body`, a bulk load, with the secondary indexes of `assets` and `files`
    /// dropped, then builds them once (a sort, not a million inserts) and checkpoints.
    package func withSecondaryIndexesDeferred(_ body: () throws -> Void) throws {
        let writer = try requireWriter()
        let indexes = try writer.write { db in
            try db.rows("""
                SELECT name, sql FROM sqlite_master
                WHERE type = 'index' AND tbl_name IN ('assets', 'files') AND sql IS NOT NULL
                """).compactMap { row in row.string("name").flatMap { n in row.string("sql").map { (n, $0) } } }
        }
        try writer.write { db in for (name, _) in indexes { try db.execute("DROP INDEX \(name)") } }
        let assetsBefore = try writer.write { db in try db.scalarInt("SELECT count(*) FROM assets") ?? 0 }
        defer {
            try? writer.write { db in for (_, sql) in indexes { try db.execute(sql) } }
            try? writer.write { db in
                try SearchTextIndex.tidy(db, changed: (try db.scalarInt("SELECT count(*) FROM assets") ?? 0) - assetsBefore)
            }
            // The index builds went through the WAL; copy them into the database and
            // empty it, so readers do not look up every page in a large WAL.
            try? writer.write { db in _ = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        try body()
    }
}
