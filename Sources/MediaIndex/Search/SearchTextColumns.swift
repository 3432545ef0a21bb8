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
    /// Whether free text (words without a `field:`) searches it; the `kind` column holds
    /// tokens for counting, not words anyone wrote.
    var freeText = true

    static func == (lhs: SearchTextColumn, rhs: SearchTextColumn) -> Bool {
        lhs.name == rhs.name && lhs.expression == rhs.expression && lhs.assetColumns == rhs.assetColumns
            && lhs.otherTables.map(\.table) == rhs.otherTables.map(\.table)
            && lhs.otherTables.map(\.assetIDColumn) == rhs.otherTables.map(\.assetIDColumn) && lhs.freeText == rhs.freeText
    }

    /// The FTS5 column filter free text uses: every column but those not `freeText`.
    static let freeTextFilter: String = {
        let others = all.filter { !$0.freeText }.map(\.name)
        return others.isEmpty ? "" : "- {" + others.joined(separator: " ") + "} : "
    }()

    static let placeColumns = ["place_name", "place_locality", "place_subregion", "place_region", "place_country"]

    /// Every column of the index, in order. Free text searches all but `kind`.
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
        // The place the position lies in, every level (kept current when places are refilled).
        SearchTextColumn(
            name: "place",
            expression: "search_words(" + placeColumns.map { "coalesce(a.\($0), '')" }.joined(separator: " || ' ' || ") + ")",
            assetColumns: placeColumns),
        // Each keyword level one word that no stemming changes, so `keyword:` is an exact
        // phrase of the text index (`DescriptiveColumns.keywordLevelWords`); not free text.
        SearchTextColumn(name: "keyword_levels", expression: "keyword_levels(a.keyword_key)", assetColumns: ["keyword_key"],
                         freeText: false),
        // What a count splits and leaves out, so a count of words reads only the index:
        // `kvideo` for a video, `kmember` for a burst frame that does not stand for its burst.
        SearchTextColumn(
            name: "kind",
            expression: "CASE WHEN a.media_type = 'video' THEN 'kvideo' ELSE '' END"
                + " || CASE WHEN a.is_burst_representative = 0 THEN ' kmember' ELSE '' END",
            assetColumns: ["is_burst_representative", "media_type"], freeText: false),
    ]
}
