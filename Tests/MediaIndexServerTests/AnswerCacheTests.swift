import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("Answers kept until the next commit", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct AnswerCacheTests {
    @Test("the data version stays while nothing commits and moves on a commit by any connection")
    func dataVersionFollowsCommits() throws {
        let served = try ServedLibrary()
        let before = try served.library.blocking.dataVersion()
        _ = try served.library.fetchAssetsForTest()
        #expect(try served.library.blocking.dataVersion() == before, "a read is not a commit")
        // Another instance is another connection, as another process would be.
        let other = try MediaLibrary(location: served.library.location, mode: .existing)
        try other.blocking.setFavorite(true, for: [served.anyAsset().id])
        let afterUserState = try served.library.blocking.dataVersion()
        #expect(afterUserState != before, "a favorite set elsewhere commits to user-state.sqlite")
        try served.library.blocking.setHidden(true, for: [served.anyAsset().id])
        #expect(try served.library.blocking.dataVersion() != afterUserState, "this instance's own writes count too")
    }

    @Test("a page is answered from memory until a commit, and a commit made elsewhere shows at once")
    func pagesFollowCommits() throws {
        let served = try ServedLibrary()
        let api = served.server.api
        let first = try served.get("/v1/assets?limit=10")
        #expect(first.status == 200)
        #expect(api.answers.count == 1)
        let again = try served.get("/v1/assets?limit=10")
        #expect(again.body == first.body)
        #expect(api.answers.count == 1)

        let id = try served.anyAssetID()
        let shown = try served.get("/v1/assets/\(id)")
        #expect((shown.json as? [String: Any])?["favorite"] as? Bool == false)
        let other = try MediaLibrary(location: served.library.location, mode: .existing)
        try other.blocking.setFavorite(true, for: [try served.anyAsset().id])
        let favorite = try served.get("/v1/assets/\(id)")
        #expect((favorite.json as? [String: Any])?["favorite"] as? Bool == true, "the kept answer predates the favorite")

        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/ianare-exif-samples/jpg/Olympus_C8080WZ.jpg",
                                         toPath: served.root + "/new.jpg")
        _ = try other.blocking.index()
        let grown = try served.get("/v1/assets?limit=10")
        let assets = try require((grown.json as? [String: Any])?["assets"] as? [Any])
        #expect(assets.count == ServedLibrary.sourceFiles.count + 1)
        let count = try served.get("/v1/assets?count=true")
        #expect((count.json as? [String: Any])?["total"] as? Int == ServedLibrary.sourceFiles.count + 1)
    }

    @Test("refusals are never kept: the same bad query is refused again, and a route's checks come first")
    func refusalsAreNotKept() throws {
        let served = try ServedLibrary()
        #expect(try served.get("/v1/assets?limit=5000").status == 400)
        #expect(try served.get("/v1/assets?limit=5000").status == 400)
        #expect(served.server.api.answers.count == 0)
        #expect(try served.get("/v1/assets?limit=10").status == 200)
        // A kept answer is still behind the Host check.
        #expect(try served.get("/v1/assets?limit=10", host: "evil.example:80").status == 400)
    }

    @Test("a thumbnail trimmed from the cache after it was served is made again, not a 500")
    func trimmedThumbnailIsRemade() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset()
        let path = "/v1/assets/\(asset.id)/thumbnail?size=128&rev=\(asset.revision)"
        let made = try served.get(path)
        #expect(made.status == 200)
        let served2 = try served.get(path)
        #expect(served2.status == 200)
        #expect(served2.body == made.body)
        let key = try require(served.library.thumbnailKey(for: asset, request: ThumbnailRequest(maxPixelSize: 128)))
        let file = served.library.thumbnailCache.path(for: key, library: served.library.location)
        try FileManager.default.removeItem(atPath: file)
        let remade = try served.get(path)
        #expect(remade.status == 200)
        #expect(Array(remade.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(FileManager.default.fileExists(atPath: file))
        let revalidated = try served.get(path, headers: ["If-None-Match": "\"\(key.hash)\""])
        #expect(revalidated.status == 304)
    }

    @Test("the cache is bounded by entries and bytes, drops other versions' answers and honours lifetimes")
    func bounds() throws {
        let served = try ServedLibrary()
        let version = try served.library.blocking.dataVersion()
        let cache = AnswerCache<[UInt8]>(maximumEntries: 3, maximumCost: 400)
        for n in 0..<5 { cache.store([UInt8(n)], for: "k\(n)", version: version, cost: 10) }
        #expect(cache.count == 3)
        #expect(cache.value(for: "k0", version: version) == nil, "the least recently used went first")
        #expect(cache.value(for: "k4", version: version) == [4])
        cache.store(Array(repeating: 1, count: 101), for: "big", version: version, cost: 101)
        #expect(cache.value(for: "big", version: version) == nil, "more than a quarter of the bytes is not kept")
        cache.store([9], for: "k9", version: version, cost: 95)
        cache.store([8], for: "k8", version: version, cost: 95)
        cache.store([7], for: "k7", version: version, cost: 95)
        cache.store([6], for: "k6", version: version, cost: 95)
        cache.store([5], for: "k5", version: version, cost: 95)
        #expect(cache.count <= 3)
        cache.store([0], for: "brief", version: version, cost: 1, lifetime: .zero)
        #expect(cache.value(for: "brief", version: version) == nil, "an expired answer is not given")

        try served.library.blocking.setFavorite(true, for: [served.anyAsset().id])
        let next = try served.library.blocking.dataVersion()
        #expect(cache.value(for: "k5", version: next) == nil, "an answer of another version is not given")
        cache.store([1], for: "now", version: next, cost: 1)
        #expect(cache.count == 1, "storing under a new version drops the old version's answers")
    }
}

