import Foundation
import MediaMetadata
import MediaPlaces

// The field table: every field of the asset shape declared once, with its column(s),
// its `Asset` property, its `Asset.Field` (the JSON key and change-feed name), how it is
// read from a row, how a file's metadata fills it, how the shape writes it and the sort
// key that orders by it. `Asset`'s reading from rows, the query's column list, the
// metadata columns the indexer writes, the change feed's names and the JSON shape
// (`JSONShapes.asset`, CLI and HTTP) and the names `--fields` and HTTP `fields=` take
// (`AssetFieldSelection`) are all derived from `AssetFields.all`.
//
// Adding a field: a property of `Asset`, an `Asset.Field` constant and an entry below
// (in the place its JSON key goes), a migration adding its column, and the parser in
// `MediaMetadata` that fills the `MediaMetadata` property its entry reads.

extension Asset.Field {
    /// `id`.
    public static let id = Self(rawValue: "id")
    /// `mediaType`.
    public static let mediaType = Self(rawValue: "mediaType")
    /// `mediaSubtypes`.
    public static let mediaSubtypes = Self(rawValue: "mediaSubtypes")
    /// `creationDate`.
    public static let creationDate = Self(rawValue: "creationDate")
    /// `pixelWidth`.
    public static let pixelWidth = Self(rawValue: "pixelWidth")
    /// `pixelHeight`.
    public static let pixelHeight = Self(rawValue: "pixelHeight")
    /// `orientation`.
    public static let orientation = Self(rawValue: "orientation")
    /// `durationSeconds`.
    public static let durationSeconds = Self(rawValue: "durationSeconds")
    /// `frameRate`.
    public static let frameRate = Self(rawValue: "frameRate")
    /// `location`.
    public static let location = Self(rawValue: "location")
    /// `place`: locality, regions and country of `location`.
    public static let place = Self(rawValue: "place")
    /// `timeZone`: the IANA zone of `location`.
    public static let timeZone = Self(rawValue: "timeZone")
    /// `captureOffset`: the capture time's UTC offset, `+09:00`.
    public static let captureOffset = Self(rawValue: "captureOffset")
    /// `captureOffsetSource`: where `captureOffset` came from.
    public static let captureOffsetSource = Self(rawValue: "captureOffsetSource")
    /// `make`.
    public static let make = Self(rawValue: "make")
    /// `model`.
    public static let model = Self(rawValue: "model")
    /// `lensModel`.
    public static let lensModel = Self(rawValue: "lensModel")
    /// `cameraMake`: derived from `make`.
    public static let cameraMake = Self(rawValue: "cameraMake")
    /// `cameraModel`: derived from `model` and `make`.
    public static let cameraModel = Self(rawValue: "cameraModel")
    /// `contentIdentifier`.
    public static let contentIdentifier = Self(rawValue: "contentIdentifier")
    /// `burstIdentifier`.
    public static let burstIdentifier = Self(rawValue: "burstIdentifier")
    /// `resources`.
    public static let resources = Self(rawValue: "resources")
    /// `paths`: every path of the primary file when it has more than one (hard links, views).
    public static let paths = Self(rawValue: "paths")
    /// `software`.
    public static let software = Self(rawValue: "software")
    /// `lensMake`.
    public static let lensMake = Self(rawValue: "lensMake")
    /// `focalLength`.
    public static let focalLength = Self(rawValue: "focalLength")
    /// `fNumber`.
    public static let fNumber = Self(rawValue: "fNumber")
    /// `exposureTime`.
    public static let exposureTime = Self(rawValue: "exposureTime")
    /// `iso`.
    public static let iso = Self(rawValue: "iso")
    /// `flash`.
    public static let flash = Self(rawValue: "flash")
    /// `videoCodec`.
    public static let videoCodec = Self(rawValue: "videoCodec")
    /// `hasAudio`.
    public static let hasAudio = Self(rawValue: "hasAudio")
    /// `revision`: the primary content changed.
    public static let revision = Self(rawValue: "revision")
    /// `addedDate`.
    public static let addedDate = Self(rawValue: "addedDate")
    /// `modificationDate`.
    public static let modificationDate = Self(rawValue: "modificationDate")
    /// `pairingRule`.
    public static let pairingRule = Self(rawValue: "pairingRule")
    /// `embeddedVideo`.
    public static let embeddedVideo = Self(rawValue: "embeddedVideo")
    /// `favorite` (user state).
    public static let favorite = Self(rawValue: "favorite")
    /// `hidden` (user state).
    public static let hidden = Self(rawValue: "hidden")
    /// `albums` (user state).
    public static let albums = Self(rawValue: "albums")
    /// `rating`.
    public static let rating = Self(rawValue: "rating")
    /// `keywords`: a set of paths.
    public static let keywords = Self(rawValue: "keywords")
    /// `title`.
    public static let title = Self(rawValue: "title")
    /// `caption`.
    public static let caption = Self(rawValue: "caption")
    /// `label`: the colour label.
    public static let label = Self(rawValue: "label")
    /// `people`: names, with face rectangles where given.
    public static let people = Self(rawValue: "people")
    /// `creator`.
    public static let creator = Self(rawValue: "creator")
    /// `copyright`.
    public static let copyright = Self(rawValue: "copyright")
    /// `userDescribed`: the fields whose value is the user's own (user state).
    public static let userDescribed = Self(rawValue: "userDescribed")
    /// `hasAdjustments`: an edit or adjustments file came or went.
    public static let hasAdjustments = Self(rawValue: "hasAdjustments")
    /// `adjustments`.
    public static let adjustments = Self(rawValue: "adjustments")
    /// `playbackStyle`: derived from the type and subtypes.
    public static let playbackStyle = Self(rawValue: "playbackStyle")
    /// `takeoutTitle`.
    public static let takeoutTitle = Self(rawValue: "takeoutTitle")
    /// `takeoutDescription`.
    public static let takeoutDescription = Self(rawValue: "takeoutDescription")
}

