import Foundation
import MediaIndex

extension MediaIndexAPI {
    /// `GET /v1/assets/{id}/resources/{role}`: the original bytes of one resource, with
    /// `Range` support; `representation=compatible` gives a HEIC, HEIF or AVIF photo as a
    /// full-size JPEG. `primary` names the asset's primary resource (its `photo` or `video`);
    /// `embeddedVideo` is the movie inside a motion photo's file.
    func resource(_ id: String, role: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: ["representation"])
        let representation = try query.value("representation") ?? "current"
        guard ["current", "compatible"].contains(representation) else {
            throw APIError.badRequest("representation takes current or compatible, not '\(representation)'")
        }
        let asset = try existingAsset(id, request)
        let served: (path: PathBytes, offset: UInt64, length: UInt64?, contentType: String, name: String)
        if role == "embeddedVideo", let video = asset.embeddedVideo, let primary = asset.primaryResource {
            served = (primary.path, UInt64(max(0, video.offset)), UInt64(max(0, video.length)), "video/mp4",
                      Self.fileStem(primary.path) + ".mp4")
        } else if let resource = role == "primary" ? asset.primaryResource : asset.resources.first(where: { $0.role == role }) {
            if representation == "compatible", resource == asset.primaryResource,
               ["image/heic", "image/heif", "image/avif"].contains(resource.contentType ?? "") {
                return try compatibleJPEG(of: asset, resource: resource, request)
            }
            served = (resource.path, 0, nil, resource.contentType ?? "application/octet-stream",
                      Self.fileName(resource.path))
        } else {
            var roles = ["primary"] + asset.resources.map(\.role)
            if asset.embeddedVideo != nil { roles.append("embeddedVideo") }
            throw APIError.notFound("asset \(id) has no \(role) resource; it has " + roles.joined(separator: ", "))
        }
        let etag = "\"\(asset.id)-\(asset.revision)-\(role)\""
        if let refusal = FilePreconditions.ifMatchRefusal(request, etag: etag) { throw refusal }
        let file = try OpenedFile(indexedPath: served.path, of: library)
        guard served.offset <= file.size else { throw APIError.notFound("the file \(served.path.displayString) has shrunk since it was indexed") }
        let length = min(served.length ?? (file.size - served.offset), file.size - served.offset)
        var headers: [(name: String, value: String)] = [
            ("Content-Type", served.contentType), ("Content-Disposition", Self.contentDisposition(served.name)),
            ("Accept-Ranges", "bytes"), ("Cache-Control", "private, no-cache"), ("ETag", etag),
        ]
        if let header = request.header("Range"), FilePreconditions.rangeApplies(request, etag: etag),
           let range = try ByteRange.resolve(header, length: length) {
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"))
            return HTTPResponse(status: 206, headers: headers,
                                body: .file(descriptor: file.takeDescriptor(), offset: served.offset + range.lowerBound,
                                            length: range.upperBound - range.lowerBound + 1))
        }
        return HTTPResponse(status: 200, headers: headers,
                            body: .file(descriptor: file.takeDescriptor(), offset: served.offset, length: length))
    }

    /// The primary photo decoded and re-encoded as a JPEG at full size (PHPicker's
    /// `.compatible`), kept in the thumbnail cache like any thumbnail.
    private func compatibleJPEG(of asset: Asset, resource: AssetResource, _ request: HTTPRequest) throws -> HTTPResponse {
        let side = max(asset.pixelWidth ?? 0, asset.pixelHeight ?? 0)
        let jpeg = ThumbnailRequest(maxPixelSize: side > 0 ? side : 16_384, mode: .fit, format: .jpeg(quality: 90))
        let path = try library.blocking.thumbnail(for: asset, size: jpeg.maxPixelSize, mode: jpeg.mode, format: jpeg.format).path
        let etag = library.thumbnailKey(for: asset, request: jpeg).map { "\"\($0.hash)\"" }
        if let refusal = FilePreconditions.ifMatchRefusal(request, etag: etag) { throw refusal }
        let file = try OpenedFile(path: path)
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "image/jpeg"), ("Content-Disposition", Self.contentDisposition(Self.fileStem(resource.path) + ".jpg")),
            ("Accept-Ranges", "bytes"), ("Cache-Control", "private, no-cache"),
        ]
        if let etag { headers.append(("ETag", etag)) }
        if let header = request.header("Range"), FilePreconditions.rangeApplies(request, etag: etag),
           let range = try ByteRange.resolve(header, length: file.size) {
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"))
            return HTTPResponse(status: 206, headers: headers, body: .file(descriptor: file.takeDescriptor(),
                                offset: range.lowerBound, length: range.upperBound - range.lowerBound + 1))
        }
        return HTTPResponse(status: 200, headers: headers, body: .file(descriptor: file.takeDescriptor(), offset: 0, length: file.size))
    }

    /// The last component of a path, as text.
    static func fileName(_ path: PathBytes) -> String {
        String(decoding: path.bytes.split(separator: UInt8(ascii: "/")).last ?? [], as: UTF8.self)
    }

    /// The file name without its extension.
    static func fileStem(_ path: PathBytes) -> String {
        let name = fileName(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `inline; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266), so any name
    /// survives and none can break the header.
    static func contentDisposition(_ name: String) -> String {
        let ascii = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar.value != 0x7F ? Character(scalar) : "_"
        })
        let allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(0x80)))
            .union(CharacterSet(charactersIn: "!#$&+-.^_`|~"))
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ascii
        return "inline; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