private extension MediaLibrary {
    func fetchAssetsForTest() throws -> Int {
        try blocking.fetchAssets(FetchOptions.everyAsset).assets.count
    }
}

@Suite("The picker's first answers made ahead", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FirstScreenWarmupTests {
    @Test("the timeline and the newest page are made once, ahead, and are the answers the requests get")
    func firstScreenIsMadeAhead() throws {
        let served = try ServedLibrary()
        let api = served.server.api
        #expect(api.answers.count == 0)
        api.warmPickerFirstScreen()
        // The requests wait for the answers in making rather than making them again.
        let timeline = try served.get("/v1/timeline?sort=captureDate")
        let page = try served.get("/v1/assets?sort=captureDate&limit=200")
        #expect(timeline.status == 200 && page.status == 200)
        #expect(api.answers.count == 2, "the two requests were answered from the answers made ahead")
        let total = (timeline.json as? [String: Any])?["total"] as? Int
        #expect(total == ServedLibrary.sourceFiles.count)
        let assets = (page.json as? [String: Any])?["assets"] as? [Any]
        #expect(assets?.count == ServedLibrary.sourceFiles.count)
        // The same answers as made by a request: a new server without the warm-up.
        let fresh = try ServedLibrary()
        #expect(try fresh.get("/v1/timeline?sort=captureDate").body == timeline.body)
    }

    @Test("after a commit the answers made ahead are not served: the request makes its own")
    func commitOutdatesTheWarmup() throws {
        let served = try ServedLibrary()
        let api = served.server.api
        api.warmPickerFirstScreen()
        api.inMaking.wait(for: api.answerKey(MediaIndexAPI.pickerFirstRequests[1]))
        #expect(api.answers.count == 2)
        let other = try MediaLibrary(location: served.library.location, mode: .existing)
        try other.blocking.setHidden(true, for: [try served.anyAsset().id])
        let page = try served.get("/v1/assets?sort=captureDate&limit=200")
        let assets = (page.json as? [String: Any])?["assets"] as? [Any]
        #expect(assets?.count == ServedLibrary.sourceFiles.count - 1, "the hidden asset is gone from the page")
    }
}