/// The fields of the asset shape, in the order the JSON writes them.
package enum AssetFields {
    typealias Column = AssetRecord.Column

    /// The table. Its order is the JSON's key order and the change feed's field order.
    package static let all: [Asset.FieldDeclaration] = [
        .init(.id, columns: [.identifier], read: { a, v in a.id = Asset.ID(stored: v[0].text ?? "") },
              value: { .string($0.id.description) }),
        .init(.mediaType, columns: [.mediaType],
              read: { a, v in a.mediaType = MediaType(rawValue: v[0].text ?? "") ?? .image },
              fill: { [$0.metadata.format.mediaType.rawValue] }, value: { .string($0.mediaType.rawValue) }),
        .init(.mediaSubtypes, columns: [.subtypes], read: { a, v in a.mediaSubtypes = MediaSubtypes(stored: v[0].int) },
              fill: { [MediaSubtypes(inferredFrom: $0.metadata, fileName: $0.fileName).rawValue] },
              value: { .array($0.mediaSubtypes.names.map(Asset.FieldValue.string)) }),
        // Written with the resolved offset; `local_time` is the wall clock days are taken from.
        .init(.creationDate, columns: [.creationDate, .creationTimestamp, .localTime], readCount: 1,
              read: { a, v in a.captureTime = v[0].text.flatMap(CaptureDate.init(recordedText:)).map(CaptureTime.init) },
              fill: { [$0.capture.creationDateText, $0.capture.time?.instant.timeIntervalSince1970,
                       $0.capture.time?.wallClockSeconds] },
              value: { .init($0.captureTime?.iso8601) }, sort: (.captureDate, .captureSort)),
        .init(.captureOffset, columns: [.captureOffset], read: { a, v in a.captureTime?.offsetSeconds = v[0].int },
              fill: { [$0.capture.time?.offsetSeconds] },
              value: { a in a.captureTime?.offsetSeconds.map { .string(CaptureResolution.offsetText($0)) } ?? .null },
              omittedWhenEmpty: true),
        .init(.captureOffsetSource, columns: [.captureOffsetSource],
              read: { a, v in a.captureOffsetSource = v[0].text.flatMap(CaptureOffsetSource.init(rawValue:)) },
              fill: { [($0.capture.time?.source ?? .none).rawValue] },
              value: { .init($0.captureOffsetSource?.rawValue) }),
        .init(.pixelWidth, Column.pixelWidth, \.pixelWidth, fill: { $0.displaySize?.width }),
        .init(.pixelHeight, Column.pixelHeight, \.pixelHeight, fill: { $0.displaySize?.height }),
        .init(.orientation, Column("orientation"), \.orientation, fill: { $0.metadata.orientation ?? 1 }),
        // A length below zero (a hostile header's) is none: `duration_sort`'s -1 then stands
        // for "no length" alone, and `duration:` terms read its index from 0.
        .init(.durationSeconds, Column.duration, \.duration, fill: { $0.metadata.durationSeconds.flatMap { $0 >= 0 ? $0 : nil } },
              sort: (.duration, .durationSort)),
        .init(.frameRate, Column("frame_rate"), \.frameRate, metadata: \.frameRate),
        .init(.location, columns: [.latitude, .longitude, .altitude], read: { a, v in
            a.location = v[0].double.flatMap { lat in
                v[1].double.map { GeoLocation(latitude: lat, longitude: $0, altitude: v[2].double) }
            }
        }, fill: { [$0.metadata.location?.latitude, $0.metadata.location?.longitude, $0.metadata.location?.altitude] },
              value: { a in a.location.map { .object([("latitude", .double($0.latitude)),
                                                       ("longitude", .double($0.longitude)),
                                                       ("altitude", .init($0.altitude))]) } ?? .null }),
        .init(.place, columns: AssetRecord.Column.placeColumns, read: { a, v in a.place = Place(stored: v) },
              fill: { $0.capture.placeValues }, value: { $0.place?.fieldValue ?? .null }, omittedWhenEmpty: true),
        .init(.timeZone, Column.timeZone, \.timeZone, fill: { $0.capture.lookup?.timeZone }, omittedWhenEmpty: true),
        .init(.make, Column("make"), \.make, metadata: \.make),
        .init(.model, Column("model"), \.model, metadata: \.model),
        .init(.lensModel, Column("lens_model"), \.lensModel, metadata: \.lensModel),
        .init(.cameraMake, value: { .init($0.cameraMake) }),
        .init(.cameraModel, value: { .init($0.cameraModel) }),
        .init(.contentIdentifier, Column("content_identifier"), \.contentIdentifier, metadata: \.contentIdentifier),
        // Apple's maker note names the burst; else Pixel, Sony and Huawei names do.
        .init(.burstIdentifier, Column.burstIdentifier, \.burstIdentifier, fill: { source in
            source.metadata.burstIdentifier ?? source.fileName.flatMap(NameLayout.burst(ofFileName:))?.identifier
        }),
        .init(.resources, value: { .array($0.resources.map(\.fieldValue)) }),
        .init(.paths, value: { a in
            a.paths.count > 1 ? .array(a.paths.map { .string($0.displayString) }) : .null
        }, omittedWhenEmpty: true),
        .init(.software, Column("software"), \.software, metadata: \.software),
        .init(.lensMake, Column("lens_make"), \.lensMake, metadata: \.lensMake),
        .init(.focalLength, Column("focal_length"), \.focalLength, metadata: \.focalLength),
        .init(.fNumber, Column("f_number"), \.fNumber, metadata: \.fNumber),
        .init(.exposureTime, Column("exposure_time"), \.exposureTime, metadata: \.exposureTime),
        .init(.iso, Column("iso"), \.iso, metadata: \.iso),
        .init(.flash, Column("flash"), \.flash, metadata: \.flash),
        .init(.videoCodec, Column("video_codec"), \.videoCodec, metadata: \.videoCodec),
        .init(.hasAudio, Column("has_audio"), \.hasAudio, metadata: \.hasAudio),
        .init(.revision, columns: [.revision], read: { a, v in a.revision = v[0].int ?? 1 },
              value: { .int($0.revision) }),
        .init(.addedDate, columns: [.addedAt], read: { a, v in a.addedDate = Date(timeIntervalSince1970: v[0].double ?? 0) },
              value: { .date($0.addedDate) }, sort: (.addedDate, .addedAt)),
        .init(.modificationDate, columns: [.modifiedAt],
              read: { a, v in a.modificationDate = Date(timeIntervalSince1970: v[0].double ?? 0) },
              value: { .date($0.modificationDate) }, sort: (.modificationDate, .modifiedAt)),
        .init(.pairingRule, Column.pairingRule, \.pairingRule),
        .init(.embeddedVideo, columns: [.embeddedVideoOffset, .embeddedVideoLength, .embeddedVideoDuration],
              read: { a, v in
                  a.embeddedVideo = v[0].int64.map {
                      EmbeddedVideo(offset: $0, length: v[1].int64 ?? 0, duration: v[2].double)
                  }
              }, fill: { source in
                  let video = source.metadata.motionPhoto
                  return [video.map { Int64(clamping: $0.videoOffset) }, video.map { Int64(clamping: $0.videoLength) },
                          video?.videoDurationSeconds]
              }, value: { a in a.embeddedVideo.map { v in
                  .object([("offset", .int(Int(v.offset))), ("length", .int(Int(v.length))),
                           ("durationSeconds", .init(v.duration))])
              } ?? .null }),
        .init(.favorite, value: { .bool($0.isFavorite) }),
        .init(.hidden, value: { .bool($0.isHidden) }),
        .init(.albums, value: { .array($0.albums.map { .string($0.userAlbumIdentifier ?? $0.description) }) }),
        .init(.rating, Column.rating, \.rating, metadata: \.rating),
        .init(.keywords, columns: [.keywords, .keywordKey], readCount: 1,
              read: { a, v in a.keywords = DescriptiveColumns.decode([String].self, v[0].text) ?? [] },
              fill: { DescriptiveColumns.keywordValues($0.metadata.descriptive?.keywords ?? []) },
              value: { $0.keywords.isEmpty ? .null : .array($0.keywords.map(Asset.FieldValue.string)) }, omittedWhenEmpty: true),
        .init(.title, Column.title, \.title, fill: { $0.metadata.descriptive?.title }, omittedWhenEmpty: true),
        .init(.caption, Column.caption, \.caption, fill: { $0.metadata.descriptive?.caption }, omittedWhenEmpty: true),
        .init(.label, Column.label, \.label, fill: { $0.metadata.descriptive?.label }, omittedWhenEmpty: true),
        .init(.people, columns: [.people, .peopleKey], readCount: 1,
              read: { a, v in a.people = DescriptiveColumns.decode([PersonInImage].self, v[0].text) ?? [] },
              fill: { DescriptiveColumns.peopleValues($0.metadata.descriptive?.people ?? []) },
              value: { $0.people.isEmpty ? .null : .array($0.people.map(\.fieldValue)) }, omittedWhenEmpty: true),
        .init(.creator, Column.creator, \.creator, fill: { $0.metadata.descriptive?.creator }, omittedWhenEmpty: true),
        .init(.copyright, Column.copyright, \.copyright, fill: { $0.metadata.descriptive?.copyright }, omittedWhenEmpty: true),
        .init(.userDescribed, value: { $0.userDescribed.isEmpty ? .null : .array($0.userDescribed.map { .string($0.rawValue) }) },
              omittedWhenEmpty: true),
        .init(.hasAdjustments, columns: [.hasAdjustments], read: { a, v in a.hasAdjustments = (v[0].int ?? 0) != 0 },
              value: { .bool($0.hasAdjustments) }),
        .init(.adjustments, value: { a in a.adjustments.map { adjustment in
            .object([("formatIdentifier", .init(adjustment.formatIdentifier)),
                     ("formatVersion", .init(adjustment.formatVersion)),
                     ("editorBundleID", .init(adjustment.editorBundleID)),
                     ("date", adjustment.date.map(Asset.FieldValue.date) ?? .null)])
        } ?? .null }),
        .init(.playbackStyle, value: { .string($0.playbackStyle.rawValue) }),
        .init(.takeoutTitle, value: { .init($0.takeoutTitle) }),
        .init(.takeoutDescription, value: { .init($0.takeoutDescription) }),
    ]

    /// What a fill reads: the primary file's metadata and its name.
    struct MetadataSource {
        let metadata: MediaMetadata
        let fileName: String?
        /// The size as displayed, after orientation.
        let displaySize: (width: Int, height: Int)?
        /// The place of its position and its capture time resolved.
        let capture: CaptureResolution

        /// - Parameter places: asked only for a file with a position (so a run that reads no
        ///   located file never opens the places data).
        init(metadata: MediaMetadata, fileName: String?, places: @autoclosure () -> PlacesData? = IndexPlaces.data,
             userTime: UserTimeSetting? = nil) {
            self.metadata = metadata
            self.fileName = fileName
            displaySize = metadata.displaySize
            capture = CaptureResolution(metadata: metadata, places: places(), userTime: userTime)
        }
    }

    /// The fields stored in `assets`, each with the position in `readColumns` of its first column.
    static let stored: [(declaration: Asset.FieldDeclaration, position: Int)] = {
        var position = 0
        return all.filter { $0.read != nil }.map { declaration in
            defer { position += declaration.readCount }
            return (declaration, position)
        }
    }()

    /// The columns `Asset`s are read from, in the order `read` takes them.
    static let readColumns: [Column] = stored.flatMap { $0.declaration.columns.prefix($0.declaration.readCount) }

    /// The fields a primary file's metadata fills, in the table's order.
    static let filledFromMetadata = all.filter { $0.fill != nil }

    /// The field each stored column belongs to.
    static let fieldByColumn: [Column: Asset.Field] = Dictionary(
        all.flatMap { declaration in declaration.columns.map { ($0, declaration.field) } },
        uniquingKeysWith: { first, _ in first })

    /// The column each sort key of a field orders by.
    static let sortColumns: [AssetSortKey: Column] = Dictionary(
        all.compactMap { $0.sort }.map { ($0.key, $0.column) }, uniquingKeysWith: { first, _ in first })

    /// The declaration of a field, by its JSON name.
    package static let byField: [Asset.Field: Asset.FieldDeclaration] = Dictionary(
        all.map { ($0.field, $0) }, uniquingKeysWith: { first, _ in first })

    /// An asset read from a row whose values from `offset` on are `readColumns`.
    static func asset(from row: Row, offset: Int, resources: [AssetResource]) -> Asset {
        var asset = Asset(resources: resources)
        for (declaration, position) in stored {
            declaration.read!(&asset, RowValues(row: row, start: offset + position))
        }
        return asset
    }
}

