import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One persistent HTTP/1.1 connection to our server on 127.0.0.1, as a browser keeps
/// for a page's images: requests go one after another on the same socket, each response
/// read to the end of its `Content-Length` (or its last chunk) and no further. For the
/// benchmark's load generator and the keep-alive tests; not a general HTTP client.
public final class LoopbackConnection {
    /// The port connected to.
    public let port: UInt16
    private let fd: Int32
    private let timeout: Double
    /// Bytes read past the previous response (a pipelining server never sends them, but
    /// nothing is lost if one does).
    private var pending: [UInt8] = []
    private var buffer = [UInt8](repeating: 0, count: 65536)
    /// Whether the server said `Connection: close`, or hung up; no request may follow.
    public private(set) var isClosed = false

    /// Connects to 127.0.0.1:`port`.
    ///
    /// - Parameter timeout: seconds each exchange may take.
    /// - Throws: `LoopbackClientError` when the socket cannot be opened or connected.
    public init(port: UInt16, timeout: Int = 30) throws {
        self.port = port
        self.timeout = Double(timeout)
        fd = try LoopbackClient.connectedSocket(port: port, sendTimeout: Double(timeout))
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// Sends a GET (or `method`, with `body` when given) for `path` and reads its whole response,
    /// leaving the connection open for the next one unless the server closes it.
    ///
    /// - Throws: `LoopbackClientError` when the connection was closed, the time or size
    ///   limit is reached, or what came back is not a complete HTTP/1.1 response.
    public func send(method: String = "GET", path: String, headers: [String: String] = [:],
                     body: [UInt8] = []) throws -> LoopbackResponse {
        guard !isClosed else { throw LoopbackClientError("the connection to 127.0.0.1:\(port) is closed") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else {
                isClosed = true
                throw LoopbackClientError("sending to 127.0.0.1:\(port) failed: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
        let deadline = LoopbackClient.monotonicSeconds() + timeout
        var received = pending
        pending = []
        // The head first, then exactly as many body bytes as it announces.
        var headEnd: Int? = LoopbackClient.headEnd(received)
        while headEnd == nil {
            try read(into: &received, deadline: deadline)
            headEnd = LoopbackClient.headEnd(received)
            if headEnd == nil && received.count > LoopbackClient.maximumHeadBytes {
                throw LoopbackClientError("127.0.0.1:\(port) sent a head longer than \(LoopbackClient.maximumHeadBytes) bytes")
            }
        }
        let bodyStart = headEnd! + 4
        let headText = String(decoding: received[0..<headEnd!], as: UTF8.self).lowercased()
        let headLines = headText.components(separatedBy: "\r\n")
        func value(_ name: String) -> String? {
            headLines.first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
        let noBody = method == "HEAD" || headLines[0].contains(" 304 ") || headLines[0].contains(" 204 ")
        var end: Int
        if noBody {
            end = bodyStart
        } else if let length = value("content-length").flatMap(Int.init) {
            guard length <= LoopbackClient.maximumResponseBytes else {
                throw LoopbackClientError("127.0.0.1:\(port) announced \(length) bytes, more than the limit")
            }
            end = bodyStart + length
            while received.count < end { try read(into: &received, deadline: deadline) }
        } else if value("transfer-encoding") == "chunked" {
            while true {
                if let last = LoopbackClient.chunks(in: received, from: bodyStart).end { end = last; break }
                try read(into: &received, deadline: deadline)
            }
        } else {
            // No length: the body runs until the server closes.
            while !isClosed { try read(into: &received, deadline: deadline, closeEnds: true) }
            end = received.count
        }
        if end < received.count { pending = Array(received[end...]) }
        if value("connection") == "close" { isClosed = true }
        return try LoopbackClient.parse(Array(received[0..<end]))
    }

    /// Appends what the socket has to `received`, waiting until `deadline`.
    private func read(into received: inout [UInt8], deadline: Double, closeEnds: Bool = false) throws {
        while true {
            let left = deadline - LoopbackClient.monotonicSeconds()
            guard left > 0 else {
                isClosed = true
                throw LoopbackClientError("127.0.0.1:\(port) did not finish answering within \(Int(timeout)) s")
            }
            LoopbackClient.setTimeout(fd, SO_RCVTIMEO, seconds: left)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                guard received.count + n <= LoopbackClient.maximumResponseBytes else {
                    isClosed = true
                    throw LoopbackClientError("127.0.0.1:\(port) sent more than \(LoopbackClient.maximumResponseBytes) bytes")
                }
                received += buffer[0..<n]
                return
            }
            if n == 0 {
                isClosed = true
                if closeEnds { return }
                throw LoopbackClientError("127.0.0.1:\(port) closed the connection in mid-response")
            }
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            isClosed = true
            throw LoopbackClientError("reading from 127.0.0.1:\(port) failed: \(String(cString: strerror(errno)))")
        }
    }
}
