import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    static let captureTimeShape = #"{"ids": ["…"], "offset": "+09:00"} or {"ids": ["…"], "zone": "Asia/Tokyo"} or {"ids": ["…"], "reset": true}"#

    /// `POST /v1/assets/capture-time`: as `adjust-time`; answers with the assets as they now are.
    func setCaptureTime(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        let body = try Self.jsonBody(request, shape: Self.captureTimeShape)
        let given = Set(body.keys).subtracting(["ids"])
        guard let texts = body["ids"] as? [String], !texts.isEmpty, texts.count <= 10_000, given.count == 1,
              given.isSubset(of: ["offset", "zone", "reset"]) else {
            throw APIError.badRequest(code: "badBody", "the body must be \(Self.captureTimeShape), with at least one id")
        }
        let ids = try texts.map { text in
            guard let id = Asset.ID(text) else { throw APIError.notFound(LibraryError.assetNotFound(text).description) }
            return id
        }
        let offset = body["offset"], zone = body["zone"]
        guard offset == nil || offset is String, zone == nil || zone is String, body["reset"] == nil || body["reset"] as? Bool == true
        else { throw APIError.badRequest(code: "badBody", "the body must be \(Self.captureTimeShape)") }
        let setting = try CaptureTimeArgument.setting(offset: offset as? String, zone: zone as? String) { "'\($0)'" }
        try library.blocking.setCaptureTime(setting, for: ids)
        return Self.jsonResponse(JSON.array(try ids.map { JSONShapes.asset(try existingAsset($0.description)) }))
    }
}
