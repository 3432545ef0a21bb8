import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `GET /v1/changes?since=TOKEN&wait=SECONDS`: as `changes --since TOKEN --json`; with
    /// `wait`, answers when a change is committed or after `wait` seconds (at most 60).
    /// Without `since`: `{"currentToken": N}` and no list.
    func changes(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: ["since", "wait"])
        let wait = min(Self.maximumWaitSeconds, try query.number("wait") ?? 0)
        guard wait >= 0 else { throw APIError.badRequest("wait must not be negative") }
        guard let sinceText = try query.value("since") else {
            if query.items.contains(where: { $0.name == "wait" }) {
                throw APIError.badRequest("wait needs since: the token to wait for changes after")
            }
            return Self.jsonResponse(.object([("currentToken", .int(Int(try library.blocking.currentChangeToken().rawValue)))]))
        }
        guard let since = ChangeToken(sinceText) else {
            throw APIError.badRequest("since takes a change token (a whole number, 0 or more), not '\(sinceText)'")
        }
        var result = try library.blocking.changes(since: since)
        guard result.changes.isEmpty && wait > 0 else { return Self.jsonResponse(JSONShapes.changes(result)) }
        let slot = try liveSlot(for: request)
        defer { slot.release() }
        let deadline = Date(timeIntervalSinceNow: wait)
        // Each pass sees a new token (so changes exist), reaches the deadline, or finds
        // the client gone (checked every `clientCheckSeconds`, so its thread is freed).
        while result.changes.isEmpty && !waiter.isStopped && request.client?.isOpen != false {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            let token = waiter.wait(whileTokenIs: result.currentToken, seconds: min(remaining, Self.clientCheckSeconds))
            if token != result.currentToken { result = try library.blocking.changes(since: since) }
        }
        return Self.jsonResponse(JSONShapes.changes(result))
    }

    /// `GET /v1/events`: Server-Sent Events, one `changes` event per committed batch with
    /// its token and its changes counted by kind; resumes after `Last-Event-ID`.
    func events(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try QueryParameters(request.query, known: ["since"])
        var start = try library.blocking.currentChangeToken()
        let sinceText = try query.value("since")
        if let text = request.header("Last-Event-ID") ?? sinceText {
            guard let token = ChangeToken(text) else {
                throw APIError.badRequest("since (or Last-Event-ID) takes a change token, not '\(text)'")
            }
            _ = try library.blocking.changes(since: token)  // 410 now for a token the feed cannot answer
            start = token
        }
        let stream = ChangeEventStream(library: library, waiter: waiter, after: start,
                                       keepAliveSeconds: configuration.eventKeepAliveSeconds,
                                       slot: try liveSlot(for: request), client: request.client)
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"),
                                                   ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
                            body: .stream(stream))
    }

    /// How often a long poll or an event stream looks whether its client is still there.
    static let clientCheckSeconds = 1.0

    /// A slot of the live pool for this request's client.
    ///
    /// - Throws: `APIError` 503 (with `Retry-After`) when the pool or the client's share is full.
    func liveSlot(for request: HTTPRequest) throws -> LiveRequestPool.Slot {
        guard let slot = livePool.take(for: request.client?.address ?? "") else {
            throw APIError(status: 503, code: "tooManyWaits",
                           message: "too many long polls and event streams are open (at most \(livePool.perClient) per client, "
                               + "\(livePool.capacity) in all); close one or try again shortly",
                           headers: [("Retry-After", "5")])
        }
        return slot
    }
}

/// The event stream of one `/v1/events` client.
final class ChangeEventStream: HTTPBodyStream, @unchecked Sendable {
    // @unchecked: `last`, `started` and `cancelled` are only touched under `lock`; the
    // server calls nextChunk from one thread at a time.
    private let library: MediaLibrary
    private let waiter: CommitWaiter
    private let keepAliveSeconds: Double
    private let lock = NSLock()
    private var last: ChangeToken
    private var started = false
    private var cancelled = false
    /// The live pool's slot, given back when the stream ends.
    private let slot: LiveRequestPool.Slot?
    private let client: ClientConnection?

    init(library: MediaLibrary, waiter: CommitWaiter, after token: ChangeToken, keepAliveSeconds: Double,
         slot: LiveRequestPool.Slot? = nil, client: ClientConnection? = nil) {
        self.library = library
        self.waiter = waiter
        self.last = token
        self.keepAliveSeconds = keepAliveSeconds
        self.slot = slot
        self.client = client
    }

    func nextChunk() -> [UInt8]? {
        lock.lock()
        let isFirst = !started
        started = true
        let previous = last
        let isCancelled = cancelled
        lock.unlock()
        if isCancelled || waiter.isStopped { return end() }
        if isFirst && waiter.currentToken == previous {
            return Array("retry: 3000\n: the token is \(previous)\n\n".utf8)
        }
        var token = waiter.currentToken
        if token == previous {
            token = waitForCommit(after: previous)
            if waiter.isStopped || client?.isOpen == false { return end() }
            if token == previous { return Array(": keep-alive\n\n".utf8) }
        }
        lock.lock()
        last = token
        lock.unlock()
        return Array(Self.event(token: token, counts: counts(after: previous)).utf8)
    }

    func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
        slot?.release()
    }

    /// Ends the stream, giving its slot back.
    private func end() -> [UInt8]? {
        slot?.release()
        return nil
    }

    /// Waits up to the keep-alive interval for a commit after `token`, looking every
    /// `MediaIndexAPI.clientCheckSeconds` whether the client has gone; the newest token.
    private func waitForCommit(after token: ChangeToken) -> ChangeToken {
        let deadline = Date(timeIntervalSinceNow: keepAliveSeconds)
        while !waiter.isStopped && client?.isOpen != false {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            let newest = waiter.wait(whileTokenIs: token, seconds: min(remaining, MediaIndexAPI.clientCheckSeconds))
            if newest != token { return newest }
        }
        return waiter.currentToken
    }

    /// The batch's changes by kind; empty when history after `token` is gone.
    private func counts(after token: ChangeToken) -> [(String, Int)] {
        guard let changes = try? library.blocking.changes(since: token) else { return [] }
        return AssetChange.Kind.allCases.compactMap { kind in
            let count = changes.changes.filter { $0.kind == kind }.count
            return count > 0 ? (kind.rawValue, count) : nil
        }
    }

    /// `id: TOKEN`, `event: changes`, `data: {"token": …, "counts": {…}}`.
    static func event(token: ChangeToken, counts: [(String, Int)]) -> String {
        let data = JSON.object([("token", .int(Int(token.rawValue))), ("counts", .object(counts.map { ($0.0, JSON.int($0.1)) }))])
        return "id: \(token)\nevent: changes\ndata: \(data.compactText)\n\n"
    }
}
