import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex

/// Copies of corpus files in a temporary tree, to change them freely.
private struct MediaTree {
    let folder = TemporaryFolder()
    var root: String { folder.file("photos") }
    var library: LibraryLocation { LibraryLocation(directory: folder.file("library")) }

    init(_ corpusFiles: [(String, String)]) throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (source, name) in corpusFiles {
            let target = root + "/" + name
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + source, toPath: target)
        }
    }
}

private let pixelJPEG = "ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg"
private let canonJPEG = "ianare-exif-samples/jpg/Canon_40D.jpg"

@Suite("Indexer", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct IndexerTests {
    @Test("indexing the corpus accounts for every file exactly once, and a second run opens none")
    func corpusEveryFileAccountedFor() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let media = PathBytes(Corpus.media!.path)
        let first = try library.blocking.index(roots: [media])

        #expect(first.scanned == Corpus.manifest.count)
        #expect(first.added + first.failed + first.skipped == first.scanned)
        #expect(first.opened == first.scanned)

        // Every file is exactly one of: a resource of an asset, an error, or skipped.
        // An attached XMP sidecar, .AAE or Takeout JSON is a resource too, but counted as skipped (not media).
        let resourcePaths = try library.assets().flatMap(\.resources)
            .filter { !$0.type.isDescribing }.map(\.path)
        let errorPaths = try library.blocking.errors().map(\.path)
        #expect(Set(resourcePaths).count == resourcePaths.count)
        #expect(Set(resourcePaths).isDisjoint(with: errorPaths))
        #expect(resourcePaths.count + errorPaths.count + first.skipped == Corpus.manifest.count)
        for error in try library.blocking.errors() {
            #expect(!error.message.isEmpty)
        }
        print("corpus index: \(first.added) assets, \(first.failed) errors, \(first.skipped) skipped of \(first.scanned)")

        let second = try library.blocking.index()
        #expect(second.opened == 0)
        #expect(second.unchanged == first.scanned)
        #expect(second.added == 0 && second.removed == 0 && second.updated == 0)
    }

    @Test("the corpus's fuzzed and truncated files end as assets or readable errors")
    func corruptedFilesAreRecorded() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(Corpus.media!.path)])
        let errors = Dictionary(uniqueKeysWithValues: try library.blocking.errors().map { ($0.path.displayString, $0.message) })
        var assetPaths = Set<String>()
        try library.forEachAsset { asset in asset.resources.forEach { assetPaths.insert($0.path.displayString) } }
        for entry in Corpus.manifest {
            guard case .array(let categories)? = entry["categories"], categories.contains(.string("corrupted")),
                  let relative = entry["path"]?.string else { continue }
            let path = Corpus.media!.path + "/" + relative
            #expect(assetPaths.contains(path) || errors[path] != nil || !MediaFileKind.looksLikeMedia(PathBytes(path)),
                    "\(relative) is neither an asset nor an error")
        }
    }

    @Test("an edited file keeps its identifier and gets a new revision")
    func editInPlace() throws {
        let tree = try MediaTree([(pixelJPEG, "a.jpg")])
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let before = try #require(try library.assets().first)

        let handle = try #require(FileHandle(forWritingAtPath: tree.root + "/a.jpg"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0, count: 100))
        try handle.close()

        let summary = try library.blocking.index()
        #expect(summary.updated == 1 && summary.opened == 1 && summary.added == 0)
        let after = try #require(try library.assets().first)
        #expect(after.id == before.id)
        #expect(after.revision == before.revision + 1)
        #expect(after.resources.first?.bytes == before.resources.first.map { $0.bytes + 100 })
    }

    @Test("a renamed or moved file keeps its identifier")
    func renameKeepsIdentifier() throws {
        let tree = try MediaTree([(pixelJPEG, "a.jpg"), (canonJPEG, "b.jpg")])
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let before = try #require(try library.blocking.asset(path: PathBytes(tree.root + "/a.jpg")))

        try FileManager.default.createDirectory(atPath: tree.root + "/2023/11", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: tree.root + "/a.jpg", toPath: tree.root + "/2023/11/renamed.jpg")
        let summary = try library.blocking.index()
        #expect(summary.moved == 1 && summary.added == 0 && summary.removed == 0)
        let after = try #require(try library.blocking.asset(path: PathBytes(tree.root + "/2023/11/renamed.jpg")))
        #expect(after.id == before.id)
        #expect(try library.blocking.asset(path: PathBytes(tree.root + "/a.jpg")) == nil)
        #expect(try library.assets().count == 2)
    }

    @Test("an asset's file name, size, format and folder match its primary file after add, move and a Latin-1 name")
    func primaryFileColumnsMatchTheFile() throws {
        let tree = try MediaTree([(pixelJPEG, "a.jpg"), (canonJPEG, "sub/b.jpg")])
        let latin1 = PathBytes(tree.root).appending(Array("sub/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let source = try Data(contentsOf: URL(fileURLWithPath: Corpus.media!.path + "/" + canonJPEG))
        source.withUnsafeBytes { bytes in
            latin1.withCString { path in
                if let file = fopen(path, "wb") { fwrite(bytes.baseAddress, 1, bytes.count, file); fclose(file) }
            }
        }
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        try FileManager.default.createDirectory(atPath: tree.root + "/moved", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: tree.root + "/a.jpg", toPath: tree.root + "/moved/renamed.jpg")
        try library.blocking.index()

        // The columns the indexer wrote at insert (or the triggers after a move) against
        // the file rows they describe, computed by SQLite from the stored path.
        let mismatches = try library.read { db in
            try db.scalarInt("""
                SELECT count(*) FROM assets a JOIN files f ON f.asset_id = a.id AND f.role IN ('photo', 'video')
                LEFT JOIN folders d ON d.id = a.folder_id
                WHERE a.file_name IS NOT f.name_text OR a.file_size IS NOT f.size OR a.format IS NOT f.format
                   OR d.path IS NOT f.parent_path
                """)
        }
        #expect(mismatches == 0)
        let renamedName = try library.read { db in
            try db.row("SELECT a.file_name FROM assets a JOIN files f ON f.asset_id = a.id WHERE f.path = ?",
                       [Array((tree.root + "/moved/renamed.jpg").utf8)])?.string("file_name")
        }
        #expect(renamedName == "renamed.jpg")
        let counted = try library.read { db in try db.scalarInt("SELECT sum(images + videos) FROM folder_stats") }
        #expect(counted == 3, "each asset counted once, in its current folder")
        let folders = try library.read { db in
            try db.rows("SELECT f.path FROM folder_stats s JOIN folders f ON f.id = s.folder_id WHERE s.images > 0")
                .compactMap { $0.blob("path").map { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(Set(folders) == [tree.root + "/sub", tree.root + "/moved"])
    }

    @Test("a deleted file disappears, and a rebuilt database gives the same identifiers")
    func deleteAndRebuild() throws {
        let tree = try MediaTree([(pixelJPEG, "a.jpg"), (canonJPEG, "b.jpg"), (pixelJPEG, "copy-of-a.jpg")])
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let identifiers = Set(try library.assets().map(\.id))
        #expect(identifiers.count == 3, "two identical copies are two assets")

        try FileManager.default.removeItem(atPath: tree.root + "/b.jpg")
        let summary = try library.blocking.index()
        #expect(summary.removed == 1)
        #expect(try library.assets().count == 2)

        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + canonJPEG, toPath: tree.root + "/b.jpg")
        try FileManager.default.removeItem(atPath: tree.library.directory)
        let rebuilt = try MediaLibrary(location: tree.library)
        try rebuilt.blocking.index(roots: [PathBytes(tree.root)])
        #expect(Set(try rebuilt.assets().map(\.id)) == identifiers)
    }

    @Test("non-UTF-8 names round-trip; hidden folders, symlinks and the library are skipped")
    func namesAndSkips() throws {
        let tree = try MediaTree([(pixelJPEG, ".hidden/a.jpg"), (canonJPEG, "b.jpg")])
        // A Latin-1 name: "café.jpg" with é as the single byte 0xE9.
        let latin1 = PathBytes(tree.root).appending(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let source = try Data(contentsOf: URL(fileURLWithPath: Corpus.media!.path + "/" + pixelJPEG))
        let written = latin1.withCString { path -> Bool in
            guard let file = fopen(path, "wb") else { return false }
            defer { fclose(file) }
            return source.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == source.count
        }
        #expect(written)
        try FileManager.default.createSymbolicLink(atPath: tree.root + "/link.jpg", withDestinationPath: tree.root + "/b.jpg")
        try FileManager.default.createSymbolicLink(atPath: tree.root + "/loop", withDestinationPath: tree.root)

        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(summary.scanned == 2)
        let asset = try #require(try library.blocking.asset(path: latin1))
        #expect(asset.resources.first?.path == latin1)
        #expect(asset.resources.first?.path.isValidUTF8 == false)
    }

    @Test("a second index run on the same library fails at once with a clear message")
    func secondRunIsRefused() throws {
        let tree = try MediaTree([(canonJPEG, "b.jpg")])
        let library = try MediaLibrary(location: tree.library)
        let held = try IndexLock(path: tree.library.lockPath, wait: false)
        let error = #expect(throws: LibraryError.self) { try library.blocking.index(roots: [PathBytes(tree.root)]) }
        #expect(error?.description.contains("another index run is in progress") == true)
        withExtendedLifetime(held) {}
    }

    // root reads mode-000 folders anyway, so this runs only as an ordinary user.
    @Test("an unreadable folder is an error and what was recorded under it is kept",
          .enabled(if: getuid() != 0, "running as root, which can read a mode-000 folder"))
    func unreadableFolder() throws {
        let tree = try MediaTree([(canonJPEG, "locked/b.jpg"), (pixelJPEG, "a.jpg")])
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        chmod(tree.root + "/locked", 0)
        defer { chmod(tree.root + "/locked", 0o755) }
        let summary = try library.blocking.index()
        #expect(summary.unreadableFolders == 1 && summary.removed == 0)
        #expect(try library.assets().count == 2)
        #expect(try library.blocking.errors().contains { $0.message.hasPrefix("cannot list folder") })
    }

    @Test("forgetting a root removes its files and assets")
    func removeRoot() throws {
        let tree = try MediaTree([(canonJPEG, "b.jpg")])
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(try library.assets().count == 1)
        try library.blocking.removeRoot(PathBytes(tree.root))
        #expect(try library.assets().isEmpty)
        #expect(try library.blocking.roots().isEmpty)
        #expect(throws: LibraryError.self) { try library.blocking.removeRoot(PathBytes(tree.root)) }
    }
}
