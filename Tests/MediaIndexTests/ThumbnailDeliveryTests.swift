import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

@Suite("Thumbnail delivery and prefetching")
struct ThumbnailDeliveryTests {
    /// A Pixel 8 JPEG (3072×4080) whose EXIF block holds a camera thumbnail.
    static let photo = "ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg"

    private func library(in folder: TemporaryFolder) throws -> (MediaLibrary, Asset) {
        _ = try ThumbnailTestFiles.copy([Self.photo, ThumbnailTestFiles.jpegA, ThumbnailTestFiles.jpegB], into: folder.file("photos"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")),
                                       cache: ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache"))))
        try library.blocking.index(roots: [PathBytes(folder.file("photos"))])
        let asset = try #require(try library.assets().first { $0.primaryResource?.path.displayString.hasSuffix("file0.jpg") == true })
        return (library, asset)
    }

    private func collect(_ stream: AsyncThrowingStream<DeliveredThumbnail, Error>) async throws -> [DeliveredThumbnail] {
        var results: [DeliveredThumbnail] = []
        for try await result in stream { results.append(result) }
        return results
    }

    /// The EXIF thumbnail's size as exiftool locates it (IFD1:ThumbnailOffset/Length).
    private func exifThumbnailSize() throws -> (width: Int, height: Int) {
        let tags = try #require(Corpus.exiftool[Self.photo])
        let offset = try #require(tags["IFD1:ThumbnailOffset"]?.number), length = try #require(tags["IFD1:ThumbnailLength"]?.number)
        let media = try #require(Corpus.media)
        let data = try #require(FileManager.default.contents(atPath: media.path + "/" + Self.photo))
        return try #require(ThumbnailTestFiles.jpegSize(Array(data[Int(offset)..<Int(offset + length)])))
    }

    @Test(".fast delivers the camera's EXIF thumbnail at once, flagged degraded, smaller than asked",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func fast() async throws {
        let folder = TemporaryFolder()
        let (library, asset) = try library(in: folder)
        let embedded = try exifThumbnailSize()
        let results = try await collect(library.thumbnail(for: asset, size: 1024, delivery: .fast))
        #expect(results.count == 1)
        #expect(results.first?.isDegraded == true)
        #expect(results.first.map { ($0.width, $0.height) } ?? (0, 0) == embedded)
        // Nothing was put into the cache for it.
        #expect(try library.blocking.thumbnailRecords(for: asset.id).isEmpty)
    }

    @Test(".opportunistic delivers the quick one, then the exact size; .highQuality only the exact one",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func opportunisticThenHighQuality() async throws {
        let folder = TemporaryFolder()
        let (library, asset) = try library(in: folder)
        let results = try await collect(library.thumbnail(for: asset, size: 512, delivery: .opportunistic))
        #expect(results.map(\.isDegraded) == [true, false])
        // The exact one: 512 on the longer side of a 3072×4080 picture.
        #expect(results.last.map { ($0.width, $0.height) } ?? (0, 0) == (386, 512))
        // Once cached, every mode answers with it alone.
        for delivery in ThumbnailDelivery.allCases {
            let again = try await collect(library.thumbnail(for: asset, size: 512, delivery: delivery))
            #expect(again.map(\.isDegraded) == [false], "\(delivery)")
            #expect(again.first?.data == results.last?.data, "\(delivery)")
        }
        // Another size with .fast: the file's own thumbnail still comes first.
        let other = try await collect(library.thumbnail(for: asset, size: 200, delivery: .fast))
        #expect(other.first?.isDegraded == true)
    }

    @Test("startCaching makes the thumbnails in the background; stopCaching takes them off the queue",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func prefetching() async throws {
        let folder = TemporaryFolder()
        let (library, _) = try library(in: folder)
        let assets = try library.assets()
        #expect(assets.count == 3)
        // Queued and taken off again before any could start: nothing is made.
        library.stopCachingAll()
        library.startCaching(assets, size: 96)
        library.stopCaching(assets, size: 96)
        #expect(library.cachingQueueCount == 0)
        // Queued for good: all three are made without being asked for.
        library.startCaching(assets, size: 128)
        let deadline = ContinuousClock.now + .seconds(120)
        func ready() throws -> Int {
            try assets.filter { asset in
                try library.blocking.thumbnailRecords(for: asset.id).contains { $0.size == 128 && $0.state == .ready }
            }.count
        }
        while try ready() < assets.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try ready() == assets.count)
        #expect(library.cachingQueueCount == 0)
    }
}
