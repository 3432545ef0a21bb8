import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI

@Suite("mediaindex show with XMP sidecars", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct SidecarCommandTests {
    @Test("show --json lists the sidecar as a resource with role sidecar and shows its rating and location")
    func showListsSidecar() async throws {
        let folder = NSTemporaryDirectory() + "mediaindex-sidecar-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let root = folder + "/photos", library = folder + "/library"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let media = try #require(Corpus.media).path
        let jpeg = "photoprism/internal/meta/testdata/photoshop.jpg"
        let xmp = "photoprism/internal/meta/testdata/photoshop.xmp"
        try FileManager.default.copyItem(atPath: media + "/" + jpeg, toPath: root + "/photoshop.jpg")
        try FileManager.default.copyItem(atPath: media + "/" + xmp, toPath: root + "/photoshop.xmp")

        let indexed = await mediaindex(["index", "--json", root], library: library)
        #expect(indexed.code == 0, "\(indexed.err)")
        // The sidecar is no asset of its own: showing it by path shows its media file's asset.
        let shown = await mediaindex(["show", "--json", root + "/photoshop.jpg"], library: library)
        #expect(shown.code == 0, "\(shown.err)")
        let asset = try #require(try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: Any])
        let resources = try #require(asset["resources"] as? [[String: Any]])
        #expect(resources.map { $0["role"] as? String } == ["photo", "sidecar"])
        #expect(resources.last?["path"] as? String == root + "/photoshop.xmp")
        #expect(resources.last?["contentType"] as? String == "application/rdf+xml")

        let reference = try #require(Corpus.exiftool[xmp])
        #expect(asset["rating"] as? Int == reference["XMP-xmp:Rating"]?.number.map { Int($0) })
        let location = try #require(asset["location"] as? [String: Any])
        #expect(abs((location["latitude"] as? Double ?? 0) - (reference["XMP-exif:GPSLatitude"]?.number ?? 0)) < 1e-9)

        let bySidecar = await mediaindex(["show", "--json", root + "/photoshop.xmp"], library: library)
        #expect(bySidecar.out == shown.out)
        let listed = await mediaindex(["assets", "--jsonl"], library: library)
        #expect(listed.out.split(separator: "\n").count == 1)
    }
}
