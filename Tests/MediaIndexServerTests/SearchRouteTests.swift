import Foundation
import Testing
import MediaIndex
@testable import MediaIndexServer

@Suite("Search routes")
struct SearchRouteTests {
    @Test("GET /v1/search is search --json with the same query, and pages and counts as /v1/assets")
    func searchMatchesTheCLI() async throws {
        let served = try ServedLibrary()
        let found = try served.get("/v1/search?q=camera:canon&limit=10")
        #expect(found.status == 200)
        #expect(found.text == (await served.cli(["search", "camera:canon", "--json", "--limit", "10"])))
        let assets = try #require((found.json as? [String: Any])?["assets"] as? [[String: Any]])
        // The corpus's one Canon (exiftool: Make "Canon", Model "Canon EOS 40D").
        #expect(assets.count == 1)
        #expect(try served.get("/v1/assets?q=camera:canon&limit=10").text == found.text)
        let counted = try served.get("/v1/search?q=-camera:canon&count=true")
        #expect((counted.json as? [String: Any])?["total"] as? Int == ServedLibrary.sourceFiles.count - 1)
        let words = try served.get("/v1/search?q=nikon%20d70")
        #expect(((words.json as? [String: Any])?["assets"] as? [Any])?.count == 1)
    }

    @Test("a search that cannot run is a 400 of one sentence with the column; q is required")
    func refusals() throws {
        let served = try ServedLibrary()
        let misspelt = try served.get("/v1/search?q=raiting:%3E%3D4")
        #expect(misspelt.status == 400)
        #expect(misspelt.errorMessage == "q: search, column 1: unknown field 'raiting:'; did you mean 'rating:'?")
        let badRating = try served.get("/v1/search?q=rating:lots")
        #expect(badRating.status == 400 && badRating.errorMessage?.contains("rating:") == true)
        let album = try served.get("/v1/search?q=album:Nowhere")
        #expect(album.status == 400 && album.errorCode == "badSearch")
        #expect(try served.get("/v1/search").status == 400)
        #expect(try served.get("/v1/search/suggestions").status == 400)
        #expect(try served.get("/v1/search/suggestions?q=ca&limit=51").status == 400)
        #expect(try served.get("/v1/search/suggestions?q=ca&qq=1").status == 400)
    }

    @Test("GET /v1/search/suggestions completes the last word with counts, as search --suggest --json")
    func suggestions() async throws {
        let served = try ServedLibrary()
        let answer = try served.get("/v1/search/suggestions?q=beach%20ca")
        #expect(answer.status == 200)
        #expect(answer.text == (await served.cli(["search", "--suggest", "beach ca", "--json"])))
        let suggestions = try #require((answer.json as? [String: Any])?["suggestions"] as? [[String: Any]])
        #expect(suggestions.first?["term"] as? String == "camera:")
        #expect(suggestions.contains { $0["term"] as? String == "camera:Canon" && $0["count"] as? Int == 1 })
    }
}
