import CorpusSupport
import Foundation
import Synchronization
import Testing
@testable import MediaIndex
import MediaThumbnails
#if canImport(Glibc)
import Glibc
#endif

/// Small helpers for the thumbnail cache tests.
enum ThumbnailTestFiles {
    static let jpegA = "photoview/api/scanner/test_media/library/mount_merapi_volcano_indonesia.jpg"
    static let jpegB = "photoview/api/scanner/test_media/library/buttercup_close_summer_yellow.jpg"
    static let video = "photoprism/pkg/media/video/testdata/isom-avc1.mp4"

    /// Copies corpus files into `folder` under plain names; returns their new paths.
    static func copy(_ relatives: [String], into folder: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard let media = Corpus.media else { return [] }
        return try relatives.enumerated().map { index, relative in
            let target = "\(folder)/file\(index).\((relative as NSString).pathExtension)"
            try FileManager.default.copyItem(atPath: media.path + "/" + relative, toPath: target)
            return target
        }
    }

    /// A file the cache takes for a whole JPEG (start and end markers), exactly 1000 bytes:
    /// sizes in trim tests stay round.
    static let thousandByteJPEG: [UInt8] = [0xFF, 0xD8] + Array(repeating: 1, count: 996) + [0xFF, 0xD9]

    /// The frame size in a JPEG's SOF header, or nil.
    static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                return (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }

    /// Sets a file's modification time to `secondsAgo` in the past.
    static func age(_ path: String, secondsAgo: Int) {
        var times = [timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0), timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    static func modificationTime(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mtim.tv_sec : 0
    }
}

@Suite("ThumbnailCache")
struct ThumbnailCacheTests {
    @Test("the cache folder comes from --cache, then $MEDIAINDEX_CACHE, then $XDG_CACHE_HOME, then ~/.cache")
    func location() {
        #expect(ThumbnailCache.resolve(explicit: "/x", environment: ["MEDIAINDEX_CACHE": "/y"]).directory.path == "/x")
        #expect(ThumbnailCache.resolve(explicit: nil, environment: ["MEDIAINDEX_CACHE": "/y"]).directory.path == "/y")
        #expect(ThumbnailCache.resolve(explicit: nil, environment: ["XDG_CACHE_HOME": "/xdg"]).directory.path == "/xdg/mediaindex")
        #expect(ThumbnailCache.resolve(explicit: nil, environment: ["HOME": "/home/u"]).directory.path == "/home/u/.cache/mediaindex")
    }

