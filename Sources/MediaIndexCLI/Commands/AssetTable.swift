import MediaIndex
import MediaIndexInterface

/// The table `assets` and `search` print: a column per field of a selection, each column
/// naming the asset fields it shows. With `--fields` a column is one field, headed by its
/// JSON name and holding its JSON value; without, the table is `summary`, the same fields
/// as people read them, with the columns that combine fields (TYPE, PIXELS, CAMERA) or
/// show a resource's part (SIZE, FILE) declared beside the ones that show a field alone.
struct AssetTable {
    /// One column: its heading, the fields it shows and an asset's cell.
    struct Column {
        let heading: TableColumn
        /// The asset fields the cell is made of, in the field table's terms.
        let fields: [Asset.Field]
        let cell: (Asset) -> String
    }

    let columns: [Column]

    /// The fields the table shows, as a selection (`--fields` with their names gives their values).
    var selection: AssetFieldSelection { AssetFieldSelection(columns.flatMap(\.fields)) }

    /// `--fields`: one column per chosen field, in the field table's order.
    init(_ selection: AssetFieldSelection) {
        columns = selection.fields.map { field in
            Column(heading: TableColumn(field.rawValue), fields: [field]) { FieldsOption.cell(JSONShapes.field(field, of: $0)) }
        }
    }

    init(columns: [Column]) { self.columns = columns }

    /// Without `--fields`: id, type, capture date (as recorded), pixel size, file size,
    /// duration, camera and primary file.
    static var summary: AssetTable {
        let dates = LocalDateFormatter()
        let fixed = { (header: String, alignment: TableColumn.Alignment) in
            TableColumn(header, alignment: alignment, isTruncatable: false)
        }
        return AssetTable(columns: [
            Column(heading: fixed("ID", .left), fields: [.id]) { $0.id.description },
            Column(heading: fixed("TYPE", .left), fields: [.mediaType, .mediaSubtypes, .favorite, .hidden]) { a in
                var type = a.mediaSubtypes.contains(.livePhoto) ? "live" : a.mediaType.rawValue
                if a.isFavorite { type += " ♥" }
                if a.isHidden { type += " (hidden)" }
                return type
            },
            Column(heading: fixed("DATE", .left), fields: [.creationDate]) { a in
                a.captureTime.map(dates.string(asRecorded:)) ?? "-"
            },
            Column(heading: fixed("PIXELS", .right), fields: [.pixelWidth, .pixelHeight]) { a in
                a.pixelWidth.flatMap { w in a.pixelHeight.map { "\(w)×\($0)" } } ?? "-"
            },
            Column(heading: fixed("SIZE", .right), fields: [.resources]) { a in
                a.primaryResource.map { HumanReadable.byteCount($0.bytes) } ?? ""
            },
            Column(heading: fixed("DURATION", .right), fields: [.durationSeconds]) { a in
                a.duration.map { HumanReadable.duration(seconds: $0) } ?? ""
            },
            Column(heading: TableColumn("CAMERA"), fields: [.cameraMake, .cameraModel]) { a in
                [a.cameraMake, a.cameraModel].compactMap { $0 }.joined(separator: " ")
            },
            Column(heading: TableColumn("FILE", truncation: .middle), fields: [.resources]) { a in
                a.primaryResource?.path.displayString ?? ""
            },
        ])
    }

    /// The table of `assets`, fitted to `width` when it is a terminal's.
    func render(_ assets: [Asset], maxWidth width: Int?) -> String {
        let rows = assets.map { asset in columns.map { $0.cell(asset) } }
        return TableRenderer(columns: columns.map(\.heading)).render(rows, maxWidth: width)
    }
}
