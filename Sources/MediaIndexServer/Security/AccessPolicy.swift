/// Who may ask what: the Host check on a loopback bind, tokens, the page's cookie and
/// CORS. Every decision is made from the request alone, before any library call.
public struct AccessPolicy: Sendable {
    /// The cookie the page `/` sets; HttpOnly, so the page's scripts never see the token.
    public static let cookieName = "mediaindex_token"
    /// The header a cookie-authorised write must carry; a cross-site form cannot set it.
    public static let writeHeader = "X-MediaIndex"

    /// The address the server is bound to (with its real port).
    public var address: ListenAddress
    /// The token writes (and, off loopback, every request) need.
    public var token: ServeToken
    /// The one origin given CORS headers (`--allow-origin`); nil for none.
    public var allowedOrigin: String?

    /// A policy for a server bound to `address`.
    public init(address: ListenAddress, token: ServeToken, allowedOrigin: String? = nil) {
        self.address = address
        self.token = token
        self.allowedOrigin = allowedOrigin
    }

    /// A refusal: the status and one sentence.
    public struct Refusal: Error, Equatable, Sendable {
        public var status: Int
        public var code: String
        public var message: String
    }

    /// How a request proved it holds the token.
    public enum Credential: Equatable, Sendable {
        case none, bearer, cookie
    }

    /// The names a browser on this machine may give in `Host` for a loopback bind:
    /// localhost, 127.0.0.1 or [::1] (and the bound address itself), with the port.
    public var allowedHosts: [String] {
        var hosts = ["localhost:\(address.port)", "127.0.0.1:\(address.port)", "[::1]:\(address.port)"]
        let bound = address.description
        if !hosts.contains(bound) { hosts.append(bound) }
        return hosts
    }

    /// Refuses a request whose `Host` names anything else on a loopback bind, which is
    /// what a DNS-rebinding page would send. Off loopback the token does that work.
    public func checkHost(_ request: HTTPRequest) -> Refusal? {
        guard address.isLoopback else { return nil }
        guard let host = request.header("Host")?.lowercased() else {
            return Refusal(status: 400, code: "badHost", message: "the request has no Host header; this server answers to "
                           + allowedHosts.joined(separator: ", "))
        }
        if allowedHosts.contains(host) { return nil }
        return Refusal(status: 400, code: "badHost",
                       message: "the Host header names \(host), but this server answers only to " + allowedHosts.joined(separator: ", "))
    }

    /// The credential the request carries.
    ///
    /// - Throws: `Refusal` (401) for a bearer token that is not the token.
    public func credential(of request: HTTPRequest) throws(Refusal) -> Credential {
        if let authorization = request.header("Authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer", token.matches(String(parts[1])) else {
                throw Refusal(status: 401, code: "unauthorized", message: "the Authorization header does not carry this server's token")
            }
            return .bearer
        }
        if let cookie = request.cookies[Self.cookieName], token.matches(cookie) { return .cookie }
        return .none
    }

    /// Refuses a request that lacks what it needs: off loopback every request needs the
    /// token; writes need it everywhere, and a cookie-authorised write also needs
    /// `X-MediaIndex: 1`.
    public func authorize(_ request: HTTPRequest, isWrite: Bool) -> Refusal? {
        let credential: Credential
        do { credential = try self.credential(of: request) } catch { return error }
        switch credential {
        case .bearer: return nil
        case .cookie:
            if isWrite && request.header(Self.writeHeader) != "1" {
                return Refusal(status: 401, code: "unauthorized",
                               message: "a write authorised by the page's cookie must carry the header \(Self.writeHeader): 1")
            }
            return nil
        case .none:
            if !isWrite && address.isLoopback { return nil }
            return Refusal(status: 401, code: "unauthorized", message: isWrite
                ? "writes need the token: send Authorization: Bearer TOKEN (the token is in the server's token file)"
                : "this server needs the token: send Authorization: Bearer TOKEN, or open /?token=TOKEN in a browser")
        }
    }

    /// The CORS headers for a request from the allowed origin; none otherwise.
    public func corsHeaders(for request: HTTPRequest) -> [(name: String, value: String)] {
        guard let allowedOrigin, let origin = request.header("Origin"),
              allowedOrigin == "*" || origin == allowedOrigin else { return [] }
        return [("Access-Control-Allow-Origin", allowedOrigin == "*" ? "*" : origin), ("Vary", "Origin"),
                ("Access-Control-Expose-Headers", "ETag, Content-Range, Content-Disposition")]
    }

    /// Whether a preflight (`OPTIONS` with `Access-Control-Request-Method`) is from the
    /// allowed origin and may be answered.
    public func allowsPreflight(_ request: HTTPRequest) -> Bool {
        !corsHeaders(for: request).isEmpty && request.header("Access-Control-Request-Method") != nil
    }
}
