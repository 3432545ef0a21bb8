import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("Hidden assets are shown only to a request with the token",
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct HiddenAccessTests {
    @Test("without the token, asking for hidden assets is a 403 and a hidden asset's own routes are 404")
    func refusedWithoutTheToken() throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        // Seen once with the token, so an answer cache that ignored who asks would leak it below.
        #expect(try served.get("/v1/assets/\(id)", headers: served.bearer).status == 200)
        #expect(try served.send("PUT", "/v1/assets/\(id)/hidden", headers: served.bearer).status == 200)
        #expect(try served.get("/v1/assets?includeHidden=true", headers: served.bearer).status == 200)
        for path in ["/v1/assets?includeHidden=true", "/v1/assets?album=smart.hidden", "/v1/search?q=is:hidden",
                     "/v1/timeline?includeHidden=true", "/v1/timeline?album=smart.hidden", "/v1/assets?count=true&includeHidden=1"] {
            let refused = try served.get(path)
            #expect(refused.status == 403, "\(path)")
            #expect(refused.errorCode == "hiddenNeedsToken", "\(path)")
        }
        for path in ["/v1/assets/\(id)", "/v1/assets/\(id)/thumbnail?size=64", "/v1/assets/\(id)/resources/primary"] {
            #expect(try served.get(path).status == 404, "\(path)")
        }
        let listing = try served.get("/v1/assets?limit=1000")
        let ids = ((listing.json as? [String: Any])?["assets"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(ids.count == ServedLibrary.sourceFiles.count - 1)
        #expect(!ids.contains(id))
        let wrong = try served.get("/v1/assets?includeHidden=true", headers: ["Authorization": "Bearer not-the-token"])
        #expect(wrong.status == 401)
    }

    @Test("with the token (bearer or the page's cookie) hidden assets are listed and served")
    func shownWithTheToken() throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        #expect(try served.send("PUT", "/v1/assets/\(id)/hidden", headers: served.bearer).status == 200)
        let cookie = ["Cookie": "\(AccessPolicy.cookieName)=\(served.token.value)"]
        for headers in [served.bearer, cookie] {
            let hidden = try served.get("/v1/assets?album=smart.hidden", headers: headers)
            #expect(hidden.status == 200)
            let ids = ((hidden.json as? [String: Any])?["assets"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == [id])
            #expect(try served.get("/v1/assets/\(id)", headers: headers).status == 200)
            #expect(try served.get("/v1/assets/\(id)/thumbnail?size=64", headers: headers).status == 200)
            let timeline = try served.get("/v1/timeline?includeHidden=true", headers: headers)
            #expect((timeline.json as? [String: Any])?["total"] as? Int == ServedLibrary.sourceFiles.count)
        }
    }
}
