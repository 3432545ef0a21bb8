import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// A temporary root filled with copies of corpus files, and a library beside it.
struct ScratchLibrary {
    let folder = TemporaryFolder()
    var root: String { folder.file("photos") }
    var location: LibraryLocation { LibraryLocation(directory: folder.file("library")) }

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Copies a corpus file (path relative to `media/`) to `name` under the root.
    func add(_ corpusPath: String, as name: String) throws {
        let target = root + "/" + name
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + corpusPath, toPath: target)
    }

    /// Copies a file of the synthetic corpus (path relative to `synthetic/`).
    func addSynthetic(_ syntheticPath: String, as name: String) throws {
        let target = root + "/" + name
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.synthetic!.path + "/" + syntheticPath, toPath: target)
    }

    func move(_ from: String, to: String) throws {
        let target = root + "/" + to
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/" + from, toPath: target)
    }

    func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: root + "/" + name) }

    /// Appends bytes: a JPEG stays a readable JPEG with new content.
    func edit(_ name: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: root + "/" + name))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("edited \(UUID())".utf8))
        try handle.close()
    }

    func open() throws -> MediaLibrary { try MediaLibrary(location: location) }

    func identifier(_ name: String, in library: MediaLibrary) throws -> String? {
        try library.blocking.asset(path: PathBytes(root + "/" + name))?.id.rawValue
    }
}

private let jpegA = "ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg"
private let jpegB = "ianare-exif-samples/jpg/Canon_40D.jpg"
private let jpegC = "immich-test-assets/albums/nature/tanners_ridge.jpg"

@Suite("Stable identifiers", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct IdentityTests {
    @Test("re-indexing keeps every identifier")
    func reindex() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        try scratch.add(jpegB, as: "b.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let before = try library.assets().map(\.id.rawValue).sorted()
        try library.blocking.index()
        #expect(try library.assets().map(\.id.rawValue).sorted() == before)
    }

    @Test("an index run leaves its work in the database file and the WAL empty")
    func runEmptiesTheWAL() throws {
        let scratch = try ScratchLibrary()
        try scratch.addSynthetic("live-apple/IMG_7001.HEIC", as: "IMG_7001.HEIC")
        try scratch.addSynthetic("live-apple/IMG_7001.MOV", as: "IMG_7001.MOV")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let wal = scratch.location.databasePath + "-wal"
        let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size == 0, "\(wal) holds \(size) bytes")
        #expect(try library.assets().count == 1)
    }

    @Test("moving a file to another root of the same library keeps its identifier")
    func moveAcrossRoots() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "one/a.jpg")
        try scratch.add(jpegB, as: "two/b.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root + "/one"), PathBytes(scratch.root + "/two")])
        let id = try #require(try scratch.identifier("one/a.jpg", in: library))
        try scratch.move("one/a.jpg", to: "two/deeper/a-renamed.jpg")
        let summary = try library.blocking.index()
        #expect(summary.moved == 1 && summary.removed == 0 && summary.added == 0)
        #expect(try scratch.identifier("two/deeper/a-renamed.jpg", in: library) == id)
    }

    @Test("a live photo keeps its identifier when its halves move together, then separately")
    func livePhotoMoves() throws {
        let scratch = try ScratchLibrary()
        try scratch.addSynthetic("live-apple/IMG_7001.HEIC", as: "2024/IMG_7001.HEIC")
        try scratch.addSynthetic("live-apple/IMG_7001.MOV", as: "2024/IMG_7001.MOV")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let live = try #require(try library.assets().first)
        #expect(try library.assets().count == 1)
        #expect(live.mediaSubtypes.contains(.livePhoto))

        try scratch.move("2024/IMG_7001.HEIC", to: "export/IMG_7001.HEIC")
        try scratch.move("2024/IMG_7001.MOV", to: "export/IMG_7001.MOV")
        try library.blocking.index()
        #expect(try library.assets().map(\.id) == [live.id])

        try scratch.move("export/IMG_7001.MOV", to: "movies/IMG_7001.MOV")
        try library.blocking.index()
        let after = try library.assets()
        #expect(after.map(\.id) == [live.id])
        #expect(after.first?.mediaSubtypes.contains(.livePhoto) == true)
        #expect(Set(after.first?.resources.map(\.type) ?? []) == [.photo, .pairedVideo])
    }

    @Test("swapping two files' names: identifiers follow the content")
    func swapNames() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "x.jpg")
        try scratch.add(jpegB, as: "y.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let idX = try #require(try scratch.identifier("x.jpg", in: library))
        let idY = try #require(try scratch.identifier("y.jpg", in: library))
        try scratch.move("x.jpg", to: "tmp.jpg")
        try scratch.move("y.jpg", to: "x.jpg")
        try scratch.move("tmp.jpg", to: "y.jpg")
        let summary = try library.blocking.index()
        #expect(summary.moved == 2 && summary.added == 0 && summary.removed == 0)
        #expect(try scratch.identifier("x.jpg", in: library) == idY)
        #expect(try scratch.identifier("y.jpg", in: library) == idX)
        #expect(try library.assets().count == 2)
    }

    @Test("renaming a file and writing new content at the old name: the old content keeps the identifier")
    func renameThenRewrite() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let id = try #require(try scratch.identifier("a.jpg", in: library))
        try scratch.move("a.jpg", to: "kept.jpg")
        try scratch.add(jpegB, as: "a.jpg")
        try library.blocking.index()
        #expect(try scratch.identifier("kept.jpg", in: library) == id)
        let newID = try #require(try scratch.identifier("a.jpg", in: library))
        #expect(newID != id)
    }

    @Test("an edit in place keeps the identifier and changes revision and modificationDate")
    func editInPlace() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let before = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/a.jpg")))
        Thread.sleep(forTimeInterval: 0.01)
        try scratch.edit("a.jpg")
        try library.blocking.index()
        let after = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/a.jpg")))
        #expect(after.id == before.id)
        #expect(after.revision == before.revision + 1)
        #expect(after.modificationDate > before.modificationDate)
        #expect(after.addedDate == before.addedDate)
    }

    @Test("deleted content that comes back within the retention window gets its identifier back")
    func tombstoneReturn() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        // Edited content no longer hashes to the identifier: only the tombstone knows it.
        try scratch.edit("a.jpg")
        try library.blocking.index()
        let id = try #require(try scratch.identifier("a.jpg", in: library))
        let edited = try Data(contentsOf: URL(fileURLWithPath: scratch.root + "/a.jpg"))
        try scratch.remove("a.jpg")
        #expect(try library.blocking.index().removed == 1)
        #expect(try library.assets().isEmpty)

        try edited.write(to: URL(fileURLWithPath: scratch.root + "/back-again.jpg"))
        try library.blocking.index()
        #expect(try scratch.identifier("back-again.jpg", in: library) == id)
    }

    @Test("past the retention window a returning file is a new asset")
    func tombstoneExpires() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        try scratch.edit("a.jpg")
        try library.blocking.index()
        let id = try #require(try scratch.identifier("a.jpg", in: library))
        let edited = try Data(contentsOf: URL(fileURLWithPath: scratch.root + "/a.jpg"))
        try scratch.remove("a.jpg")
        var options = MediaLibrary.IndexOptions()
        options.tombstoneRetention = -1  // everything is older than the window
        try library.blocking.index(options: options)
        try edited.write(to: URL(fileURLWithPath: scratch.root + "/a.jpg"))
        try library.blocking.index()
        #expect(try scratch.identifier("a.jpg", in: library) != id)
    }

    @Test("two identical copies are two assets, and a rebuild gives each the same identifier")
    func copiesAndRebuild() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        try scratch.add(jpegA, as: "copies/a.jpg")
        try scratch.add(jpegB, as: "b.jpg")
        var library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let before = try ["a.jpg", "copies/a.jpg", "b.jpg"].map { try scratch.identifier($0, in: library) }
        #expect(Set(before).count == 3)
        try FileManager.default.removeItem(atPath: scratch.location.directory)
        library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let after = try ["a.jpg", "copies/a.jpg", "b.jpg"].map { try scratch.identifier($0, in: library) }
        #expect(after == before)
    }

    @Test("rebuilding the library on the unchanged corpus gives the identical sorted identifier list")
    func corpusRebuildIsIdentical() throws {
        let folder = TemporaryFolder()
        var lists: [String] = []
        for name in ["first", "second"] {
            let library = try MediaLibrary(location: LibraryLocation(directory: folder.file(name)))
            try library.blocking.index(roots: [PathBytes(Corpus.root!.path)])
            lists.append(try library.assets().map(\.id.rawValue).sorted().joined(separator: "\n"))
        }
        #expect(!lists[0].isEmpty)
        #expect(lists[0] == lists[1])
    }
}

