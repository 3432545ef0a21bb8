import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("HTTP API routes answer as the CLI does", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct RouteTests {
    @Test("GET /v1/assets is byte for byte assets --json with the same query, count=true is assets --count --json")
    func assetsMatchTheCLI() async throws {
        let served = try ServedLibrary()
        let page = try served.get("/v1/assets?limit=2&sort=fileName")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "application/json; charset=utf-8")
        #expect(page.text == (await served.cli(["assets", "--json", "--limit", "2", "--sort", "fileName"])))
        let next = try require((page.json as? [String: Any])?["nextCursor"] as? String, "a next cursor")
        let second = try served.get("/v1/assets?limit=2&sort=fileName&after=\(next)")
        #expect(second.text == (await served.cli(["assets", "--json", "--limit", "2", "--sort", "fileName", "--after", next])))
        let filtered = try served.get("/v1/assets?filter=images&make=Canon&includeHidden=true&limit=10", headers: served.bearer)
        #expect(filtered.text == (await served.cli(["assets", "--json", "--filter", "images", "--make", "Canon",
                                                    "--include-hidden", "--limit", "10"])))
        let counted = try served.get("/v1/assets?count=true")
        #expect(counted.text == (await served.cli(["assets", "--count", "--json"])))
        #expect((counted.json as? [String: Any])?["total"] as? Int == ServedLibrary.sourceFiles.count)
    }

    @Test("limit defaults to 100 and above 1000 is a 400 that names the maximum")
    func limitBounds() throws {
        let served = try ServedLibrary()
        let refused = try served.get("/v1/assets?limit=1001")
        #expect(refused.status == 400)
        #expect(refused.errorMessage?.contains("1000") == true)
        #expect(try served.get("/v1/assets?limit=1000").status == 200)
        #expect(try served.get("/v1/assets?limit=-1").status == 400)
        #expect(try served.get("/v1/assets?limit=ten").status == 400)
    }

    @Test("an unknown parameter is a 400 naming it, with the nearest one suggested")
    func unknownParameters() throws {
        let served = try ServedLibrary()
        let typo = try served.get("/v1/assets?limt=5")
        #expect(typo.status == 400)
        #expect(typo.errorCode == "unknownParameter")
        #expect(typo.errorMessage == "unknown parameter 'limt'; did you mean 'limit'?")
        let camel = try served.get("/v1/assets?include-hidden=true")
        #expect(camel.errorMessage?.contains("'include-hidden'") == true)
        #expect(try served.get("/v1/albums?x=1").status == 400)
    }

    @Test("booleans are true/false or 1/0, and other values are refused with the parameter's name")
    func booleans() throws {
        let served = try ServedLibrary()
        #expect(try served.get("/v1/assets?reverse=1").status == 200)
        #expect(try served.get("/v1/assets?reverse=false").status == 200)
        let refused = try served.get("/v1/assets?reverse=yes")
        #expect(refused.status == 400)
        #expect(refused.errorMessage == "reverse takes true or false (or 1 or 0), not 'yes'")
        let date = try served.get("/v1/assets?from=yesterday")
        #expect(date.errorMessage?.hasPrefix("from takes a date such as") == true)
    }

    @Test("GET /v1/assets/{id} is show --json; an unknown id in any form is a 404")
    func oneAsset() async throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        let shown = try served.get("/v1/assets/\(id)")
        #expect(shown.status == 200)
        #expect(shown.text == (await served.cli(["show", id, "--json"])))
        for unknown in ["zzzzzzzzzzzzz", "nope", "..%2F..%2Fetc%2Fpasswd", "\(id)x"] {
            let missing = try served.get("/v1/assets/\(unknown)")
            #expect(missing.status == 404, "\(unknown)")
            #expect(missing.errorCode == "notFound")
        }
        #expect(try served.get("/v1/assets/\(id)/thumbnail").status == 200)
        #expect(try served.get("/v1/assets/zzzzzzzzzzzzz/thumbnail").status == 404)
        #expect(try served.get("/v1/nothing").status == 404)
    }

    @Test("GET /v1/albums is albums --json")
    func albums() async throws {
        let served = try ServedLibrary()
        let albums = try served.get("/v1/albums")
        #expect(albums.status == 200)
        #expect(albums.text == (await served.cli(["albums", "--json"])))
    }

    @Test("GET /v1/changes?since= is changes --json; without since only the current token; a future token is 410")
    func changes() async throws {
        let served = try ServedLibrary()
        let all = try served.get("/v1/changes?since=0")
        #expect(all.text == (await served.cli(["changes", "--since", "0", "--json"])))
        let current = try served.library.blocking.currentChangeToken().rawValue
        let bare = try served.get("/v1/changes")
        #expect(bare.json as? [String: Int] == ["currentToken": Int(current)])
        let future = try served.get("/v1/changes?since=\(current + 100)")
        #expect(future.status == 410)
        #expect(future.errorCode == "changeTokenExpired")
        #expect(future.errorMessage == LibraryError.changeTokenFromTheFuture(token: ChangeToken(rawValue: current + 100),
                                                                           current: ChangeToken(rawValue: current)).description)
        #expect(try served.get("/v1/changes?since=-3").status == 400)
        #expect(try served.get("/v1/changes?wait=5").status == 400)
    }

    @Test("the thumbnail's ETag is its cache key: If-None-Match gets 304; a URL with rev= is immutable")
    func thumbnailCaching() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset()
        let first = try served.get("/v1/assets/\(asset.id)/thumbnail?size=128&mode=fill&rev=\(asset.revision)")
        #expect(first.status == 200)
        #expect(first.header("Content-Type") == "image/jpeg")
        #expect(Array(first.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let key = try require(served.library.thumbnailKey(for: asset, request: ThumbnailRequest(maxPixelSize: 128, mode: .fill)))
        #expect(first.header("ETag") == "\"\(key.hash)\"")
        #expect(first.header("Cache-Control") == "private, max-age=31536000, immutable")
        #expect(Int(first.header("Content-Length") ?? "") == first.body.count)
        let again = try served.get("/v1/assets/\(asset.id)/thumbnail?size=128&mode=fill&rev=\(asset.revision)",
                                   headers: ["If-None-Match": "\"\(key.hash)\""])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        let other = try served.get("/v1/assets/\(asset.id)/thumbnail?size=128&mode=fill",
                                   headers: ["If-None-Match": "\"0000000000000000\""])
        #expect(other.status == 200)
        #expect(other.header("Cache-Control") == "private, no-cache")
        #expect(try served.get("/v1/assets/\(asset.id)/thumbnail?size=8").status == 400)
        #expect(try served.get("/v1/assets/\(asset.id)/thumbnail?mode=crop").status == 400)
        #expect(try served.get("/v1/assets/\(asset.id)/thumbnail?format=gif").status == 400)
    }

    @Test("a resource is the original's bytes; Range gets 206 with those bytes, past the end 416")
    func resources() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset()
        let primary = try require(asset.primaryResource)
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: primary.path.displayString)))
        let whole = try served.get("/v1/assets/\(asset.id)/resources/primary")
        #expect(whole.status == 200)
        #expect(whole.body == original)
        #expect(whole.header("Content-Type") == "image/jpeg")
        #expect(whole.header("Accept-Ranges") == "bytes")
        let name = URL(fileURLWithPath: primary.path.displayString).lastPathComponent
        #expect(whole.header("Content-Disposition") == "inline; filename=\"\(name)\"; filename*=UTF-8''\(name)")
        #expect(try served.get("/v1/assets/\(asset.id)/resources/\(primary.type.rawValue)").body == original)
        let part = try served.get("/v1/assets/\(asset.id)/resources/primary", headers: ["Range": "bytes=100-199"])
        #expect(part.status == 206)
        #expect(part.body == Array(original[100...199]))
        #expect(part.header("Content-Range") == "bytes 100-199/\(original.count)")
        let tail = try served.get("/v1/assets/\(asset.id)/resources/primary", headers: ["Range": "bytes=-10"])
        #expect(tail.body == Array(original.suffix(10)))
        let beyond = try served.get("/v1/assets/\(asset.id)/resources/primary", headers: ["Range": "bytes=\(original.count)-"])
        #expect(beyond.status == 416)
        #expect(beyond.header("Content-Range") == "bytes */\(original.count)")
        let missing = try served.get("/v1/assets/\(asset.id)/resources/pairedVideo")
        #expect(missing.status == 404)
        #expect(missing.errorMessage?.contains("primary") == true)
        #expect(try served.get("/v1/assets/\(asset.id)/resources/primary?representation=raw").status == 400)
        #expect(try served.get("/v1/assets/\(asset.id)/resources/primary?path=/etc/passwd").status == 400)
    }

    @Test("a file replaced by a symlink since it was indexed is not followed")
    func symlinkNotFollowed() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset()
        let path = try require(asset.primaryResource).path.displayString
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/passwd")
        let refused = try served.get("/v1/assets/\(asset.id)/resources/primary")
        #expect(refused.status == 404)
        #expect(refused.errorMessage?.contains("symbolic link") == true)
        #expect(!refused.text.contains("root:"))
    }

    @Test("a method a route does not take is a 405 with Allow")
    func methodNotAllowed() throws {
        let served = try ServedLibrary()
        let post = try served.send("POST", "/v1/status", headers: served.bearer)
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        let get = try served.get("/v1/assets/\(try served.anyAssetID())/favorite")
        #expect(get.status == 405)
        #expect(get.header("Allow") == "PUT, DELETE")
        #expect(try served.send("PATCH", "/v1/albums", headers: served.bearer).status == 405)
    }

    @Test("/v1/status carries library, roots with their watcher, counts and lastRun")
    func status() throws {
        let served = try ServedLibrary()
        let status = try require(try served.get("/v1/status").json as? [String: Any])
        #expect(status["library"] as? String == served.libraryPath)
        #expect(status["readOnly"] as? Bool == false)
        let roots = try require(status["roots"] as? [[String: Any]])
        #expect(roots.count == 1)
        #expect(roots.first?["path"] as? String == served.root)
        #expect(roots.first?["watcher"] as? String == "none")
        #expect((status["counts"] as? [String: Any])?["assets"] as? Int == ServedLibrary.sourceFiles.count)
        #expect((status["lastRun"] as? [String: Any])?["added"] as? Int == ServedLibrary.sourceFiles.count)
    }

    @Test("one kept-alive connection carries many requests, as a browser's grid sends them: JSON, thumbnails, 304s and 404s")
    func keepAlive() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset()
        let thumbnail = "/v1/assets/\(asset.id)/thumbnail?size=128&mode=fill&rev=\(asset.revision)"
        let made = try served.get(thumbnail)
        #expect(made.status == 200)
        let connection = try LoopbackConnection(port: served.port)
        for round in 0..<3 {
            let page = try connection.send(path: "/v1/assets?limit=2")
            #expect(page.status == 200, "round \(round)")
            #expect(((page.json as? [String: Any])?["assets"] as? [Any])?.count == 2)
            let image = try connection.send(path: thumbnail)
            #expect(image.status == 200)
            #expect(image.body == made.body)
            let unchanged = try connection.send(path: thumbnail, headers: ["If-None-Match": made.header("ETag") ?? ""])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            let missing = try connection.send(path: "/v1/assets/nonexistent")
            #expect(missing.status == 404)
            #expect(missing.errorCode != nil)
        }
        #expect(!connection.isClosed)
    }
}
