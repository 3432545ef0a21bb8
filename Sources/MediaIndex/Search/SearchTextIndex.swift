import CSQLite
import Foundation

/// The FTS5 table `asset_text` (one row per asset, `rowid` = `assets.id`) and the
/// triggers that keep it in the writer's own transaction, generated from
/// `SearchTextColumn.all`.
///
/// The table stores no copy of the text: it is an external-content table over the view
/// `asset_text_source`, which computes each column's words from the asset's own columns.
/// So the triggers remove a row's old words with FTS5's `'delete'` command, reading the
/// view before the change (`BEFORE` triggers), and add the new words after it; an update
/// that leaves every source column as it was touches nothing.
///
/// Folding: the tokenizer lowercases, removes diacritics (`Zürich` = `zurich`) and
/// reduces English word forms (porter: `running` = `run`); `search_words` first maps
/// compatibility forms (full-width letters, ligatures) with NFKC and spaces out every
/// CJK character, so Chinese and Japanese text, written without spaces, is matched as
/// character n-grams: a query's CJK run becomes a phrase of its characters.
enum SearchTextIndex {
    static let table = "asset_text"
    /// The view the index reads its text from (and `'rebuild'` refills it from).
    static let source = "asset_text_source"
    /// Holds, during `deferring(_:_:)`, the highest asset id the triggers keep.
    static let deferral = "search_text_deferred"
    /// The ids of assets whose words or capture time changed other than by being added
    /// (updated, removed), one row a change, in order: what `SearchMatchCache` asks to bring
    /// a kept match set, and its capture order, up to date.
    static let touched = "search_text_touched"
    /// One row: a random name for this build of the index (a kept match set is of one
    /// build) and the first revision of `search_text_touched` still held.
    static let generation = "search_text_generation"
    /// A temporary, contentless text index on each read-only connection, with the columns
    /// and tokenizer of `asset_text`: `SearchMatchCache` asks a query of the assets changed
    /// since a kept set was read by copying their words there.
    static let changes = "search_text_changes"