extension Asset {
    /// A field's value as the asset shape writes it (the JSON the CLI prints and HTTP serves).
    package indirect enum FieldValue: Sendable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        /// A moment, written as ISO 8601 UTC to the millisecond.
        case date(Date)
        case array([FieldValue])
        case object([(String, FieldValue)])

        init(_ value: String?) { self = value.map(FieldValue.string) ?? .null }
        init(_ value: Double?) { self = value.map(FieldValue.double) ?? .null }
    }

    /// One field of the asset shape, declared once (see `AssetFields.all`).
    package struct FieldDeclaration: Sendable {
        /// The field: its JSON key and its change-feed name.
        package let field: Field
        /// The `assets` columns it is stored in; none for a field kept elsewhere (resources,
        /// user state, Takeout JSON) or derived from others.
        let columns: [AssetRecord.Column]
        /// How many of `columns`, from the first, `read` takes.
        let readCount: Int
        /// Sets the field from the values of its columns.
        let read: (@Sendable (inout Asset, RowValues) -> Void)?
        /// The values of `columns` a primary file's metadata gives; nil when the index
        /// does not fill it from metadata (pairing, sidecars or the user do).
        let fill: (@Sendable (AssetFields.MetadataSource) -> [DatabaseValueConvertible])?
        /// How the asset shape writes it.
        package let value: @Sendable (Asset) -> FieldValue
        /// The sort key that orders by it, and the column that key sorts on.
        let sort: (key: AssetSortKey, column: AssetRecord.Column)?
        /// The JSON leaves the key out when the value is null (the describing fields, place and
        /// local time).
        package let omittedWhenEmpty: Bool

        /// A field stored in `columns`.
        init(_ field: Field, columns: [AssetRecord.Column] = [], readCount: Int? = nil,
             read: (@Sendable (inout Asset, RowValues) -> Void)? = nil,
             fill: (@Sendable (AssetFields.MetadataSource) -> [DatabaseValueConvertible])? = nil,
             value: @escaping @Sendable (Asset) -> FieldValue,
             sort: (key: AssetSortKey, column: AssetRecord.Column)? = nil, omittedWhenEmpty: Bool = false) {
            self.field = field
            self.omittedWhenEmpty = omittedWhenEmpty
            self.columns = columns
            self.readCount = readCount ?? columns.count
            self.read = read
            self.fill = fill
            self.value = value
            self.sort = sort
        }

        /// A field of one column holding an optional `Asset` property, filled by `fill`.
        init<Value: AssetColumnValue>(_ field: Field, _ column: AssetRecord.Column,
                                      _ property: WritableKeyPath<Asset, Value?> & Sendable,
                                      fill: (@Sendable (AssetFields.MetadataSource) -> Value?)? = nil,
                                      sort: (key: AssetSortKey, column: AssetRecord.Column)? = nil,
                                      omittedWhenEmpty: Bool = false) {
            let read: @Sendable (inout Asset, RowValues) -> Void = { asset, values in
                asset[keyPath: property] = Value(stored: values[0])
            }
            var fillColumn: (@Sendable (AssetFields.MetadataSource) -> [DatabaseValueConvertible])?
            if let fill {
                fillColumn = { source in [fill(source)] }
            }
            let value: @Sendable (Asset) -> Asset.FieldValue = { asset in asset[keyPath: property]?.fieldValue ?? .null }
            self.init(field, columns: [column], read: read, fill: fillColumn, value: value, sort: sort,
                      omittedWhenEmpty: omittedWhenEmpty)
        }

        /// A field of one column holding an optional `Asset` property, copied from the
        /// `MediaMetadata` property the parsers fill.
        init<Value: AssetColumnValue>(_ field: Field, _ column: AssetRecord.Column,
                                      _ property: WritableKeyPath<Asset, Value?> & Sendable,
                                      metadata: KeyPath<MediaMetadata, Value?> & Sendable,
                                      sort: (key: AssetSortKey, column: AssetRecord.Column)? = nil) {
            self.init(field, column, property, fill: { $0.metadata[keyPath: metadata] }, sort: sort)
        }
    }
}

