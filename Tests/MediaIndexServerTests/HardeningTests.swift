import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer
#if canImport(Glibc)
import Glibc
#endif

/// Sends `head` (a request's raw bytes) and parses what comes back.
private func rawExchange(_ served: ServedLibrary, _ head: [UInt8]) throws -> LoopbackResponse {
    try LoopbackClient.parse(LoopbackClient.exchange(port: served.port, request: head, timeout: 10))
}

@Suite("HTTP request bounds", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct RequestBoundsTests {
    @Test("%00 in the path or the query is refused with 400 before any route sees it; a NUL cannot hide a Host")
    func nulBytes() throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        for path in ["/v1/assets/\(id)%00xyz", "/v1/assets/\(id)%00", "/v1/assets?limit=1%00", "/v1/assets?sort%00=x"] {
            let refused = try served.get(path)
            #expect(refused.status == 400, "\(path)")
            #expect(refused.errorCode == "nulByte", "\(path): \(refused.text)")
        }
        // libmicrohttpd 0.9.75 ends a header field at a NUL before the handler sees it: the
        // Host check then judges what comes before, so no other host can hide behind one.
        let hidden = Array("GET /v1/status HTTP/1.1\r\nHost: evil.example".utf8) + [0]
            + Array("127.0.0.1:\(served.port)\r\nConnection: close\r\n\r\n".utf8)
        #expect(try rawExchange(served, hidden).status == 400)
        // The same requests without the NUL are answered.
        #expect(try served.get("/v1/assets/\(id)").status == 200)
    }

    @Test("10 KB of repeated query parameters, too many parameters or a target over 8 KiB get 414, never silence")
    func oversizeTargets() throws {
        let served = try ServedLibrary()
        let repeated = Array(repeating: "limit=1", count: 1400).joined(separator: "&")  // 11,199 bytes
        let cases = ["/v1/assets?" + repeated,
                     "/v1/assets?" + Array(repeating: "a", count: 300).joined(separator: "&"),
                     "/v1/assets?" + Array(repeating: "&", count: 6000).joined(),
                     "/v1/assets?sort=" + String(repeating: "x", count: 9000),
                     "/v1/assets?" + Array(repeating: "a=1", count: 5000).joined(separator: "&")]
        for path in cases {
            let answer = try served.get(path)
            #expect(answer.status == 414 || answer.status == 431, "\(path.utf8.count) bytes: \(answer.status) \(answer.text)")
        }
        let largest = "/v1/assets?" + Array(repeating: "a", count: 256).joined(separator: "&")
        #expect(try served.get(largest).status == 400, "within the bounds the route answers (unknown parameter)")
    }

    @Test("a NUL in a header value with bytes after it is refused with 400, wherever the field is and however lines end")
    func nulInsideHeaderValues() throws {
        let served = try ServedLibrary()
        let host = "127.0.0.1:\(served.port)"
        func head(_ fields: [[UInt8]], lineEnd: String) -> [UInt8] {
            let end = Array(lineEnd.utf8)
            return Array("GET /v1/status HTTP/1.1".utf8) + end + fields.flatMap { $0 + end } + end
        }
        let good = Array("Host: \(host)".utf8), close = Array("Connection: close".utf8)
        for lineEnd in ["\r\n", "\n"] {
            let hidingHost = Array("Host: \(host)".utf8) + [0] + Array("evil.example".utf8)
            let hidingOther = Array("Accept: */*".utf8) + [0] + Array("x".utf8)
            for fields in [[hidingHost, close], [close, hidingHost], [good, hidingOther, close], [good, close, hidingOther]] {
                let answer = try rawExchange(served, head(fields, lineEnd: lineEnd))
                #expect(answer.status == 400, "\(lineEnd == "\n" ? "LF" : "CRLF"): \(answer.status) \(answer.text)")
                #expect(answer.errorCode == "nulByte")
            }
            // Without the NUL, with a field of empty value and one with trailing blanks, it is answered.
            let empty = Array("X-Empty:".utf8), blanks = Array("X-Blank: a  ".utf8)
            for fields in [[good, close], [close, good], [good, empty, blanks, close], [empty, good, close, blanks]] {
                #expect(try rawExchange(served, head(fields, lineEnd: lineEnd)).status == 200)
            }
            // A field folded onto a second line (obs-fold) is refused too, as RFC 9112 allows.
            let folded = Array("X-Folded: one".utf8) + Array(lineEnd.utf8) + Array(" two".utf8)
            #expect(try rawExchange(served, head([good, folded, close], lineEnd: lineEnd)).status == 400)
        }
    }

    @Test("targets of 40 KB and more made of 10,000 and more parameters get 414, never a closed connection")
    func hugeParameterCounts() throws {
        let served = try ServedLibrary()
        for count in [10_000, 20_000, 60_000] {
            for parameter in ["a", "limit=1", ""] {
                let path = "/v1/assets?" + Array(repeating: parameter, count: count).joined(separator: "&")
                let answer = try rawExchange(served, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(served.port)\r\nConnection: close\r\n\r\n".utf8))
                #expect(answer.status == 414, "\(count) parameters '\(parameter)', \(path.utf8.count) bytes: \(answer.status)")
            }
        }
        #expect(try served.get("/v1/status").status == 200, "the server still answers")
    }
}

@Suite("HTTP conditional requests", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ConditionalRequestTests {
    @Test("If-Match that names no current entity tag is 412; the current tag or * is served")
    func ifMatch() throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        let path = "/v1/assets/\(id)/resources/primary"
        let whole = try served.get(path)
        let etag = try require(whole.header("ETag"))
        let stale = try served.get(path, headers: ["If-Match": "\"\(id)-0-primary\""])
        #expect(stale.status == 412)
        #expect(stale.errorCode == "preconditionFailed")
        #expect(try served.get(path, headers: ["If-Match": "W/\(etag)"]).status == 412, "a weak tag never matches strongly")
        #expect(try served.get(path, headers: ["If-Match": "\"x\", \(etag)"]).body == whole.body)
        #expect(try served.get(path, headers: ["If-Match": "*"]).status == 200)
    }

    @Test("a Range under a stale If-Range gives the whole file with 200; under the current tag, the range with 206")
    func ifRange() throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        let path = "/v1/assets/\(id)/resources/primary"
        let whole = try served.get(path)
        let etag = try require(whole.header("ETag"))
        let current = try served.get(path, headers: ["Range": "bytes=0-9", "If-Range": etag])
        #expect(current.status == 206)
        #expect(current.body == Array(whole.body.prefix(10)))
        for validator in ["\"\(id)-0-primary\"", "W/\(etag)", "Sun, 06 Nov 1994 08:49:37 GMT"] {
            let stale = try served.get(path, headers: ["Range": "bytes=0-9", "If-Range": validator])
            #expect(stale.status == 200, "\(validator)")
            #expect(stale.body == whole.body, "\(validator)")
            #expect(stale.header("Content-Range") == nil)
        }
    }
}

