import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Synchronization
import Testing
@testable import MediaIndexServer

/// What the picker page does between opening and Done, without a browser: it reads the
/// assets the page's address offers and posts the Done message `handOff` in
/// WebPicker/picker.js builds for them, here picked in the reverse of the listing's order.
private func pickAsThePageDoes(_ address: URL, count: Int) throws -> [String] {
    let port = try require(address.port.map(UInt16.init), "no port in \(address)")
    let query = try require(URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems)
    let secret = try require(query.first { $0.name == "pick" }?.value)
    let page = try LoopbackClient.send(port: port, path: "/?" + (address.query ?? ""))
    #expect(page.status == 200 && page.text.contains("picker.js"))
    let filter = query.first { $0.name == "filter" }?.value ?? "any(images, videos)"
    let listing = try LoopbackClient.send(port: port, path: "/v1/assets?filter=" + filter)
    let assets = try require((try JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any])?["assets"] as? [[String: Any]])
    let picked = Array(assets.prefix(count).reversed())
    let items: [[String: Any]] = try picked.map { asset in
        let id = try require(asset["id"] as? String)
        let base = "http://127.0.0.1:\(port)/v1/assets/\(id)"
        return ["id": id, "uniformType": "public.jpeg", "pixelWidth": asset["pixelWidth"] ?? NSNull(),
                "pixelHeight": asset["pixelHeight"] ?? NSNull(), "duration": NSNull(),
                "isOriginalFile": !((asset["hasAdjustments"] as? Bool) ?? false),
                "urls": ["original": base + "/resources/primary", "compatible": base + "/resources/primary?representation=compatible",
                         "thumbnail": base + "/thumbnail?size=512&rev=1"],
                "resources": [["role": "photo", "path": "/secret/\(id).jpg"]], "location": ["latitude": -7.54, "longitude": 110.44]]
    }
    let message = try JSONSerialization.data(withJSONObject: ["type": "mediaindex.selection", "assets": items])
    #expect(try LoopbackClient.send(port: port, method: "POST", path: "/v1/pick/\(secret)", body: Array(message)).status == 200)
    return try picked.map { try require($0["id"] as? String) }
}

@Suite("MediaPicker.pick(configuration:): PhotosPicker in Swift, end to end through the one-shot address",
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct MediaPickerTests {
    @Test("the page is opened with the configuration's limit, filter and selection; Done returns the items in selection order, without paths or GPS")
    func pickReturnsTheSelection() async throws {
        let served = try ServedLibrary(readOnly: true)
        var configuration = MediaPicker.Configuration(library: served.library)
        configuration.filter = .images
        configuration.selectionLimit = 2
        configuration.selection = .ordered
        configuration.preferredAssetRepresentationMode = .compatible
        let opened = Mutex<(URL, [String])?>(nil)
        let items = try await MediaPicker.pick(configuration: configuration, presentation: .custom { address in
            let ids = try pickAsThePageDoes(address, count: 2)
            opened.withLock { $0 = (address, ids) }
        })
        let (address, ids) = try require(opened.withLock { $0 })
        let query = Dictionary(uniqueKeysWithValues: (URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? [])
            .map { ($0.name, $0.value ?? "") })
        #expect(address.host == "127.0.0.1" && query["pick"]?.count == 64)
        #expect(query["limit"] == "2" && query["filter"] == "images" && query["selection"] == "ordered" && query["include"] == nil)

        #expect(items.map(\.id) == ids && ids.count == 2)
        for item in items {
            let asset = try require(try served.asset(item.id))
            #expect(item.pixelWidth == asset.pixelWidth && item.pixelHeight == asset.pixelHeight && item.pixelWidth != nil)
            #expect(item.isOriginalFile == true && item.uniformType == "public.jpeg")
            #expect(item.preferredURL == item.urls?["compatible"] && item.preferredURL?.hasSuffix("representation=compatible") == true)
            #expect(item.resources == nil && item.location == nil)
        }
    }

    @Test("include path and location keeps what the page sent; automatic prefers a JPEG's original; Cancel returns no items")
    func includeAutomaticAndCancel() async throws {
        let served = try ServedLibrary(readOnly: true)
        var configuration = MediaPicker.Configuration(library: served.library)
        configuration.include = [.path, .location]
        configuration.selection = .default
        let items = try await MediaPicker.pick(configuration: configuration, presentation: .custom { address in
            #expect(address.query?.contains("include=path,location") == true && address.query?.contains("selection=default") == true)
            #expect(address.query?.contains("limit=1") == true)
            _ = try pickAsThePageDoes(address, count: 1)
        })
        let item = try require(items.first)
        #expect(items.count == 1 && item.resources?.first?.path == "/secret/\(item.id).jpg" && item.location?.latitude == -7.54)
        #expect(item.preferredURL == item.urls?["original"])

        let cancelled = try await MediaPicker.pick(configuration: configuration, presentation: .custom { address in
            let secret = try require(URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "pick" }?.value)
            let cancel = Array(#"{"type": "mediaindex.cancel"}"#.utf8)
            #expect(try LoopbackClient.send(port: UInt16(address.port ?? 0), method: "POST", path: "/v1/pick/\(secret)", body: cancel).status == 200)
        })
        #expect(cancelled.isEmpty)
    }

    @Test("a filter is handed to the page in the grammar the server parses back to the same filter; preselected items and any number as the page reads them")
    func filterRoundTrips() throws {
        let filter = MediaFilter.all(of: [.images, .not(.screenshots)])
        var configuration = try MediaPicker.Configuration(library: ServedLibrary(readOnly: true).library)
        configuration.filter = filter
        configuration.selectionLimit = 0
        configuration.preselectedAssetIdentifiers = ["a1", "b2"]
        let address = MediaPicker.pageAddress(of: configuration, server: ListenAddress(host: "127.0.0.1", port: 1, isIPv6: false),
                                              secret: "s")
        let query = try require(URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems)
        let text = try require(query.first { $0.name == "filter" }?.value)
        #expect(try MediaFilter(parsing: text) == filter)
        #expect(query.first { $0.name == "preselected" }?.value == "a1,b2")
        #expect(!query.contains { $0.name == "limit" }, "no limit parameter is any number, as the page reads it")
    }
}
