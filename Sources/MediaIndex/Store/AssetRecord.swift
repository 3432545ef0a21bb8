import Foundation
import MediaMetadata
import MediaPlaces

/// A row of `assets`: the table and its columns.
///
/// Every statement on `assets` names its columns through `AssetRecord.Column`. The
/// columns of the asset's fields (and how metadata fills them) are declared once, in
/// the field table (`AssetFields`); the columns here are the ones other code names.
/// `AssetStore` is the only writer of the table.
enum AssetRecord {
    static let table = "assets"

    /// A column of `assets`, by name.
    struct Column: Hashable, Sendable, CustomStringConvertible {
        /// The column's name in SQL.
        let name: String
        init(_ name: String) { self.name = name }
        var description: String { name }

        static let id = Column("id"), identifier = Column("identifier"), fingerprint = Column("fingerprint")
        static let revision = Column("revision"), mediaType = Column("media_type"), subtypes = Column("subtypes")
        static let creationDate = Column("creation_date"), creationTimestamp = Column("creation_timestamp")
        static let pixelWidth = Column("pixel_width"), pixelHeight = Column("pixel_height")
        static let duration = Column("duration")
        static let latitude = Column("latitude"), longitude = Column("longitude"), altitude = Column("altitude")
        static let make = Column("make"), model = Column("model")
        static let burstIdentifier = Column("burst_identifier")
        static let embeddedVideoOffset = Column("embedded_video_offset")
        static let embeddedVideoLength = Column("embedded_video_length")
        static let embeddedVideoDuration = Column("embedded_video_duration")
        static let addedAt = Column("added_at"), modifiedAt = Column("modified_at")
        static let pairingRule = Column("pairing_rule"), isBurstRepresentative = Column("is_burst_representative")
        static let rating = Column("rating")
        /// Issue 31's place and local time (migration 0031).
        static let placeName = Column("place_name"), placeLocality = Column("place_locality")
        static let placeSubregion = Column("place_subregion"), placeRegion = Column("place_region")
        static let placeRegionCode = Column("place_region_code"), placeCountry = Column("place_country")
        static let placeCountryCode = Column("place_country_code"), placeGeonameID = Column("place_geoname_id")
        static let timeZone = Column("time_zone"), captureOffset = Column("capture_offset")
        static let captureOffsetSource = Column("capture_offset_source"), localTime = Column("local_time")
        static let placeColumns: [Column] = [.placeName, .placeLocality, .placeSubregion, .placeRegion,
                                             .placeRegionCode, .placeCountry, .placeCountryCode, .placeGeonameID]
        /// The describing fields (migration 0035); `keyword_key`/`people_key` hold their
        /// folded forms that filters match (`DescriptiveColumns`).
        static let keywords = Column("keywords"), keywordKey = Column("keyword_key"), title = Column("title")
        static let caption = Column("caption"), label = Column("label"), people = Column("people")
        static let peopleKey = Column("people_key"), creator = Column("creator"), copyright = Column("copyright")
        /// Set by the pairer: an edited rendering or adjustments file is a resource (migration 0014).
        static let hasAdjustments = Column("has_adjustments")
        /// Kept in step with the primary file (migration 0010's triggers; `PrimaryFileColumns` at insert).
        static let fileName = Column("file_name"), fileSize = Column("file_size"), format = Column("format")
        static let folderID = Column("folder_id")
        /// Generated: `coalesce(creation_timestamp, -1e300)`, the newest-first sort key.
        static let captureSort = Column("capture_sort")
        /// Generated: `coalesce(duration, -1)`.
        static let durationSort = Column("duration_sort")

        /// The change feed's name for a change of this column: its field's JSON name,
        /// else the column's name.
        var changedFieldName: String { AssetFields.fieldByColumn[self]?.rawValue ?? name }
    }

    /// The columns a public `Asset` is read from (`AssetQueries.asset(from:resources:)`),
    /// in the field table's order.
    static let assetColumns: [Column] = AssetFields.readColumns

    /// The columns a sidecar may set (see `SidecarAttacher`): XMP's date, place and
    /// describing fields (rating, keywords …), and a Sony clip XML's camera too.
    /// The place and local time follow from the date and position, so they are merged with them.
    static let sidecarColumns: [Column] = [.creationDate, .creationTimestamp, .localTime, .latitude, .longitude, .altitude,
                                           .make, .model, .rating, .keywords, .keywordKey, .title, .caption,
                                           .label, .people, .peopleKey, .creator, .copyright] + Column.placeColumns
        + [.timeZone, .captureOffset, .captureOffsetSource]

    /// The `assets` columns computed from a primary resource's metadata, with their values
    /// (the field table's `fill`s, in its order).
    struct MetadataValues {
        var values: [(Column, DatabaseValueConvertible)]

        /// - Parameter userTime: the user's offset or zone for the capture time ("adjust date
        ///   and time", user state), which wins over the file's.
        init(_ m: MediaMetadata, fileName: String? = nil, userTime: UserTimeSetting? = nil) {
            let source = AssetFields.MetadataSource(metadata: m, fileName: fileName, userTime: userTime)
            values = []
            values.reserveCapacity(Self.columns.count)
            for declaration in AssetFields.filledFromMetadata {
                for (column, value) in zip(declaration.columns, declaration.fill!(source)) {
                    values.append((column, value))
                }
            }
        }

        /// The columns metadata fills, in the order of `values`.
        static let columns = AssetFields.filledFromMetadata.flatMap(\.columns)

        /// The fields metadata fills with the range of `values` each holds.
        static let fieldRanges: [(field: Asset.Field, range: Range<Int>)] = {
            var start = 0
            return AssetFields.filledFromMetadata.map { declaration in
                defer { start += declaration.columns.count }
                return (declaration.field, start..<start + declaration.columns.count)
            }
        }()
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
