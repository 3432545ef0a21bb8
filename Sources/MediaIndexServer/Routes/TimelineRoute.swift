import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `GET /v1/timeline?group=day|month|year` with `/v1/assets`'s filter parameters:
    /// `{"group": …, "buckets": [{"period": "2023-07-01", "count": 12}, …], "total": N}`,
    /// newest first; the undated assets are a bucket whose period is null. A bucket's
    /// assets are `/v1/assets?period=PERIOD` with the same filter. `makingAhead`: made by
    /// `warmPickerFirstScreen`, which the request must not wait for.
    func timeline(_ request: HTTPRequest, makingAhead: Bool = false) throws -> HTTPResponse {
        let version = try library.blocking.dataVersion()
        let key = answerKey(request)
        if let body = answers.value(for: key, version: version) { return Self.jsonResponse(body: body) }
        if !makingAhead, let made = answerMadeAhead(key, version: version) { return made }
        let names = AssetListingParameters.names.filter { $0 != "after" } + ["period", "group"]
        let query = try QueryParameters(request.query, known: names, repeatable: ["type"])
        let groupText = try query.value("group") ?? "day"
        guard let group = TimelineGroup(rawValue: groupText) else {
            throw APIError.badRequest(code: "badParameter",
                                      Suggestion.refusal(of: groupText, for: "group", valid: TimelineGroup.allCases.map(\.rawValue)))
        }
        let options = try fetchOptions(query)
        try checkHiddenAccess(options, request)
        let lifetime = Self.lifetime(of: options)
        let buckets = try library.blocking.timeline(options, group: group)
        let json = JSON.object([
            ("group", .string(group.rawValue)),
            ("buckets", .array(buckets.map { .object([("period", JSON($0.period)), ("count", .int($0.count))]) })),
            ("total", .int(buckets.reduce(0) { $0 + $1.count })),
        ])
        return cachedJSONResponse(json, key: key, version: version, lifetime: lifetime)
    }
}
