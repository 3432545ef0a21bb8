import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `version=current|original`, nil when not given.
    static func renditionVersion(_ query: QueryParameters) throws -> RenditionVersion? {
        guard let text = try query.value("version") else { return nil }
        guard let version = RenditionVersion(rawValue: text) else {
            throw APIError.badRequest("version takes current or original, not '\(text)'")
        }
        return version
    }

    /// `representation=compatible` (PhotoKit's `.compatible`): a still as a full-size JPEG
    /// (`MediaLibrary.Blocking.compatiblePhoto`), the same whichever of the primary's
    /// names asks; a movie (the asset's, a live photo's paired movie or a motion photo's
    /// `embeddedVideo`) as H.264 MP4, made on first request (202 with progress until then).
    /// Nil for a role that has no compatible form (a sidecar, a RAW beside its JPEG) and
    /// for an embedded movie that browsers play: served as it is.
    func compatibleRendition(of asset: Asset, role: String, version: RenditionVersion?, query: QueryParameters,
                             _ request: HTTPRequest) throws -> HTTPResponse? {
        let version = version ?? .current
        let stillNames = ["primary", "photo", "fullSizePhoto"], movieNames = ["primary", "video", "fullSizeVideo"]
        if asset.mediaType == .image, stillNames.contains(role) {
            return try compatiblePhoto(of: asset, version: version, query: query, request)
        }
        let movie: AssetResource?
        if asset.mediaType == .video, movieNames.contains(role) {
            movie = asset.resource(for: version)
        } else if role == "embeddedVideo", asset.embeddedVideo != nil {
            return try compatibleVideo(of: asset, request) { try library.blocking.compatibleEmbeddedVideo(for: asset) }
        } else if ["pairedVideo", "fullSizePairedVideo"].contains(role) {
            guard case .file(let file)? = asset.livePhotoMovie(version) else { return nil }
            movie = file
        } else {
            return nil
        }
        guard let movie else { return nil }
        return try compatibleVideo(of: asset, request) { try library.blocking.compatibleVideo(for: asset, source: movie) }
    }

    private func compatiblePhoto(of asset: Asset, version: RenditionVersion, query: QueryParameters,
                                 _ request: HTTPRequest) throws -> HTTPResponse {
        let colour = try query.value("colorspace") ?? "original"
        guard ["original", "srgb"].contains(colour) else {
            throw APIError.badRequest("colorspace takes original or srgb, not '\(colour)'")
        }
        let location = try query.value("location") ?? "include"
        guard ["include", "omit"].contains(location) else {
            throw APIError.badRequest("location takes include or omit, not '\(location)'")
        }
        let options = CompatibleImageOptions(convertsToSRGB: colour == "srgb", omitsLocation: location == "omit")
        let rendition: CachedRendition
        do { rendition = try library.blocking.compatiblePhoto(for: asset, version: version, options: options) } catch let error as ThumbnailUnavailable {
            throw APIError(status: 422, code: "unconvertible", message: "asset \(asset.id) has no compatible JPEG: \(error.reason)")
        }
        return try cachedRendition(rendition, contentType: "image/jpeg", fileExtension: "jpg", request)
    }

    /// The answer for where a movie's rendition stands (`rendition`); nil when it is
    /// served as the route's plain bytes.
    private func compatibleVideo(of asset: Asset, _ request: HTTPRequest,
                                 _ rendition: () throws -> VideoRendition?) throws -> HTTPResponse? {
        let answer: VideoRendition?
        do { answer = try rendition() } catch let error as ThumbnailUnavailable {
            if error.state == .needsFFmpeg {
                throw APIError(status: 415, code: "needsFFmpeg",
                               message: "asset \(asset.id)'s video needs converting to H.264 to play in a browser, and the ffmpeg program that does it is not installed")
            }
            throw APIError(status: 422, code: "unconvertible", message: "asset \(asset.id)'s video cannot be converted: \(error.reason)")
        } catch let busy as RenditionsBusy {
            throw APIError(status: 503, code: "busy", message: busy.description, headers: [("Retry-After", "5")])
        }
        guard let state = answer else { return nil }
        switch state {
        case .asIs(let resource):
            let etag = "\"\(asset.id)-\(asset.revision)-\(resource.type)-compatible\""
            if let refusal = FilePreconditions.ifMatchRefusal(request, etag: etag) { throw refusal }
            let file = try OpenedFile(indexedPath: resource.path, of: library)
            return try Self.fileResponse(file, length: file.size, contentType: resource.uniformType?.preferredMIMEType ?? "video/mp4",
                                         name: Self.fileName(resource.path), etag: etag, request)
        case .ready(let rendition):
            return try cachedRendition(rendition, contentType: "video/mp4", fileExtension: "mp4", request)
        case .making(_, let done, let duration):
            var fields: [(String, JSON)] = [("state", .string("making")), ("secondsDone", done.map(JSON.double) ?? .null),
                                            ("duration", duration.map(JSON.double) ?? .null)]
            if let done, let duration, duration > 0 { fields.append(("progress", .double(min(1, done / duration)))) }
            fields.append(("message", .string("the H.264 rendition is being made; ask again")))
            var response = Self.jsonResponse(.object(fields), status: 202)
            response.addHeader("Retry-After", "1")
            return response
        }
    }

    /// A rendition file from the cache: its key is its entity tag, so a client that has
    /// it gets 304 for `If-None-Match`.
    private func cachedRendition(_ rendition: CachedRendition, contentType: String, fileExtension: String,
                                 _ request: HTTPRequest) throws -> HTTPResponse {
        let etag = "\"\(rendition.key)\""
        if let refusal = FilePreconditions.ifMatchRefusal(request, etag: etag) { throw refusal }
        if let tags = request.header("If-None-Match"), FilePreconditions.entityTags(tags).contains(where: { $0 == etag || $0 == "*" }) {
            return HTTPResponse(status: 304, headers: [("ETag", etag), ("Cache-Control", "private, no-cache")])
        }
        let file = try OpenedFile(path: rendition.path)
        return try Self.fileResponse(file, length: file.size, contentType: contentType,
                                     name: Self.fileStem(rendition.source.path) + "." + fileExtension, etag: etag, request)
    }
}
