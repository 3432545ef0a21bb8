import Foundation
import MediaMetadata

/// A row of `files`: the table and its columns, declared once. `FileStore` is the
/// only writer of the table.
enum FileRecord {
    static let table = "files"

    /// The columns of `files` (the raw value is the column's name).
    enum Column: String, CaseIterable, Sendable {
        case id, rootID = "root_id", path, size, mtimeNanoseconds = "mtime_ns", inode
        case status, format, fingerprint, error, assetID = "asset_id", role, metadata
        case indexedAt = "indexed_at"
        /// The pairer's name keys (`FileNameKey`), written with the row.
        case folder, stemKey = "stem_key", baseKey = "base_key"
        /// What pairing reads of a media file's metadata (migration 0016), written with the row.
        case contentIdentifier = "content_identifier", durationSeconds = "duration_seconds"
        /// Generated (migration 0010): the path's bytes before and after the last '/'.
        case parentPath = "parent_path", nameText = "name_text"

        var name: String { rawValue }
    }

    /// A row as an index run compares it with what the walk found.
    struct Known: Sendable {
        var id: Int64
        var rootID: Int64
        var path: PathBytes
        var stat: FileStat
        var status: FileStatus?
        var assetID: Int64?
        var fingerprint: String?
        var role: FileRole?
        /// A row of `file_links`: another name of the file `id` (then status, asset,
        /// fingerprint and role are nil).
        var isLink = false

        /// Whether the file's size, mtime and inode are as recorded (then it is not opened).
        func isUnchanged(_ entry: FileWalker.Entry, rootID: Int64) -> Bool {
            self.rootID == rootID && stat.size == entry.stat.size
                && stat.modificationNanoseconds == entry.stat.modificationNanoseconds && stat.inode == entry.stat.inode
        }

        /// Whether the row is an image or video with an asset and a fingerprint: its
        /// content is tracked, so the identity planner follows it.
        var isTrackedMedia: Bool { status == .media && assetID != nil && fingerprint != nil }
    }

    /// The columns `Known` is read from, in its order (read by position: every run reads every row).
    static let knownColumns: [Column] = [.id, .rootID, .path, .size, .mtimeNanoseconds, .inode, .status, .assetID,
                                         .fingerprint, .role]

    static func known(_ row: Row) -> Known? {
        guard let rootID = row[1].int64, let id = row[0].int64, let path = row[2].blob else { return nil }
        return Known(
            id: id, rootID: rootID, path: PathBytes(path),
            stat: FileStat(size: row[3].int64 ?? -1, modificationNanoseconds: row[4].int64 ?? -1,
                           inode: UInt64(bitPattern: row[5].int64 ?? -1), device: 0),
            status: FileStatus(stored: row[6].text), assetID: row[7].int64,
            fingerprint: row[8].text, role: FileRole(stored: row[9].text), isLink: (row[10].int64 ?? 0) != 0)
    }

    /// A media file's stored metadata (`files.metadata`), decoded: the one place that
    /// reads it back, for pairing and sidecar merges, which need a file's values after
    /// the run that read it.
    static func decodeMetadata(_ json: String?) -> MediaMetadata? {
        guard let json else { return nil }
        return try? JSONDecoder().decode(MediaMetadata.self, from: Data(json.utf8))
    }

    /// The stored metadata of the media file at `path` (a resource of an asset), as the
    /// index read it: format, orientation, embedded previews and the rest, without
    /// opening the file. nil when the path is not an indexed media file.
    static func storedMetadata(ofPath path: PathBytes, db: DatabaseConnection) throws -> MediaMetadata? {
        decodeMetadata(try db.cachedStatement("SELECT metadata FROM files WHERE path = ? AND status = \(FileStatus.media.sql)")
            .rows([path.bytes]).first?.string("metadata"))
    }

    /// The root the file at `path` was indexed under; nil for a path the library does not hold.
    static func rootPath(ofPath path: PathBytes, db: DatabaseConnection) throws -> PathBytes? {
        try db.cachedStatement("SELECT r.path FROM files f JOIN roots r ON r.id = f.root_id WHERE f.path = ?")
            .rows([path.bytes]).first?.blob("path").map(PathBytes.init)
    }
}

/// What a describing file's row (`FileRole.describing`: an XMP sidecar, a Takeout JSON)
/// stores as `files.metadata`: its parsed values as JSON with sorted keys, so equal
/// values are equal text.
protocol StoredFileValues: Codable {}

extension StoredFileValues {
    /// The values a row's `metadata` holds; nil for NULL or text that does not decode.
    static func decode(_ json: String?) -> Self? {
        guard let json else { return nil }
        return try? JSONDecoder().decode(Self.self, from: Data(json.utf8))
    }

    /// The values as `files.metadata` text.
    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The names of a path that the index keys on: one split of a path into its folder,
/// its name and its stem.
///
/// `folder` and `stemKey` are what pairing and sidecars compare (`files.folder`,
/// `files.stem_key`): files in one folder whose names differ only in their last
/// extension, case aside, share a stem key. `parentBytes` and `fileName` are the
/// primary file's columns of its asset, exactly as migration 0010's generated columns
/// (`parent_path`, `name_text`) split the path.
struct FileNameKey: Hashable {
    /// The parent folder's path (`/` for a file at the top).
    var folder: [UInt8]
    /// The lowercased name without its last extension.
    var stemKey: String
    /// The bytes before the last '/' (empty for a file at the top).
    var parentBytes: [UInt8]
    /// The bytes after the last '/', as text.
    var fileName: String
    /// The lowercased name.
    var lowercasedName: String
    /// The lowercased stem without the marks of an edit, a renamed live-photo movie or a
    /// Pixel RAW pair (`NameLayout.baseKey`): what the pairer looks partners up by.
    var baseKey: String { NameLayout(lowercasedName: lowercasedName).baseKey }

    init(_ path: PathBytes) {
        let bytes = path.bytes
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        parentBytes = slash.map { Array(bytes[..<$0]) } ?? []
        folder = slash == 0 ? Array("/".utf8) : slash == nil ? Array(".".utf8) : parentBytes
        let name = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
        fileName = String(decoding: name, as: UTF8.self)
        lowercasedName = fileName.lowercased()
        var stem = name[...]
        if let dot = stem.lastIndex(of: UInt8(ascii: ".")), dot > 0 { stem = stem[..<dot] }
        stemKey = String(decoding: stem, as: UTF8.self).lowercased()
    }

    /// The stem key of a lowercased file name: the name without its last extension.
    static func stemKey(ofName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return name }
        return String(name[..<dot])
    }
}
