import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

@Suite("Indexing corrupted files", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct CorruptionIndexTests {
    @Test("a folder of mutated corpus files: each ends as an asset, a recorded error, or skipped as not media")
    func mutatedFolder() throws {
        let media = try #require(Corpus.media)
        let folder = TemporaryFolder()
        let root = folder.file("mutants")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // Every 8th corpus file, every 3rd of its mutations: a deterministic sample.
        var written: [String] = []
        for (fileIndex, relative) in Corpus.allMediaPaths.enumerated() where fileIndex % 8 == 0 {
            guard let data = FileManager.default.contents(atPath: media.path + "/" + relative) else { continue }
            let ext = (relative as NSString).pathExtension
            let mutations = CorpusMutations.mutations(of: Array(data), seed: CorpusMutations.seed(for: relative))
            for (index, mutation) in mutations.enumerated() where index % 3 == fileIndex % 3 {
                let path = root + "/m\(fileIndex)-\(index)" + (ext.isEmpty ? "" : "." + ext)
                try FaultSupport.writeFile(path, mutation.bytes)
                written.append(path)
            }
        }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let summary = try library.blocking.index(roots: [PathBytes(root)])
        #expect(summary.scanned == written.count)
        let rows = try library.read { db in try db.rows("SELECT path, status, asset_id, error FROM files") }
        #expect(rows.count == written.count)
        for row in rows {
            let path = PathBytes(row.blob("path") ?? [])
            switch row.string("status") {
            case "media": #expect(row.int64("asset_id") != nil, "\(path.displayString) is media without an asset")
            case "error": #expect(!(row.string("error") ?? "").isEmpty)
            case "ignored": #expect(!MediaFileKind.looksLikeMedia(path), "\(path.displayString) has a media name but was skipped")
            default: Issue.record("\(path.displayString): status \(row.string("status") ?? "nil")")
            }
        }
        print("indexed \(written.count) mutants: \(summary.added) assets, \(summary.failed) errors, \(summary.skipped) skipped")
    }
}
