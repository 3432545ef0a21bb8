import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI

// Issue 33: a hard link or a view of one folder is one asset with several paths.

/// A camera JPEG (exiftool: Canon EOS 40D).
private let photo = "ianare-exif-samples/jpg/Canon_40D.jpg"

private func scratchFolder() throws -> String {
    let folder = NSTemporaryDirectory() + "mediaindex-links-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder + "/photos/links", withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: try #require(Corpus.media).path + "/" + photo, toPath: folder + "/photos/a.jpg")
    return folder
}

/// The JSON objects of `--jsonl` or one-per-line `--json` output.
private func objects(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

@Suite("mediaindex and other names of one file", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FileLinkCommandTests {
    @Test("show lists a file's other names (20 at most, the rest counted); show --json has every path")
    func show() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for index in 0..<30 { #expect(link(folder + "/photos/a.jpg", folder + "/photos/links/\(index).jpg") == 0) }
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let listed = try objects(await mediaindex(["assets", "--jsonl"], folder: folder).out)
        #expect(listed.count == 1)
        let id = try #require(listed.first?["id"] as? String)
        let shown = await mediaindex(["show", id], folder: folder, width: 200).out
        let also = shown.split(separator: "\n").filter { $0.hasPrefix("Also at") }
        #expect(also.count == 21)
        #expect(also.first?.hasSuffix(folder + "/photos/links/0.jpg") == true)
        #expect(also.last?.contains("10 more names") == true)
        let json = try #require(try JSONSerialization.jsonObject(
            with: Data(await mediaindex(["show", "--json", id], folder: folder).out.utf8)) as? [String: Any])
        let paths = try #require(json["paths"] as? [String])
        #expect(paths.count == 31 && paths.first == folder + "/photos/a.jpg")
        #expect(Set(paths.dropFirst()) == Set((0..<30).map { folder + "/photos/links/\($0).jpg" }))
    }

    @Test("duplicates: a linked file is one asset of its same-file group; resolve --print0 never prints a name of the keeper")
    func duplicatesAndPrint0() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(link(folder + "/photos/a.jpg", folder + "/photos/links/b.jpg") == 0)
        try FileManager.default.copyItem(atPath: folder + "/photos/a.jpg", toPath: folder + "/photos/copy.jpg")
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let groups = try objects(await mediaindex(["duplicates", "--kind", "same-file", "--json"], folder: folder).out)
        #expect(groups.count == 1)
        let group = try #require(groups.first)
        let members = try #require(group["assets"] as? [String])
        #expect(members.count == 2, "the original (two paths) and its copy: \(group)")
        let groupID = try #require(group["group"] as? String)
        let copyID = try #require(try objects(await mediaindex(["assets", "--jsonl"], folder: folder).out)
            .first { ($0["paths"] as? [String]) == nil }?["id"] as? String)
        // Keeping the copy: the original's two names are printed.
        let printed = await mediaindex(["duplicates", "resolve", groupID, "--keep", copyID, "--print0"], folder: folder)
        #expect(printed.code == 0, "\(printed.err)")
        #expect(printed.out.split(separator: "\0").map(String.init).sorted()
            == [folder + "/photos/a.jpg", folder + "/photos/links/b.jpg"])
        #expect(!printed.out.contains("copy.jpg"))
        // Undone, and kept the other way: only the copy is printed, never a name of the keeper.
        #expect(await mediaindex(["unhide"] + members, folder: folder).code == 0)
        let originalID = try #require(members.first { $0 != copyID })
        let other = await mediaindex(["duplicates", "resolve", groupID, "--keep", originalID, "--print0"], folder: folder)
        #expect(other.code == 0, "\(other.err)")
        #expect(other.out == folder + "/photos/copy.jpg\0")
    }

    @Test("a bind mount of a folder inside the root: one asset with both paths, and the mount is not walked as a loop (skipped where mounts cannot be made)")
    func bindMount() async throws {
        guard let binary = ThumbnailCommandTests.binary, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            print("skipped: no built mediaindex binary or no unshare")
            return
        }
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/photos/view", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/photos/loop", withIntermediateDirectories: true)
        // In a private mount namespace: `links` seen again as `view`, and the root inside itself as `loop`.
        let script = """
            mount --bind "$1/photos/links" "$1/photos/view" && mount --bind "$1/photos" "$1/photos/loop" || exit 77
            MEDIAINDEX_LIBRARY="$1/library" MEDIAINDEX_CACHE="$1/cache" HOME=/nonexistent "$2" index -q "$1/photos"
            """
        #expect(link(folder + "/photos/a.jpg", folder + "/photos/links/b.jpg") == 0)
        func unshare(_ arguments: [String]) throws -> Int32 {
            try ExternalTool.outcome("/usr/bin/unshare", ["--user", "--map-root-user", "--mount"] + arguments).shellStatus
        }
        let status = try unshare(["true"]) == 0 ? try unshare(["sh", "-c", script, "sh", folder, binary]) : 77
        guard status != 77 else {
            print("skipped: this machine does not let a test make a mount namespace and bind mounts")
            return
        }
        #expect(status == 0)
        let listed = try objects(await mediaindex(["assets", "--jsonl"], folder: folder).out)
        #expect(listed.count == 1)
        let paths = try #require(listed.first?["paths"] as? [String])
        #expect(paths == [folder + "/photos/a.jpg", folder + "/photos/links/b.jpg", folder + "/photos/view/b.jpg"])
    }
}
