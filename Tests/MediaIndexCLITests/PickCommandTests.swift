import CorpusSupport
import Foundation
import LoopbackHTTPClient
import Testing
@testable import MediaIndexCLI

/// A library folder with one corpus JPEG indexed, and that asset as `assets --json` prints it.
private func indexedFolder() async throws -> (folder: String, asset: [String: Any]) {
    let folder = NSTemporaryDirectory() + "mediaindex-pick-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
    let media = try #require(Corpus.media)
    try FileManager.default.copyItem(atPath: media.path + "/photoview/api/scanner/test_media/library/mount_merapi_volcano_indonesia.jpg",
                                     toPath: folder + "/photos/volcano.jpg")
    #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
    let listing = await mediaindex(["assets", "--json"], folder: folder).out
    let object = try #require(try JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String: Any])
    let asset = try #require((object["assets"] as? [[String: Any]])?.first)
    return (folder, asset)
}

/// `mediaindex pick ARGUMENTS` running in-process: its context (to read the address it
/// prints) and the task that ends with its exit code.
private func startPick(_ arguments: [String], folder: String) -> (context: CommandContext, run: Task<Int32, Never>) {
    let context = CommandContext.capturing(environment: ["HOME": "/nonexistent", "MEDIAINDEX_LIBRARY": folder + "/library",
                                                         "MEDIAINDEX_CACHE": folder + "/cache"])
    let run = Task {
        await CommandRunner.run(root: MediaIndexCommand.self, arguments: (["pick"] + arguments).map { RawArgument($0) },
                                context: context)
    }
    return (context, run)
}

/// The port and the path-and-query of the address `pick --no-open` prints on standard error.
private func pickAddress(_ context: CommandContext) async throws -> (port: UInt16, page: String, secret: String) {
    for _ in 0..<200 {
        let text = context.standardError.capturedText
        if let start = text.range(of: "http://127.0.0.1:") {
            let rest = text[start.upperBound...].prefix { !$0.isWhitespace }
            let port = try #require(UInt16(rest.prefix { $0.isNumber }))
            let page = String(rest.drop { $0 != "/" })
            let secret = try #require(URLComponents(string: page)?.queryItems?.first { $0.name == "pick" }?.value)
            return (port, page, secret)
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw LoopbackClientError("pick printed no address: \(context.standardError.capturedText)")
}

/// The Done message as the picker page builds it (`handOff` in WebPicker/picker.js), with
/// the path and position a page opened with include=path,location would add.
private func doneMessage(for asset: [String: Any], port: UInt16) throws -> [UInt8] {
    let id = try #require(asset["id"] as? String)
    let base = "http://127.0.0.1:\(port)/v1/assets/\(id)"
    let item: [String: Any] = [
        "id": id, "uniformType": "public.jpeg", "pixelWidth": asset["pixelWidth"] ?? NSNull(),
        "pixelHeight": asset["pixelHeight"] ?? NSNull(), "duration": NSNull(), "isOriginalFile": true,
        "urls": ["original": base + "/resources/primary", "compatible": base + "/resources/primary?representation=compatible",
                 "thumbnail": base + "/thumbnail?size=512&rev=1"],
        "resources": [["role": "photo", "path": "/secret/volcano.jpg"]],
        "location": ["latitude": -7.54, "longitude": 110.44],
    ]
    return Array(try JSONSerialization.data(withJSONObject: ["type": "mediaindex.selection", "assets": [item]]))
}

@Suite("mediaindex pick: the one-shot hand-off to a native app", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PickCommandTests {
    @Test("pick --no-open --json prints the address, takes the page's Done and prints PhotosPicker's fields and the URLs, no path or GPS")
    func doneIsPrinted() async throws {
        let (folder, asset) = try await indexedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (context, run) = startPick(["--no-open", "--json", "--limit", "3", "--filter", "images"], folder: folder)
        let (port, page, secret) = try await pickAddress(context)
        #expect(page.contains("limit=3") && page.contains("filter=images"))

        // The page it names is the picker, and its reads work without a token (loopback).
        let picker = try LoopbackClient.send(port: port, path: page)
        #expect(picker.status == 200 && picker.text.contains("picker.js"))
        #expect(try LoopbackClient.send(port: port, path: "/v1/assets").status == 200)

        let message = try doneMessage(for: asset, port: port)
        let wrong = String(secret.reversed())
        #expect(try LoopbackClient.send(port: port, method: "POST", path: "/v1/pick/\(wrong)", body: message).status == 404)
        #expect(try LoopbackClient.send(port: port, method: "POST", path: "/v1/pick/\(secret)", body: Array("{}".utf8)).status == 400)
        #expect(try LoopbackClient.send(port: port, method: "GET", path: "/v1/pick/\(secret)").status == 405)
        #expect(try LoopbackClient.send(port: port, method: "POST", path: "/v1/pick/\(secret)", body: message).status == 200)

        #expect(await run.value == 0, "\(context.standardError.capturedText)")
        let printed = context.standardOutput.capturedText
        let object = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
        let item = try #require((object["assets"] as? [[String: Any]])?.first)
        #expect(item["id"] as? String == asset["id"] as? String)
        #expect(item["pixelWidth"] as? Int == asset["pixelWidth"] as? Int && item["pixelWidth"] as? Int != nil)
        #expect(item["isOriginalFile"] as? Bool == true && item["uniformType"] as? String == "public.jpeg")
        #expect((item["urls"] as? [String: String])?["compatible"]?.hasSuffix("representation=compatible") == true)
        #expect(item["resources"] == nil && item["location"] == nil && !printed.contains("/secret/"))
    }

    @Test("--include path,location keeps the paths and the position the page sent")
    func includeKeepsPaths() async throws {
        let (folder, asset) = try await indexedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (context, run) = startPick(["--no-open", "--json", "--include", "path,location"], folder: folder)
        let (port, page, secret) = try await pickAddress(context)
        #expect(page.contains("include=path,location"))
        let message = try doneMessage(for: asset, port: port)
        #expect(try LoopbackClient.send(port: port, method: "POST", path: "/v1/pick/\(secret)", body: message).status == 200)
        #expect(await run.value == 0)
        let printed = context.standardOutput.capturedText
        #expect(printed.contains("\"path\": \"/secret/volcano.jpg\"") && printed.contains("\"latitude\": -7.54"))
    }

    @Test("a body over the server's limit is refused (413) and taken as nothing; Cancel then ends pick with exit code 1 and a sentence")
    func cancelExitsOne() async throws {
        let (folder, _) = try await indexedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (context, run) = startPick(["--no-open"], folder: folder)
        let (port, _, secret) = try await pickAddress(context)
        let huge = [UInt8](repeating: UInt8(ascii: " "), count: (1 << 20) + 10)
        #expect(try LoopbackClient.send(port: port, method: "POST", path: "/v1/pick/\(secret)", body: huge).status == 413)
        let cancel = Array(#"{"type": "mediaindex.cancel"}"#.utf8)
        #expect(try LoopbackClient.send(port: port, method: "POST", path: "/v1/pick/\(secret)", body: cancel).status == 200)
        #expect(await run.value == 1)
        #expect(context.standardError.capturedText.contains("cancelled in the picker"))
        #expect(context.standardOutput.capturedText.isEmpty)
    }
}
