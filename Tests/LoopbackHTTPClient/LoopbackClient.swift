import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as the client read it off the socket.
public struct LoopbackResponse: Sendable {
    /// The status line's code.
    public var status: Int
    /// The header fields in the order sent, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body, de-chunked when the response was chunked.
    public var body: [UInt8]

    /// The body as UTF-8 (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first value of the header `name` (any case); nil when absent.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of the header `name` (any case), in order.
    public func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// Why an exchange with the server on 127.0.0.1 failed, as one sentence.
public struct LoopbackClientError: Error, CustomStringConvertible {
    /// The sentence.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A minimal HTTP/1.1 client for tests and benchmarks of our own server: it only ever
/// connects to 127.0.0.1, sends exactly the request it is given (so a test controls
/// every header, Host included) and reads the answer within a time limit and a size
/// limit. One request per connection (`Connection: close`). Not a general HTTP client.
public enum LoopbackClient {
    /// The most bytes one exchange reads before it gives up.
    public static let maximumResponseBytes = 64 << 20
    /// The most bytes a response's status line and headers may take.
    public static let maximumHeadBytes = 64 << 10

    /// Sends one request and reads the response until the server closes.
    ///
    /// - Parameters:
    ///   - host: the Host header; nil sends `127.0.0.1:port`.
    ///   - timeout: seconds the whole exchange may take.
    /// - Throws: `LoopbackClientError` when the connection fails, the time or size
    ///   limit is reached, or what came back is not an HTTP/1.1 response.
    public static func send(port: UInt16, method: String = "GET", path: String, headers: [String: String] = [:],
                            body: [UInt8] = [], host: String? = nil, timeout: Int = 30,
                            source: String? = nil) throws -> LoopbackResponse {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { lines.append("\(name): \(value)") }
        if !body.isEmpty || ["POST", "PUT"].contains(method) { lines.append("Content-Length: \(body.count)") }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
        return try parse(try exchange(port: port, request: request, timeout: timeout, source: source))
    }

    /// Sends `request` as is and reads until the server closes or `until` says the bytes
    /// so far are enough (for a stream that stays open).
    ///
    /// - Parameter timeout: seconds the whole exchange may take.
    /// - Throws: `LoopbackClientError` when the connection fails or the time or size limit
    ///   is reached first.
    public static func exchange(port: UInt16, request: [UInt8], timeout: Int = 30, source: String? = nil,
                                until: (([UInt8]) -> Bool)? = nil) throws -> [UInt8] {
        let fd = try connectedSocket(port: port, sendTimeout: Double(timeout), source: source)
        defer { close(fd) }
        let deadline = monotonicSeconds() + Double(timeout)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may answer (413) and close before reading everything
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = deadline - monotonicSeconds()
            guard left > 0 else {
                throw LoopbackClientError("127.0.0.1:\(port) did not finish answering within \(timeout) s "
                    + "(\(received.count) bytes so far: \(String(decoding: received.prefix(200), as: UTF8.self)))")
            }
            setTimeout(fd, SO_RCVTIMEO, seconds: left)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw LoopbackClientError("reading from 127.0.0.1:\(port) failed: \(String(cString: strerror(errno)))")
            }
            guard received.count + n <= maximumResponseBytes else {
                throw LoopbackClientError("127.0.0.1:\(port) sent more than \(maximumResponseBytes) bytes")
            }
            received += buffer[0..<n]
            if let until, until(received) { break }
        }
        return received
    }

    /// Splits raw bytes into status, headers and body (de-chunked when chunked).
    ///
    /// - Throws: `LoopbackClientError` when there is no complete head or no status code.
    public static func parse(_ raw: [UInt8]) throws -> LoopbackResponse {
        guard let end = headEnd(raw) else {
            throw LoopbackClientError("no complete response: \(String(decoding: raw.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: raw[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw LoopbackClientError("not an HTTP/1.1 status line: \(head[0].prefix(200))")
        }
        let headers = head.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(raw[(end + 4)...])
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }) {
            body = dechunk(body)
        }
        return LoopbackResponse(status: status, headers: headers, body: body)
    }

    /// Where the head's closing CRLF CRLF starts, looking no further than `maximumHeadBytes`.
    static func headEnd(_ raw: [UInt8]) -> Int? {
        let limit = min(raw.count, maximumHeadBytes + 4)
        var index = 0
        while index + 3 < limit {
            if raw[index] == 13, raw[index + 1] == 10, raw[index + 2] == 13, raw[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// The data of a chunked body, up to its last chunk or as far as it is whole.
    static func dechunk(_ bytes: [UInt8]) -> [UInt8] { chunks(in: bytes, from: 0).data }

    /// A chunked body that starts at `start`: its data as far as it arrived (a chunk cut
    /// short gives what there is), and the index just past its last chunk and trailer,
    /// nil while that has not arrived or the body is malformed.
    static func chunks(in bytes: [UInt8], from start: Int) -> (data: [UInt8], end: Int?) {
        /// The index of the CR of the first CRLF at or after `index`, nil when none.
        func lineEnd(from index: Int) -> Int? {
            var end = index
            while end + 1 < bytes.count, !(bytes[end] == 13 && bytes[end + 1] == 10) { end += 1 }
            return end + 1 < bytes.count ? end : nil
        }
        var data: [UInt8] = [], index = start
        while let sizeEnd = lineEnd(from: index) {
            let sizeText = String(decoding: bytes[index..<sizeEnd], as: UTF8.self)
                .split(separator: ";", omittingEmptySubsequences: false)[0]
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else { break }
            let chunkStart = sizeEnd + 2
            if size == 0 {
                // Trailer fields, then an empty line.
                var line = chunkStart
                while let next = lineEnd(from: line) {
                    if next == line { return (data, next + 2) }
                    line = next + 2
                }
                break
            }
            let arrived = min(size, bytes.count - chunkStart)
            data += bytes[chunkStart..<chunkStart + arrived]
            guard arrived == size else { break }
            index = chunkStart + size + 2
        }
        return (data, nil)
    }

    /// A TCP socket connected to 127.0.0.1:`port`, whose sends give up after `sendTimeout`
    /// seconds; the caller closes it.
    ///
    /// - Parameter source: the loopback address to connect from (`127.0.0.2`…), so a test
    ///   can play several clients; nil lets the kernel choose (127.0.0.1).
    /// - Throws: `LoopbackClientError` when the socket cannot be opened or connected.
    public static func connectedSocket(port: UInt16, sendTimeout: Double, source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackClientError("cannot open a socket: \(String(cString: strerror(errno)))") }
        setTimeout(fd, SO_SNDTIMEO, seconds: sendTimeout)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw LoopbackClientError("cannot connect from \(source): \(reason)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw LoopbackClientError("cannot connect to 127.0.0.1:\(port): \(reason)")
        }
        return fd
    }

    /// Sets a socket's send or receive timeout (`SO_SNDTIMEO`, `SO_RCVTIMEO`); zero becomes 1 ms.
    public static func setTimeout(_ fd: Int32, _ option: Int32, seconds: Double) {
        let whole = max(0, seconds)
        var time = timeval(tv_sec: Int(whole), tv_usec: Int((whole - Double(Int(whole))) * 1_000_000))
        if time.tv_sec == 0 && time.tv_usec == 0 { time.tv_usec = 1_000 }  // zero would mean no limit
        setsockopt(fd, SOL_SOCKET, option, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
