import Foundation
import MediaMetadata

/// A row of `assets`: the table and its columns, declared once.
///
/// Every statement on `assets` names its columns through `AssetRecord.Column`; adding a
/// column is a case here (and, when metadata fills it, a line in `MetadataValues`).
/// `AssetStore` is the only writer of the table.
enum AssetRecord {
    static let table = "assets"

    /// The columns of `assets` (the raw value is the column's name).
    enum Column: String, CaseIterable, Sendable {
        case id, identifier, fingerprint, revision
        case mediaType = "media_type", subtypes
        case creationDate = "creation_date", creationTimestamp = "creation_timestamp"
        case pixelWidth = "pixel_width", pixelHeight = "pixel_height", orientation
        case duration, frameRate = "frame_rate", videoCodec = "video_codec", hasAudio = "has_audio"
        case latitude, longitude, altitude
        case make, model, software, lensMake = "lens_make", lensModel = "lens_model"
        case focalLength = "focal_length", fNumber = "f_number", exposureTime = "exposure_time", iso, flash
        case contentIdentifier = "content_identifier", burstIdentifier = "burst_identifier"
        case embeddedVideoOffset = "embedded_video_offset", embeddedVideoLength = "embedded_video_length"
        case embeddedVideoDuration = "embedded_video_duration"
        case addedAt = "added_at", modifiedAt = "modified_at"
        case pairingRule = "pairing_rule", isBurstRepresentative = "is_burst_representative", rating
        /// Set by the pairer: an edited rendering or adjustments file is a resource (migration 0014).
        case hasAdjustments = "has_adjustments"
        /// Kept in step with the primary file (migration 0010's triggers; `PrimaryFileColumns` at insert).
        case fileName = "file_name", fileSize = "file_size", format, folderID = "folder_id"
        /// Generated: `coalesce(creation_timestamp, -1e300)`, the newest-first sort key.
        case captureSort = "capture_sort"
        /// Generated: `coalesce(duration, -1)`.
        case durationSort = "duration_sort"

        var name: String { rawValue }

        /// The field of the JSON asset shape the column feeds, as the change feed's
        /// `fields` names it; nil where the column has no field of its own name.
        var jsonName: String? {
            switch self {
            case .mediaType: "mediaType"
            case .creationDate, .creationTimestamp: "creationDate"
            case .pixelWidth: "pixelWidth"
            case .pixelHeight: "pixelHeight"
            case .orientation: "orientation"
            case .duration: "durationSeconds"
            case .frameRate: "frameRate"
            case .videoCodec: "videoCodec"
            case .hasAudio: "hasAudio"
            case .latitude, .longitude, .altitude: "location"
            case .make: "make"
            case .model: "model"
            case .software: "software"
            case .lensMake: "lensMake"
            case .lensModel: "lensModel"
            case .focalLength: "focalLength"
            case .fNumber: "fNumber"
            case .exposureTime: "exposureTime"
            case .iso: "iso"
            case .flash: "flash"
            case .contentIdentifier: "contentIdentifier"
            case .burstIdentifier: "burstIdentifier"
            case .subtypes: "mediaSubtypes"
            case .hasAdjustments: "hasAdjustments"
            default: nil
            }
        }

        /// The change feed's name for a change of this column.
        var changedFieldName: String { jsonName ?? rawValue }
    }

    /// The columns a public `Asset` is read from (`AssetQueries.asset(from:resources:)`).
    static let assetColumns: [Column] = [
        .identifier, .mediaType, .subtypes, .creationDate, .pixelWidth, .pixelHeight, .orientation, .duration,
        .frameRate, .videoCodec, .hasAudio, .latitude, .longitude, .altitude, .make, .model, .software, .lensMake,
        .lensModel, .focalLength, .fNumber, .exposureTime, .iso, .flash, .contentIdentifier, .burstIdentifier,
        .revision, .addedAt, .modifiedAt, .pairingRule, .embeddedVideoOffset, .embeddedVideoLength,
        .embeddedVideoDuration, .rating, .hasAdjustments,
    ]

