import MediaIndexInterface

/// A URL's query as a `ParameterSource`: names as the CLI's options in camel case,
/// booleans `true`/`false` (or `1`/`0`), each known name at most once unless repeatable.
struct QueryParameters: ParameterSource {
    let items: [(name: String, value: String)]

    /// Refuses a name the route does not take, with the nearest known name as a suggestion.
    ///
    /// - Throws: `APIError.badRequest` naming the parameter.
    init(_ items: [(name: String, value: String)], known: [String], repeatable: Set<String> = []) throws(APIError) {
        for item in items where !known.contains(item.name) {
            var message = "unknown parameter '\(item.name)'"
            if let suggestion = Suggestion.closest(to: item.name, among: known) { message += "; did you mean '\(suggestion)'?" }
            else { message += "; this route takes " + (known.isEmpty ? "no parameters" : known.joined(separator: ", ")) }
            throw APIError.badRequest(code: "unknownParameter", message)
        }
        var seen = Set<String>()
        for item in items where !repeatable.contains(item.name) {
            guard seen.insert(item.name).inserted else {
                throw APIError.badRequest(code: "badParameter", "give the parameter '\(item.name)' once")
            }
        }
        self.items = items
    }

    func value(_ name: String) throws -> String? { items.first { $0.name == name }?.value }
    func values(_ name: String) -> [String] { items.filter { $0.name == name }.map(\.value) }

    func flag(_ name: String) throws -> Bool {
        guard let text = try value(name) else { return false }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw APIError.badRequest(code: "badParameter", "\(name) takes true or false (or 1 or 0), not '\(text)'")
        }
    }

    func number(_ name: String) throws -> Double? {
        guard let text = try value(name) else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw APIError.badRequest(code: "badParameter", "\(name) takes a number, not '\(text)'")
        }
        return number
    }

    func integer(_ name: String) throws -> Int? {
        guard let text = try value(name) else { return nil }
        guard let number = Int(text) else {
            throw APIError.badRequest(code: "badParameter", "\(name) takes a whole number, not '\(text)'")
        }
        return number
    }

    func spelling(of name: String) -> String { name }

    /// `fields=id,creationDate,…`: the asset keys a listing or an asset answers with; nil when absent.
    ///
    /// - Throws: `APIError.badRequest` with `--fields`' sentence, for a name that is no field.
    func fields() throws(APIError) -> AssetFieldSelection? {
        guard let text = items.first(where: { $0.name == "fields" })?.value else { return nil }
        do { return try AssetFieldSelection(parsing: text) } catch {
            throw APIError.badRequest(code: "badParameter", "fields: \(error.description)")
        }
    }
}
