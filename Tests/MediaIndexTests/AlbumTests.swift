import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

@Suite("Albums")
struct AlbumTests {
    private func synthetic() throws -> SyntheticLibrary {
        let lib = try SyntheticLibrary()
        typealias R = SyntheticLibrary.Row
        let now = Date().timeIntervalSince1970
        try lib.insert([
            R(id: "a", time: 100, path: "/photos/trip/a.jpg", added: now - 100 * 86400),
            R(id: "b", subtypes: .livePhoto, time: 200, path: "/photos/trip/b.heic", added: now - 100 * 86400),
            R(id: "c", type: "video", subtypes: .slomoVideo, time: 300, duration: 4, path: "/photos/trip/day2/c.mov", added: now),
            R(id: "d", subtypes: .screenshot, time: 400, path: "/photos/shots/d.png", added: now),
            R(id: "e", time: nil, path: "/photos/e.jpg"),
        ])
        return lib
    }

    @Test("smart albums count what they show; empty ones other than Recents, Favorites and Hidden are left out")
    func smartAlbums() async throws {
        let lib = try synthetic()
        try await lib.library.setFavorite(true, for: ["a", "c"])
        try await lib.library.setHidden(true, for: ["d"])
        let albums = Dictionary(uniqueKeysWithValues: try await lib.library.fetchAlbums().map { ($0.id, $0) })
        let recents = try #require(albums["smart.recents"])
        #expect((recents.imageCount, recents.videoCount) == (3, 1))
        #expect(recents.keyAssetID == "c")
        #expect(recents.startDate == 100 && recents.endDate == 300)
        #expect(albums["smart.favorites"]?.count == 2)
        #expect(albums["smart.hidden"]?.count == 1)
        #expect(albums["smart.livePhotos"]?.keyAssetID == "b")
        #expect(albums["smart.slomos"]?.videoCount == 1)
        #expect(albums["smart.videos"]?.count == 1)
        // d is a screenshot but hidden: the album is empty, so not listed.
        #expect(albums["smart.screenshots"] == nil)
        #expect(albums["smart.panoramas"] == nil)
        #expect(albums["smart.recentlyAdded"]?.count == 1)
        var options = FetchOptions()
        options.album = .smart(.hidden)
        #expect(try lib.ids(options) == ["d"])
    }

