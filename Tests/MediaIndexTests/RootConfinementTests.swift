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
