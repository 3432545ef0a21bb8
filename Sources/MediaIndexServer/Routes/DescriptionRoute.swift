import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    static let descriptionShape = #"{"ids": ["…"], "rating": 4, "title": "…", "caption": "…", "keywords": ["A|B"]}"#

    /// `POST /v1/assets/description`: as `describe`. A field left out is unchanged, a
    /// `null` clears it; answers with the assets as they now are.
    func setDescription(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        let body = try Self.jsonBody(request, shape: Self.descriptionShape)
        let known: Set<String> = ["ids", "rating", "title", "caption", "keywords"]
        guard let texts = body["ids"] as? [String], !texts.isEmpty, texts.count <= 10_000,
              Set(body.keys).isSubset(of: known) else {
            throw APIError.badRequest(code: "badBody", "the body must be \(Self.descriptionShape), with at least one id")
        }
        let ids = try texts.map { text in
            guard let id = Asset.ID(text) else { throw APIError.notFound(LibraryError.assetNotFound(text).description) }
            return id
        }
        let edit = try Self.descriptionEdit(body)
        guard !edit.isEmpty else { throw APIError.badRequest(code: "badBody", "give at least one of rating, title, caption, keywords") }
        try library.blocking.setUserDescription(edit, for: ids)
        return Self.jsonResponse(JSON.array(try ids.map { JSONShapes.asset(try existingAsset($0.description)) }))
    }

    /// The fields of a description body: absent is nil, `null` is `.clear`.
    static func descriptionEdit(_ body: [String: Any]) throws -> UserDescriptionEdit {
        func change<T>(_ key: String, as type: T.Type) throws -> UserDescriptionEdit.Change<T>? {
            guard let value = body[key] else { return nil }
            if value is NSNull { return .clear }
            guard let typed = value as? T else {
                throw APIError.badRequest(code: "badBody", "'\(key)' has the wrong type; the body must be \(descriptionShape)")
            }
            return .set(typed)
        }
        var edit = UserDescriptionEdit()
        if let rating = body["rating"], !(rating is NSNull) {
            guard let number = rating as? NSNumber, Double(truncating: number) == Double(number.intValue) else {
                throw APIError.badRequest(code: "badBody", "'rating' must be a whole number from -1 to 5")
            }
            edit.rating = .set(number.intValue)
        } else if body["rating"] != nil {
            edit.rating = .clear
        }
        edit.title = try change("title", as: String.self)
        edit.caption = try change("caption", as: String.self)
        edit.keywords = try change("keywords", as: [String].self)
        return edit
    }
}
