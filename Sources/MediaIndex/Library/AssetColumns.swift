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

    func insert(identifier: String, fingerprint: String, now: Double, db: DatabaseConnection) throws -> Int64 {
        let names = values.map(\.0) + ["identifier", "fingerprint", "revision", "added_at", "modified_at"]
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        try db.execute("INSERT INTO assets (\(names.joined(separator: ", "))) VALUES (\(placeholders))",
                       values.map(\.1) + [identifier, fingerprint, 1, now, now])
        return db.lastInsertedRowID
    }

    func update(assetID: Int64, fingerprint: String, bumpRevision: Bool, now: Double, db: DatabaseConnection) throws {
        let assignments = values.map { "\($0.0) = ?" }.joined(separator: ", ")
        try db.execute("""
            UPDATE assets SET \(assignments), fingerprint = ?, revision = revision + ?, modified_at = ? WHERE id = ?
            """, values.map(\.1) + [fingerprint, bumpRevision ? 1 : 0, now, assetID])
    }

    static func encode(_ metadata: MediaMetadata) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(metadata) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

