import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("POST /v1/assets/capture-time and GET /v1/albums?in=", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct CaptureTimeRouteTests {
    @Test("sets the user's offset or zone of the listed assets, answering with them; reset gives the file's back")
    func sets() throws {
        let served = try ServedLibrary()
        let before = try served.anyAsset()
        let id = before.id.rawValue, path = "/v1/assets/capture-time"
        let set = try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "offset": "+05:30"}"#)
        #expect(set.status == 200)
        let answered = try #require((set.json as? [[String: Any]])?.first)
        #expect(answered["captureOffset"] as? String == "+05:30" && answered["captureOffsetSource"] as? String == "user")
        #expect(try served.library.blocking.asset(id: before.id)?.captureOffsetSource == .user)
        let zoned = try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "zone": "Asia/Kolkata"}"#)
        #expect((zoned.json as? [[String: Any]])?.first?["captureOffset"] as? String == "+05:30")
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "reset": true}"#).status == 200)
        let after = try #require(try served.library.blocking.asset(id: before.id))
        #expect(after.captureOffsetSource == before.captureOffsetSource && after.captureTime?.iso8601 == before.captureTime?.iso8601)
    }

    @Test("refusals: no token, a bad offset or zone, two settings at once, an unknown asset, GET; nothing changes")
    func refusals() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset()
        let id = asset.id.rawValue, path = "/v1/assets/capture-time"
        #expect(try served.send("POST", path, body: #"{"ids": ["\#(id)"], "offset": "+01:00"}"#).status == 401)
        let badOffset = try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "offset": "+15:00"}"#)
        #expect(badOffset.status == 400 && badOffset.errorMessage?.contains("-14:00 and +14:00") == true)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "zone": "Mars/Base"}"#).status == 400)
        #expect(try served.send("POST", path, headers: served.bearer,
                                body: #"{"ids": ["\#(id)"], "offset": "+01:00", "zone": "Europe/Paris"}"#).status == 400)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["zzzz"], "offset": "+01:00"}"#).status == 404)
        #expect(try served.get(path).status == 405)
        #expect(try served.library.blocking.asset(id: asset.id)?.captureOffsetSource == asset.captureOffsetSource)
    }

    @Test("albums?in= lists the albums inside a Places album, as albums --in does; another album is a 400")
    func albumsIn() async throws {
        let served = try ServedLibrary()
        let listed = try served.get("/v1/albums?in=place")
        #expect(listed.status == 200)
        #expect(String(decoding: listed.body, as: UTF8.self) == (await served.cli(["albums", "--in", "place", "--json"])))
        #expect(try served.get("/v1/albums?in=smart.recents").status == 400)
    }
}