@Suite("HTTP connection limits", .serialized, .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ConnectionLimitTests {
    @Test("300 idle and slow connections from one address leave a new client served within 100 ms")
    func oneClientCannotLockOthersOut() throws {
        let served = try ServedLibrary()
        let port = served.port
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for index in 0..<300 {
            guard let fd = try? LoopbackClient.connectedSocket(port: port, sendTimeout: 5) else { continue }
            held.append(fd)
            // Every other one starts a head it never finishes (a slow client).
            if index % 2 == 0 { _ = Glibc.send(fd, "GET /v1/status HTTP/1.1\r\nHo", 28, Int32(MSG_NOSIGNAL)) }
        }
        usleep(300_000)
        let clock = ContinuousClock()
        var slowest = Duration.zero
        for _ in 0..<5 {
            let start = clock.now
            let answer = try LoopbackClient.send(port: port, path: "/v1/status", timeout: 5, source: "127.0.0.2")
            slowest = max(slowest, clock.now - start)
            #expect(answer.status == 200)
        }
        #expect(slowest < .milliseconds(100), "a new client waited \(slowest) beside 300 connections of another")
    }
}

@Suite("HTTP long polls and event streams", .serialized, .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct LivePoolTests {
    /// What the open descriptors of this process that belong to `served` name: its
    /// library's files and the server's ends of its connections (other suites run beside).
    private func descriptorTargets(_ served: ServedLibrary) -> [String] {
        let serverSockets = Set(socketInodes(localPort: served.port).map { "socket:[\($0)]" })
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }.filter { $0.hasPrefix(served.directory) || serverSockets.contains($0) }
    }

    /// The inodes of the TCP sockets whose local port is `port` (`/proc/net/tcp`).
    private func socketInodes(localPort port: UInt16) -> [String] {
        // Read to the end with read(2): procfs reports a size of 0, which Foundation trusts.
        var bytes: [UInt8] = []
        let fd = open("/proc/net/tcp", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if got <= 0 { break }
                bytes += chunk[0..<got]
            }
            close(fd)
        }
        let table = String(decoding: bytes, as: UTF8.self)
        let suffix = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(suffix) else { return nil }
            return String(fields[9])
        }
    }

    @Test("after a burst of long polls and event streams goes away, descriptors return to their idle count within seconds")
    func burstIsReleased() throws {
        let served = try ServedLibrary()
        let token = try served.library.blocking.currentChangeToken().rawValue
        // What is kept on purpose is the pool of idle SQLite readers: at most 16 connections,
        // each holding the library and the attached user state (a database file and its WAL
        // each), plus the shared-memory files. A loaded machine fills that pool in one burst or
        // over several, so the pool is held to its bound and everything else to its idle count.
        let idle = descriptorTargets(served)
        let held = try burst(served, token: token, count: 200)
        usleep(1_000_000)
        let during = descriptorTargets(served).count
        held.forEach { close($0) }
        let clock = ContinuousClock()
        let start = clock.now
        var after = descriptorTargets(served)
        while !Self.released(after, idle: idle) && clock.now - start < .seconds(5) {
            usleep(100_000)
            after = descriptorTargets(served)
        }
        let (afterPool, afterRest) = Self.splitReaderPool(after)
        let (idlePool, idleRest) = Self.splitReaderPool(idle)
        let poolBound = idlePool.count + Self.readerPoolDescriptors
        #expect(afterRest.count <= idleRest.count,
                "descriptors other than the reader pool: \(idleRest.count) idle, \(during) in all during the burst, \(afterRest.count) 5 s after it went away: \(afterRest)")
        #expect(afterPool.count <= poolBound,
                "the database files hold \(afterPool.count) descriptors, over the idle \(idlePool.count) and a full reader pool's \(Self.readerPoolDescriptors)")
        print("live burst: \(idle.count) idle, \(during) during, \(after.count) after (\(afterPool.count) in the reader pool) \(clock.now - start)")
    }

    /// The most descriptors a full pool of idle SQLite readers keeps: 16 connections × (library
    /// and user state, each a database file and its WAL).
    private static let readerPoolDescriptors = 16 * 4

    /// Whether every descriptor outside the database files is back to its idle count, and the
    /// database files are within the idle ones and a full reader pool.
    private static func released(_ targets: [String], idle: [String]) -> Bool {
        let (pool, rest) = splitReaderPool(targets)
        let (idlePool, idleRest) = splitReaderPool(idle)
        return rest.count <= idleRest.count && pool.count <= idlePool.count + readerPoolDescriptors
    }

    /// The library's database files (what pooled readers keep open) apart from everything else.
    private static func splitReaderPool(_ targets: [String]) -> (pool: [String], rest: [String]) {
        let isDatabaseFile = { (target: String) in
            [".sqlite", ".sqlite-wal", ".sqlite-shm"].contains { target.hasSuffix($0) }
        }
        return (targets.filter(isDatabaseFile), targets.filter { !isDatabaseFile($0) })
    }

    /// Opens `count` long polls and event streams from 8 client addresses; the caller closes them.
    private func burst(_ served: ServedLibrary, token: Int64, count: Int) throws -> [Int32] {
        let port = served.port
        var held: [Int32] = []
        for index in 0..<count {
            let source = "127.0.0.\(10 + index % 8)"
            guard let fd = try? LoopbackClient.connectedSocket(port: port, sendTimeout: 5, source: source) else { continue }
            let path = index % 2 == 0 ? "/v1/events" : "/v1/changes?since=\(token)&wait=60"
            let head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = Glibc.send(fd, head, head.utf8.count, Int32(MSG_NOSIGNAL))
            held.append(fd)
        }
        return held
    }
}

