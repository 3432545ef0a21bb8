import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("POST /v1/assets/description", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct DescriptionRouteTests {
    @Test("sets the user's words of the listed assets: absent fields unchanged, null clears")
    func sets() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset().id
        let id = asset.rawValue
        let set = try served.send("POST", "/v1/assets/description", headers: served.bearer,
                                  body: #"{"ids": ["\#(id)"], "rating": 3, "title": "Dune", "keywords": ["Trips|Sahara"]}"#)
        #expect(set.status == 200)
        let described = try served.library.blocking.userDescription(of: asset)
        #expect(described.keywords == ["Trips|Sahara"] && described.title == "Dune" && described.rating == 3)
        let clearing = try served.send("POST", "/v1/assets/description", headers: served.bearer,
                                      body: #"{"ids": ["\#(id)"], "title": null}"#)
        #expect(clearing.status == 200)
        let cleared = try served.library.blocking.userDescription(of: asset)
        #expect(cleared.keywords == ["Trips|Sahara"] && cleared.title == nil && cleared.rating == 3)
    }

    @Test("refusals: no token, a bad rating, an unknown field, an unknown asset, GET; nothing changes")
    func refusals() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset().id
        let id = asset.rawValue
        let path = "/v1/assets/description"
        #expect(try served.send("POST", path, body: #"{"ids": ["\#(id)"], "rating": 1}"#).status == 401)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "rating": 9}"#).status == 400)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "rating": 2.5}"#).status == 400)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["\#(id)"], "stars": 1}"#).status == 400)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"ids": ["zzzz"], "rating": 1}"#).status == 404)
        #expect(try served.get(path).status == 405)
        #expect(try served.library.blocking.userDescription(of: asset).isEmpty)
    }
}
