import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Answers the requests an `HTTPServer` receives. Called on the connections' own
/// threads, several at once.
public protocol HTTPHandler: Sendable {
    /// The response to a complete request.
    func respond(to request: HTTPRequest) -> HTTPResponse
    /// The response to a request whose body exceeds `HTTPServer.maximumBodyBytes` (413).
    func bodyTooLarge() -> HTTPResponse
    /// The response to a request refused before it is decoded (a NUL byte, a target too long).
    func requestRefused(_ refusal: HTTPRefusal) -> HTTPResponse
    /// The server is stopping: end long polls and event streams now.
    func serverWillStop()
    /// Every connection of a burst has closed: free what can be rebuilt (caches).
    func burstEnded()
}

/// An HTTP server: libmicrohttpd with one thread per connection, a bounded number of
/// connections in all and per client address, deadlines on request heads and bodies
/// (`ConnectionDeadlines`), bounded request targets and bodies. It parses nothing
/// itself; `handler` answers each request.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` is set once in init and cleared once in stop(), under `lock`;
    // libmicrohttpd calls back on its own threads, which only read `handler` and the
    // thread-safe `deadlines`.

    /// The largest request body read (1 MB); a larger one gets the handler's 413.
    public static let maximumBodyBytes = 1 << 20
    /// At most this many connections at once; more are refused at once.
    public static let connectionLimit: UInt32 = 256
    /// At most this many connections from one client address, so one client cannot take
    /// every connection.
    public static let perClientConnectionLimit: UInt32 = 32
    /// An idle connection is closed after this many seconds, and a kept-alive one must
    /// send its next request's head within as long.
    public static let idleTimeoutSeconds: UInt32 = 30
    /// A request's head must arrive within this many seconds of connecting, its body
    /// within as many seconds of its head.
    public static let requestTimeoutSeconds = 10.0
    /// The longest request target (path and query) answered; a longer one gets 414.
    public static let maximumTargetBytes = 8 * 1024
    /// The most query parameters a request may carry; more get 414.
    public static let maximumParameters = 256
    /// Memory per connection for its head and parsed fields: room for a target of
    /// `maximumTargetBytes` split into as many parameters as it can hold, so
    /// libmicrohttpd never runs out before the handler can refuse it.
    static let connectionMemoryBytes = 512 * 1024

    /// What answers the requests.
    public let handler: any HTTPHandler
    /// The address bound, with the port the kernel chose when 0 was asked for.
    public private(set) var address: ListenAddress
    private var daemon: OpaquePointer?
    private let lock = NSLock()
    let deadlines = ConnectionDeadlines(headSeconds: requestTimeoutSeconds, bodySeconds: requestTimeoutSeconds,
                                        idleSeconds: Double(idleTimeoutSeconds))

    /// Binds `address` and starts answering with `handler`.
    ///
    /// - Throws: `HTTPServerError.cannotListen` when the address cannot be bound (in use,
    ///   not an address of this machine, a privileged port). Wraps `MHD_start_daemon`.
    public init(address: ListenAddress, handler: any HTTPHandler) throws {
        self.handler = handler
        self.address = address
        let context = Unmanaged.passUnretained(self).toOpaque()
        deadlines.burstEnded = { [handler] in handler.burstEnded() }
        deadlines.start()
        let started: OpaquePointer? = Self.withSocketAddress(address) { socketAddress in
            mediaindex_mhd_start(socketAddress, address.isIPv6 ? 1 : 0, Self.connectionLimit, Self.perClientConnectionLimit,
                                 Self.idleTimeoutSeconds, Self.connectionMemoryBytes,
                                 httpServerAccessHandler, context, httpServerRequestCompleted, httpServerTargetReceived,
                                 httpServerConnectionChanged, context)
        }
        guard let started else {
            deadlines.stop()
            throw HTTPServerError.cannotListen(address: address.description,
                                               reason: "the address is in use, is not one of this machine's, or needs privileges")
        }
        daemon = started
        self.address.port = mediaindex_mhd_port(started)
    }

    deinit { stop() }

    /// Ends open streams and long polls, then stops accepting and waits for the
    /// connections' threads. Wraps `MHD_stop_daemon`.
    public func stop() {
        lock.lock()
        let running = daemon
        daemon = nil
        lock.unlock()
        guard let running else { return }
        handler.serverWillStop()
        MHD_stop_daemon(running)
        deadlines.stop()
    }

    private static func withSocketAddress<T>(_ address: ListenAddress, _ body: (UnsafePointer<sockaddr>) -> T) -> T {
        if address.isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            _ = inet_pton(AF_INET6, address.host, &socketAddress.sin6_addr)
            return withUnsafePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        _ = inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
        return withUnsafePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }

    // MARK: Requests

    /// A request from its target to its answer: created when libmicrohttpd has read the
    /// request line, so the raw target (before any decoding) can be checked.
    fileprivate final class PendingRequest {
        /// The request target as sent, percent escapes intact.
        let rawTarget: [UInt8]
        var headReceived = false
        var body: [UInt8] = []
        var discardedBytes = 0
        var tooLarge = false
        var answered = false
        init(rawTarget: [UInt8]) { self.rawTarget = rawTarget }
    }

    fileprivate func receive(connection: OpaquePointer, url: String, method: String,
                             upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                             context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        if context.pointee == nil {
            context.pointee = Unmanaged.passRetained(PendingRequest(rawTarget: Array(url.utf8))).toOpaque()
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(context.pointee!).takeUnretainedValue()
        guard pending.headReceived else {
            pending.headReceived = true
            let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length")
                .flatMap { UInt64(String(cString: $0)) }
            let chunked = MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") != nil
            deadlines.headReceived(connection, expectsBody: chunked || (length ?? 0) > 0)
            if let refusal = RequestLimits.refusal(target: pending.rawTarget) ?? RequestLimits.refusal(fieldsOf: connection)
                ?? RequestLimits.refusal(hiddenBytesOf: connection) {
                pending.answered = true
                return queue(handler.requestRefused(refusal), on: connection)
            }
            if let length, length > UInt64(Self.maximumBodyBytes) {
                pending.answered = true
                return queue(handler.bodyTooLarge(), on: connection)
            }
            return .YES
        }
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if pending.answered || pending.tooLarge || pending.body.count + count > Self.maximumBodyBytes {
                // libmicrohttpd takes no response in mid-body: discard up to a bound, then hang up.
                pending.tooLarge = !pending.answered
                pending.discardedBytes += count
                return pending.discardedBytes > 16 * Self.maximumBodyBytes ? .NO : .YES
            }
            if let upload {
                upload.withMemoryRebound(to: UInt8.self, capacity: count) {
                    pending.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
            }
            return .YES
        }
        deadlines.requestReceived(connection)
        if pending.answered { return .YES }
        pending.answered = true
        if pending.tooLarge { return queue(handler.bodyTooLarge(), on: connection) }
        return queue(handler.respond(to: request(on: connection, method: method, url: url, body: pending.body)), on: connection)
    }

    /// The request as the handler sees it: fields as libmicrohttpd parsed them.
    private func request(on connection: OpaquePointer, method: String, url: String, body: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: method, path: url,
                    query: Self.values(of: connection, kind: .GET_ARGUMENT_KIND),
                    headers: Dictionary(Self.values(of: connection, kind: .HEADER_KIND)
                        .map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first }),
                    cookies: Dictionary(Self.values(of: connection, kind: .COOKIE_KIND)
                        .map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }),
                    body: body,
                    client: ClientConnection(address: Self.clientAddress(of: connection),
                                             descriptor: mediaindex_mhd_connection_fd(connection)))
    }

    /// The client's address as text, without the port. Wraps `inet_ntop`.
    static func clientAddress(of connection: OpaquePointer) -> String {
        guard let address = mediaindex_mhd_client_address(connection) else { return "" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if address.pointee.sa_family == sa_family_t(AF_INET6) {
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var bytes = ipv6.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
            }
        } else {
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var bytes = ipv4.pointee.sin_addr
                _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count))
            }
        }
        return String(cString: text)
    }

    /// Keeps the raw target for the checks of the first call of the access handler. A
    /// target that will be refused (too long, too many parameters, a NUL) is ended in
    /// libmicrohttpd's own buffer just after its `?`: libmicrohttpd splits the query
    /// into parameters right after this call, into the connection's memory, and 10,000
    /// of them exhaust it, so it would close the connection without an answer; with an
    /// empty query it goes on to the handler, which answers 414 (or 400).
    fileprivate func targetReceived(_ target: UnsafePointer<CChar>) -> UnsafeMutableRawPointer {
        let bytes = UnsafeRawBufferPointer(start: target, count: strlen(target))
        let pending = PendingRequest(rawTarget: Array(bytes))
        if RequestLimits.refusal(target: pending.rawTarget) != nil, let question = bytes.firstIndex(of: UInt8(ascii: "?")),
           question + 1 < bytes.count {
            UnsafeMutablePointer(mutating: target)[question + 1] = 0
        }
        return Unmanaged.passRetained(pending).toOpaque()
    }

    private final class ValueList {
        var values: [(name: String, value: String)] = []
    }

    /// Headers, query arguments or cookies, as libmicrohttpd parsed them. Wraps
    /// `MHD_get_connection_values`.
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        let list = ValueList()
        _ = withExtendedLifetime(list) {
            MHD_get_connection_values(connection, kind, { context, _, key, value in
                guard let context, let key else { return .YES }
                let list = Unmanaged<ValueList>.fromOpaque(context).takeUnretainedValue()
                if list.values.count < 512 {
                    list.values.append((String(decoding: UnsafeRawBufferPointer(start: key, count: strlen(key)), as: UTF8.self),
                                        value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""))
                }
                return .YES
            }, Unmanaged.passUnretained(list).toOpaque())
        }
        return list.values
    }

    // MARK: Responses

    /// Hands `response` to libmicrohttpd. Wraps `MHD_create_response_from_buffer`,
    /// `MHD_create_response_from_fd_at_offset64`, `MHD_create_response_from_callback`
    /// and `MHD_queue_response`.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let created: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            created = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                                                .RESPMEM_MUST_COPY)
            }
        case .file(let descriptor, let offset, let length):
            created = MHD_create_response_from_fd_at_offset64(length, descriptor, offset)
            if created == nil { close(descriptor) }
        case .stream(let stream):
            let box = Unmanaged.passRetained(StreamReader(stream: stream)).toOpaque()
            created = MHD_create_response_from_callback(mediaindex_mhd_size_unknown, 16 * 1024, httpServerReadStream, box,
                                                        httpServerFreeStream)
            if created == nil { Unmanaged<StreamReader>.fromOpaque(box).release() }
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for header in response.headers {
            _ = MHD_add_response_header(created, header.name, header.value)
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }
}

