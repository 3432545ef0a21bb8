import CSQLite
import Foundation

/// Place names as filters compare them: without regard to case or accents (`zurich` finds
/// `Zürich`, `sao paulo` finds `São Paulo`).
enum PlaceNames {
    /// The folded form both sides of a comparison take.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .trimmingCharacters(in: .whitespaces)
    }

    /// `--country CODE|NAME`: the ISO 3166-1 code or the English name, without regard to case.
    static func countryCondition(_ text: String) -> SQLCondition {
        SQLCondition(sql: "(a.place_country_code = ? OR place_fold(a.place_country) = ?)",
                     values: [text.trimmingCharacters(in: .whitespaces).uppercased(), fold(text)])
    }

    /// `--place TEXT`: the name of the place at any level (locality, subregion, region, country).
    static func placeCondition(_ text: String) -> SQLCondition {
        let folded = fold(text)
        let levels = ["place_locality", "place_subregion", "place_region", "place_country", "place_name"]
        return SQLCondition(sql: "a.place_name IS NOT NULL AND ("
                                + levels.map { "place_fold(a.\($0)) = ?" }.joined(separator: " OR ") + ")",
                            values: Array(repeating: folded, count: levels.count))
    }

    /// Registers `place_fold(text)`, a deterministic SQL function giving `fold(_:)`.
    static func register(on handle: OpaquePointer) {
        SQLTextFunction.register("place_fold", on: handle, fold)
    }
}
