import CSQLite
import Foundation

/// The FTS5 table `asset_text` (one row per asset, `rowid` = `assets.id`) and the
/// triggers that keep it in the writer's own transaction, generated from
/// `SearchTextColumn.all`.
///
/// Folding: the tokenizer lowercases, removes diacritics (`Zürich` = `zurich`) and
/// reduces English word forms (porter: `running` = `run`); `search_words` first maps
/// compatibility forms (full-width letters, ligatures) with NFKC and spaces out every
/// CJK character, so Chinese and Japanese text, written without spaces, is matched as
/// character n-grams: a query's CJK run becomes a phrase of its characters.
enum SearchTextIndex {
    static let table = "asset_text"
    static let tokenizer = "porter unicode61 remove_diacritics 2"

    /// What the generated schema is built from; stored in `search_text_schema`.
    static var signature: String {
        (["v1", tokenizer] + SearchTextColumn.all.map { column in
            ([column.name, column.expression] + column.assetColumns
                + column.otherTables.map { "\($0.table).\($0.assetIDColumn)" }).joined(separator: "\u{1F}")
        }).joined(separator: "\u{1E}")
    }

    /// Whether `db` lacks the index this build declares (or has another's).
    static func isBehind(_ db: DatabaseConnection) throws -> Bool {
        guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'search_text_schema'") == 1 else {
            return false  // migration 0028 not applied yet: the migrator is behind and installs it after
        }
        return try db.row("SELECT signature FROM search_text_schema")?.string("signature") != signature
    }

    /// Builds `asset_text` and its triggers when the stored signature differs from this
    /// build's, filling it from every asset, in one transaction; writes nothing when current.
    ///
    /// - Throws: `DatabaseError` when a statement fails (the database stays as it was).
    static func install(_ db: DatabaseConnection) throws {
        guard try isBehind(db) else { return }
        try db.execute("BEGIN IMMEDIATE")
        do {
            for statement in try dropStatements(db) + createStatements() { try db.execute(statement) }
            try db.execute("DELETE FROM search_text_schema")
            try db.execute("INSERT INTO search_text_schema (signature) VALUES (?)", [signature])
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    private static func dropStatements(_ db: DatabaseConnection) throws -> [String] {
        let triggers = try db.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_text_%'")
            .compactMap { $0.string("name") }
        return triggers.map { "DROP TRIGGER \($0)" } + ["DROP TABLE IF EXISTS \(table)"]
    }

    /// The table, the triggers, and the statement filling the table from every asset.
    static func createStatements() -> [String] {
        let columns = SearchTextColumn.all
        let names = columns.map(\.name).joined(separator: ", ")
        let select = "SELECT a.id, " + columns.map(\.expression).joined(separator: ", ") + " FROM assets a"
        func refresh(_ id: String) -> String {
            "DELETE FROM \(table) WHERE rowid = \(id); INSERT INTO \(table) (rowid, \(names)) \(select) WHERE a.id = \(id);"
        }
        let assetColumns = Array(Set(columns.flatMap(\.assetColumns))).sorted().joined(separator: ", ")
        var statements = [
            "CREATE VIRTUAL TABLE \(table) USING fts5(\(names), tokenize = '\(tokenizer)', columnsize = 0)",
            "CREATE TRIGGER search_text_asset_inserted AFTER INSERT ON assets BEGIN INSERT INTO \(table) (rowid, \(names)) \(select) WHERE a.id = new.id; END",
            "CREATE TRIGGER search_text_asset_deleted AFTER DELETE ON assets BEGIN DELETE FROM \(table) WHERE rowid = old.id; END",
            "CREATE TRIGGER search_text_asset_updated AFTER UPDATE OF \(assetColumns) ON assets BEGIN \(refresh("new.id")) END",
        ]
        for (table, column) in columns.flatMap(\.otherTables) {
            statements += [
                "CREATE TRIGGER search_text_\(table)_inserted AFTER INSERT ON \(table) BEGIN \(refresh("new.\(column)")) END",
                "CREATE TRIGGER search_text_\(table)_deleted AFTER DELETE ON \(table) BEGIN \(refresh("old.\(column)")) END",
                "CREATE TRIGGER search_text_\(table)_updated AFTER UPDATE ON \(table) BEGIN \(refresh("old.\(column)")) \(refresh("new.\(column)")) END",
            ]
        }
        statements.append("INSERT INTO \(table) (rowid, \(names)) \(select)")
        return statements
    }

    /// Merges the text index's segments into one after a run that changed much of the
    /// library (a first index, a large import): a search then asks one segment, not dozens,
    /// about each asset (a common word's first page took 6.3 ms of CPU at 100k assets
    /// before, 1.1 ms after; the merge took 0.15 s). Small runs leave it to FTS5's own merging.
    static func tidy(_ db: DatabaseConnection, changed: Int) throws {
        guard changed >= 500, let total = try db.scalarInt("SELECT count(*) FROM assets"), changed * 20 >= total,
              try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = ?", [table]) == 1 else { return }
        try db.execute("INSERT INTO \(table) (\(table)) VALUES ('optimize')")
    }

    // MARK: - Words

    /// Text as the index stores it: NFKC, every CJK character a word of its own, and
    /// letters and digits that touch split apart (`EF50mm` → `EF 50 mm`, `D750` →
    /// `D 750`), so `50mm` and `d750` find them as phrases.
    static func words(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        let normalized = text.utf8.allSatisfy({ $0 < 0x80 }) ? text : text.precomposedStringWithCompatibilityMapping
        for scalar in normalized.unicodeScalars {
            if isCJK(scalar) {
                result.append(" ")
                result.append(scalar)
                result.append(" ")
            } else {
                if let previous, isDigit(previous) != isDigit(scalar), isLetterOrDigit(previous), isLetterOrDigit(scalar) {
                    result.append(" ")
                }
                result.append(scalar)
            }
            previous = scalar
        }
        return String(result)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || isDigit(scalar)
    }

    /// Han, kana, Hangul syllables and the CJK punctuation block.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF,
             0xFF66...0xFF9F, 0x20000...0x2FA1F: return true
        default: return false
        }
    }

    /// Registers `search_words(text)`, the deterministic SQL function the triggers use.
    /// Wraps `sqlite3_create_function_v2`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_function_v2(handle, "search_words", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                   { context, _, values in
                                       guard let value = values?[0], let text = sqlite3_value_text(value) else {
                                           sqlite3_result_null(context)
                                           return
                                       }
                                       let words = SearchTextIndex.words(String(cString: text))
                                       sqlite3_result_text(context, words, -1, mediaindex_sqlite_transient())
                                   }, nil, nil, nil)
    }
}
