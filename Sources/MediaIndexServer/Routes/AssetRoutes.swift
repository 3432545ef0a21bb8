import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `GET /v1/assets`: a page, as `assets --json --limit N`; `count=true` as `assets --count --json`.
    func assets(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: AssetListingParameters.names + ["limit", "count"],
                                        repeatable: ["type"])
        let limit = try query.integer("limit") ?? 100
        guard limit <= Self.maximumLimit else {
            throw APIError.badRequest("limit is at most \(Self.maximumLimit), not \(limit); page with after=nextCursor")
        }
        guard limit >= 0 else { throw APIError.badRequest("limit must not be negative") }
        let count = try query.flag("count")
        let parameters = try AssetListingParameters(reading: query)
        var options = parameters.options
        options.limit = limit
        if let albumKey = parameters.albumKey {
            options.album = try library.blocking.albumScope(named: albumKey, recursive: parameters.recursive)
        }
        if count {
            return Self.jsonResponse(JSONShapes.counts(try library.blocking.countAssets(options)))
        }
        let page = try library.blocking.fetchAssets(options)
        return Self.jsonResponse(JSONShapes.assetPage(page.assets, nextCursor: page.nextCursor))
    }

    /// `GET /v1/assets/{id}`: as `show ID --json`.
    func asset(_ id: String, _ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        return Self.jsonResponse(JSONShapes.asset(try existingAsset(id)))
    }

    /// The asset with identifier `id`; any other form of id is not found.
    func existingAsset(_ id: String) throws -> Asset {
        guard let assetID = Asset.ID(id), let asset = try library.blocking.asset(id: assetID) else {
            throw APIError.notFound(LibraryError.assetNotFound(id).description)
        }
        return asset
    }

    /// `PUT`/`DELETE /v1/assets/{id}/favorite` and `…/hidden`: as `favorite`, `unfavorite`,
    /// `hide`, `unhide`; answers with the asset as it now is.
    func setFlag(favorite: Bool, _ id: String, _ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        let asset = try existingAsset(id)
        let value = request.method == "PUT"
        if favorite {
            try library.blocking.setFavorite(value, for: [asset.id])
        } else {
            try library.blocking.setHidden(value, for: [asset.id])
        }
        return Self.jsonResponse(JSONShapes.asset(try existingAsset(id)))
    }

    /// `GET /v1/assets/{id}/thumbnail?size=&mode=&format=&rev=`: the cached thumbnail, made on demand.
    func thumbnail(_ id: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: ["size", "mode", "format", "rev"])
        let thumbnailRequest = ThumbnailRequest(
            maxPixelSize: try ThumbnailParameters.size(query.value("size") ?? "256", option: "size"),
            mode: try ThumbnailParameters.mode(query.value("mode"), option: "mode"),
            format: try ThumbnailParameters.format(query.value("format"), option: "format"))
        let revision = try query.integer("rev")
        let asset = try existingAsset(id)
        guard let key = library.thumbnailKey(for: asset, request: thumbnailRequest) else {
            throw APIError(status: 404, code: "thumbnailUnavailable", message: "asset \(id) has no file to make a thumbnail of")
        }
        let etag = "\"\(key.hash)\""
        // The URL names the revision: what it names never changes, so it may be kept for good.
        let caching = revision == asset.revision ? "private, max-age=31536000, immutable" : "private, no-cache"
        if let tags = request.header("If-None-Match"), Self.etag(etag, matches: tags) {
            return HTTPResponse(status: 304, headers: [("ETag", etag), ("Cache-Control", caching)])
        }
        let path = try library.blocking.thumbnail(for: asset, size: thumbnailRequest.maxPixelSize,
                                                  mode: thumbnailRequest.mode, format: thumbnailRequest.format).path
        let file = try OpenedFile(path: path)
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", key.formatName == "webp" ? "image/webp" : "image/jpeg"),
            ("ETag", etag), ("Cache-Control", caching),
        ], body: .file(descriptor: file.takeDescriptor(), offset: 0, length: file.size))
    }

    /// Whether an `If-None-Match` list names `etag` (weakly, as RFC 9110 compares for GET).
    static func etag(_ etag: String, matches header: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