    /// The columns a sidecar may set besides `rating` (see `SidecarAttacher`): XMP's
    /// date and place, and a Sony clip XML's camera too.
    static let sidecarColumns: [Column] = [.creationDate, .creationTimestamp, .latitude, .longitude, .altitude,
                                           .make, .model]

    /// The `assets` columns computed from a primary resource's metadata, with their values.
    struct MetadataValues {
        var values: [(Column, DatabaseValueConvertible)]

        init(_ m: MediaMetadata, fileName: String? = nil) {
            let display = m.displaySize
            values = [
                (.mediaType, m.format.mediaType.rawValue),
                (.creationDate, m.captureDate?.iso8601),
                (.creationTimestamp, m.captureDate?.sortTimestamp),
                (.pixelWidth, display?.width),
                (.pixelHeight, display?.height),
                (.orientation, m.orientation ?? 1),
                (.duration, m.durationSeconds),
                (.frameRate, m.frameRate),
                (.videoCodec, m.videoCodec),
                (.hasAudio, m.hasAudio),
                (.latitude, m.location?.latitude),
                (.longitude, m.location?.longitude),
                (.altitude, m.location?.altitude),
                (.make, m.make),
                (.model, m.model),
                (.software, m.software),
                (.lensMake, m.lensMake),
                (.lensModel, m.lensModel),
                (.focalLength, m.focalLength),
                (.fNumber, m.fNumber),
                (.exposureTime, m.exposureTime),
                (.iso, m.iso),
                (.flash, m.flash),
                (.contentIdentifier, m.contentIdentifier),
                // Apple's maker note names the burst; else Pixel, Sony and Huawei names do.
                (.burstIdentifier, m.burstIdentifier ?? fileName.flatMap(NameLayout.burst(ofFileName:))?.identifier),
                (.subtypes, MediaSubtypes(inferredFrom: m, fileName: fileName).rawValue),
                (.embeddedVideoOffset, m.motionPhoto.map { Int64(clamping: $0.videoOffset) }),
                (.embeddedVideoLength, m.motionPhoto.map { Int64(clamping: $0.videoLength) }),
                (.embeddedVideoDuration, m.motionPhoto?.videoDurationSeconds),
            ]
        }

        /// The columns metadata fills, in the order of `values`.
        static let columns = MetadataValues(MediaMetadata(format: .jpeg)).values.map(\.0)

        /// These values with the displayed size of an edited rendering put over the
        /// primary's (see `AssetPairer.renderingSize`); unchanged for nil.
        func overlaying(displaySize size: (width: Int, height: Int)?) -> MetadataValues {
            guard let size else { return self }
            var result = self
            result.values = values.map { column, value in
                column == .pixelWidth ? (column, size.width) : column == .pixelHeight ? (column, size.height) : (column, value)
            }
            return result
        }

        /// These values with the columns an asset's sidecars set put over them (see
        /// `SidecarAttacher.apply`): `merged` is the primary's metadata with the
        /// sidecars' values applied.
        func overlaying(sidecarColumnsOf merged: MediaMetadata) -> MetadataValues {
            let wanted = Set(AssetRecord.sidecarColumns)
            let overlay = Dictionary(MetadataValues(merged).values.filter { wanted.contains($0.0) },
                                     uniquingKeysWith: { first, _ in first })
            var result = self
            result.values = values.map { column, value in (column, overlay[column] ?? value) }
            return result
        }
    }

    /// `metadata` of a primary or secondary file, as the indexer stores it in
    /// `files.metadata` (sorted keys, so equal metadata is equal text).
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
        let name = FileNameKey(path)
        folder = name.parentBytes
        fileName = name.fileName
        self.size = size
        self.format = format
    }
}
