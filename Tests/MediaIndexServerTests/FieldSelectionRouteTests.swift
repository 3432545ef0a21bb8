import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("fields= chooses an asset's keys on /v1/assets, /v1/search and /v1/assets/{id}",
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FieldSelectionRouteTests {
    @Test("fields= answers as --fields: the same bytes as the CLI, the keys in the field table's order")
    func answersAsTheCLI() async throws {
        let served = try ServedLibrary()
        let page = try served.get("/v1/assets?limit=3&sort=fileName&fields=model,id")
        #expect(page.status == 200)
        #expect(page.text == (await served.cli(["assets", "--json", "--limit", "3", "--sort", "fileName", "--fields", "model,id"])))
        let assets = try require((page.json as? [String: Any])?["assets"] as? [[String: Any]], "assets")
        #expect(assets.count == 3)
        for asset in assets { #expect(Set(asset.keys) == ["id", "model"]) }
        // The table's order, whatever order the names came in: id comes before model.
        #expect(try require(page.text.range(of: "\"id\"")).lowerBound < require(page.text.range(of: "\"model\"")).lowerBound)

        let found = try served.get("/v1/search?q=canon&fields=make,creationDate")
        #expect(found.status == 200)
        #expect(found.text == (await served.cli(["search", "canon", "--json", "--fields", "make,creationDate"])))
        let canon = try require((found.json as? [String: Any])?["assets"] as? [[String: Any]], "assets")
        let reference = try require(Corpus.exiftool["ianare-exif-samples/jpg/Canon_40D.jpg"], "exiftool's reading")
        #expect(canon.map { $0["make"] as? String } == [reference["IFD0:Make"]?.string])

        let id = try served.anyAssetID()
        // The whole asset, answered first, is cached under its own query: the choice is not served it.
        #expect(try served.get("/v1/assets/\(id)").status == 200)
        let one = try served.get("/v1/assets/\(id)?fields=id,place,creationDate")
        #expect(one.status == 200)
        #expect(one.text == (await served.cli(["show", id, "--json", "--fields", "id,place,creationDate"])))
        let asset = try require(one.json as? [String: Any], "an asset")
        // A chosen field is written even where it is empty.
        #expect(Set(asset.keys) == ["id", "creationDate", "place"])
    }

    @Test("an unknown name is a 400 with --fields' sentence and nothing else listed; a list is bounded by the table")
    func refusals() throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        for path in ["/v1/assets?fields=id,creatoinDate", "/v1/search?q=canon&fields=creatoinDate",
                     "/v1/assets/\(id)?fields=creatoinDate"] {
            let refused = try served.get(path)
            #expect(refused.status == 400, "\(path)")
            #expect(refused.errorCode == "badParameter")
            #expect(refused.errorMessage == "fields: unknown field 'creatoinDate'; did you mean 'creationDate'?", "\(path)")
        }
        #expect(try served.get("/v1/assets?fields=").status == 400)
        #expect(try served.get("/v1/assets?fields=id&count=true").status == 400)
        #expect(try served.get("/v1/assets?fields=id&fields=make").status == 400)
        let far = try served.get("/v1/assets?fields=" + String(repeating: "x", count: 500))
        #expect(far.status == 400)
        #expect(far.errorMessage?.count ?? 1000 < 120)
        // Every name once however often it is given.
        let repeated = try served.get("/v1/assets?limit=1&fields=" + Array(repeating: "id", count: 300).joined(separator: ","))
        #expect(repeated.status == 200)
        let asset = try require(((repeated.json as? [String: Any])?["assets"] as? [[String: Any]])?.first, "an asset")
        #expect(Array(asset.keys) == ["id"])
    }
}
