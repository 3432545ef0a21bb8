import CSQLite
import Foundation
import MediaMetadata

/// How the describing fields are stored in `assets` (migration 0035), and the folded
/// forms filters match.
///
/// `keywords` and `people` hold JSON (an array of paths; an array of `{name, face}`);
/// beside them `keyword_key` and `people_key` hold each path or name folded (case and
/// accents aside, `DescriptiveColumns.fold`), between `|`s, one a line:
/// `|places|france|paris|` and `|dog|`. A keyword filter looks for `|france|` (any run
/// of levels, so a parent finds its children); a person filter for the whole name or one
/// of its words.
enum DescriptiveColumns {
    /// Text folded as filters compare it: lowercased, accents removed, NFC, newlines as spaces.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .replacingOccurrences(of: "\n", with: " ").precomposedStringWithCanonicalMapping
    }

    /// A JSON column's value, nil when absent or unreadable.
    static func decode<Value: Decodable>(_ type: Value.Type, _ text: String?) -> Value? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(type, from: Data(text.utf8))
    }

    private static func encode<Value: Encodable>(_ value: Value) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `keywords` and `keyword_key` for a set of paths (NULLs for none).
    static func keywordValues(_ keywords: [String]) -> [DatabaseValueConvertible] {
        guard !keywords.isEmpty else { return [String?.none, String?.none] }
        return [encode(keywords), keywordKey(keywords)]
    }

    /// `|a|b|c|` per path, one a line.
    static func keywordKey(_ keywords: [String]) -> String {
        keywords.map { path in
            "|" + path.split(separator: "|").map { fold(String($0)).trimmingCharacters(in: .whitespaces) }
                .joined(separator: "|") + "|"
        }.joined(separator: "\n")
    }

    /// `people` and `people_key` (NULLs for none).
    static func peopleValues(_ people: [PersonInImage]) -> [DatabaseValueConvertible] {
        guard !people.isEmpty else { return [String?.none, String?.none] }
        return [encode(people), people.map { "|" + fold($0.name) + "|" }.joined(separator: "\n")]
    }

    /// What a keyword filter's value looks for in `keyword_key`: its levels, folded,
    /// between `|`s (`Places|France` → `|places|france|`); nil when it has no level.
    static func keywordNeedle(_ keyword: String) -> String? {
        let levels = keyword.split(separator: "|").map { fold(String($0)).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return levels.isEmpty ? nil : "|" + levels.joined(separator: "|") + "|"
    }

    /// The SQL condition on a key column (`column` is `a.keyword_key`, …) that holds when
    /// the asset has the keyword (or one below it); binds the needle.
    static func keywordCondition(_ keyword: String, column: String) -> (sql: String, values: [DatabaseValueConvertible]) {
        guard let needle = keywordNeedle(keyword) else { return ("0", []) }
        return ("instr(\(column), ?) > 0", [needle])
    }

    /// The SQL condition on a people key column that holds when one of the names is the
    /// person, or has the person's words as a whole word run (`alice` finds `Alice Smith`).
    static func personCondition(_ person: String, column: String) -> (sql: String, values: [DatabaseValueConvertible]) {
        let name = fold(person).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return ("0", []) }
        let needles = ["|\(name)|", "|\(name) ", " \(name)|", " \(name) "]
        return ("(" + needles.map { _ in "instr(\(column), ?) > 0" }.joined(separator: " OR ") + ")", needles)
    }

    /// The words of the text index's `keyword_levels` column for a `keyword_key`: each
    /// level one word that neither stemming nor splitting changes (`k`, the level's UTF-8
    /// in hex, `z`), and the paths apart (`q` between them). A keyword filter is then an
    /// exact phrase of its levels' words (`levelsPhrase`): a run of whole levels of one path,
    /// as `keywordCondition` tests it.
    static func keywordLevelWords(_ key: String) -> String {
        let hex = Array("0123456789abcdef".utf8), space = UInt8(ascii: " ")
        var words: [UInt8] = []
        words.reserveCapacity(key.utf8.count * 2 + 8)
        var inLevel = false
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "|"), UInt8(ascii: "\n"):
                if inLevel { words.append(UInt8(ascii: "z")) }
                inLevel = false
                if byte == UInt8(ascii: "\n") { words += [space, UInt8(ascii: "q")] }
            default:
                if !inLevel {
                    if !words.isEmpty { words.append(space) }
                    words.append(UInt8(ascii: "k"))
                    inLevel = true
                }
                words += [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        if inLevel { words.append(UInt8(ascii: "z")) }
        return String(decoding: words, as: UTF8.self)
    }

    /// The text index query finding exactly the assets whose file has `keyword` (or one
    /// below it) among its keywords, as `keywordCondition` does; nil when it has no level.
    static func levelsPhrase(_ keyword: String) -> String? {
        guard let needle = keywordNeedle(keyword) else { return nil }
        return "keyword_levels : \"" + keywordLevelWords(needle) + "\""
    }

    /// Registers `keyword_key(json)`: the `keyword_key` of a JSON array of paths (the
    /// user's keywords in user state), for filters that look at them; and
    /// `keyword_levels(key)`, `keywordLevelWords`.
    static func register(on handle: OpaquePointer) {
        SQLTextFunction.register("keyword_levels", on: handle, keywordLevelWords)
        SQLTextFunction.register("keyword_key", on: handle) { text in
            decode([String].self, text).map(keywordKey)
        }
    }
}

extension PersonInImage {
    /// As the asset shape writes it: `{"name": …, "face": {"x", "y", "width", "height"}}`
    /// (`face` left out when only the name is given).
    var fieldValue: Asset.FieldValue {
        var members: [(String, Asset.FieldValue)] = [("name", .string(name))]
        if let face {
            members.append(("face", .object([("x", .double(face.x)), ("y", .double(face.y)),
                                             ("width", .double(face.width)), ("height", .double(face.height))])))
        }
        return .object(members)
    }
}

extension Asset {
    /// Puts the user's own words (user state) over the file's values, noting which in
    /// `userDescribed`.
    mutating func applyUserDescription(_ own: DescriptiveMetadata) {
        userDescribed = []
        if let rating = own.rating { self.rating = rating; userDescribed.append(.rating) }
        if let title = own.title { self.title = title; userDescribed.append(.title) }
        if let caption = own.caption { self.caption = caption; userDescribed.append(.caption) }
        if !own.keywords.isEmpty { keywords = own.keywords; userDescribed.append(.keywords) }
    }
}