@Suite("HTTP serves files only inside their root", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct RootConfinementRouteTests {
    @Test("a folder of the root swapped for a link to /etc-like folder: the resource route refuses, never serving what is outside")
    func swappedFolderIsNotServed() throws {
        let served = try ServedLibrary()
        let photos = served.root + "/photos", outside = served.directory + "/outside"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: served.root + "/Canon_40D.jpg", toPath: photos + "/Canon_40D.jpg")
        _ = try served.library.blocking.index()
        let asset = try require(try served.library.blocking.asset(path: PathBytes(photos + "/Canon_40D.jpg")))
        let path = "/v1/assets/\(asset.id.rawValue)/resources/primary"
        #expect(try served.get(path).status == 200)

        // The folder becomes a link to a folder holding a secret under the same name.
        let secret = Array("root:x:0:0:secret\n".utf8)
        FileManager.default.createFile(atPath: outside + "/Canon_40D.jpg", contents: Data(secret))
        try FileManager.default.removeItem(atPath: photos)
        try FileManager.default.createSymbolicLink(atPath: photos, withDestinationPath: outside)
        let refused = try served.get(path)
        #expect(refused.status == 404, "\(refused.status): \(refused.text)")
        #expect(refused.body != secret)
        #expect(refused.errorMessage?.contains("symbolic link") == true, "\(refused.text)")
        let thumbnail = try served.get("/v1/assets/\(asset.id.rawValue)/thumbnail?size=64")
        #expect(thumbnail.status != 200, "a thumbnail was made of the file outside the root")
    }
}
