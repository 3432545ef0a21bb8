import Foundation
import MediaThumbnails

/// What the library remembers about one thumbnail (a row of the `thumbnails` table).
public enum ThumbnailState: String, Sendable, Equatable, CaseIterable {
    /// Made and stored in a cache.
    case ready
    /// Could not be made; the reason is kept, and bulk builds skip the asset until its
    /// revision changes.
    case failed
    /// A video, and `ffmpeg` was not installed; retried once it is.
    case needsFFmpeg
}

/// One row of the thumbnail state table.
public struct ThumbnailRecord: Sendable, Equatable {
    /// The cache key's hash: the cached file's name without extension.
    public var key: String
    /// The asset.
    public var identifier: Asset.ID
    /// The asset's revision it was made from.
    public var revision: Int
    /// The requested size.
    public var size: Int
    /// Fit or fill.
    public var mode: ThumbnailMode
    /// `jpeg` or `webp`.
    public var format: String
    /// Made, failed, or waiting for ffmpeg.
    public var state: ThumbnailState
    /// Why it failed, one sentence.
    public var message: String?
    /// The file's size, when made.
    public var bytes: Int64?
    /// The thumbnail's width, when made.
    public var width: Int?
    /// The thumbnail's height, when made.
    public var height: Int?
    /// When it was made or tried (Unix time).
    public var madeAt: Double
}

/// Why an asset has no thumbnail; reads as one sentence.
public struct ThumbnailUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// The asset's identifier.
    public var identifier: Asset.ID
    /// `.failed` or `.needsFFmpeg`.
    public var state: ThumbnailState
    /// The thumbnailer's sentence (a `ThumbnailError` description).
    public var reason: String

    /// One sentence naming the asset and the reason.
    public var description: String { "no thumbnail for asset \(identifier): \(reason)" }
}

/// Reads and writes the `thumbnails` table.
enum ThumbnailStateStore {
    static func record(_ records: [ThumbnailRecord], db: DatabaseConnection) throws {
        let sql = """
            INSERT INTO thumbnails (key, identifier, revision, size, mode, format, state, message, bytes, width, height, made_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (key) DO UPDATE SET state = excluded.state, message = excluded.message, bytes = excluded.bytes,
                width = excluded.width, height = excluded.height, made_at = excluded.made_at
            """
        for r in records {
            try db.execute(sql, [r.key, r.identifier.rawValue, r.revision, r.size, r.mode.rawValue, r.format, r.state.rawValue,
                                 r.message, r.bytes, r.width, r.height, r.madeAt])
        }
    }

    /// The sizes of the ready thumbnails of one asset revision in one mode and format,
    /// largest first, leaving out `excluded`.
    static func readySizes(of asset: Asset.ID, revision: Int, mode: ThumbnailMode, format: String,
                           excluding excluded: Int, db: DatabaseConnection) throws -> [Int] {
        try db.rows("""
            SELECT size FROM thumbnails WHERE identifier = ? AND revision = ? AND mode = ? AND format = ?
            AND state = 'ready' AND size <> ? ORDER BY size DESC
            """, [asset.rawValue, revision, mode.rawValue, format, excluded]).compactMap { $0.int("size") }
    }

    /// The records of thumbnails not ready (failed, or waiting for ffmpeg), by key.
    static func notReady(db: DatabaseConnection) throws -> [String: ThumbnailRecord] {
        Dictionary(records(try db.rows("SELECT * FROM thumbnails WHERE state <> 'ready'")).map { ($0.key, $0) },
                   uniquingKeysWith: { a, _ in a })
    }

    static func records(_ rows: [Row]) -> [ThumbnailRecord] {
        rows.compactMap { row in
            guard let key = row.string("key"), let identifier = row.string("identifier"),
                  let state = row.string("state").flatMap(ThumbnailState.init(rawValue:)) else { return nil }
            return ThumbnailRecord(
                key: key, identifier: Asset.ID(stored: identifier), revision: row.int("revision") ?? 0, size: row.int("size") ?? 0,
                mode: row.string("mode").flatMap(ThumbnailMode.init(rawValue:)) ?? .fit,
                format: row.string("format") ?? "jpeg", state: state, message: row.string("message"),
                bytes: row.int64("bytes"), width: row.int("width"), height: row.int("height"),
                madeAt: row.double("made_at") ?? 0)
        }
    }
}
