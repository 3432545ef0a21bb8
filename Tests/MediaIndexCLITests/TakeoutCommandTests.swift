import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI

/// Runs `mediaindex` in-process with captured output.
private func mediaindex(_ arguments: [String], library: String) async -> (code: Int32, out: String, err: String) {
    let context = CommandContext.capturing(environment: ["MEDIAINDEX_LIBRARY": library, "HOME": "/nonexistent"])
    let code = await CommandRunner.run(root: MediaIndexCommand.self, arguments: arguments.map { RawArgument($0) },
                                       context: context)
    return (code, context.standardOutput.capturedText, context.standardError.capturedText)
}

@Suite("mediaindex with a Google Takeout", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct TakeoutCommandTests {
    @Test("show lists the JSON as a takeoutMetadata resource with its description; albums shows the album's title")
    func showAndAlbums() async throws {
        let folder = NSTemporaryDirectory() + "mediaindex-takeout-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let album = folder + "/Takeout/Google Photos/Wedding 2019", library = folder + "/library"
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        // osxphotos' real Takeout sample (osxphotos/tests/test-images/Takeout).
        let sample = try #require(Corpus.media).path + "/osxphotos/tests/test-images/Takeout/Google Photos/Photos from 2019/"
        for name in ["wedding.jpg", "wedding.jpg.json"] {
            try FileManager.default.copyItem(atPath: sample + name, toPath: album + "/" + name)
        }
        // An album folder's metadata.json, as newer Takeouts write it.
        try Data(#"{"title": "Maria's wedding", "description": "", "access": "protected", "date": {"timestamp": "1555364424", "formatted": "Apr 15, 2019, 9:40:24 PM UTC"}}"#.utf8)
            .write(to: URL(fileURLWithPath: album + "/metadata.json"))

        let indexed = await mediaindex(["index", "--json", folder + "/Takeout"], library: library)
        #expect(indexed.code == 0, "\(indexed.err)")
        let shown = await mediaindex(["show", "--json", album + "/wedding.jpg"], library: library)
        #expect(shown.code == 0, "\(shown.err)")
        let asset = try #require(try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: Any])
        let resources = try #require(asset["resources"] as? [[String: Any]])
        #expect(resources.map { $0["role"] as? String } == ["photo", "takeoutMetadata"])
        #expect(resources.last?["contentType"] as? String == "application/json")
        let reference = Corpus.exiftool["osxphotos/tests/test-images/Takeout/Google Photos/Photos from 2019/wedding.jpg.json"]
        #expect(asset["takeoutDescription"] as? String == reference?["JSON:Description"]?.string)
        #expect(asset["takeoutTitle"] as? String == "wedding.jpg")
        // The JSON is no asset: showing it by its path shows its photo's asset.
        #expect(await mediaindex(["show", "--json", album + "/wedding.jpg.json"], library: library).out == shown.out)
        #expect(await mediaindex(["assets", "--jsonl"], library: library).out.split(separator: "\n").count == 1)

        let text = await mediaindex(["show", album + "/wedding.jpg"], library: library)
        #expect(text.out.contains("Bride Wedding day"))
        let albums = await mediaindex(["albums"], library: library)
        #expect(albums.code == 0, "\(albums.err)")
        #expect(albums.out.contains("Maria's wedding"))
    }
}
