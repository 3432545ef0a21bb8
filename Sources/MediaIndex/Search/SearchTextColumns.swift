/// One column of the full-text index `asset_text`: its name, the SQL that computes its
/// words from an asset row (aliased `a`), and what the value is read from, so the
/// triggers that keep it current fire when a source changes.
///
/// Adding a searchable text field is one declaration in `SearchTextColumn.all` (plus a
/// `SearchField` naming it, for its `field:` term): the next writable open of a library
/// rebuilds `asset_text` and its triggers from the declarations.
struct SearchTextColumn: Sendable, Equatable {
    /// The FTS5 column's name, as `field:` terms filter on it.
    var name: String
    /// An SQL expression over the `assets` row `a` giving the column's text; wrap text in
    /// `search_words(…)` so CJK and compatibility forms are segmented as queries are.
    var expression: String
    /// The `assets` columns the expression reads: an update of one refreshes the row.
    var assetColumns: [String]
    /// Other tables the expression reads, each with its column holding `assets.id`: an
    /// insert, update or delete there refreshes that asset's row.
    var otherTables: [(table: String, assetIDColumn: String)] = []

    static func == (lhs: SearchTextColumn, rhs: SearchTextColumn) -> Bool {
        lhs.name == rhs.name && lhs.expression == rhs.expression && lhs.assetColumns == rhs.assetColumns
            && lhs.otherTables.map(\.table) == rhs.otherTables.map(\.table)
            && lhs.otherTables.map(\.assetIDColumn) == rhs.otherTables.map(\.assetIDColumn)
    }

    /// Every column of the index, in order. Free text searches all of them.
    static let all: [SearchTextColumn] = [
        SearchTextColumn(name: "name", expression: "search_words(a.file_name)", assetColumns: ["file_name"]),
        // Normalised as `mediaindex cameras` lists them (NIKON CORPORATION → Nikon).
        SearchTextColumn(
            name: "camera",
            expression: "search_words(coalesce(camera_make(a.make), '') || ' ' || coalesce(camera_model(a.make, a.model), ''))",
            assetColumns: ["make", "model"]),
        SearchTextColumn(name: "lens",
                         expression: "search_words(coalesce(a.lens_make, '') || ' ' || coalesce(a.lens_model, ''))",
                         assetColumns: ["lens_make", "lens_model"]),
        // The describing fields (keywords and people in their folded forms, no JSON).
        SearchTextColumn(name: "keywords", expression: "search_words(a.keyword_key)", assetColumns: ["keyword_key"]),
        SearchTextColumn(name: "people", expression: "search_words(a.people_key)", assetColumns: ["people_key"]),
        SearchTextColumn(name: "title", expression: "search_words(a.title)", assetColumns: ["title"]),
        SearchTextColumn(name: "caption", expression: "search_words(a.caption)", assetColumns: ["caption"]),
        SearchTextColumn(name: "creator", expression: "search_words(a.creator)", assetColumns: ["creator"]),
        SearchTextColumn(name: "copyright", expression: "search_words(a.copyright)", assetColumns: ["copyright"]),
    ]
}
