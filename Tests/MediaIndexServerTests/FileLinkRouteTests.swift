import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("HTTP: a hard link is one asset with several paths", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FileLinkRouteTests {
    @Test("GET /v1/assets/{id} of a linked file has both paths (as show --json); the listing has no second asset")
    func linkedAsset() async throws {
        let served = try ServedLibrary()
        let before = try served.library.blocking.fetchAssets(.everyAsset).assets.count
        try FileManager.default.createDirectory(atPath: served.root + "/other", withIntermediateDirectories: true)
        #expect(link(served.root + "/Canon_40D.jpg", served.root + "/other/Canon_40D.jpg") == 0)
        let summary = try served.library.blocking.index()
        #expect(summary.otherNames == 1 && summary.added == 0)
        #expect(try served.library.blocking.fetchAssets(.everyAsset).assets.count == before)
        let id = try #require(try served.library.blocking.asset(path: PathBytes(served.root + "/other/Canon_40D.jpg"))?.id)
        let shown = try served.get("/v1/assets/\(id.rawValue)")
        #expect(shown.status == 200)
        #expect(shown.text == (await served.cli(["show", id.rawValue, "--json"])))
        let object = try #require(shown.json as? [String: Any])
        #expect(object["paths"] as? [String] == [served.root + "/Canon_40D.jpg", served.root + "/other/Canon_40D.jpg"])
    }
}