/// The values of one field's columns in a row.
struct RowValues {
    let row: Row
    let start: Int
    subscript(_ index: Int) -> DatabaseValue { row[start + index] }
}

/// A Swift type a field's single column holds.
protocol AssetColumnValue: DatabaseValueConvertible, Sendable {
    /// The value a column holds; nil for NULL (or a value of another type).
    init?(stored: DatabaseValue)
    /// As the asset shape writes it.
    var fieldValue: Asset.FieldValue { get }
}

extension String: AssetColumnValue {
    init?(stored: DatabaseValue) { guard let text = stored.text else { return nil }; self = text }
    var fieldValue: Asset.FieldValue { .string(self) }
}

extension Int: AssetColumnValue {
    init?(stored: DatabaseValue) { guard let value = stored.int else { return nil }; self = value }
    var fieldValue: Asset.FieldValue { .int(self) }
}

extension Double: AssetColumnValue {
    init?(stored: DatabaseValue) { guard let value = stored.double else { return nil }; self = value }
    var fieldValue: Asset.FieldValue { .double(self) }
}

extension Bool: AssetColumnValue {
    init?(stored: DatabaseValue) { guard let value = stored.int else { return nil }; self = value != 0 }
    var fieldValue: Asset.FieldValue { .bool(self) }
}

