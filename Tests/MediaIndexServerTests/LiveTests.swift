import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("HTTP API live updates", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct LiveTests {
    /// Copies one more corpus file into the root and indexes it: one committed batch.
    private func commitANewFile(_ served: ServedLibrary) throws {
        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/ianare-exif-samples/jpg/Olympus_C8080WZ.jpg",
                                         toPath: served.root + "/new.jpg")
        _ = try served.library.blocking.index()
    }

    @Test("a long poll answers as soon as a change is committed, with that change")
    func longPollWakesOnCommit() async throws {
        let served = try ServedLibrary()
        let token = try served.library.blocking.currentChangeToken().rawValue
        let port = served.port
        // Times are taken on the threads that see them: the test's own task may resume late
        // when other suites hold the shared pool's threads.
        async let answer = onThread {
            (try LoopbackClient.send(port: port, path: "/v1/changes?since=\(token)&wait=30"), Date())
        }
        try await Task.sleep(nanoseconds: 500_000_000)
        try commitANewFile(served)
        let committed = Date()
        let (response, answered) = try await answer
        let elapsed = answered.timeIntervalSince(committed)
        #expect(response.status == 200)
        #expect(elapsed < 5, "the poll answered \(elapsed) s after the commit (its wait was 30 s)")
        let changes = try require((response.json as? [String: Any])?["changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["kind"] as? String == "inserted")
        #expect((response.json as? [String: Any])?["currentToken"] as? Int == Int(token) + 1)
    }

    @Test("a long poll with changes already there answers at once; one without any answers after wait")
    func longPollBounds() throws {
        let served = try ServedLibrary()
        var started = Date()
        #expect(try served.get("/v1/changes?since=0&wait=30").status == 200)
        #expect(Date().timeIntervalSince(started) < 5)
        let token = try served.library.blocking.currentChangeToken().rawValue
        started = Date()
        let empty = try served.get("/v1/changes?since=\(token)&wait=1")
        let elapsed = Date().timeIntervalSince(started)
        #expect(empty.status == 200)
        #expect((empty.json as? [String: Any])?["changes"] as? [Any] != nil)
        #expect(elapsed >= 0.9 && elapsed < 5)
    }

    @Test("/v1/events sends id, event: changes and data {token, counts} for each committed batch")
    func serverSentEvents() async throws {
        let served = try ServedLibrary()
        let token = try served.library.blocking.currentChangeToken().rawValue
        let port = served.port
        // The stream resumes after the token read here, so the batch reaches it whether the
        // connection is set up before or after the commit (under load it can be either).
        let request = Array("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nLast-Event-ID: \(token)\r\n\r\n".utf8)
        async let received = onThread {
            try LoopbackClient.exchange(port: port, request: request, timeout: 60) { bytes in
                String(decoding: bytes, as: UTF8.self).contains("event: changes")
                    && String(decoding: bytes, as: UTF8.self).contains("}\n\n")
            }
        }
        try await Task.sleep(nanoseconds: 500_000_000)
        try commitANewFile(served)
        let text = String(decoding: try await received, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.contains("Content-Type: text/event-stream"))
        #expect(text.contains("id: \(token + 1)\nevent: changes\ndata: {\"token\":\(token + 1),\"counts\":{\"inserted\":1}}\n\n"))
    }

    @Test("stopping the server ends open event streams and long polls at once")
    func stopEndsStreams() async throws {
        let served = try ServedLibrary()
        let token = try served.library.blocking.currentChangeToken().rawValue
        let port = served.port
        // The poll's end is timed on its own thread: this task may resume late under load.
        async let pollEnded = onThread { () -> Date in
            _ = try? LoopbackClient.send(port: port, path: "/v1/changes?since=\(token)&wait=60")
            return Date()
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        let started = Date()
        served.server.stop()
        let ended = try await pollEnded
        #expect(ended.timeIntervalSince(started) < 10, "the long poll ended \(ended.timeIntervalSince(started)) s after stop()")
    }
}