    @Test("files are named by a hash of the key, fanned out into 256 folders by its first two digits, never by the file name")
    func layout() {
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: "/c"))
        let key = ThumbnailKey(identifier: "AAAA", revision: 1, sourceBytes: 10, request: ThumbnailRequest(maxPixelSize: 256))
        let path = cache.path(for: key, library: LibraryLocation(directory: "/lib"))
        let parts = path.split(separator: "/").map(String.init)
        #expect(parts.count == 4 && parts[0] == "c")
        #expect(parts[1].count == 16)
        #expect(parts[3] == key.hash + ".jpg")
        #expect(parts[2] == String(key.hash.prefix(2)))
        // Every part of the key changes the name.
        var other = key
        other.revision = 2
        #expect(other.hash != key.hash)
        other = key
        other.request.mode = .fill
        #expect(other.hash != key.hash)
        other = key
        other.request.format = .webp
        #expect(other.hash != key.hash)
        other = key
        other.request.maxPixelSize = 128
        #expect(other.hash != key.hash)
    }

    @Test("a file cut short, empty, or not a thumbnail is not taken as cached")
    func validation() throws {
        let folder = TemporaryFolder()
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.path))
        let whole: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 20) + [0xFF, 0xD9]
        try cache.store(whole, at: folder.file("a/b/whole.jpg"))
        #expect(cache.validFileSize(at: folder.file("a/b/whole.jpg")) == Int64(whole.count))
        try cache.store(Array(whole.dropLast(5)), at: folder.file("a/b/cut.jpg"))
        #expect(cache.validFileSize(at: folder.file("a/b/cut.jpg")) == nil)
        try cache.store([], at: folder.file("a/b/empty.jpg"))
        #expect(cache.validFileSize(at: folder.file("a/b/empty.jpg")) == nil)
        let riff: [UInt8] = Array("RIFF".utf8) + [8, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        try cache.store(riff, at: folder.file("a/b/whole.webp"))
        #expect(cache.validFileSize(at: folder.file("a/b/whole.webp")) == 16)
        try cache.store(Array(riff.dropLast(1)), at: folder.file("a/b/cut.webp"))
        #expect(cache.validFileSize(at: folder.file("a/b/cut.webp")) == nil)
        // No temporary file is left behind, and folders are owner-only.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("a/b"))
        #expect(!names.contains { $0.contains(".tmp-") })
        var info = stat()
        #expect(stat(folder.file("a"), &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test("a trim over the limit removes the least recently used files down to 80 % of it")
    func leastRecentlyUsedTrim() throws {
        let folder = TemporaryFolder()
        var cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.path))
        let library = LibraryLocation(directory: folder.file("lib"))
        var paths: [String] = []
        for index in 0..<10 {
            let key = ThumbnailKey(identifier: "asset\(index)", revision: 1, sourceBytes: 1, request: ThumbnailRequest())
            let path = cache.path(for: key, library: library)
            try cache.store(ThumbnailTestFiles.thousandByteJPEG, at: path)
            // asset0 is the oldest, asset9 the newest.
            ThumbnailTestFiles.age(path, secondsAgo: 10_000 - index * 100)
            paths.append(path)
        }
        // A stray file that is not ours is never touched.
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder.file("notes.txt")))
        // Using asset0 makes it the most recent.
        cache.markUsed(paths[0])
        cache.sizeLimit = 10_000
        #expect(cache.trim().filesRemoved == 0)  // at the limit, not over it
        cache.sizeLimit = 6_000
        let result = cache.trim()
        #expect(result.bytesBefore == 10_000)
        #expect(result.bytesAfter == 4_000)  // 80 % of 6 000 = 4 800, whole files
        #expect(result.filesRemoved == 6)
        let survivors = paths.indices.filter { FileManager.default.fileExists(atPath: paths[$0]) }
        #expect(survivors == [0, 7, 8, 9])
        #expect(FileManager.default.fileExists(atPath: folder.file("notes.txt")))
    }

    @Test("thumbnails left in the older two-level layout (ab/cd/) are still trimmed, oldest first")
    func olderLayoutIsTrimmed() throws {
        let folder = TemporaryFolder()
        var cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.path))
        let library = LibraryLocation(directory: folder.file("lib"))
        // Given two files where an earlier version put them, and one where today's does
        var older: [String] = []
        for index in 0..<2 {
            let hash = ThumbnailKey(identifier: "old\(index)", revision: 1, sourceBytes: 1, request: ThumbnailRequest()).hash
            let path = "\(cache.folder(for: library))/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash).jpg"
            try cache.store(ThumbnailTestFiles.thousandByteJPEG, at: path)
            ThumbnailTestFiles.age(path, secondsAgo: 10_000 - index * 100)
            older.append(path)
        }
        let current = cache.path(for: ThumbnailKey(identifier: "new", revision: 1, sourceBytes: 1, request: ThumbnailRequest()),
                                 library: library)
        try cache.store(ThumbnailTestFiles.thousandByteJPEG, at: current)
        // When the cache trims to below two files
        cache.sizeLimit = 2_000
        let result = cache.trim()
        // Then all three were counted, and the two older-layout files, the least recently used, went
        #expect(result.bytesBefore == 3_000)
        #expect(result.filesRemoved == 2)
        #expect(!older.contains { FileManager.default.fileExists(atPath: $0) })
        #expect(FileManager.default.fileExists(atPath: current))
    }
}

@Suite("Thumbnails of a library")
struct LibraryThumbnailTests {
    /// A library of copies of `files`, indexed.
    private func library(_ files: [String], in folder: TemporaryFolder) throws -> (MediaLibrary, [String]) {
        let copies = try ThumbnailTestFiles.copy(files, into: folder.file("photos"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(folder.file("photos"))])
        return (library, copies)
    }

