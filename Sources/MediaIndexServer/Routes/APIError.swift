import MediaIndex
import MediaIndexInterface

/// A request the API cannot answer, as `{"error": {"code": …, "message": "one sentence"}}`.
public struct APIError: Error, Equatable, Sendable {
    /// The status code: 400, 401, 404, 405, 410, 413, 416 or 500.
    public var status: Int
    /// A stable, machine-readable name (`unknownParameter`, `notFound`, …).
    public var code: String
    /// One sentence a user can act on.
    public var message: String
    /// Extra header fields (`Allow` for 405, `Content-Range` for 416).
    public var headers: [(name: String, value: String)] = []

    public static func == (a: APIError, b: APIError) -> Bool {
        a.status == b.status && a.code == b.code && a.message == b.message
    }

    static func badRequest(code: String = "badParameter", _ message: String) -> APIError {
        APIError(status: 400, code: code, message: message)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(status: 404, code: "notFound", message: message)
    }

    /// The error a library call threw, with the status that fits it.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let api as APIError: return api
        case let parameter as ParameterError: return .badRequest(parameter.message)
        case let library as LibraryError:
            switch library {
            case .assetNotFound, .duplicateGroupNotFound:
                return APIError(status: 404, code: "notFound", message: library.description)
            case .invalidUserDescription: return .badRequest(code: "invalidDescription", library.description)
            case .invalidCaptureTime: return .badRequest(code: "invalidCaptureTime", library.description)
            // A token from the future (a rebuilt library, another library's token) asks the
            // client for the same thing as an expired one: a full sync.
            case .changeTokenExpired, .changeTokenFromTheFuture:
                return APIError(status: 410, code: "changeTokenExpired", message: library.description)
            default: return APIError(status: 500, code: "internal", message: library.description)
            }
        case let query as AssetQueryError:
            switch query {
            case .unknownAlbum: return APIError(status: 404, code: "notFound", message: query.description)
            case .notAUserAlbum: return .badRequest(code: "notAUserAlbum", query.description)
            default: break
            }
            return .badRequest(code: "badQuery", query.description)
        case let search as SearchQueryError:
            return .badRequest(code: "badSearch", search.description)
        case let thumbnail as ThumbnailUnavailable:
            return APIError(status: 404, code: "thumbnailUnavailable", message: thumbnail.description)
        default:
            return APIError(status: 500, code: "internal", message: String(describing: error))
        }
    }

    /// The error as its JSON document.
    var json: JSON {
        .object([("error", .object([("code", .string(code)), ("message", .string(message))]))])
    }
}
