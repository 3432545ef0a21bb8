import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import MediaThumbnails
import Testing
@testable import MediaIndexServer

@Suite("GET /v1/duplicates, POST /v1/duplicates/{group}/resolve", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct DuplicateRouteTests {
    /// The served library with a smaller re-encode of Canon_40D.jpg beside it: one duplicate group.
    static func served() throws -> ServedLibrary {
        let served = try ServedLibrary()
        let small = try ThumbnailGenerator.thumbnail(ofFileAt: served.root + "/Canon_40D.jpg",
                                                     request: ThumbnailRequest(maxPixelSize: 300, format: .jpeg(quality: 70)))
        try Data(small.data).write(to: URL(fileURLWithPath: served.root + "/small.jpg"))
        _ = try served.library.blocking.index()
        return served
    }

    @Test("lists the groups of a kind, each as a line of duplicates --json, with counts")
    func lists() throws {
        let served = try Self.served()
        let response = try served.get("/v1/duplicates?kind=duplicate")
        #expect(response.status == 200)
        let object = try require(response.json as? [String: Any])
        let groups = try require(object["groups"] as? [[String: Any]])
        #expect(groups.count == 1)
        let group = try require(groups.first)
        #expect(group["kind"] as? String == "duplicate" && (group["assets"] as? [String])?.count == 2)
        let original = try require(try served.library.blocking.asset(path: PathBytes(served.root + "/Canon_40D.jpg"))).id
        #expect(group["keep"] as? String == original.rawValue)
        #expect((object["counts"] as? [String: Int]) == ["duplicate": 1])
        #expect(try served.get("/v1/duplicates").status == 200)
    }

    @Test("resolve hides the others with the token, and never touches a file")
    func resolves() throws {
        let served = try Self.served()
        let group = try require(try served.library.blocking.duplicateGroups(kind: .duplicate).first)
        let before = try Data(contentsOf: URL(fileURLWithPath: served.root + "/small.jpg"))
        let response = try served.send("POST", "/v1/duplicates/\(group.id)/resolve", headers: served.bearer)
        #expect(response.status == 200)
        let object = try require(response.json as? [String: Any])
        #expect(object["keep"] as? String == group.keeper?.rawValue)
        let hidden = try require(object["hidden"] as? [String])
        #expect(hidden.count == 1)
        #expect(try served.asset(try require(hidden.first))?.isHidden == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: served.root + "/small.jpg")) == before)
        #expect(try served.library.blocking.duplicateGroups(kind: .duplicate).isEmpty)
    }

    @Test("refusals: no token, a bad kind, a bad body, an unknown group or keeper, GET on resolve, a read-only server")
    func refusals() throws {
        let served = try Self.served()
        let group = try require(try served.library.blocking.duplicateGroups(kind: .duplicate).first)
        let path = "/v1/duplicates/\(group.id)/resolve"
        #expect(try served.send("POST", path).status == 401)
        #expect(try served.get("/v1/duplicates?kind=twins").errorCode == "badParameter")
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"keeper": "x"}"#).status == 400)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"keep": 3}"#).status == 400)
        #expect(try served.send("POST", path, headers: served.bearer, body: #"{"keep": "zzzz"}"#).status == 404)
        #expect(try served.send("POST", "/v1/duplicates/d0000000000000000/resolve", headers: served.bearer).status == 404)
        #expect(try served.get(path).status == 405)
        #expect(try served.library.blocking.duplicateGroups(kind: .duplicate).map(\.id) == [group.id])
        let readOnly = try ServedLibrary(readOnly: true)
        #expect(try readOnly.send("POST", "/v1/duplicates/\(group.id)/resolve", headers: readOnly.bearer).status == 405)
    }
}