/// A stream's chunks, handed out in pieces as large as libmicrohttpd's buffer.
private final class StreamReader {
    let stream: any HTTPBodyStream
    var pending: [UInt8] = []
    var offset = 0
    init(stream: any HTTPBodyStream) { self.stream = stream }
}

/// Why the server cannot run.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// libmicrohttpd could not bind or start.
    case cannotListen(address: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
        }
    }
}

private let httpServerAccessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, size, state in
    guard let context, let connection, let url, let method, let size, let state else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.receive(connection: connection, url: String(cString: url), method: String(cString: method),
                          upload: upload, uploadSize: size, context: state)
}

private let httpServerRequestCompleted: MHD_RequestCompletedCallback = { context, connection, state, _ in
    if let context, let connection {
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().deadlines.responseSent(connection)
    }
    guard let state, let stored = state.pointee else { return }
    Unmanaged<AnyObject>.fromOpaque(stored).release()
    state.pointee = nil
}

private let httpServerTargetReceived: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
    -> UnsafeMutableRawPointer? = { context, target, _ in
    guard let context, let target else { return nil }
    return Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().targetReceived(target)
}

private let httpServerConnectionChanged: MHD_NotifyConnectionCallback = { context, connection, _, change in
    guard let context, let connection else { return }
    let deadlines = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().deadlines
    if change.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        deadlines.opened(connection, descriptor: mediaindex_mhd_connection_fd(connection))
    } else {
        deadlines.closed(connection)
    }
}

private let httpServerReadStream: MHD_ContentReaderCallback = { context, _, buffer, capacity in
    guard let context, let buffer else { return mediaindex_mhd_end_of_stream }
    let reader = Unmanaged<StreamReader>.fromOpaque(context).takeUnretainedValue()
    if reader.offset >= reader.pending.count {
        guard let chunk = reader.stream.nextChunk() else { return mediaindex_mhd_end_of_stream }
        reader.pending = chunk
        reader.offset = 0
        if chunk.isEmpty { return 0 }
    }
    let count = min(capacity, reader.pending.count - reader.offset)
    reader.pending.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + reader.offset, byteCount: count)
    }
    reader.offset += count
    return count
}

private let httpServerFreeStream: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let reader = Unmanaged<StreamReader>.fromOpaque(context).takeRetainedValue()
    reader.stream.cancel()
}
