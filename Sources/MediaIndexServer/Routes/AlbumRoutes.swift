import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `GET /v1/albums`: as `albums --json`; `?in=place.JP`: as `albums --in place.JP --json`.
    func albums(_ request: HTTPRequest) throws -> HTTPResponse {
        let version = try library.blocking.dataVersion()
        let key = AnswerCache<[UInt8]>.key(request)
        if let body = answers.value(for: key, version: version) { return Self.jsonResponse(body: body) }
        let parameters = try QueryParameters(request.query, known: ["in"])
        let albums: [Album]
        if let parent = try parameters.value("in") {
            guard let id = Album.ID(parent), id.kind == .place else {
                throw APIError.badRequest(code: "badParameter",
                                          "in takes a Places album id (place, place.JP, place.JP.40), not '\(parent)'")
            }
            albums = try library.blocking.fetchAlbums(in: id)
        } else {
            albums = try library.blocking.fetchAlbums()
        }
        // Recently Added's count moves with the clock too.
        return cachedJSONResponse(.array(albums.map(JSONShapes.album)), key: key,
                                  version: version, lifetime: Self.clockBoundLifetime)
    }

    /// `POST /v1/albums {"title": …}`: as `album create TITLE --json`; 201 with the album.
    func createAlbum(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        let body = try Self.jsonBody(request, shape: #"{"title": "…"}"#)
        guard let title = body["title"] as? String, body.count == 1 else {
            throw APIError.badRequest(code: "badBody", #"the body must be {"title": "…"} with the album's title"#)
        }
        let album = try library.blocking.createAlbum(title: title)
        var response = Self.jsonResponse(JSONShapes.album(album), status: 201)
        response.addHeader("Location", "/v1/albums/\(album.id)")
        return response
    }

    /// `POST`/`DELETE /v1/albums/{id}/assets {"ids": [...]}`: as `album add` and
    /// `album remove`; answers with the album as it now is.
    func albumAssets(_ albumText: String, _ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        guard let albumID = Album.ID(albumText) else {
            throw APIError.notFound(AssetQueryError.unknownAlbum(albumText).description)
        }
        guard albumID.kind == .user else { throw APIError.from(AssetQueryError.notAUserAlbum(albumID)) }
        let body = try Self.jsonBody(request, shape: #"{"ids": ["…"]}"#)
        guard let texts = body["ids"] as? [String], body.count == 1, !texts.isEmpty else {
            throw APIError.badRequest(code: "badBody", #"the body must be {"ids": ["…"]} with at least one asset id"#)
        }
        let ids = try texts.map { text in
            guard let id = Asset.ID(text) else { throw APIError.notFound(LibraryError.assetNotFound(text).description) }
            return id
        }
        if request.method == "POST" {
            try library.blocking.addAssets(ids, toAlbum: albumID)
        } else {
            try library.blocking.removeAssets(ids, fromAlbum: albumID)
        }
        guard let album = try library.blocking.fetchAlbums().first(where: { $0.id == albumID }) else {
            throw APIError.notFound(AssetQueryError.unknownAlbum(albumText).description)
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
