import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI

@Suite("mediaindex assets shows pairs as one asset", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PairingCommandTests {
    @Test("after indexing the corpus, each live photo, motion photo and RAW+JPEG pair is one asset in assets --jsonl")
    func pairsAreOneAsset() async throws {
        let library = NSTemporaryDirectory() + "mediaindex-cli-pairing-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: library) }
        let root = try #require(Corpus.root).path
        let indexed = await mediaindex(["index", "--json", root], library: library)
        #expect(indexed.code == 0, "\(indexed.err)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(indexed.out.utf8)) as? [String: Any])
        #expect((summary["paired"] as? Int ?? 0) > 0)

        let listed = await mediaindex(["assets", "--jsonl"], library: library)
        #expect(listed.code == 0, "\(listed.err)")
        var assetByPath: [String: [String: Any]] = [:]
        for line in listed.out.split(separator: "\n") {
            let asset = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for resource in asset["resources"] as? [[String: Any]] ?? [] {
                if let path = resource["path"] as? String { assetByPath[path] = asset }
            }
        }
        let pairsFile = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: root + "/live-pairs.json"))) as? [String: Any]
        let expected = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: root + "/synthetic/EXPECTED.json"))) as? [String: Any]
        var groups: [(paths: [String], rule: String)] = []
        for pair in pairsFile?["pairs"] as? [[String: Any]] ?? [] {
            groups.append(([root + "/media/" + (pair["image"] as? String ?? ""), root + "/media/" + (pair["video"] as? String ?? "")],
                           "contentIdentifier"))
        }
        for pair in expected?["livePhotos"] as? [[String: String]] ?? [] {
            groups.append(([root + "/synthetic/" + (pair["still"] ?? ""), root + "/synthetic/" + (pair["movie"] ?? "")],
                           pair["by"] ?? ""))
        }
        for pair in expected?["rawPlusJpeg"] as? [[String]] ?? [] {
            groups.append((pair.map { root + "/synthetic/" + $0 }, "rawPlusJpeg"))
        }
        for motion in pairsFile?["android_motion_photos"] as? [[String: Any]] ?? [] {
            groups.append(([root + "/media/" + (motion["path"] as? String ?? "")], "motionPhoto"))
        }
        for motion in expected?["motionPhotos"] as? [[String: Any]] ?? [] {
            groups.append(([root + "/synthetic/" + (motion["file"] as? String ?? "")], "motionPhoto"))
        }
        #expect(groups.count >= 8)
        for group in groups {
            let assets = group.paths.map { assetByPath[$0] }
            let ids = Set(assets.map { $0?["id"] as? String ?? "missing" })
            #expect(ids.count == 1 && !ids.contains("missing"), "\(group.paths) are not one asset")
            #expect(assets.first??["pairingRule"] as? String == group.rule, "\(group.paths)")
            #expect((assets.first??["resources"] as? [Any])?.count == group.paths.count, "\(group.paths)")
        }
        let motion = try #require(assetByPath[root + "/synthetic/motion-photo/PXL_20240101_120000000.MP.jpg"])
        let video = try #require(motion["embeddedVideo"] as? [String: Any])
        #expect(abs((video["durationSeconds"] as? Double ?? 0) - 2.5) < 0.01)
    }
}
