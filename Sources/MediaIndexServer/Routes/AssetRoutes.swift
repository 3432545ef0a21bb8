import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `GET /v1/assets`: a page, as `assets --json --limit N`; `count=true` as `assets --count --json`.
    /// `GET /v1/search?q=` is the same with its search required (`search QUERY --json`).
    func assets(_ request: HTTPRequest, searchRequired: Bool = false, makingAhead: Bool = false) throws -> HTTPResponse {
        let version = try library.blocking.dataVersion()
        let key = answerKey(request)
        if let body = answers.value(for: key, version: version) { return Self.jsonResponse(body: body) }
        if !makingAhead, let made = answerMadeAhead(key, version: version) { return made }
        let query = try QueryParameters(request.query, known: AssetListingParameters.names + ["period", "limit", "count", "fields"],
                                        repeatable: ["type"])
        let limit = try query.integer("limit") ?? 100
        guard limit <= Self.maximumLimit else {
            throw APIError.badRequest("limit is at most \(Self.maximumLimit), not \(limit); page with after=nextCursor")
        }
        guard limit >= 0 else { throw APIError.badRequest("limit must not be negative") }
        let count = try query.flag("count")
        let fields = try query.fields()
        if count && fields != nil { throw APIError.badRequest("fields chooses the keys of assets; count=true answers with counts") }
        if searchRequired, try query.value("q") == nil {
            throw APIError.badRequest("/v1/search needs q, the search (such as q=beach camera:canon); see docs/search.md")
        }
        var options = try fetchOptions(query)
        try checkHiddenAccess(options, request)
        options.limit = limit
        // Recently Added and On This Day also move with the clock.
        let lifetime = Self.lifetime(of: options)
        let json: JSON
        if count {
            json = JSONShapes.counts(try library.blocking.countAssets(options))
        } else {
            let page = try library.blocking.fetchAssets(options)
            json = JSONShapes.assetPage(page.assets, nextCursor: page.nextCursor, fields: fields)
        }
        return cachedJSONResponse(json, key: key, version: version, lifetime: lifetime)
    }

    /// The fetch options a listing's query asks for (`AssetListingParameters` and
    /// `period`), with its album resolved.
    ///
    /// - Throws: `APIError.badRequest` for a period that is no day, month or year;
    ///   the decoder's and the album look-up's errors.
    func fetchOptions(_ query: QueryParameters) throws -> FetchOptions {
        let parameters = try AssetListingParameters(reading: query)
        var options = parameters.options
        if let albumKey = parameters.albumKey {
            options.album = try library.blocking.albumScope(named: albumKey, recursive: parameters.recursive)
        }
        if let text = try query.value("period") {
            guard let period = CapturePeriod(text) else {
                throw APIError.badRequest(code: "badParameter",
                                          "period takes a day, month or year (2023-07-01, 2023-07, 2023) or none, not '\(text)'")
            }
            options.period = period
        }
        return options
    }

    /// `GET /v1/assets/{id}`: as `show ID --json`.
    func asset(_ id: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let version = try library.blocking.dataVersion()
        let key = answerKey(request)
        if let body = answers.value(for: key, version: version) { return Self.jsonResponse(body: body) }
        let fields = try QueryParameters(request.query, known: ["fields"]).fields()
        return cachedJSONResponse(JSONShapes.asset(try existingAsset(id, request), fields: fields), key: key, version: version)
    }

    /// The asset with identifier `id`; any other form of id is not found, and neither is
    /// a hidden asset when `request` (a read) may not see hidden assets.
    func existingAsset(_ id: String, _ request: HTTPRequest? = nil) throws -> Asset {
        guard let assetID = Asset.ID(id), let asset = try library.blocking.asset(id: assetID),
              !(asset.isHidden && request.map { !seesHidden($0) } == true) else {
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
        let version = try library.blocking.dataVersion()
        let key = answerKey(request)
        if let known = thumbnailLocations.value(for: key, version: version),
           let response = Self.thumbnailResponse(known, request) {
            return response
        }
        let query = try QueryParameters(request.query, known: ["size", "mode", "format", "rev"])
        let thumbnailRequest = ThumbnailRequest(
            maxPixelSize: try ThumbnailParameters.size(query.value("size") ?? "256", option: "size"),
            mode: try ThumbnailParameters.mode(query.value("mode"), option: "mode"),
            format: try ThumbnailParameters.format(query.value("format"), option: "format"))
        let revision = try query.integer("rev")
        let asset = try existingAsset(id, request)
        guard let thumbnailKey = library.thumbnailKey(for: asset, request: thumbnailRequest) else {
            throw APIError(status: 404, code: "thumbnailUnavailable", message: "asset \(id) has no file to make a thumbnail of")
        }
        // The URL names the revision: what it names never changes, so it may be kept for good.
        let location = ThumbnailLocation(
            path: "", etag: "\"\(thumbnailKey.hash)\"",
            contentType: thumbnailKey.formatName == "webp" ? "image/webp" : "image/jpeg",
            caching: revision == asset.revision ? "private, max-age=31536000, immutable" : "private, no-cache")
        if let tags = request.header("If-None-Match"), Self.etag(location.etag, matches: tags) {
            return HTTPResponse(status: 304, headers: [("ETag", location.etag), ("Cache-Control", location.caching)])
        }
        let made = try library.blocking.thumbnail(for: asset, size: thumbnailRequest.maxPixelSize,
                                                  mode: thumbnailRequest.mode, format: thumbnailRequest.format)
        var known = location
        known.path = made.path
        // Making it committed its state, so the version read above is already stale
        // then; a thumbnail that was in the cache is remembered under it.
        if !made.made {
            thumbnailLocations.store(known, for: key, version: version, cost: key.utf8.count + known.path.utf8.count + 64,
                                     lifetime: Self.thumbnailLocationLifetime)
        }
        return Self.thumbnailResponse(known, file: try OpenedFile(path: made.path))
    }

    /// Where a served thumbnail is, and the headers it goes with.
    struct ThumbnailLocation: Sendable {
        var path: String
        var etag: String
        var contentType: String
        var caching: String
    }

    /// The remembered thumbnail at `location`: 304 when the request's `If-None-Match`
    /// names it, else the file; nil when the file can no longer be opened (trimmed from
    /// the cache, say), so the caller looks it up and makes it again.
    static func thumbnailResponse(_ location: ThumbnailLocation, _ request: HTTPRequest) -> HTTPResponse? {
        if let tags = request.header("If-None-Match"), etag(location.etag, matches: tags) {
            return HTTPResponse(status: 304, headers: [("ETag", location.etag), ("Cache-Control", location.caching)])
        }
        guard let file = try? OpenedFile(path: location.path) else { return nil }
        return thumbnailResponse(location, file: file)
    }

    /// The thumbnail file's response, streamed from its descriptor.
    static func thumbnailResponse(_ location: ThumbnailLocation, file: OpenedFile) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [
            ("Content-Type", location.contentType), ("ETag", location.etag), ("Cache-Control", location.caching),
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