    @Test("album and type counts kept by triggers equal the assets fetched, on the real corpus, through edits and deletions",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func maintainedCountsMatchCounting() async throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(Corpus.root!.path)])
        func check(_ stage: String) throws {
            for album in try library.blocking.fetchAlbums() where album.kind != .user {
                var options = FetchOptions()
                // Smart, Places and folder albums alike: the scope the album's id names.
                options.album = album.scope
                // Counted the slow way: every asset the album shows, fetched.
                let shown = try library.blocking.fetchAssets(options).assets
                let images = shown.filter { $0.mediaType == .image }.count
                #expect((album.imageCount, album.videoCount) == (images, shown.count - images), "\(stage): \(album.id)")
                let counted = try library.blocking.countAssets(options)
                #expect((counted.images, counted.videos) == (images, shown.count - images), "\(stage): \(album.id)")
            }
            for expression in ["images & !screenshots", "livePhotos | videos", "not(raw)", "bursts", "all(images, panoramas)"] {
                var options = FetchOptions()
                options.filter = try MediaFilter(parsing: expression)
                let shown = try library.blocking.fetchAssets(options).assets
                let counted = try library.blocking.countAssets(options)
                #expect(counted.images + counted.videos == shown.count, "\(stage): \(expression)")
            }
        }
        try check("indexed")
        let some = try library.blocking.fetchAssets(FetchOptions()).assets.prefix(5).map(\.id)
        try await library.setHidden(true, for: Array(some.prefix(2)))
        try check("two hidden")
        try library.writer!.transaction { db in
            try db.execute("DELETE FROM files WHERE asset_id = (SELECT id FROM assets WHERE identifier = ?)", [some[3]])
            try db.execute("DELETE FROM assets WHERE identifier = ?", [some[3]])
            try db.execute("UPDATE assets SET subtypes = subtypes | 16 WHERE identifier = ?", [some[4]])
        }
        try check("one deleted, one made a panorama")
    }

    @Test("folder albums are the folders holding media, nested as on disk")
    func folderAlbums() async throws {
        let lib = try synthetic()
        let folders = try await lib.library.fetchAlbums().filter { $0.kind == .folder }
        #expect(folders.map { $0.path?.displayString } == ["/photos", "/photos/shots", "/photos/trip", "/photos/trip/day2"])
        let byPath = Dictionary(uniqueKeysWithValues: folders.map { ($0.path?.displayString ?? "", $0) })
        #expect(byPath["/photos/trip"]?.parentID == byPath["/photos"]?.id)
        #expect(byPath["/photos/trip/day2"]?.parentID == byPath["/photos/trip"]?.id)
        #expect(byPath["/photos"]?.parentID == nil)
        #expect(byPath["/photos/trip"]?.imageCount == 2 && byPath["/photos/trip"]?.keyAssetID == "b")
        #expect(byPath["/photos/trip"]?.title == "trip")
        let scope = try #require(byPath["/photos/trip/day2"]?.scope)
        var options = FetchOptions()
        options.album = scope
        #expect(try lib.ids(options) == ["c"])
    }

    @Test("user albums: create, add, reorder, rename, key asset, remove, delete")
    func userAlbums() async throws {
        let lib = try synthetic()
        let album = try await lib.library.createAlbum(title: "Best")
        try await lib.library.addAssets(["c", "a", "b"], toAlbum: album.id)
        var options = FetchOptions()
        options.album = try await lib.library.albumScope(named: "Best")
        #expect(try lib.ids(options) == ["c", "a", "b"])
        try await lib.library.moveAssets(["b"], inAlbum: try await lib.library.userAlbumID(named: "Best"), to: 0)
        #expect(try lib.ids(options) == ["b", "c", "a"])
        options.sort = .newestFirst
        #expect(try lib.ids(options) == ["c", "b", "a"])
        try await lib.library.renameAlbum(album.id, to: "Better")
        try await lib.library.setKeyAsset("a", ofAlbum: try await lib.library.userAlbumID(named: "Better"))
        var listed = try #require(try await lib.library.fetchAlbums().first { $0.id == album.id })
        #expect(listed.title == "Better" && listed.keyAssetID == "a" && listed.imageCount == 2 && listed.videoCount == 1)
        #expect(try await lib.library.asset(id: "a")?.albums == [album.id])
        try await lib.library.removeAssets(["a"], fromAlbum: try await lib.library.userAlbumID(named: "Better"))
        listed = try #require(try await lib.library.fetchAlbums().first { $0.id == album.id })
        #expect(listed.count == 2 && listed.keyAssetID == "c")
        await #expect(throws: LibraryError.self) { try await lib.library.addAssets(["nope"], toAlbum: try await lib.library.userAlbumID(named: "Better")) }
        try await lib.library.deleteAlbum(try await lib.library.userAlbumID(named: "Better"))
        #expect(try await lib.library.fetchAlbums().allSatisfy { $0.id != album.id })
    }

    @Test("a user album and favorites survive a move on disk and a rebuild of library.sqlite",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func survivesMoveAndRebuild() async throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/ianare-exif-samples/jpg/Canon_40D.jpg",
                                        toPath: root + "/a/canon.jpg")
        let location = LibraryLocation(directory: folder.file("lib"))
        var library = try MediaLibrary(location: location)
        try library.blocking.index(roots: [PathBytes(root)])
        let asset = try #require(try library.assets().first)
        let album = try await library.createAlbum(title: "Keep")
        try await library.addAssets([asset.id], toAlbum: album.id)
        try await library.setFavorite(true, for: [asset.id])

        // Move: a new folder and name; the indexer keeps the identifier.
        try FileManager.default.createDirectory(atPath: root + "/b", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/a/canon.jpg", toPath: root + "/b/moved.jpg")
        try library.blocking.index()
        var options = FetchOptions()
        options.album = .user(album.id)
        var page = try await library.fetchAssets(options)
        #expect(page.assets.map(\.id) == [asset.id])
        #expect(page.assets.first?.resources.first?.path.displayString.hasSuffix("/b/moved.jpg") == true)
        let folders = try await library.fetchAlbums().filter { $0.kind == .folder }.compactMap { $0.path?.displayString }
        #expect(folders.contains { $0.hasSuffix("/photos/b") } && !folders.contains { $0.hasSuffix("/photos/a") })

        // Rebuild: delete the index database, index the same tree again.
        library = try MediaLibrary(location: LibraryLocation(directory: folder.file("elsewhere")))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location.databasePath + suffix) }
        library = try MediaLibrary(location: location)
        try library.blocking.index(roots: [PathBytes(root)])
        page = try await library.fetchAssets(options)
        #expect(page.assets.map(\.id) == [asset.id])
        #expect(page.assets.first?.isFavorite == true)
        #expect(try await library.fetchAlbums().first { $0.id == album.id }?.count == 1)
    }
}