@Suite("Change feed", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ChangeFeedTests {
    @Test("reports exactly the additions, edits, moves and deletions a scripted sequence made")
    func scriptedSequence() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        try scratch.add(jpegB, as: "b.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let start = try library.blocking.changes(since: .initial)
        #expect(start.changes.map(\.kind) == [.inserted, .inserted])
        let idA = try #require(try scratch.identifier("a.jpg", in: library))
        let idB = try #require(try scratch.identifier("b.jpg", in: library))

        // Nothing changed: nothing reported, the token stays.
        try library.blocking.index()
        #expect(try library.blocking.changes(since: start.currentToken).changes.isEmpty)

        // Touching a file without changing it reports nothing either.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: scratch.root + "/b.jpg")
        try library.blocking.index()
        #expect(try library.blocking.changes(since: start.currentToken).changes.isEmpty)

        try scratch.edit("a.jpg")
        try scratch.move("b.jpg", to: "moved/b.jpg")
        try scratch.add(jpegC, as: "c.jpg")
        try library.blocking.index()
        let step = try library.blocking.changes(since: start.currentToken)
        let idC = try #require(try scratch.identifier("c.jpg", in: library))
        let summary = step.changes.map { "\($0.kind.rawValue) \($0.id)" }.sorted()
        #expect(summary == ["inserted \(idC)", "moved \(idB)", "updated \(idA)"].sorted())
        let update = try #require(step.changes.first { $0.kind == .updated })
        #expect(update.fields.contains("revision"))
        #expect(step.currentToken > start.currentToken)

        try scratch.remove("c.jpg")
        try library.blocking.index()
        let last = try library.blocking.changes(since: step.currentToken)
        #expect(last.changes.map { "\($0.kind.rawValue) \($0.id)" } == ["deleted \(idC)"])
    }

    @Test("a token newer than the history (a rebuilt library) or trimmed away has expired")
    func expiredTokens() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(jpegA, as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let current = try library.blocking.currentChangeToken()
        #expect(throws: LibraryError.changeTokenFromTheFuture(token: current + 100, current: current)) {
            try library.blocking.changes(since: current + 100)
        }
        try library.writer!.write { db in
            try db.execute("DELETE FROM changes")
            try db.execute("UPDATE library_meta SET value = '50' WHERE key = 'change_history_start'")
        }
        #expect(throws: LibraryError.self) { try library.blocking.changes(since: .initial) }
    }
}
