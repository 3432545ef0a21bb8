import Foundation
import MediaIndex

extension MediaIndexAPI {
    /// `GET /v1/assets/{id}/resources/{role}`: the original bytes of one resource, with
    /// `Range` support; `embeddedVideo` is the movie inside a motion photo's file.
    /// `representation=compatible` gives a still as a JPEG and a movie as H.264 MP4
    /// (`RenditionRoute.swift`). `version=current|original` picks the edited rendering or
    /// the original for the primary's names (`primary`, `photo`/`video`, `fullSizePhoto`/`fullSizeVideo`).
    func resource(_ id: String, role: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: ["representation", "version", "colorspace", "location"])
        let representation = try query.value("representation") ?? "current"
        guard ["current", "compatible"].contains(representation) else {
            throw APIError.badRequest("representation takes current or compatible, not '\(representation)'")
        }
        let version = try Self.renditionVersion(query)
        let asset = try existingAsset(id, request)
        if representation == "compatible", let response = try compatibleRendition(of: asset, role: role, version: version,
                                                                                   query: query, request) {
            return response
        }
        let served: (path: PathBytes, offset: UInt64, length: UInt64?, contentType: String, name: String)
        if role == "embeddedVideo", let video = asset.embeddedVideo, let primary = asset.primaryResource {
            served = (primary.path, UInt64(max(0, video.offset)), UInt64(max(0, video.length)), "video/mp4",
                      Self.fileStem(primary.path) + ".mp4")
        } else if let resource = role == "primary" ? asset.resource(for: version ?? .original)
                    : asset.resources.first(where: { $0.type.rawValue == role }) {
            served = (resource.path, 0, nil, resource.uniformType?.preferredMIMEType ?? "application/octet-stream",
                      Self.fileName(resource.path))
        } else {
            var roles = ["primary"] + asset.resources.map(\.type.rawValue)
            if asset.embeddedVideo != nil { roles.append("embeddedVideo") }
            throw APIError.notFound("asset \(id) has no \(role) resource; it has " + roles.joined(separator: ", "))
        }
        let etag = "\"\(asset.id)-\(asset.revision)-\(role)\(version.map { "-" + $0.rawValue } ?? "")\""
        if let refusal = FilePreconditions.ifMatchRefusal(request, etag: etag) { throw refusal }
        let file = try OpenedFile(indexedPath: served.path, of: library)
        guard served.offset <= file.size else { throw APIError.notFound("the file \(served.path.displayString) has shrunk since it was indexed") }
        let length = min(served.length ?? (file.size - served.offset), file.size - served.offset)
        return try Self.fileResponse(file, offset: served.offset, length: length, contentType: served.contentType,
                                     name: served.name, etag: etag, request)
    }

    /// 200 with `length` bytes of `file` from `offset`, or 206 with the range asked for
    /// (when `If-Range` allows), with the headers every file answer carries.
    static func fileResponse(_ file: OpenedFile, offset: UInt64 = 0, length: UInt64, contentType: String, name: String,
                             etag: String?, _ request: HTTPRequest) throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", contentType), ("Content-Disposition", contentDisposition(name)),
            ("Accept-Ranges", "bytes"), ("Cache-Control", "private, no-cache"),
        ]
        if let etag { headers.append(("ETag", etag)) }
        if let header = request.header("Range"), FilePreconditions.rangeApplies(request, etag: etag),
           let range = try ByteRange.resolve(header, length: length) {
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"))
            return HTTPResponse(status: 206, headers: headers,
                                body: .file(descriptor: file.takeDescriptor(), offset: offset + range.lowerBound,
                                            length: range.upperBound - range.lowerBound + 1))
        }
        return HTTPResponse(status: 200, headers: headers, body: .file(descriptor: file.takeDescriptor(), offset: offset, length: length))
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
