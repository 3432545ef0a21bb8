import MediaMetadata

/// Reads assets and their resources from the database.
enum AssetQueries {
    /// The select list `asset(from:resources:)` reads, for the alias `a` of `assets`
    /// (`AssetRecord.assetColumns`, and the row id as `row_id`).
    static let assetColumns = (["a.id AS row_id"] + AssetRecord.assetColumns.map { "a." + $0.name })
        .joined(separator: ", ")

    static func asset(from row: Row, resources: [AssetResource]) -> Asset {
        var location: GeoLocation?
        if let lat = row.double("latitude"), let lon = row.double("longitude") {
            location = GeoLocation(latitude: lat, longitude: lon, altitude: row.double("altitude"))
        }
        return Asset(
            id: row.string("identifier") ?? "",
            mediaType: MediaType(rawValue: row.string("media_type") ?? "") ?? .image,
            mediaSubtypes: MediaSubtypes(rawValue: row.int("subtypes") ?? 0).names,
            creationDate: row.string("creation_date"),
            pixelWidth: row.int("pixel_width"), pixelHeight: row.int("pixel_height"),
            orientation: row.int("orientation"),
            durationSeconds: row.double("duration"), frameRate: row.double("frame_rate"),
            videoCodec: row.string("video_codec"), hasAudio: row.bool("has_audio"),
            location: location,
            make: row.string("make"), model: row.string("model"), software: row.string("software"),
            lensMake: row.string("lens_make"), lensModel: row.string("lens_model"),
            focalLength: row.double("focal_length"), fNumber: row.double("f_number"),
            exposureTime: row.double("exposure_time"), iso: row.int("iso"), flash: row.int("flash"),
            contentIdentifier: row.string("content_identifier"), burstIdentifier: row.string("burst_identifier"),
            revision: row.int("revision") ?? 1,
            addedDate: row.double("added_at") ?? 0, modificationDate: row.double("modified_at") ?? 0,
            resources: resources,
            pairingRule: row.string("pairing_rule"),
            embeddedVideo: row.int64("embedded_video_offset").map {
                EmbeddedVideo(offset: $0, length: row.int64("embedded_video_length") ?? 0,
                              durationSeconds: row.double("embedded_video_duration"))
            },
            rating: row.int("rating"))
    }

    /// Resources of the given asset rows, keyed by asset row id, primary first.
    static func resources(forAssetIDs ids: [Int64], db: DatabaseConnection) throws -> [Int64: [AssetResource]] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: [AssetResource]] = [:]
        // Chunked to stay under SQLite's parameter limit.
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            start += chunk.count
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let rows = try db.rows("""
                SELECT asset_id, role, path, size, format FROM files
                WHERE asset_id IN (\(placeholders)) ORDER BY asset_id, role IN \(FileRole.sqlList(FileRole.primaries)) DESC, path
                """, chunk)
            for row in rows {
                guard let assetID = row.int64("asset_id") else { continue }
                result[assetID, default: []].append(AssetResource(
                    role: row.string("role") ?? "photo", path: PathBytes(row.blob("path") ?? []),
                    bytes: row.int64("size") ?? 0,
                    contentType: row.string("format").flatMap(MediaFormat.init(rawValue:))?.contentType
                        ?? (row.string("role") == FileRole.sidecar.rawValue ? "application/rdf+xml" : nil)))
            }
        }
        return result
    }

    /// Assets for the rows of a query selecting `assetColumns`, with resources.
    static func assets(_ rows: [Row], db: DatabaseConnection) throws -> [Asset] {
        let ids = rows.compactMap { $0.int64("row_id") }
        let resources = try Self.resources(forAssetIDs: ids, db: db)
        return rows.map { row in asset(from: row, resources: resources[row.int64("row_id") ?? -1] ?? []) }
    }
}
