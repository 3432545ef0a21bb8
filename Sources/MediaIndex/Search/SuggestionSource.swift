import CSQLite
import Foundation

/// Where suggestions of one kind come from: the values an asset has (a JSON array over
/// the asset row `{a}`, each element `j` turned into a value), the field their terms use,
/// and the asset columns they are read from.
///
/// The counts of every value are kept in `search_values`, in the writer's transaction,
/// as the text index is (`SearchTextIndex`): triggers add and remove an asset's values as
/// it is added, changed or removed, and a deferred bulk adds its new assets' values in one
/// grouped statement at its end. Suggestions then read a table of values, not every asset
/// (at 1 M assets with ten keywords each, grouping the keywords took 26 s).
struct SuggestionSource: Sendable {
    var kind: SearchSuggestion.Kind
    var field: String
    /// A JSON array of the asset `{a}`'s values, for `json_each`.
    var values: String
    /// One value from the element `j` (`j.value` for an array of text).
    var value = "j.value"
    /// The `assets` columns the values are read from.
    var assetColumns: [String]

    static let table = "search_values"

    static let all: [SuggestionSource] = [
        SuggestionSource(kind: .camera, field: "camera", values: "json_array(camera_make({a}.make))", assetColumns: ["make"]),
        SuggestionSource(kind: .camera, field: "camera", values: "json_array(camera_model({a}.make, {a}.model))",
                         assetColumns: ["make", "model"]),
        SuggestionSource(kind: .year, field: "date", values: "json_array(substr({a}.creation_date, 1, 4))",
                         assetColumns: ["creation_date"]),
        SuggestionSource(kind: .keyword, field: "keyword", values: "{a}.keywords", assetColumns: ["keywords"]),
        SuggestionSource(kind: .person, field: "person", values: "{a}.people", value: "json_extract(j.value, '$.name')",
                         assetColumns: ["people"]),
        SuggestionSource(kind: .place, field: "place", values: "json_array({a}.place_locality, {a}.place_region)",
                         assetColumns: ["place_locality", "place_region"]),
        SuggestionSource(kind: .place, field: "country", values: "json_array({a}.place_country)", assetColumns: ["place_country"]),
    ]

    /// The kind of suggestion a field's values are.
    static func kind(of field: String) -> SearchSuggestion.Kind? { all.first { $0.field == field }?.kind }

    /// The SQL of the JSON array of values of the asset `row` (`a`, `new`, `old`).
    private func array(of row: String) -> String { values.replacingOccurrences(of: "{a}", with: row) }

    /// One row per distinct value (folded) of the asset `row` (`new`, `old`): `folded`, `value`.
    private func valuesOf(_ row: String) -> String {
        """
            SELECT \(SuggestionCatalog.foldFunction)(v) AS folded, min(v) AS value
            FROM (SELECT \(value) AS v FROM json_each(\(array(of: row))) j) WHERE v IS NOT NULL AND v <> '' GROUP BY 1
            """
    }

    /// Adds one to each value of the asset `row`.
    private func added(_ row: String) -> String {
        "INSERT INTO \(Self.table) (field, folded, value, assets) SELECT '\(field)', folded, value, 1 FROM (\(valuesOf(row))) "
            + "WHERE true ON CONFLICT (field, folded) DO UPDATE SET assets = assets + 1;"
    }

    /// Takes one from each value of the asset `row`.
    private func removed(_ row: String) -> String {
        "UPDATE \(Self.table) SET assets = assets - 1 WHERE field = '\(field)' AND folded IN (SELECT folded FROM (\(valuesOf(row))));"
    }

    /// Every value of the assets whose id is above `?1`, with how many assets have it:
    /// `folded`, `value`, `assets`.
    var grouped: String {
        """
            SELECT folded, min(v) AS value, count(DISTINCT id) AS assets FROM (
                SELECT a.id AS id, \(value) AS v, \(SuggestionCatalog.foldFunction)(\(value)) AS folded
                FROM assets a, json_each(\(array(of: "a"))) j WHERE a.id > ?1)
            WHERE v IS NOT NULL AND v <> '' GROUP BY folded
            """
    }

