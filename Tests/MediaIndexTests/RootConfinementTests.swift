import CorpusSupport
import Foundation
@testable import MediaIndex
import MediaMetadata
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Files are opened inside their root", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct RootConfinementTests {
    @Test("a folder swapped for a symbolic link to elsewhere is neither read by the indexer nor thumbnailed")
    func swappedFolder() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root"), outside = folder.file("outside")
        try FileManager.default.createDirectory(atPath: root + "/photos", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let media = try #require(Corpus.media)
        try FileManager.default.copyItem(atPath: media.path + "/ianare-exif-samples/jpg/Canon_40D.jpg", toPath: root + "/photos/a.jpg")
        try FileManager.default.copyItem(atPath: media.path + "/ianare-exif-samples/jpg/Nikon_D70.jpg", toPath: outside + "/a.jpg")
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")),
                                       cache: ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache"))))
        try library.blocking.index(roots: [PathBytes(root)])
        let asset = try #require(try library.assets().first)

        // The folder becomes a link to another folder holding a file of the same name.
        try FileManager.default.removeItem(atPath: root + "/photos")
        try FileManager.default.createSymbolicLink(atPath: root + "/photos", withDestinationPath: outside)
        var info = stat()
        try #require(lstat(outside + "/a.jpg", &info) == 0)
        let entry = FileWalker.Entry(path: PathBytes(root + "/photos/a.jpg"), stat: FileStat(info))
        guard case .failed(let message) = FileReader.read(entry, beneath: PathBytes(root)) else {
            Issue.record("the indexer read a file through a symbolic link to a folder outside the root")
            return
        }
        #expect(message.contains("symbolic link photos"), "\(message)")
        #expect(throws: (any Error).self, "a thumbnail of the file outside the root was made") {
            _ = try library.blocking.thumbnail(for: asset, size: 64, mode: .fit, format: .jpeg(quality: 80))
        }
        #expect(throws: BeneathRoot.Failure.self) { _ = try library.blocking.openIndexedFile(PathBytes(root + "/photos/a.jpg")) }
        #expect(throws: BeneathRoot.Failure.self) { _ = try library.blocking.openIndexedFile(PathBytes(outside + "/a.jpg")) }
    }
}

@Suite("Roots that follow symbolic links to folders", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FollowedSymlinkTests {
    /// `root/own.jpg`, and `root/linked -> outside` where `outside` holds `a.jpg` and
    /// `sub/b.jpg`; loops: `root/self -> .`, `root/up -> ..` (the root's parent) and
    /// `outside/sub/back -> ..` (back to `outside`).
    struct Layout {
        let folder = TemporaryFolder()
        var root: String { folder.file("root") }
        var outside: String { folder.file("outside") }
        let library: MediaLibrary

        init() throws {
            let folder = self.folder
            let root = folder.file("root"), outside = folder.file("outside")
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: outside + "/sub", withIntermediateDirectories: true)
            let jpegs = try #require(Corpus.media).path + "/ianare-exif-samples/jpg/"
            try FileManager.default.copyItem(atPath: jpegs + "Canon_40D.jpg", toPath: root + "/own.jpg")
            try FileManager.default.copyItem(atPath: jpegs + "Nikon_D70.jpg", toPath: outside + "/a.jpg")
            try FileManager.default.copyItem(atPath: jpegs + "Fujifilm_FinePix6900ZOOM.jpg", toPath: outside + "/sub/b.jpg")
            try FileManager.default.createSymbolicLink(atPath: root + "/linked", withDestinationPath: outside)
            try FileManager.default.createSymbolicLink(atPath: root + "/self", withDestinationPath: ".")
            try FileManager.default.createSymbolicLink(atPath: root + "/up", withDestinationPath: "..")
            try FileManager.default.createSymbolicLink(atPath: outside + "/sub/back", withDestinationPath: "..")
            library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")),
                                       cache: ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache"))))
        }

        func index(follow: Bool?, roots: [String]? = nil) throws {
            var options = MediaLibrary.IndexOptions()
            options.followSymlinks = follow
            try library.blocking.index(roots: (roots ?? [root]).map { PathBytes($0) }, options: options)
        }

        func paths() throws -> [String] {
            try library.assets().compactMap { $0.primaryResource?.path.displayString }.sorted()
        }
    }

    @Test("by default a link to a folder is not followed")
    func notFollowedByDefault() throws {
        let layout = try Layout()
        try layout.index(follow: nil)
        #expect(try layout.paths() == [layout.root + "/own.jpg"])
    }

    @Test("followed: the target's files are indexed under the link's path, each folder once, loops end; the setting is stored")
    func followedOnceWithoutLoops() throws {
        let layout = try Layout()
        let expected = [layout.root + "/linked/a.jpg", layout.root + "/linked/sub/b.jpg", layout.root + "/own.jpg"]
        try layout.index(follow: true)
        #expect(try layout.paths() == expected)
        try layout.index(follow: nil)
        #expect(try layout.paths() == expected, "a later run without the option forgot the root's setting")
        try layout.index(follow: false)
        #expect(try layout.paths() == [layout.root + "/own.jpg"])
    }

    @Test("a file reached through a followed link is served only when it resolves beneath a root")
    func servedOnlyBeneathARoot() throws {
        let layout = try Layout()
        try layout.index(follow: true)
        let linked = PathBytes(layout.root + "/linked/a.jpg")
        #expect(throws: BeneathRoot.Failure.resolvesOutsideRoots(path: linked.displayString, resolved: layout.outside + "/a.jpg")) {
            _ = try layout.library.blocking.openIndexedFile(linked)
        }
        let asset = try #require(try layout.library.blocking.asset(path: linked))
        #expect(throws: (any Error).self, "a thumbnail of a file outside every root was made") {
            _ = try layout.library.blocking.thumbnail(for: asset, size: 64, mode: .fit, format: .jpeg(quality: 80))
        }
        let own = try layout.library.blocking.openIndexedFile(PathBytes(layout.root + "/own.jpg"))
        close(own)

        // Once the link's target is a root of its own, the file is served from there.
        try layout.index(follow: nil, roots: [layout.outside])
        let fd = try layout.library.blocking.openIndexedFile(linked)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &bytes, 64)
        let expected = try #require(FileManager.default.contents(atPath: layout.outside + "/a.jpg"))
        #expect(count == 64 && Array(expected.prefix(64)) == bytes)
    }
}
