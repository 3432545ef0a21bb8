import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI

/// A folder holding `photos/` with copies of corpus files under plain names.
private func folderWithCopies(_ relatives: [String]) throws -> String {
    let folder = NSTemporaryDirectory() + "mediaindex-thumbs-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
    let media = try #require(Corpus.media)
    for (index, relative) in relatives.enumerated() {
        try FileManager.default.copyItem(atPath: media.path + "/" + relative,
                                         toPath: "\(folder)/photos/file\(index).\((relative as NSString).pathExtension)")
    }
    return folder
}

private let jpeg = "photoview/api/scanner/test_media/library/mount_merapi_volcano_indonesia.jpg"
private let video = "photoprism/pkg/media/video/testdata/isom-avc1.mp4"

/// Width and height from a JPEG's frame header.
private func jpegSize(_ path: String) -> (Int, Int)? {
    guard let bytes = FileManager.default.contents(atPath: path).map([UInt8].init) else { return nil }
    var i = 2
    while i + 9 < bytes.count, bytes[i] == 0xFF {
        let marker = bytes[i + 1]
        if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
            return (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]))
        }
        i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
    }
    return nil
}

@Suite("mediaindex thumbnail and thumbnails", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ThumbnailCommandTests {
    @Test("thumbnail prints the cached file's path, by identifier or by file path, in the size and mode asked")
    func thumbnailPrintsPath() async throws {
        let folder = try folderWithCopies([jpeg])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let ids = await mediaindex(["assets", "--jsonl"], folder: folder).out
        let id = try #require(ids.split(separator: "\"").dropFirst(3).first.map(String.init))

        let first = await mediaindex(["thumbnail", id], folder: folder)
        #expect(first.code == 0, "\(first.err)")
        let path = first.out.trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix(folder + "/cache/") && path.hasSuffix(".jpg"))
        #expect(jpegSize(path).map { max($0.0, $0.1) } == 256)
        #expect(!path.contains("file0"))

        let square = await mediaindex(["thumbnail", folder + "/photos/file0.jpg", "--size", "64", "--mode", "fill"], folder: folder)
        #expect(square.code == 0)
        #expect(jpegSize(square.out.trimmingCharacters(in: .newlines)).map { [$0.0, $0.1] } == [64, 64])

        let webp = await mediaindex(["thumbnail", id, "--format", "webp"], folder: folder)
        #expect(webp.out.trimmingCharacters(in: .newlines).hasSuffix(".webp"))

        let bad = await mediaindex(["thumbnail", id, "--mode", "stretch"], folder: folder)
        #expect(bad.code == 64 && bad.err.contains("--mode takes one of fit, fill"))
        let missing = await mediaindex(["thumbnail", "AAAAAAAAAAAAA"], folder: folder)
        #expect(missing.code == 1 && missing.err.contains("no asset matches"))
    }

    @Test("index --thumbnails makes new assets' thumbnails; an unchanged re-index does no thumbnail work")
    func indexWithThumbnails() async throws {
        let folder = try folderWithCopies([jpeg])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = await mediaindex(["index", folder + "/photos", "--thumbnails", "--size", "64", "--size", "128"], folder: folder)
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out.contains("Thumbnails: made 2, already cached 0, failed 0"))
        let again = await mediaindex(["index", "--thumbnails"], folder: folder)
        #expect(again.out.contains("Thumbnails: made 0, already cached 0, failed 0"))

        let build = await mediaindex(["thumbnails", "--size", "64", "--size", "128", "--json"], folder: folder)
        #expect(build.code == 0)
        #expect(build.out.contains("\"made\": 0") && build.out.contains("\"cached\": 2"))

        // Deleting the photo: the next index collects its thumbnails.
        try FileManager.default.removeItem(atPath: folder + "/photos/file0.jpg")
        #expect(await mediaindex(["index", "-q"], folder: folder).code == 0)
        let gc = await mediaindex(["thumbnails", "--gc", "--json"], folder: folder)
        #expect(gc.out.contains("\"recordsRemoved\": 0") && gc.out.contains("\"cacheBytes\": 0"))
        #expect(await mediaindex(["index", "--size", "64"], folder: folder).code == 64)
    }

    @Test("without ffmpeg on PATH, thumbnail on a video exits 1 saying ffmpeg is needed, and records it")
    func videoWithoutFFmpeg() async throws {
        let binary = try #require(Self.binary, "build first: swift build")
        let folder = try folderWithCopies([video])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)

        let outcome = try ExternalTool.outcome(binary, ["thumbnail", folder + "/photos/file0.mp4", "--library", folder + "/library",
                                                        "--cache", folder + "/cache"],
                                               environment: ["PATH": "/nonexistent", "HOME": "/nonexistent"])
        #expect(outcome.exitStatus == 1)
        #expect(outcome.standardErrorText.contains("video thumbnails need the ffmpeg program, which is not installed (apt-get install ffmpeg)"))

        let failures = await mediaindex(["thumbnails", "--failures", "--json"], folder: folder)
        #expect(failures.out.contains("\"state\": \"needsFFmpeg\""))
    }

    /// `.build/debug/mediaindex` beside the test bundle, else under the package root.
    static let binary: String? = {
        let beside = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("mediaindex").path
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [beside, packageRoot.appendingPathComponent(".build/debug/mediaindex").path]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
}
