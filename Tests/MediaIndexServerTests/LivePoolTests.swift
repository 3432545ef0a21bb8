import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer
#if canImport(Glibc)
import Glibc
#endif

@Suite("HTTP request deadlines")
struct RequestDeadlineTests {
    @Test("a connection that does not finish its head in time is cut")
    func headDeadline() throws {
        let deadlines = ConnectionDeadlines(headSeconds: 0.2, bodySeconds: 0.2, idleSeconds: 0.2)
        deadlines.start()
        defer { deadlines.stop() }
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let connection = OpaquePointer(bitPattern: 0x1000)!
        deadlines.opened(connection, descriptor: pair[0])
        let clock = ContinuousClock()
        let start = clock.now
        var byte: UInt8 = 0
        LoopbackClient.setTimeout(pair[1], SO_RCVTIMEO, seconds: 3)
        #expect(recv(pair[1], &byte, 1, 0) == 0, "the server end was shut down: the client reads the end")
        #expect(clock.now - start < .seconds(2))
        #expect(deadlines.cutCount == 1)
        deadlines.closed(connection)
    }
}

@Suite("HTTP live pool", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct LivePoolShareTests {
    @Test("one client holds at most its share of long polls; the next is told 503 with Retry-After")
    func perClientShare() throws {
        let served = try ServedLibrary()
        let port = served.port
        let token = try served.library.blocking.currentChangeToken().rawValue
        let share = served.server.api.livePool.perClient
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<share {
            let fd = try LoopbackClient.connectedSocket(port: port, sendTimeout: 5, source: "127.0.0.3")
            let head = "GET /v1/changes?since=\(token)&wait=30 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = Glibc.send(fd, head, head.utf8.count, Int32(MSG_NOSIGNAL))
            held.append(fd)
        }
        let clock = ContinuousClock()
        let start = clock.now
        while served.server.api.livePool.count < share && clock.now - start < .seconds(5) { usleep(20_000) }
        let refused = try LoopbackClient.send(port: port, path: "/v1/changes?since=\(token)&wait=30", timeout: 5,
                                              source: "127.0.0.3")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "5")
        let other = try LoopbackClient.send(port: port, path: "/v1/changes?since=\(token)&wait=0.2", timeout: 5,
                                            source: "127.0.0.4")
        #expect(other.status == 200)
    }
}
