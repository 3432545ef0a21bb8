import Foundation
import MediaIndex

/// A choice of the asset shape's fields, as `--fields` and HTTP `fields=` name them
/// (`id,creationDate,place`): the names are the field table's JSON keys (`AssetFields.all`),
/// and the chosen fields are kept in its order, each once.
public struct AssetFieldSelection: Sendable, Equatable {
    /// The chosen fields, in the field table's order.
    public let fields: [Asset.Field]

    /// The names `--fields` and `fields=` take: the field table's JSON keys, in its order.
    public static var names: [String] { AssetFields.all.map(\.field.rawValue) }

    /// Reads a comma-separated list of field names; blanks around names are ignored.
    ///
    /// - Throws: `AssetFieldSelectionError` for a list naming no field, or for a name that is
    ///   no field (with the nearest name when one is near).
    public init(parsing text: String) throws(AssetFieldSelectionError) {
        let known = Self.names
        var chosen = Set<String>()
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            let name = item.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            guard known.contains(name) else {
                // A name far longer than any field's is suggested nothing (and costs no edit distance).
                let suggestion = name.count > 64 ? nil : Suggestion.closest(to: name, among: known)
                throw AssetFieldSelectionError(unknown: name, suggestion: suggestion)
            }
            chosen.insert(name)
        }
        guard !chosen.isEmpty else { throw AssetFieldSelectionError(unknown: nil, suggestion: nil) }
        fields = AssetFields.all.map(\.field).filter { chosen.contains($0.rawValue) }
    }

    /// These fields, in the field table's order, each once.
    package init(_ chosen: some Sequence<Asset.Field>) {
        let chosen = Set(chosen)
        fields = AssetFields.all.map(\.field).filter(chosen.contains)
    }

    /// Whether `field` is chosen.
    func contains(_ field: Asset.Field) -> Bool { fields.contains(field) }
}

/// A `--fields` or `fields=` list that names no field, or a name that is none.
public struct AssetFieldSelectionError: Error, Sendable, CustomStringConvertible {
    /// The name that is no field; nil when the list names none at all.
    public let unknown: String?
    /// The field name nearest to `unknown`, if one is near.
    public let suggestion: String?

    /// One sentence, the same for the command line and HTTP:
    /// `unknown field 'creatoinDate'; did you mean 'creationDate'?`.
    public var description: String {
        guard let unknown else { return "fields needs at least one field name, such as id,creationDate" }
        let shown = unknown.count > 64 ? String(unknown.prefix(64)) + "…" : unknown
        return "unknown field '\(shown)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
}
