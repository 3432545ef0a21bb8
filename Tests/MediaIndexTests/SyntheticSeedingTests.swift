import Foundation
import MediaIndex
import MediaIndexTestSupport
import Testing

@Suite("Synthetic libraries: MediaIndexTestSupport seeds through the index run's statements")
struct SyntheticSeedingTests {
    @Test("seeding writes the asked number of assets, the same ones for the same start, found as indexed ones are")
    func seeds() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("a")))
        try library.seedSyntheticAssets(count: 250, folderCount: 20, batchSize: 100, deferIndexes: true, describe: true)
        let counts = try library.blocking.countAssets(.everyAsset)
        #expect(counts.images + counts.videos == 250)
        #expect(counts.videos > 0 && counts.videos < 60, "about one in ten is a video")
        let same = try MediaLibrary(location: LibraryLocation(directory: folder.file("b")))
        try same.seedSyntheticAssets(count: 250, folderCount: 20, batchSize: 250)
        #expect(Set(try library.blocking.fetchAssets(.everyAsset).assets.map(\.id))
                == Set(try same.blocking.fetchAssets(.everyAsset).assets.map(\.id)))
        // `describe:` gives keywords and captions the search finds; without it there are none.
        #expect(try library.blocking.search("beach").count > 0)
        #expect(try same.blocking.search("beach").count == 0)
    }
}