    /// The counted values of the assets above `id`, by folded value: the first spelling in
    /// byte order (SQL's `min`) and how many assets have it, as `grouped` reads them. Counted
    /// in a dictionary here: `grouped` sorts every value (1.2 s for 50k assets with ten keywords).
    func valueCounts(above id: Int, db: DatabaseConnection) throws -> [String: (value: String, assets: Int)] {
        var counts: [String: (value: String, assets: Int)] = [:]
        var asset: Int64 = -1, seen: Set<String> = []
        do {
            try SQLiteRows.step("SELECT a.id, \(value) FROM assets a, json_each(\(array(of: "a"))) j WHERE a.id > ?1",
                                nil, Int64(id), db: db.handle) { row in
                guard sqlite3_column_type(row, 1) != SQLITE_NULL, let text = sqlite3_column_text(row, 1) else { return }
                let spelling = String(cString: text)
                guard !spelling.isEmpty else { return }
                let id = sqlite3_column_int64(row, 0)
                if id != asset { asset = id; seen.removeAll(keepingCapacity: true) }
                let folded = SuggestionCatalog.fold(spelling)
                let first = seen.insert(folded).inserted
                if let known = counts[folded] {
                    let value = spelling.utf8.lexicographicallyPrecedes(known.value.utf8) ? spelling : known.value
                    counts[folded] = (value, known.assets + (first ? 1 : 0))
                } else {
                    counts[folded] = (spelling, 1)
                }
            }
        } catch {
            throw DatabaseError(extendedCode: SQLITE_ERROR, message: "reading the \(field) values: " + error.message, path: db.path)
        }
        return counts
    }

    /// Adds counted values, each to its row (made at its first asset).
    private static let adding = "INSERT INTO \(table) (field, folded, value, assets) VALUES (?, ?, ?, ?) "
        + "ON CONFLICT (field, folded) DO UPDATE SET assets = assets + excluded.assets"

    /// The table and the triggers that keep it, for `SearchTextIndex.createStatements()`:
    /// `kept(id)` is the SQL that holds when the triggers keep asset `id` (not deferred).
    static func createStatements(kept: (String) -> String) -> [String] {
        var statements = [
            "CREATE TABLE \(table) (field TEXT NOT NULL, folded TEXT NOT NULL, value TEXT NOT NULL, "
                + "assets INTEGER NOT NULL, PRIMARY KEY (field, folded)) WITHOUT ROWID",
        ]
        for (number, source) in all.enumerated() {
            let columns = source.assetColumns
            let changed = columns.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
            let name = "search_text_values_\(number)"
            statements += [
                "CREATE TRIGGER \(name)_inserted AFTER INSERT ON assets WHEN \(kept("new.id")) BEGIN \(source.added("new")) END",
                "CREATE TRIGGER \(name)_deleted BEFORE DELETE ON assets WHEN \(kept("old.id")) BEGIN \(source.removed("old")) END",
                "CREATE TRIGGER \(name)_updated AFTER UPDATE OF \(columns.joined(separator: ", ")) ON assets "
                    + "WHEN (\(changed)) AND \(kept("old.id")) BEGIN \(source.removed("old")) \(source.added("new")) END",
            ]
        }
        return statements
    }

    /// Adds the values of the assets above `id`: at the end of a deferred bulk, and every
    /// asset's (above 0) when the index is built.
    static func addAssets(above id: Int, db: DatabaseConnection) throws {
        guard try db.hasTable(table) else { return }
        for source in all {
            for (folded, counted) in try source.valueCounts(above: id, db: db) {
                try db.execute(adding, [source.field, folded, counted.value, counted.assets])
            }
        }
    }
}
