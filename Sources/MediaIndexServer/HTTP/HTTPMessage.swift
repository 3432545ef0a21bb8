/// One HTTP request as the routes see it, already parsed by libmicrohttpd.
public struct HTTPRequest: Sendable {
    /// `GET`, `PUT`, … as sent.
    public var method: String
    /// The path, percent-decoded, without the query (`/v1/assets/A1`).
    public var path: String
    /// Query parameters in order, percent-decoded; a name without `=` has an empty value.
    public var query: [(name: String, value: String)]
    /// Header fields, names in lower case.
    public var headers: [String: String]
    /// Cookies the request carries.
    public var cookies: [String: String]
    /// The request body (at most `HTTPServer.maximumBodyBytes`).
    public var body: [UInt8]

    /// A request from its parts.
    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [String: String] = [:], cookies: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.cookies = cookies
        self.body = body
    }

    /// A header's value; `name` is matched case-insensitively.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What a route answers: a status, headers and a body that is bytes, a file or a stream.
public struct HTTPResponse: Sendable {
    /// How the body is produced.
    public enum Body: Sendable {
        /// Bytes held in memory (JSON, the picker's files, errors).
        case bytes([UInt8])
        /// `length` bytes of an open file from `offset`; the server closes the descriptor
        /// (libmicrohttpd sends it with `sendfile`, never loading it whole).
        case file(descriptor: Int32, offset: UInt64, length: UInt64)
        /// Chunks produced as they come (Server-Sent Events).
        case stream(any HTTPBodyStream)
    }

    /// The status code.
    public var status: Int
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body

    /// A response from its parts.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Adds a header field.
    public mutating func addHeader(_ name: String, _ value: String) {
        headers.append((name, value))
    }
}

/// A body produced in chunks while the connection is open.
public protocol HTTPBodyStream: Sendable {
    /// The next chunk; blocks until one is ready. nil ends the stream (the server is
    /// stopping, or the stream is complete). Called on the connection's own thread.
    func nextChunk() -> [UInt8]?
    /// The client went away or the server stops: `nextChunk` should return soon.
    func cancel()
}
