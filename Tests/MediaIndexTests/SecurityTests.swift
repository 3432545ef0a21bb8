import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

@Suite("Security", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct SecurityTests {
    /// mtime (ns) and XXH64 of every corpus file.
    private func snapshot(_ media: URL) throws -> [String: (mtime: Int64, hash: UInt64)] {
        var result: [String: (Int64, UInt64)] = [:]
        for relative in Corpus.allMediaPaths {
            let path = media.path + "/" + relative
            var info = stat()
            try #require(lstat(path, &info) == 0)
            let data = try #require(FileManager.default.contents(atPath: path))
            var hasher = XXHash64()
            data.withUnsafeBytes { hasher.update($0) }
            result[relative] = (Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec), hasher.finalize())
        }
        return result
    }

    @Test("indexing the whole corpus and making its thumbnails changes no original's bytes or mtime")
    func originalsUntouched() throws {
        let media = try #require(Corpus.media)
        let before = try snapshot(media)
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(media.path)])
        var thumbnails = ThumbnailBuildOptions()
        thumbnails.sizes = [64]
        let built = try MediaLibrary(location: library.location, cache: ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))).blocking.buildThumbnails(thumbnails)
        #expect(built.made > 0)
        let after = try snapshot(media)
        #expect(before.count == Corpus.allMediaPaths.count)
        for (path, old) in before {
            #expect(after[path]?.mtime == old.mtime && after[path]?.hash == old.hash, "\(path) changed")
        }
    }

    @Test("the library folder is 0700 and its files 0600")
    func ownerOnlyPermissions() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("nested/library"))
        let library = try MediaLibrary(location: location)
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 3)
        try library.blocking.index(roots: [PathBytes(root)])
        func mode(_ path: String) -> mode_t? {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
        }
        #expect(mode(location.directory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: location.directory)
        #expect(files.contains("library.sqlite") && files.contains("index.lock"))
        for name in files {
            #expect(mode(location.directory + "/" + name) == 0o600, "\(name) is \(String(mode(location.directory + "/" + name) ?? 0, radix: 8))")
        }
    }
}
