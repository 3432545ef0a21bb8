import MediaIndex

extension SearchSuggestion {
    /// The suggestion as `search --suggest --json` prints it and
    /// `GET /v1/search/suggestions` answers it: `{"kind", "text", "term", "count"}`
    /// (`count` null for a field name).
    public var json: JSON {
        .object([("kind", .string(kind.rawValue)), ("text", .string(text)), ("term", .string(term)),
                 ("count", count.map { .int($0) } ?? .null)])
    }

    /// `{"suggestions": [...]}`.
    public static func json(_ suggestions: [SearchSuggestion]) -> JSON {
        .object([("suggestions", .array(suggestions.map(\.json)))])
    }
}
