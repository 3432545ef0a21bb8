import Foundation
import MediaIndex

extension MediaIndexAPI {
    /// The picker's own files may load only from this server.
    static let pickerSecurityPolicy = "default-src 'self'; img-src 'self' blob: data:; media-src 'self'; "
        + "style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'"

    /// The page's policy: its files' (`pickerSecurityPolicy`), and who may frame it: the
    /// server itself and the `--picker-origin`, no one else.
    static func pickerPagePolicy(pickerOrigin: String?) -> String {
        pickerSecurityPolicy + "; frame-ancestors 'self'" + (pickerOrigin.map { " " + $0 } ?? "")
    }

    /// The page with the origin its selection is posted to, in a `meta` element the script
    /// reads (inline scripts are refused by the policy): the `--picker-origin`, else the
    /// server's own origin (`self`), never `*`.
    static func pickerPage(_ text: String, pickerOrigin: String?) -> String {
        let escaped = (pickerOrigin ?? "self").replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
        return text.replacingOccurrences(of: "<meta charset=\"utf-8\">",
                                         with: "<meta charset=\"utf-8\">\n<meta name=\"mediaindex-target-origin\" content=\"\(escaped)\">")
    }

    /// `GET /`: the web picker. `/?token=…` with the right token sets the cookie and
    /// redirects to the same page without it; on loopback the cookie is set without asking.
    func picker(_ request: HTTPRequest) throws -> HTTPResponse {
        let policy = configuration.policy
        let cookie = "\(AccessPolicy.cookieName)=\(policy.token.value); HttpOnly; SameSite=Strict; Path=/"
        if let given = request.query.first(where: { $0.name == "token" })?.value {
            guard policy.token.matches(given) else {
                throw APIError(status: 401, code: "unauthorized", message: "the token in the address is not this server's token")
            }
            let rest = request.query.filter { $0.name != "token" }
            var location = "/"
            if !rest.isEmpty {
                var components = URLComponents()
                components.queryItems = rest.map { URLQueryItem(name: $0.name, value: $0.value) }
                location += "?" + (components.percentEncodedQuery ?? "")
            }
            return HTTPResponse(status: 303, headers: [("Location", location), ("Set-Cookie", cookie),
                                                       ("Cache-Control", "no-store")])
        }
        guard let page = EmbeddedWebPicker.file(named: "index.html") else {
            throw APIError(status: 500, code: "internal", message: "the picker page is missing from this build")
        }
        let origin = configuration.pickerOrigin
        var response = HTTPResponse(status: 200, headers: [("Content-Type", page.contentType),
                                                           ("Cache-Control", "no-store"),
                                                           ("Content-Security-Policy", Self.pickerPagePolicy(pickerOrigin: origin))],
                                    body: .bytes(Array(Self.pickerPage(page.text, pickerOrigin: origin).utf8)))
        if policy.address.isLoopback { response.addHeader("Set-Cookie", cookie) }
        return response
    }

    /// `GET /picker.js`, `/picker.css`: the picker's script and style, embedded in the binary.
    func pickerFile(_ name: String, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let file = EmbeddedWebPicker.file(named: name) else { throw APIError.notFound("there is no file \(name)") }
        return HTTPResponse(status: 200, headers: [("Content-Type", file.contentType), ("Cache-Control", "no-cache"),
                                                   ("Content-Security-Policy", Self.pickerSecurityPolicy)],
                            body: .bytes(Array(file.text.utf8)))
    }
}
