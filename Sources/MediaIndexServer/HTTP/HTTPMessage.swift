#if canImport(Glibc)
import Glibc
#endif

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
    /// The connection it came on; nil for a request made in code.
    public var client: ClientConnection?

    /// A request from its parts.
    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [String: String] = [:], cookies: [String: String] = [:], body: [UInt8] = [],
                client: ClientConnection? = nil) {
        self.client = client
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

/// The client end of a request's connection: who sent it, and whether it still listens.
public struct ClientConnection: Sendable {
    /// The client's address without the port (`127.0.0.1`, `::1`).
    public var address: String
    /// The connection's socket; valid while its request is being answered.
    let descriptor: Int32

    /// A connection from its parts.
    public init(address: String, descriptor: Int32) {
        self.address = address
        self.descriptor = descriptor
    }

    /// False once the client has closed or reset the connection, so a long poll or an
    /// event stream can end instead of holding a thread for nobody. Wraps `poll(2)`
    /// (`POLLRDHUP`), without reading anything.
    public var isOpen: Bool {
        guard descriptor >= 0 else { return true }
        // POLLRDHUP (0x2000) is a GNU extension Swift's Glibc module does not export.
        let peerClosed: Int16 = 0x2000
        var entry = pollfd(fd: descriptor, events: peerClosed, revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return true }
        return entry.revents & (peerClosed | Int16(POLLHUP | POLLERR | POLLNVAL)) == 0
    }
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
