import CorpusSupport
import Foundation
import MediaIndexInterface
import Testing
@testable import MediaIndex

/// A camera JPEG (exiftool: Canon EOS 40D, 2008:05:30 15:56:01).
private let photo = "ianare-exif-samples/jpg/Canon_40D.jpg"
/// Another photo (exiftool: NIKON CORPORATION, 800×534).
private let otherPhoto = "immich-test-assets/albums/nature/tanners_ridge.jpg"

/// Issue 33: hard links and views of one folder are one file, so one asset with several
/// paths, never two assets. The files are real corpus files linked with `link(2)`.
@Suite("Other names of one file", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FileLinkTests {
    /// Hard-links `name` (under the root) to `other`, making folders on the way.
    static func link(_ scratch: ScratchLibrary, _ name: String, _ other: String) throws {
        let target = scratch.root + "/" + other
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        #expect(Glibc.link(scratch.root + "/" + name, target) == 0)
    }

    static func assetCount(_ library: MediaLibrary) throws -> Int {
        try library.read { db in try db.scalarInt("SELECT count(*) FROM assets") } ?? -1
    }

    static func paths(_ asset: Asset?) -> [String] { asset?.paths.map(\.displayString) ?? [] }

    @Test("two links in one folder and one in another: one asset, one file row, its paths in order with the first indexed first")
    func linksInFolders() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        try Self.link(scratch, "a.jpg", "b.jpg")
        try Self.link(scratch, "a.jpg", "sub/c.jpg")
        try scratch.add(otherPhoto, as: "other.jpg")
        let library = try scratch.open()
        let summary = try library.blocking.index(roots: [PathBytes(scratch.root)])
        #expect(summary.added == 2 && summary.otherNames == 2)
        #expect(try Self.assetCount(library) == 2)
        #expect(try library.read { db in try db.scalarInt("SELECT count(*) FROM files") } == 2)
        let asset = try library.blocking.asset(path: PathBytes(scratch.root + "/sub/c.jpg"))
        #expect(Self.paths(asset) == ["a.jpg", "b.jpg", "sub/c.jpg"].map { scratch.root + "/" + $0 })
        #expect(asset?.id == (try library.blocking.asset(path: PathBytes(scratch.root + "/a.jpg")))?.id)
        // The JSON: `paths` for the linked file, none for the other.
        let json = JSONShapes.asset(try #require(asset)).compactText
        #expect(json.contains("\"paths\":[\"\(scratch.root)/a.jpg\",\"\(scratch.root)/b.jpg\",\"\(scratch.root)/sub/c.jpg\"]"))
        let other = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/other.jpg")))
        #expect(!JSONShapes.asset(other).compactText.contains("\"paths\""))
        // Indexing the unchanged tree again writes nothing.
        let token = try library.blocking.currentChangeToken()
        let again = try library.blocking.index()
        #expect(again.unchanged == 4 && again.added == 0 && again.otherNames == 0 && again.opened == 0)
        #expect(try library.blocking.changes(since: token).changes.isEmpty)
    }

    @Test("a copy (another inode, the same bytes) stays its own asset, in a same-file group; a hard link is in no group")
    func copyIsNotALink() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        try scratch.add(photo, as: "copy.jpg")
        try Self.link(scratch, "a.jpg", "linked.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        #expect(try Self.assetCount(library) == 2)
        let original = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/linked.jpg")))
        let copy = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/copy.jpg")))
        let groups = try library.blocking.duplicateGroups()
        #expect(groups.count == 1)
        #expect(groups.first?.kind == .sameFile && Set(groups.first?.assets ?? []) == [original.id, copy.id])
        #expect(groups.first?.sharedFiles == [])
    }

    @Test("incremental: a new link adds a path (updated naming paths, nothing inserted); removing it removes the path; removing the first path promotes the other; removing the last deletes")
    func incremental() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let id = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/a.jpg"))?.id)
        try library.blocking.setFavorite(true, for: [id])

        var token = try library.blocking.currentChangeToken()
        try Self.link(scratch, "a.jpg", "z/b.jpg")
        #expect(try library.blocking.index().otherNames == 1)
        var changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated] && changes.first?.id == id && changes.first?.fields == [.paths])
        #expect(Self.paths(try library.blocking.asset(id: id)) == [scratch.root + "/a.jpg", scratch.root + "/z/b.jpg"])

        // One link removed: the asset keeps its identifier, one path left.
        token = try library.blocking.currentChangeToken()
        try scratch.remove("z/b.jpg")
        try library.blocking.index()
        changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated] && changes.first?.fields == [.paths])
        #expect(try library.blocking.asset(id: id)?.resources.first?.otherPaths == [])

        // The first path removed while another name remains: that name takes its place.
        try Self.link(scratch, "a.jpg", "z/b.jpg")
        try library.blocking.index()
        token = try library.blocking.currentChangeToken()
        try scratch.remove("a.jpg")
        let summary = try library.blocking.index()
        #expect(summary.removed == 0 && summary.added == 0 && summary.opened == 0)
        changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated] && changes.first?.id == id)
        let promoted = try #require(try library.blocking.asset(id: id))
        #expect(promoted.resources.first?.path == PathBytes(scratch.root + "/z/b.jpg") && promoted.isFavorite)

        // A link moved: still one asset, its path follows.
        try Self.link(scratch, "z/b.jpg", "y/c.jpg")
        try library.blocking.index()
        try scratch.move("y/c.jpg", to: "x/c.jpg")
        try library.blocking.index()
        #expect(Self.paths(try library.blocking.asset(id: id)) == [scratch.root + "/z/b.jpg", scratch.root + "/x/c.jpg"])

        // The last names removed: deleted as any file.
        try scratch.remove("z/b.jpg")
        try scratch.remove("x/c.jpg")
        token = try library.blocking.currentChangeToken()
        try library.blocking.index()
        #expect(try library.blocking.changes(since: token).changes.map(\.kind) == [.deleted])
        #expect(try Self.assetCount(library) == 0)
        #expect(try library.read { db in try db.scalarInt("SELECT count(*) FROM file_links") } == 0)
    }

    @Test("a file written through one name is read once, under its first path; the other name stays a path of the same asset")
    func writtenThroughAName() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        try Self.link(scratch, "a.jpg", "b.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let before = try #require(try library.assets().first)
        try scratch.edit("b.jpg")  // appended in place: the same inode, both names see it
        let summary = try library.blocking.index()
        #expect(summary.updated == 1 && summary.opened == 1 && summary.otherNames == 1 && summary.added == 0)
        let after = try #require(try library.assets().first)
        #expect(try Self.assetCount(library) == 1)
        #expect(after.id == before.id && after.revision == before.revision + 1)
        #expect(Self.paths(after) == [scratch.root + "/a.jpg", scratch.root + "/b.jpg"])
        #expect(try library.blocking.index().unchanged == 2)
    }

    @Test("a name replaced by another file (a new inode) stops being a path of the asset: the new file is its own asset")
    func nameReplacedByAnotherFile() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        try Self.link(scratch, "a.jpg", "b.jpg")
        try scratch.add(otherPhoto, as: "incoming/other.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        try scratch.remove("incoming/other.jpg")
        try scratch.add(otherPhoto, as: "b.jpg.tmp")
        #expect(rename(scratch.root + "/b.jpg.tmp", scratch.root + "/b.jpg") == 0)
        try library.blocking.index()
        let first = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/a.jpg")))
        let second = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/b.jpg")))
        #expect(first.id != second.id && first.paths == [PathBytes(scratch.root + "/a.jpg")])
        #expect(try Self.assetCount(library) == 2)
    }

    @Test("a copy replaced by a hard link of its original (as deduplicating tools do) becomes a path of the original's asset")
    func copyReplacedByALink() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        try scratch.add(photo, as: "copy.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let original = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/a.jpg"))?.id)
        let copy = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/copy.jpg"))?.id)
        #expect(try library.blocking.duplicateGroups().count == 1)
        let token = try library.blocking.currentChangeToken()
        #expect(Glibc.link(scratch.root + "/a.jpg", scratch.root + "/copy.jpg.new") == 0)
        #expect(rename(scratch.root + "/copy.jpg.new", scratch.root + "/copy.jpg") == 0)
        let summary = try library.blocking.index()
        #expect(summary.otherNames == 1 && summary.opened == 0)
        #expect(try Self.assetCount(library) == 1)
        #expect(Self.paths(try library.blocking.asset(id: original)) == [scratch.root + "/a.jpg", scratch.root + "/copy.jpg"])
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.contains { $0.id == copy && $0.kind == .deleted })
        #expect(changes.contains { $0.id == original && $0.kind == .updated && $0.fields.contains(.paths) })
        #expect(try library.blocking.duplicateGroups().isEmpty)
    }

    @Test("a library indexed before schema 49 (a hard link recorded as an asset of its own) is folded once by the next run")
    func legacyFold() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        try scratch.add(photo, as: "b.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let first = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/a.jpg"))?.id)
        let second = try #require(try library.blocking.asset(path: PathBytes(scratch.root + "/b.jpg"))?.id)
        // As an older build left it: b.jpg a hard link of a.jpg, recorded as a file and an asset.
        #expect(Glibc.link(scratch.root + "/a.jpg", scratch.root + "/b.new") == 0)
        #expect(rename(scratch.root + "/b.new", scratch.root + "/b.jpg") == 0)
        let stat = try #require(FileStat.of(PathBytes(scratch.root + "/b.jpg")))
        try library.writer!.transaction { db in
            try db.execute("UPDATE files SET inode = ?, mtime_ns = ?, size = ? WHERE path = ?",
                           [stat.inode, stat.modificationNanoseconds, stat.size, PathBytes(scratch.root + "/b.jpg").bytes])
            try db.execute("INSERT INTO library_meta (key, value) VALUES ('fold_file_links', '1')")
        }
        let token = try library.blocking.currentChangeToken()
        let summary = try library.blocking.index()
        #expect(summary.unchanged == 2 && summary.opened == 0)
        #expect(try Self.assetCount(library) == 1)
        #expect(Self.paths(try library.blocking.asset(id: first)) == [scratch.root + "/a.jpg", scratch.root + "/b.jpg"])
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.contains { $0.id == second && $0.kind == .deleted })
        #expect(changes.contains { $0.id == first && $0.kind == .updated && $0.fields == [.paths] })
        // Once: the next run writes nothing.
        let after = try library.blocking.currentChangeToken()
        #expect(try library.blocking.index().unchanged == 2)
        #expect(try library.blocking.changes(since: after).changes.isEmpty)
    }

    @Test("a link across two roots, and a root that follows a symbolic link to the other root's folder: one asset with both paths")
    func acrossRootsAndSymlinkViews() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "one/a.jpg")
        try Self.link(scratch, "one/a.jpg", "two/b.jpg")
        try scratch.add(otherPhoto, as: "shared/p.jpg")
        try FileManager.default.createDirectory(atPath: scratch.folder.file("viewer"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.folder.file("viewer/view"),
                                                   withDestinationPath: scratch.root + "/shared")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root + "/one"), PathBytes(scratch.root + "/two"),
                                           PathBytes(scratch.root + "/shared")])
        var options = MediaLibrary.IndexOptions()
        options.followSymlinks = true
        try library.blocking.index(roots: [PathBytes(scratch.folder.file("viewer"))], options: options)
        #expect(try Self.assetCount(library) == 2)
        let linked = try library.blocking.asset(path: PathBytes(scratch.root + "/two/b.jpg"))
        #expect(Self.paths(linked) == [scratch.root + "/one/a.jpg", scratch.root + "/two/b.jpg"])
        let viewed = try library.blocking.asset(path: PathBytes(scratch.folder.file("viewer/view/p.jpg")))
        #expect(Self.paths(viewed) == [scratch.root + "/shared/p.jpg", scratch.folder.file("viewer/view/p.jpg")])
        // Every root again, unchanged: nothing written.
        let token = try library.blocking.currentChangeToken()
        #expect(try library.blocking.index().otherNames == 0)
        #expect(try library.blocking.changes(since: token).changes.isEmpty)
    }

    @Test("a rebuild (the database moved away, indexed again) keeps the identifier, the paths and the user state")
    func rebuild() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        try Self.link(scratch, "a.jpg", "b.jpg")
        var id: Asset.ID
        do {
            let library = try scratch.open()
            try library.blocking.index(roots: [PathBytes(scratch.root)])
            id = try #require(try library.assets().first?.id)
            try library.blocking.setFavorite(true, for: [id])
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch.location.databasePath + suffix) }
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let asset = try #require(try library.assets().first)
        #expect(try Self.assetCount(library) == 1)
        #expect(asset.id == id && asset.isFavorite)
        #expect(Self.paths(asset) == [scratch.root + "/a.jpg", scratch.root + "/b.jpg"])
    }

    @Test("non-UTF-8 names: each link's exact bytes are kept and found")
    func nonUTF8Names() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        let odd = PathBytes(scratch.root).appending([0x6C, 0xFF, 0xFE, 0x2E, 0x6A, 0x70, 0x67])  // "l\xFF\xFE.jpg"
        #expect(odd.withCString { Glibc.link(scratch.root + "/a.jpg", $0) } == 0)
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let asset = try #require(try library.blocking.asset(path: odd))
        #expect(asset.paths == [PathBytes(scratch.root + "/a.jpg"), odd])
        #expect(try library.blocking.index().unchanged == 2)
    }

    @Test("hostile: a file with 1,000 names is one asset; a re-index of them writes nothing")
    func thousandLinks() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(photo, as: "a.jpg")
        for index in 0..<1_000 { try Self.link(scratch, "a.jpg", "links/\(index).jpg") }
        let library = try scratch.open()
        let summary = try library.blocking.index(roots: [PathBytes(scratch.root)])
        #expect(summary.added == 1 && summary.otherNames == 1_000 && summary.opened == 1)
        #expect(try Self.assetCount(library) == 1)
        #expect(try library.assets().first?.paths.count == 1_001)
        #expect(try library.blocking.duplicateGroups().isEmpty)
        let token = try library.blocking.currentChangeToken()
        #expect(try library.blocking.index().unchanged == 1_001)
        #expect(try library.blocking.changes(since: token).changes.isEmpty)
    }

    @Test("watch: a link made beside an indexed file adds a path to its asset (no new asset); removing it takes the path away")
    func watch() throws {
        let tree = try WatchedTree(files: [(WatchedTree.canon, "a.jpg")])
        let id = try #require(tree.asset(tree.first + "/a.jpg")?.id)
        try tree.start()
        #expect(Glibc.link(tree.first + "/a.jpg", tree.first + "/b.jpg") == 0)
        #expect(eventually { tree.asset(tree.first + "/b.jpg")?.id == id })
        #expect(try Self.assetCount(tree.library) == 1)
        #expect(tree.asset(tree.first + "/a.jpg")?.paths.count == 2)
        #expect(unlink(tree.first + "/b.jpg") == 0)
        #expect(eventually { tree.asset(tree.first + "/a.jpg")?.paths.count == 1 })
        #expect(tree.asset(tree.first + "/a.jpg")?.id == id)
    }
}
