import CorpusSupport
import Foundation
import LoopbackHTTPClient
import Testing
@testable import MediaIndexServer

@Suite("POST /v1/pick/{secret}: the one-shot hand-off of mediaindex pick", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PickRouteTests {
    static let done = #"{"type": "mediaindex.selection", "assets": [{"id": "a"}]}"#

    @Test("the secret is the credential: the first message is taken, a second is 409 and the outcome is the first")
    func takesOneMessage() async throws {
        let session = PickSession()
        let served = try ServedLibrary(readOnly: true, pickSession: session)
        #expect(try served.send("POST", "/v1/pick/" + session.secret, body: Self.done).status == 200)
        let second = try served.send("POST", "/v1/pick/" + session.secret, body: #"{"type": "mediaindex.cancel"}"#)
        #expect(second.status == 409 && second.errorCode == "alreadyPicked")
        #expect(await session.outcome() == .selection(Array(Self.done.utf8)))
    }

    @Test("a wrong secret and a server without a pick session are 404; a malformed message is 400 and not taken")
    func refusals() async throws {
        let session = PickSession()
        let served = try ServedLibrary(pickSession: session)
        #expect(try served.send("POST", "/v1/pick/" + String(session.secret.reversed()), body: Self.done).status == 404)
        let malformed = try served.send("POST", "/v1/pick/" + session.secret, body: #"{"type": "mediaindex.selection"}"#)
        #expect(malformed.status == 400 && malformed.errorCode == "badPickMessage")
        #expect(try served.send("POST", "/v1/pick/" + session.secret, body: "not json").status == 400)
        #expect(try served.send("POST", "/v1/pick/" + session.secret, body: #"{"type": "mediaindex.cancel"}"#).status == 200)
        #expect(await session.outcome() == .cancelled)

        let plain = try ServedLibrary()
        #expect(try plain.send("POST", "/v1/pick/" + session.secret, body: Self.done).status == 404)
    }
}
