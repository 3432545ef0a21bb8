import Foundation
import MediaMetadata

/// Reads assets and their resources from the database.
enum AssetQueries {
    /// The select list `asset(from:resources:)` reads, for the alias `a` of `assets`
    /// (the row id as `row_id`, then `AssetRecord.assetColumns`: the
    /// field table's reads take them by position).
    static let assetColumns = (["a.id AS row_id"] + AssetRecord.assetColumns.map { "a." + $0.name })
        .joined(separator: ", ")

    /// The asset a row selecting `assetColumns` gives, with these resources (user state
    /// is filled in by the reader).
    static func asset(from row: Row, resources: [AssetResource]) -> Asset {
        AssetFields.asset(from: row, offset: 1, resources: resources)
    }

    /// Resources of the given asset rows, keyed by asset row id, primary first.
    static func resources(forAssetIDs ids: [Int64], db: DatabaseConnection) throws -> [Int64: [AssetResource]] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: [AssetResource]] = [:]
        let rows = try db.rows(inList: ids) { """
            SELECT asset_id, role, path, size, format, id FROM files
            WHERE asset_id IN (\($0)) ORDER BY asset_id, role IN \(FileRole.sqlList(FileRole.primaries)) DESC, path
            """ }
        let otherNames = try FileLinkStore.otherNames(ofFiles: rows.compactMap { $0.int64("id") }, db: db)
        for row in rows {
            guard let assetID = row.int64("asset_id") else { continue }
            let role = FileRole(stored: row.string("role")), path = PathBytes(row.blob("path") ?? [])
            result[assetID, default: []].append(AssetResource(
                type: role ?? .photo, path: path, bytes: row.int64("size") ?? 0,
                uniformType: row.string("format").flatMap(MediaFormat.init(rawValue:)).map(UniformType.init)
                    ?? role.flatMap { Self.describingType($0, path: path) },
                otherPaths: row.int64("id").flatMap { otherNames[$0] } ?? []))
        }
        return result
    }

    /// The values of the adjustments files of the given asset rows, keyed by asset row id
    /// (the first by path where an asset has several).
    static func adjustments(forAssetIDs ids: [Int64], db: DatabaseConnection) throws -> [Int64: Asset.Adjustments] {
        var result: [Int64: Asset.Adjustments] = [:]
        for row in try db.rows(inList: ids, { """
            SELECT asset_id, metadata FROM files WHERE role = \(FileRole.adjustmentData.sql)
            AND asset_id IN (\($0)) ORDER BY asset_id, path
            """ }) {
            guard let assetID = row.int64("asset_id"), result[assetID] == nil,
                  let values = AdjustmentValues.decode(row.string("metadata")) else { continue }
            result[assetID] = Asset.Adjustments(
                formatIdentifier: values.formatIdentifier, formatVersion: values.formatVersion,
                editorBundleID: values.editorBundleID,
                date: values.timestamp.map { Date(timeIntervalSince1970: $0) })
        }
        return result
    }

    /// The MIME type of a describing resource: an XMP sidecar's (a Sony clip XML's),
    /// Apple adjustments', a Takeout JSON's.
    static func describingType(_ role: FileRole, path: PathBytes) -> UniformType? {
        switch role {
        case .sidecar: SidecarFile.isClipXML(path) ? .xml : .xmp
        case .adjustmentData: .propertyList
        case .takeoutMetadata, .takeoutAlbumMetadata: .json
        default: nil
        }
    }

    /// Assets for the rows of a query selecting `assetColumns`, with resources.
    static func assets(_ rows: [Row], db: DatabaseConnection) throws -> [Asset] {
        let ids = rows.compactMap { $0.int64("row_id") }
        let resources = try Self.resources(forAssetIDs: ids, db: db)
        let edited = rows.filter { ($0.int(AssetRecord.Column.hasAdjustments.name) ?? 0) != 0 }.compactMap { $0.int64("row_id") }
        let adjustments = try Self.adjustments(forAssetIDs: edited, db: db)
        return rows.map { row in
            var asset = asset(from: row, resources: resources[row.int64("row_id") ?? -1] ?? [])
            asset.adjustments = adjustments[row.int64("row_id") ?? -1]
            return asset
        }
    }
}
