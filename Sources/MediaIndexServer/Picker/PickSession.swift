import Foundation

/// A one-shot hand-off to a native app (`mediaindex pick`): the picker page, opened with
/// `?pick=SECRET`, posts its Done (or Cancel) message to `POST /v1/pick/SECRET`; the first
/// well-formed message is taken, a wrong secret is 404 and a second message 409.
///
/// ```swift
/// let session = PickSession()
/// // configuration.pickSession = session; open http://HOST/?pick=\(session.secret)
/// // let outcome = await session.outcome()
/// ```
public final class PickSession: @unchecked Sendable {
    // @unchecked: `taken` and `waiting` are only touched under `lock`.

    /// What the page sent.
    public enum Outcome: Sendable, Equatable {
        /// Done: the message's JSON as posted, `{"type": "mediaindex.selection", "assets": [...]}`.
        case selection([UInt8])
        /// Cancel.
        case cancelled
    }

    /// The secret in the route: 256 random bits as 64 hex digits.
    public let secret: String
    private let lock = NSLock()
    private var taken: Outcome?
    private var waiting: CheckedContinuation<Outcome, Never>?

    /// A session with a fresh secret.
    public init() {
        secret = ServeToken.random().value
    }

    /// Whether `candidate` is the secret, compared in constant time.
    func matches(_ candidate: String) -> Bool {
        ServeToken(value: secret).matches(candidate)
    }

    /// Takes the first outcome; false when one was already taken.
    func take(_ outcome: Outcome) -> Bool {
        lock.lock()
        guard taken == nil else { lock.unlock(); return false }
        taken = outcome
        let continuation = waiting
        waiting = nil
        lock.unlock()
        continuation?.resume(returning: outcome)
        return true
    }

    /// Waits for the page's Done or Cancel.
    public func outcome() async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            lock.lock()
            if let taken { lock.unlock(); continuation.resume(returning: taken); return }
            waiting = continuation
            lock.unlock()
        }
    }
}

extension MediaIndexAPI {
    /// `POST /v1/pick/{secret}`: the one-shot hand-off. The secret is the credential (no
    /// token, no cookie); the body is the page's Done or Cancel message, at most
    /// `HTTPServer.maximumBodyBytes`.
    func pick(_ secret: String, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let session = configuration.pickSession, session.matches(secret) else {
            throw APIError.notFound("there is no such pick session (each `mediaindex pick` run has its own address)")
        }
        guard let message = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
              let type = message["type"] as? String,
              type == "mediaindex.cancel" || (type == "mediaindex.selection" && message["assets"] is [[String: Any]]) else {
            throw APIError(status: 400, code: "badPickMessage",
                           message: "the body must be {\"type\": \"mediaindex.selection\", \"assets\": [...]} or {\"type\": \"mediaindex.cancel\"}")
        }
        guard session.take(type == "mediaindex.cancel" ? .cancelled : .selection(request.body)) else {
            throw APIError(status: 409, code: "alreadyPicked", message: "this pick session has already received its selection")
        }
        return Self.jsonResponse(["received": .string(type)])
    }
}