    /// Creates `temp.search_text_changes` (read-only connections, at open).
    static var changesStatement: String {
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.\(changes) USING fts5("
            + SearchTextColumn.all.map(\.name).joined(separator: ", ") + ", content = '', tokenize = '\(tokenizer)')"
    }

    /// How many rows of `search_text_touched` are kept: a match set older than them is read again.
    static let touchedKept = 4096
    static let tokenizer = "porter unicode61 remove_diacritics 2"

    /// What the generated schema is built from; stored in `search_text_schema`. It holds
    /// the folding's output on a probe text and the camera names' table, so a build whose
    /// `search_words` or camera names differ rebuilds the index on open instead of
    /// deleting words the index never held (the `'delete'` command needs the exact old words).
    static var signature: String {
        (["v4 external touched redated", tokenizer, foldingFingerprint] + SearchTextColumn.all.map { column in
            ([column.name, column.expression] + column.assetColumns
                + column.otherTables.map { "\($0.table).\($0.assetIDColumn)" }).joined(separator: "\u{1F}")
        } + SuggestionSource.all.map { ["values v1", $0.field, $0.values, $0.value] + $0.assetColumns }
            .map { $0.joined(separator: "\u{1F}") }).joined(separator: "\u{1E}")
    }

    /// `search_words` on a probe of what it folds, and every camera spelling with its name.
    static let foldingFingerprint: String = {
        let probe = words("Zürich ＡＢＣ ﬁne 東京タワー 서울 EF50mm D750 ½")
        let models = CameraNames.model("Canon EOS 6D", make: "Canon") ?? ""
        let cameras = [models] + CameraNames.knownMakes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in ([probe] + cameras).joined(separator: "\n").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }()

    /// Whether `db` lacks the index this build declares (or has another's).
    static func isBehind(_ db: DatabaseConnection) throws -> Bool {
        guard try db.hasTable("search_text_schema") else {
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
            try SuggestionSource.addAssets(above: 0, db: db)
            try db.execute("DELETE FROM search_text_schema")
            try db.execute("INSERT INTO search_text_schema (signature) VALUES (?)", [signature])
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// What removes the index, its triggers and its bookkeeping tables.
    static func dropStatements(_ db: DatabaseConnection) throws -> [String] {
        let triggers = try db.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_text_%'")
            .compactMap { $0.string("name") }
        return triggers.map { "DROP TRIGGER \($0)" } + [table, deferral, touched, generation, SuggestionSource.table].map { "DROP TABLE IF EXISTS \($0)" }
            + ["DROP VIEW IF EXISTS \(source)"]
    }

    /// The view, the table, the triggers, and the `'rebuild'` filling the table from every asset.
    ///
    /// Every trigger leaves alone the assets above the row of `search_text_deferred`, if
    /// any: `deferring(_:_:)` indexes those at once at the end of its transaction.
    static func createStatements() -> [String] {
        textStatements() + SuggestionSource.createStatements(kept: kept)
    }

    /// SQL that holds when the triggers keep asset `id` (it is not a deferred bulk's).
    static func kept(_ id: String) -> String { "NOT EXISTS (SELECT 1 FROM \(deferral) WHERE above < \(id))" }

    /// The text index's own table, view, triggers and filling.
    private static func textStatements() -> [String] {
        let columns = SearchTextColumn.all
        let names = columns.map(\.name).joined(separator: ", ")
        let add = { (id: String) in "INSERT INTO \(table) (rowid, \(names)) SELECT id, \(names) FROM \(source) WHERE id = \(id);" }
        let remove = { (id: String) in
            "INSERT INTO \(table) (\(table), rowid, \(names)) SELECT 'delete', id, \(names) FROM \(source) WHERE id = \(id);"
        }
        let touch = { (id: String) in "INSERT INTO \(touched) (asset_id) SELECT \(id) WHERE \(kept(id));" }
        let assetColumns = Array(Set(columns.flatMap(\.assetColumns))).sorted()
        let changed = assetColumns.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
        let updateOf = "UPDATE OF \(assetColumns.joined(separator: ", ")) ON assets WHEN (\(changed)) AND \(kept("old.id"))"
        var statements = [
            "CREATE TABLE \(deferral) (above INTEGER NOT NULL)",
            "CREATE TABLE \(touched) (revision INTEGER PRIMARY KEY AUTOINCREMENT, asset_id INTEGER NOT NULL)",
            "CREATE TABLE \(generation) (generation TEXT NOT NULL, start INTEGER NOT NULL)",
            "INSERT INTO \(generation) (generation, start) VALUES (lower(hex(randomblob(16))), 0)",
            "CREATE VIEW \(source) AS SELECT a.id AS id, "
                + columns.map { "\($0.expression) AS \($0.name)" }.joined(separator: ", ") + " FROM assets a",
            "CREATE VIRTUAL TABLE \(table) USING fts5(\(names), content = '\(source)', content_rowid = 'id', "
                + "tokenize = '\(tokenizer)', columnsize = 0)",
            "CREATE TRIGGER search_text_asset_inserted AFTER INSERT ON assets WHEN \(kept("new.id")) BEGIN \(add("new.id")) END",
            "CREATE TRIGGER search_text_asset_deleted BEFORE DELETE ON assets WHEN \(kept("old.id")) BEGIN \(remove("old.id")) \(touch("old.id")) END",
            "CREATE TRIGGER search_text_asset_updating BEFORE \(updateOf) BEGIN \(remove("old.id")) \(touch("old.id")) END",
            "CREATE TRIGGER search_text_asset_updated AFTER \(updateOf) BEGIN \(add("new.id")) END",
            // A kept capture order reads the keys of touched assets again.
            "CREATE TRIGGER search_text_asset_redated AFTER UPDATE OF creation_timestamp ON assets "
                + "WHEN old.creation_timestamp IS NOT new.creation_timestamp AND \(kept("old.id")) BEGIN \(touch("old.id")) END",
        ]
        for (other, column) in columns.flatMap(\.otherTables) {
            // Both assets when the row moves from one to another, the same one once.
            let both = { (step: (String) -> String) in
                step("old.\(column)") + step("new.\(column)").dropLast() + " AND new.\(column) IS NOT old.\(column);"
            }
            statements += [
                "CREATE TRIGGER search_text_\(other)_inserting BEFORE INSERT ON \(other) BEGIN \(remove("new.\(column)")) END",
                "CREATE TRIGGER search_text_\(other)_inserted AFTER INSERT ON \(other) BEGIN \(add("new.\(column)")) END",
                "CREATE TRIGGER search_text_\(other)_deleting BEFORE DELETE ON \(other) BEGIN \(remove("old.\(column)")) END",
                "CREATE TRIGGER search_text_\(other)_deleted AFTER DELETE ON \(other) BEGIN \(add("old.\(column)")) END",
                "CREATE TRIGGER search_text_\(other)_updating BEFORE UPDATE ON \(other) BEGIN \(both(remove)) END",
                "CREATE TRIGGER search_text_\(other)_updated AFTER UPDATE ON \(other) BEGIN \(both(add)) END",
            ].map { $0.replacingOccurrences(of: "FROM \(source) WHERE ", with: "FROM \(source) WHERE \(kept("id")) AND ") }
            statements += [
                "CREATE TRIGGER search_text_\(other)_touched_new AFTER INSERT ON \(other) BEGIN \(touch("new.\(column)")) END",
                "CREATE TRIGGER search_text_\(other)_touched_old AFTER DELETE ON \(other) BEGIN \(touch("old.\(column)")) END",
                "CREATE TRIGGER search_text_\(other)_touched AFTER UPDATE ON \(other) BEGIN \(touch("old.\(column)")) "
                    + "\(touch("new.\(column)")) END",
            ]
        }
        statements.append("INSERT INTO \(table) (\(table)) VALUES ('rebuild')")
        return statements
    }

    /// Runs `body`, a transaction's bulk of new assets, with the text index of every asset
    /// it inserts left to one `INSERT … SELECT` at its end (in the same transaction, so no
    /// reader sees an asset without its words): no trigger runs per new asset, and an
    /// asset inserted, then updated (a sidecar merged, say) is indexed once, as it ends.
    /// Assets that were there before are kept by the triggers as always.
    static func deferring<T>(_ db: DatabaseConnection, _ body: () throws -> T) throws -> T {
        guard try db.hasTable(deferral) else { return try body() }
        let above = try db.scalarInt("SELECT coalesce(max(id), 0) FROM assets") ?? 0
        try db.execute("INSERT INTO \(deferral) (above) VALUES (?)", [above])
        let result = try body()
        let names = SearchTextColumn.all.map(\.name).joined(separator: ", ")
        try db.execute("DELETE FROM \(deferral)")
        try db.execute("INSERT INTO \(table) (rowid, \(names)) SELECT id, \(names) FROM \(source) WHERE id > ?", [above])
        try SuggestionSource.addAssets(above: above, db: db)
        try trimTouched(db)
        return result
    }

    /// Keeps the last `touchedKept` rows of `search_text_touched`, once it holds twice as many,
    /// and records where the kept rows start.
    static func trimTouched(_ db: DatabaseConnection) throws {
        guard let newest = try db.scalarInt("SELECT max(revision) FROM \(touched)"),
              let oldest = try db.scalarInt("SELECT min(revision) FROM \(touched)"),
              newest - oldest >= 2 * touchedKept else { return }
        try db.execute("DELETE FROM \(touched) WHERE revision <= ?", [newest - touchedKept])
        try db.execute("UPDATE \(generation) SET start = ?", [newest - touchedKept])
    }

    /// Merges the text index's segments into one after a run that changed much of the
    /// library (a first index, a large import): a search then asks one segment, not dozens,
    /// about each asset (a common word's first page took 6.3 ms of CPU at 100k assets
    /// before, 1.1 ms after; the merge took 0.15 s). Small runs leave it to FTS5's own merging.
    static func tidy(_ db: DatabaseConnection, changed: Int) throws {
        guard changed >= 500, let total = try db.scalarInt("SELECT count(*) FROM assets"), changed * 20 >= total,
              try db.hasTable(table) else { return }
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
    static func register(on handle: OpaquePointer) {
        SQLTextFunction.register("search_words", on: handle, words)
    }
}
