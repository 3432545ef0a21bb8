import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `GET /v1/albums`: as `albums --json`.
    func albums(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        return Self.jsonResponse(.array(try library.fetchAlbumsNow().map(JSONShapes.album)))
    }

    /// `POST /v1/albums {"title": …}`: as `album create TITLE --json`; 201 with the album.
    func createAlbum(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        let body = try Self.jsonBody(request, shape: #"{"title": "…"}"#)
        guard let title = body["title"] as? String, body.count == 1 else {
            throw APIError.badRequest(code: "badBody", #"the body must be {"title": "…"} with the album's title"#)
        }
        let library = self.library
        let album = try blocking { try await library.createAlbum(title: title) }
        var response = Self.jsonResponse(JSONShapes.album(album), status: 201)
        response.addHeader("Location", "/v1/albums/\(album.id)")
        return response
    }

    /// `POST`/`DELETE /v1/albums/{id}/assets {"ids": [...]}`: as `album add` and
    /// `album remove`; answers with the album as it now is.
    func albumAssets(_ albumID: String, _ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        guard albumID.hasPrefix("user.") else {
            if albumID.hasPrefix("smart.") || albumID.hasPrefix("folder.") {
                throw APIError.badRequest(code: "notAUserAlbum", "\(albumID) is not a user album; only user albums take assets")
            }
            throw APIError.notFound(AssetQueryError.unknownAlbum(albumID).description)
        }
        let body = try Self.jsonBody(request, shape: #"{"ids": ["…"]}"#)
        guard let ids = body["ids"] as? [String], body.count == 1, !ids.isEmpty else {
            throw APIError.badRequest(code: "badBody", #"the body must be {"ids": ["…"]} with at least one asset id"#)
        }
        let library = self.library
        let adding = request.method == "POST"
        try blocking {
            if adding { try await library.addAssets(ids, toAlbum: albumID) }
            else { try await library.removeAssets(ids, fromAlbum: albumID) }
        }
        guard let album = try library.fetchAlbumsNow().first(where: { $0.id == albumID }) else {
            throw APIError.notFound(AssetQueryError.unknownAlbum(albumID).description)
        }
        return Self.jsonResponse(JSONShapes.album(album))
    }

    /// The body as a JSON object.
    ///
    /// - Throws: `APIError` 400 naming the expected `shape`.
    static func jsonBody(_ request: HTTPRequest, shape: String) throws -> [String: Any] {
        guard !request.body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            throw APIError.badRequest(code: "badBody", "the body must be a JSON object such as \(shape)")
        }
        return object
    }
}
