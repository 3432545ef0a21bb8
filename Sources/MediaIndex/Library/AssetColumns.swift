import Foundation
import MediaMetadata

/// The `assets` columns computed from a primary resource's metadata.
struct AssetColumns {
    var values: [(String, DatabaseValueConvertible)]

    init(_ m: MediaMetadata, fileName: String? = nil) {
        let display = m.displaySize
        let orientation = m.orientation ?? 1
        values = [
            ("media_type", m.format.mediaType.rawValue),
            ("creation_date", m.captureDate?.iso8601),
            ("creation_timestamp", m.captureDate?.sortTimestamp),
            ("pixel_width", display?.width),
            ("pixel_height", display?.height),
            ("orientation", orientation),
            ("duration", m.durationSeconds),
            ("frame_rate", m.frameRate),
            ("video_codec", m.videoCodec),
            ("has_audio", m.hasAudio),
            ("latitude", m.location?.latitude),
            ("longitude", m.location?.longitude),
            ("altitude", m.location?.altitude),
            ("make", m.make),
            ("model", m.model),
            ("software", m.software),
            ("lens_make", m.lensMake),
            ("lens_model", m.lensModel),
            ("focal_length", m.focalLength),
            ("f_number", m.fNumber),
            ("exposure_time", m.exposureTime),
            ("iso", m.iso),
            ("flash", m.flash),
            ("content_identifier", m.contentIdentifier),
            ("burst_identifier", m.burstIdentifier),
            ("subtypes", MediaSubtypes(inferredFrom: m, fileName: fileName).rawValue),
            ("embedded_video_offset", m.motionPhoto.map { Int64(clamping: $0.videoOffset) }),
            ("embedded_video_length", m.motionPhoto.map { Int64(clamping: $0.videoLength) }),
            ("embedded_video_duration", m.motionPhoto?.videoDurationSeconds),
        ]
    }

    /// The statements, built once: the column list is the same for every asset.
    private static let columnNames = AssetColumns(MediaMetadata(format: .jpeg)).values.map(\.0)
    private static let insertSQL: String = {
        let names = columnNames + ["identifier", "fingerprint", "revision", "added_at", "modified_at"]
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return "INSERT INTO assets (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
    }()
    private static let updateSQL: String = {
        let assignments = columnNames.map { "\($0) = ?" }.joined(separator: ", ")
        return "UPDATE assets SET \(assignments), fingerprint = ?, revision = revision + ?, modified_at = ? WHERE id = ?"
    }()
    private static let selectSQL = "SELECT \(columnNames.joined(separator: ", ")) FROM assets WHERE id = ?"

    private static let insertWithFileSQL: String = {
        let names = columnNames + ["identifier", "fingerprint", "revision", "added_at", "modified_at",
                                   "file_name", "file_size", "format", "folder_id"]
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return "INSERT INTO assets (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
    }()

    /// Inserts the asset; with `primaryFile`, also the columns that the `files` triggers
    /// would otherwise fill by updating the new row at once (migration 0010).
    func insert(identifier: String, fingerprint: String, now: Double, primaryFile: PrimaryFileColumns? = nil,
                db: DatabaseConnection) throws -> Int64 {
        if let primaryFile {
            let folderID = try primaryFile.folderID(db: db)
            try db.execute(Self.insertWithFileSQL, values.map(\.1) + [identifier, fingerprint, 1, now, now,
                           primaryFile.fileName, primaryFile.size, primaryFile.format, folderID])
        } else {
            try db.execute(Self.insertSQL, values.map(\.1) + [identifier, fingerprint, 1, now, now])
        }
        return db.lastInsertedRowID
    }

    /// The JSON names of the columns whose stored value differs from this one.
    func changedFields(assetID: Int64, db: DatabaseConnection) throws -> [String] {
        guard let row = try db.row(Self.selectSQL, [assetID]) else {
            return []
        }
        var changed: [String] = []
        for (index, (name, value)) in values.enumerated() where row[index] != value.databaseValue {
            changed.append(Self.jsonNames[name] ?? name)
        }
        return changed
    }

    /// Column names as the JSON asset shape spells them.
    static let jsonNames: [String: String] = [
        "media_type": "mediaType", "creation_date": "creationDate", "creation_timestamp": "creationDate",
        "pixel_width": "pixelWidth", "pixel_height": "pixelHeight", "orientation": "orientation",
        "duration": "durationSeconds", "frame_rate": "frameRate", "video_codec": "videoCodec", "has_audio": "hasAudio",
        "latitude": "location", "longitude": "location", "altitude": "location", "make": "make", "model": "model",
        "software": "software", "lens_make": "lensMake", "lens_model": "lensModel", "focal_length": "focalLength",
        "f_number": "fNumber", "exposure_time": "exposureTime", "iso": "iso", "flash": "flash",
        "content_identifier": "contentIdentifier", "burst_identifier": "burstIdentifier", "subtypes": "mediaSubtypes",
    ]

    func update(assetID: Int64, fingerprint: String, bumpRevision: Bool, now: Double, db: DatabaseConnection) throws {
        try db.execute(Self.updateSQL, values.map(\.1) + [fingerprint, bumpRevision ? 1 : 0, now, assetID])
    }

    static func encode(_ metadata: MediaMetadata) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(metadata) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The `assets` columns that come from the primary file rather than its metadata.
///
/// The `files` triggers keep them in step whenever a primary file row changes; the
/// indexer writes them at insert too, computed the same way, so the trigger finds
/// nothing to change. Where the two ever disagreed the trigger's value would win.
struct PrimaryFileColumns {
    /// The path's bytes after the last '/', as text (the trigger's `name_text`).
    var fileName: String
    /// The path's bytes before the last '/' (the trigger's `parent_path`).
    var folder: [UInt8]
    var size: Int64
    var format: String

    init(path: PathBytes, size: Int64, format: String) {
        let bytes = path.bytes
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        folder = slash.map { Array(bytes[..<$0]) } ?? []
        fileName = String(decoding: slash.map { bytes[($0 + 1)...] } ?? bytes[...], as: UTF8.self)
        self.size = size
        self.format = format
    }

    /// The folder's row id, inserting the folder when it is new.
    func folderID(db: DatabaseConnection) throws -> Int64 {
        if let id = try db.row("SELECT id FROM folders WHERE path = ?", [folder])?.int64("id") { return id }
        try db.execute("INSERT INTO folders (path) VALUES (?)", [folder])
        return db.lastInsertedRowID
    }
}