extension PairingRule: AssetColumnValue {
    init?(stored: DatabaseValue) { self.init(stored: stored.text) }
    var fieldValue: Asset.FieldValue { .string(rawValue) }
}

extension MediaSubtypes {
    /// The named subtypes of a stored bit set.
    init(stored: Int?) {
        let named = Self.names.reduce(into: MediaSubtypes()) { $0.insert($1.0) }
        self = MediaSubtypes(rawValue: stored ?? 0).intersection(named)
    }
}

extension Place {
    /// A place read back from its columns (`AssetRecord.Column.placeColumns`); nil when it has no name.
    init?(stored v: RowValues) {
        guard let name = v[0].text else { return nil }
        self.init(name: name, locality: v[1].text, subregion: v[2].text, region: v[3].text, regionCode: v[4].text,
                  country: v[5].text, countryCode: v[6].text, geonameId: v[7].int)
    }

    /// The place as the asset shape writes it, its empty levels left out.
    package var fieldValue: Asset.FieldValue {
        let members: [(String, Asset.FieldValue?)] = [
            ("name", .string(name)), ("locality", locality.map(Asset.FieldValue.string)),
            ("subregion", subregion.map(Asset.FieldValue.string)), ("region", region.map(Asset.FieldValue.string)),
            ("regionCode", regionCode.map(Asset.FieldValue.string)), ("country", country.map(Asset.FieldValue.string)),
            ("countryCode", countryCode.map(Asset.FieldValue.string)), ("geonameId", geonameId.map(Asset.FieldValue.int)),
        ]
        return .object(members.compactMap { key, value in value.map { (key, $0) } })
    }
}

extension AssetResource {
    /// The resource as the asset shape writes it: role, path, size, content type, and
    /// the path's exact bytes in base64 when they are not UTF-8.
    package var fieldValue: Asset.FieldValue {
        var members: [(String, Asset.FieldValue)] = [
            ("role", .string(type.rawValue)), ("path", .string(path.displayString)), ("bytes", .int(Int(bytes))),
            ("contentType", .init(uniformType?.preferredMIMEType)),
        ]
        // A name that is not UTF-8 cannot be a JSON string; its exact bytes ride along.
        if !path.isValidUTF8 { members.append(("pathBase64", .string(Data(path.bytes).base64EncodedString()))) }
        return .object(members)
    }
}
