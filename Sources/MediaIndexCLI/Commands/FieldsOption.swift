import MediaIndex
import MediaIndexInterface

/// `--fields` of `assets`, `search` and `show`: only these fields of the asset shape, named
/// as its JSON keys (`AssetFieldSelection`, derived from the field table): the JSON objects
/// hold only those keys and the table has one column per field, in the table's order.
enum FieldsOption {
    static let fields = Argument.option(
        "fields", valueName: "names",
        help: "Only these asset fields, as the JSON names them (id,creationDate,place): the JSON's keys, or the table's columns."
    )

    /// The selection `--fields` names, nil without it.
    ///
    /// - Throws: `ValidationError` naming the option, for a name that is no field.
    static func selection(_ parsed: ParsedArguments) throws -> AssetFieldSelection? {
        guard let text = try parsed[fields] else { return nil }
        do { return try AssetFieldSelection(parsing: text) } catch {
            throw ValidationError("--fields: \(error.description)")
        }
    }

    /// The chosen fields of one asset as `name: value` lines (`show --fields`).
    static func lines(_ asset: Asset, _ selection: AssetFieldSelection) -> [String] {
        guard case .object(let members) = JSONShapes.asset(asset, fields: selection) else { return [] }
        return members.map { "\($0.0): " + TerminalSanitizer.escape(cell($0.1)) }
    }

    /// A value as a cell: a string as itself, nothing for null, anything else as compact JSON.
    static func cell(_ value: JSON) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        default: return value.compactText
        }
    }
}