    @Test("every corpus asset gets a thumbnail of the requested size or a recorded reason",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func wholeCorpus() throws {
        let media = try #require(Corpus.media)
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(media.path)])
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))
        var options = ThumbnailBuildOptions()
        options.sizes = [128]
        let summary = try library.with(cache).blocking.buildThumbnails(options)
        let assets = try library.assets()
        #expect(summary.total == assets.count)

        var ready = 0, exact = 0, reasons: [String: Int] = [:]
        for asset in assets {
            let records = try library.blocking.thumbnailRecords(for: asset.id)
            try #require(records.count == 1, "\(asset.id) has \(records.count) records")
            let record = records[0]
            guard record.state == .ready else {
                #expect(!(record.message ?? "").isEmpty, "\(asset.id) failed without a reason")
                reasons[record.state.rawValue, default: 0] += 1
                continue
            }
            ready += 1
            let key = ThumbnailKey(identifier: asset.id.rawValue, revision: asset.revision,
                                   sourceBytes: asset.renderingResource?.bytes ?? 0, request: ThumbnailRequest(maxPixelSize: 128))
            let path = cache.path(for: key, library: library.location)
            let bytes = try #require(FileManager.default.contents(atPath: path), "\(asset.id): no file at \(path)")
            let size = try #require(ThumbnailTestFiles.jpegSize([UInt8](bytes)), "\(asset.id): no JPEG frame header")
            #expect(size.width == record.width && size.height == record.height)
            let longer = max(size.width, size.height)
            // Raws and TIFFs are thumbnailed from their embedded JPEG preview.
            let fromPreview = asset.resources.contains { ["tif", "tiff", "raw", "dng", "cr2", "cr3", "nef", "arw", "orf", "rw2", "raf", "crw", "x3f", "pef", "srw"]
                .contains(($0.path.lowercasedExtension ?? "")) }
            if let w = asset.pixelWidth, let h = asset.pixelHeight, w > 0, h > 0, !fromPreview {
                // The longer side is the request, or the picture's own when smaller.
                #expect(longer == min(128, max(w, h)), "\(asset.id) \(asset.primaryResource?.path.displayString ?? ""): \(size) from \(w)×\(h)")
                if longer == min(128, max(w, h)) { exact += 1 }
            } else {
                // The preview's size is not in the index.
                #expect(longer > 0 && longer <= 128)
            }
        }
        print("corpus thumbnails: \(assets.count) assets, \(ready) ready (\(exact) checked against the indexed size), not made: \(reasons); \(summary)")
        #expect(ready == summary.made)
        // Floor measured on this corpus before TIFF, BMP and JPEG XL were decoded (425 made at
        // 128 px; the rest were those, damaged files and streams ffmpeg cannot read).
        #expect(ready >= 420)

        // A second build finds everything cached or already failed, and makes nothing.
        let again = try library.with(cache).blocking.buildThumbnails(options)
        #expect(again.made == 0 && again.cached == ready && again.failed + again.needsFFmpeg == assets.count - ready)
    }

    @Test("concurrent requests for the same thumbnail all get a whole file",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func concurrentRequests() throws {
        let folder = TemporaryFolder()
        let (library, _) = try library([ThumbnailTestFiles.jpegA], in: folder)
        let asset = try #require(try library.assets().first)
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))
        let location = library.location
        let results = Mutex<[(String, Data?)]>([])
        // Separate library objects, as separate processes would have.
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            guard let own = try? MediaLibrary(location: location),
                  let made = try? own.with(cache).blocking.thumbnail(for: asset, size: 200,
                                                   retryFailures: true) else {
                results.withLock { $0.append(("", nil)) }
                return
            }
            let data = FileManager.default.contents(atPath: made.path)
            results.withLock { $0.append((made.path, data)) }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 8)
        let first = try #require(all.first?.1)
        for (path, data) in all {
            #expect(data != nil && cache.validFileSize(at: path) == Int64(data?.count ?? -1))
            #expect(ThumbnailTestFiles.jpegSize([UInt8](data ?? Data()))?.width == 200)
            #expect(data?.count == first.count)
        }
        let folderOfFile = ((all[0].0) as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folderOfFile).count == 1)  // no temporary left
    }

    @Test("a deleted cache folder is rebuilt on demand",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func deletedCache() async throws {
        let folder = TemporaryFolder()
        let (library, _) = try library([ThumbnailTestFiles.jpegA], in: folder)
        let asset = try #require(try library.assets().first)
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))
        let url = try await library.with(cache).thumbnail(for: asset, size: 128).url
        #expect(try library.with(cache).blocking.thumbnail(for: asset, size: 128).made == false)
        try FileManager.default.removeItem(atPath: cache.directory.path)
        let again = try library.with(cache).blocking.thumbnail(for: asset, size: 128)
        #expect(again.made && again.path == url.path)
        #expect(try await library.with(cache).thumbnail(for: asset, size: 128).url == url)
        let data = try await library.with(cache).thumbnail(for: asset, size: 128).data()
        #expect(ThumbnailTestFiles.jpegSize([UInt8](data)).map { max($0.width, $0.height) } == 128)
        var info = stat()
        #expect(stat(cache.directory.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test("gc removes an edited asset's old revision and a deleted asset's thumbnail",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func garbageCollection() throws {
        let folder = TemporaryFolder()
        let (library, copies) = try library([ThumbnailTestFiles.jpegA, ThumbnailTestFiles.jpegB], in: folder)
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))
        var options = ThumbnailBuildOptions()
        options.sizes = [64]
        #expect(try library.with(cache).blocking.buildThumbnails(options).made == 2)
        let before = try library.assets()
        let edited = try #require(try library.blocking.asset(path: PathBytes(copies[0])))
        let removed = try #require(try library.blocking.asset(path: PathBytes(copies[1])))
        let oldPaths = try before.map { asset in
            try library.with(cache).blocking.thumbnail(for: asset, size: 64).path
        }

        // Edit the first in place (other content at the same path), delete the second.
        let media = try #require(Corpus.media)
        try FileManager.default.removeItem(atPath: copies[0])
        try FileManager.default.copyItem(atPath: media.path + "/" + ThumbnailTestFiles.video, toPath: copies[0])
        try FileManager.default.removeItem(atPath: copies[1])
        try library.blocking.index()
        let after = try #require(try library.blocking.asset(id: edited.id))
        #expect(after.revision > edited.revision)
        #expect(try library.blocking.asset(id: removed.id) == nil)

        let result = try library.with(cache).blocking.collectThumbnailGarbage()
        #expect(result.recordsRemoved == 2 && result.filesRemoved == 2)
        for path in oldPaths { #expect(!FileManager.default.fileExists(atPath: path)) }
        #expect(try library.blocking.thumbnailRecords(for: edited.id).isEmpty)
        #expect(try library.blocking.thumbnailRecords(for: removed.id).isEmpty)

        // A stray file (no row) goes with removeStrays once it is old enough.
        let stray = cache.folder(for: library.location) + "/00/11/0011223344556677.jpg"
        try cache.store([0xFF, 0xD8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xD9], at: stray)
        #expect(try library.with(cache).blocking.collectThumbnailGarbage(removeStrays: true).filesRemoved == 0)  // too fresh
        ThumbnailTestFiles.age(stray, secondsAgo: 3600)
        #expect(try library.with(cache).blocking.collectThumbnailGarbage(removeStrays: true).filesRemoved == 1)
    }

    @Test("gc removes a stale thumbnail that an earlier version left in the older two-level layout (ab/cd/)",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func garbageCollectionOfTheOlderLayout() throws {
        // Given a thumbnail made today, moved to where the earlier layout kept it
        let folder = TemporaryFolder()
        let (library, copies) = try library([ThumbnailTestFiles.jpegA], in: folder)
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))
        var options = ThumbnailBuildOptions()
        options.sizes = [64]
        #expect(try library.with(cache).blocking.buildThumbnails(options).made == 1)
        let asset = try #require(try library.assets().first)
        let current = try library.with(cache).blocking.thumbnail(for: asset, size: 64).path
        let hash = ((current as NSString).lastPathComponent as NSString).deletingPathExtension
        let older = "\(cache.folder(for: library.location))/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash).jpg"
        try cache.store([UInt8](try Data(contentsOf: URL(fileURLWithPath: current))), at: older)
        try FileManager.default.removeItem(atPath: current)

        // When its asset is deleted and the garbage collected
        try FileManager.default.removeItem(atPath: copies[0])
        try library.blocking.index()
        let result = try library.with(cache).blocking.collectThumbnailGarbage()

        // Then the record and the older layout's file are gone
        #expect(result.recordsRemoved == 1 && result.filesRemoved == 1)
        #expect(!FileManager.default.fileExists(atPath: older))
    }

    @Test("without ffmpeg a video records needsFFmpeg with a readable reason, and is made once ffmpeg is there",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func withoutFFmpeg() throws {
        let folder = TemporaryFolder()
        let (library, _) = try library([ThumbnailTestFiles.video, ThumbnailTestFiles.jpegA], in: folder)
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))
        let video = try #require(try library.assets().first { $0.mediaType == .video })
        let request = ThumbnailRequest(maxPixelSize: 96)
        MediaLibrary.videoFramesDisabledForTesting.withLock { _ = $0.insert(library.location.directory) }
        var options = ThumbnailBuildOptions()
        options.sizes = [96]
        let summary = try library.with(cache).blocking.buildThumbnails(options)
        #expect(summary.made == 1 && summary.needsFFmpeg == 1)  // the photo is made regardless
        #expect(throws: ThumbnailUnavailable.self) { try library.with(cache).blocking.thumbnail(for: video, size: request.maxPixelSize) }
        do {
            _ = try library.with(cache).blocking.thumbnail(for: video, size: request.maxPixelSize)
        } catch let error as ThumbnailUnavailable {
            #expect(error.state == .needsFFmpeg)
            #expect(error.description.contains("ffmpeg") && error.description.contains("apt-get install ffmpeg"))
        }
        let record = try #require(try library.blocking.thumbnailRecords(for: video.id).first)
        #expect(record.state == .needsFFmpeg && record.message == ThumbnailError.needsFFmpeg.description)
        MediaLibrary.videoFramesDisabledForTesting.withLock { _ = $0.remove(library.location.directory) }

        guard ThumbnailGenerator.canMakeVideoThumbnails else { return }
        let retried = try library.with(cache).blocking.buildThumbnails(options)
        #expect(retried.made == 1 && retried.cached == 1)
        #expect(try library.blocking.thumbnailRecords(for: video.id).first?.state == .ready)
    }

    @Test("a failure is not retried by a build until the asset changes",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func failuresAreRemembered() throws {
        let folder = TemporaryFolder()
        let photos = folder.file("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        // A BMP whose pixels are cut off: indexed, but it cannot be decoded.
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24 & 255)] }
        let bmp: [UInt8] = Array("BM".utf8) + le32(70) + le32(0) + le32(54) + le32(40) + le32(2) + le32(2)
            + [1, 0, 24, 0] + le32(0) + le32(16) + le32(2835) + le32(2835) + le32(0) + le32(0)
        try Data(bmp).write(to: URL(fileURLWithPath: photos + "/tiny.bmp"))
        let media = try #require(Corpus.media)
        try FileManager.default.copyItem(atPath: media.path + "/" + ThumbnailTestFiles.jpegA, toPath: photos + "/whole.jpg")
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(photos)])
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: folder.file("cache")))
        let first = try library.with(cache).blocking.buildThumbnails(ThumbnailBuildOptions())
        #expect(first.made == 1 && first.failed == 1)
        let second = try library.with(cache).blocking.buildThumbnails(ThumbnailBuildOptions())
        #expect(second.made == 0 && second.cached == first.made && second.failed == first.failed)
        let failures = try library.blocking.thumbnailFailures()
        #expect(failures.count == 1)
        #expect(failures.first?.state == .failed && failures.first?.message?.contains("BMP") == true)
    }
}
