import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// The most suggestions one request gets.
    static let maximumSuggestions = 50

    /// `GET /v1/search/suggestions?q=&limit=`: completions of q's last word, as
    /// `search --suggest Q --json`.
    func searchSuggestions(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: ["q", "limit"])
        guard let text = try query.value("q") else {
            throw APIError.badRequest("/v1/search/suggestions needs q, the search as typed so far (such as q=cam)")
        }
        guard text.count <= SearchQuery.maximumLength else {
            throw APIError.badRequest("q is longer than \(SearchQuery.maximumLength) characters")
        }
        let limit = try query.integer("limit") ?? 10
        guard (0...Self.maximumSuggestions).contains(limit) else {
            throw APIError.badRequest("limit takes 0 to \(Self.maximumSuggestions), not \(limit)")
        }
        let suggestions = try library.blocking.searchSuggestions(for: text, limit: limit)
        return Self.jsonResponse(SearchSuggestion.json(suggestions))
    }
}
