import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    static let resolveShape = #"{"keep": "ID"} (or an empty body: the group's keeper)"#

    /// `GET /v1/duplicates?kind=same-file|duplicate|similar`: the groups, each as one line
    /// of `duplicates --json`, and their count per kind.
    func duplicates(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: ["kind"])
        var kind: DuplicateKind?
        if let text = try query.value("kind") {
            guard let parsed = DuplicateKind(rawValue: text) else {
                throw APIError.badRequest(code: "badParameter", "kind is same-file, duplicate or similar, not '\(text)'")
            }
            kind = parsed
        }
        let groups = try library.blocking.duplicateGroups(kind: kind)
        let counts = DuplicateKind.allCases.filter { kind == nil || $0 == kind }
            .map { k in (k.rawValue, JSON.int(groups.filter { $0.kind == k }.count)) }
        return Self.jsonResponse(.object([("groups", .array(groups.map(DuplicateJSON.group))), ("counts", .object(counts))]))
    }

    /// `POST /v1/duplicates/{group}/resolve`, body `{"keep": ID}` or empty: as
    /// `duplicates resolve`. Hides the other members and merges onto the keeper in user
    /// state; never touches a file. Answers with what it did.
    func resolveDuplicates(_ group: String, _ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        var keep: Asset.ID?
        if !request.body.isEmpty {
            let body = try Self.jsonBody(request, shape: Self.resolveShape)
            guard Set(body.keys).isSubset(of: ["keep"]), body["keep"] == nil || body["keep"] is String else {
                throw APIError.badRequest(code: "badBody", "the body must be \(Self.resolveShape)")
            }
            if let text = body["keep"] as? String {
                guard let id = Asset.ID(text) else { throw APIError.notFound(LibraryError.assetNotFound(text).description) }
                keep = id
            }
        }
        let resolution = try library.blocking.resolveDuplicateGroup(group, keep: keep)
        return Self.jsonResponse(.object([
            ("group", .string(resolution.group.id)), ("keep", .string(resolution.keeper.rawValue)),
            ("hidden", .array(resolution.hidden.map { .string($0.rawValue) })),
            ("merged", .array(resolution.merged.map(JSON.string))),
        ]))
    }
}
