import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// The batches of `stream` until one satisfies `done`, or what came within `seconds`.
private func batches(_ stream: AsyncStream<LibraryChangeBatch>, seconds: Double = 10,
                     until done: @escaping @Sendable ([LibraryChangeBatch]) -> Bool) async -> [LibraryChangeBatch] {
    await withTaskGroup(of: [LibraryChangeBatch]?.self) { group in
        group.addTask {
            var all: [LibraryChangeBatch] = []
            for await batch in stream {
                all.append(batch)
                if done(all) { return all }
            }
            return all
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? []
    }
}

@Suite("Change observers", .serialized, .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ChangeObserverTests {
    static let canon = "ianare-exif-samples/jpg/Canon_40D.jpg"
    static let tiny = "mathiasbynens-small/jpeg.jpg"
    static let png = "mathiasbynens-small/png-transparent.png"

    func copy(_ source: String, to target: String) throws {
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + source, toPath: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target)
    }

    @Test("changes() delivers an index run's batches committed by another process, as the feed has them")
    func anotherProcessCommits() async throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try copy(Self.canon, to: root + "/a.jpg")
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(root)])
        try copy(Self.tiny, to: root + "/b.jpg")
        try copy(Self.png, to: root + "/c.png")
        let before = try library.blocking.currentChangeToken()

        let stream = library.changes()
        let binary = try #require(FaultSupport.binary, "build first: swift build")
        let indexed = Task.detached {
            try FaultSupport.run([Array("index".utf8), Array("--quiet".utf8), Array("--library".utf8),
                                  Array(folder.file("lib").utf8)], in: folder)
        }
        let received = await batches(stream) { all in all.flatMap(\.changes).count >= 2 }
        #expect(try await indexed.value.status == 0)
        _ = binary

        let feed = try library.blocking.changes(since: before).changes
        #expect(received.flatMap(\.changes) == feed, "the batches are the feed's entries, in order")
        #expect(Set(feed.map(\.id)) == Set([try library.blocking.asset(path: PathBytes(root + "/b.jpg"))?.id,
                                                    try library.blocking.asset(path: PathBytes(root + "/c.png"))?.id].compactMap { $0 }))
        #expect(received.first?.previousToken == before)
        #expect(received.last?.token == feed.last?.token)
        for (earlier, later) in zip(received, received.dropFirst()) { #expect(later.previousToken == earlier.token) }
    }

    @Test("changes() sees this process's own commits and user-state changes, and after: replays from a token")
    func thisProcessCommits() async throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try copy(Self.canon, to: root + "/a.jpg")
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(root)])
        let asset = try #require(try library.blocking.asset(path: PathBytes(root + "/a.jpg")))

        let stream = library.changes()
        try await library.setFavorite(true, for: [asset.id])
        let favorite = await batches(stream) { all in all.contains { $0.userStateChanged } }
        #expect(favorite.contains { $0.userStateChanged && $0.changes.isEmpty })

        let replay = await batches(library.changes(after: .initial)) { all in !all.flatMap(\.changes).isEmpty }
        #expect(replay.flatMap(\.changes).map(\.id) == [asset.id])
        #expect(replay.first?.changes.first?.kind == .inserted)
    }

    @Test("a fetch result holds identifiers; its assets are read a page at a time, in its order, without the deleted ones")
    func resultPages() async throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        let camera = "ianare-exif-samples/jpg/"
        for (name, source) in [("a.jpg", camera + "Kodak_CX7530.jpg"), ("c.jpg", camera + "Nikon_D70.jpg"), ("d.jpg", Self.canon)] {
            try copy(source, to: root + "/" + name)
        }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(root)])
        var options = FetchOptions()
        options.sort = AssetSort(.fileName, ascending: true)
        let result = try await library.fetchResult(options)
        let pages = try await library.assets(in: result, at: 0..<2) + library.assets(in: result, at: 2..<10)
        #expect(pages.map(\.id) == result.identifiers)
        #expect(pages.map { $0.primaryResource?.path.lastComponentString } == ["a.jpg", "c.jpg", "d.jpg"])
        try FileManager.default.removeItem(atPath: root + "/c.jpg")
        try library.blocking.index()
        let after = try library.blocking.assets(in: result, at: 0..<3)
        #expect(after.map { $0.primaryResource?.path.lastComponentString } == ["a.jpg", "d.jpg"])
        #expect(try library.blocking.assets(in: result, at: 5..<9).isEmpty)
    }

    @Test("changeDetails gives the removed, inserted and changed positions and the moves of a real index run")
    func details() async throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        let camera = "ianare-exif-samples/jpg/"
        for (name, source) in [("a.jpg", camera + "Kodak_CX7530.jpg"), ("c.jpg", camera + "Nikon_D70.jpg"),
                               ("d.jpg", Self.canon), ("e.jpg", camera + "Olympus_C8080WZ.jpg"),
                               ("g.jpg", camera + "Fujifilm_FinePix6900ZOOM.jpg")] {
            try copy(source, to: root + "/" + name)
        }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(root)])
        var options = FetchOptions()
        options.sort = AssetSort(.fileName, ascending: true)
        options.limit = 2  // ignored: the whole result is diffed
        let before = try library.blocking.fetchResult(options)
        #expect(before.count == 5)
        func id(_ name: String) throws -> Asset.ID { try #require(try library.blocking.asset(path: PathBytes(root + "/" + name))?.id) }
        let removedID = try id("c.jpg"), movedID = try id("a.jpg"), changedID = try id("d.jpg")

        // c goes, b arrives, a is renamed to z (same asset, now last), d's content changes.
        try FileManager.default.removeItem(atPath: root + "/c.jpg")
        try copy(camera + "Nikon_COOLPIX_P1.jpg", to: root + "/b.jpg")
        try FileManager.default.moveItem(atPath: root + "/a.jpg", toPath: root + "/z.jpg")
        let handle = try #require(FileHandle(forWritingAtPath: root + "/d.jpg"))
        handle.seekToEndOfFile()
        handle.write(Data([0xFF, 0xD9]))
        try handle.close()
        try library.blocking.index()

        let details = try library.blocking.changeDetails(for: options, from: before.token)
        let after = try library.blocking.fetchAssets({ var all = options; all.limit = nil; return all }()).assets.map(\.id)
        #expect(details.hasIncrementalChanges)
        #expect(details.resultAfterChanges.identifiers == after)
        #expect(details.removedIndexes == IndexSet([before.identifiers.firstIndex(of: removedID)!]))
        #expect(details.insertedIndexes == IndexSet([after.firstIndex(of: try id("b.jpg"))!]))
        #expect(details.changedIndexes.contains(after.firstIndex(of: changedID)!))
        #expect(details.moves.contains(FetchResultChangeDetails.Move(from: before.identifiers.firstIndex(of: movedID)!,
                                                                     to: after.firstIndex(of: movedID)!)))
        #expect(details.changedIndexes.contains(after.firstIndex(of: movedID)!), "a rename changes the asset's file name")

        // Applying it to the result before gives the result after.
        var surviving = before.identifiers.enumerated().filter { !details.removedIndexes.contains($0.offset) }.map(\.element)
        let moved = Set(details.moves.map { before.identifiers[$0.from] })
        surviving.removeAll { moved.contains($0) }
        let afterWithoutNew = after.enumerated().filter { !details.insertedIndexes.contains($0.offset) }.map(\.element)
        #expect(surviving == afterWithoutNew.filter { !moved.contains($0) }, "the others keep their order")

        // Chained: the next call starts from the result after.
        let again = try await library.changeDetails(for: options, from: details.resultAfterChanges.token)
        #expect(again.hasIncrementalChanges)
        #expect(again.removedIndexes.isEmpty && again.insertedIndexes.isEmpty && again.moves.isEmpty)
    }

    @Test("changeDetails asks for a reload when the result at the token was never read, or the token expired")
    func noIncrementalChanges() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try copy(Self.tiny, to: root + "/a.jpg")
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(root)])
        let unread = try library.blocking.changeDetails(for: FetchOptions(), from: 0)
        #expect(!unread.hasIncrementalChanges)
        #expect(unread.reason?.contains("fetchResult") == true)
        #expect(unread.resultAfterChanges.count == 1)
        let future = try library.blocking.changeDetails(for: FetchOptions(), from: 99)
        #expect(!future.hasIncrementalChanges)
        #expect(future.reason?.contains("newer than any change") == true)
    }

    @Test("the fewest moves: a longest increasing run of old positions stays")
    func longestIncreasingSubsequence() {
        #expect(ResultDiff.longestIncreasingSubsequence([0, 1, 2, 3]) == [0, 1, 2, 3])
        #expect(ResultDiff.longestIncreasingSubsequence([3, 0, 1, 2]) == [1, 2, 3])
        #expect(ResultDiff.longestIncreasingSubsequence([]) == [])
        let diff = ResultDiff(before: ["a", "b", "c", "d"], after: ["b", "c", "d", "a"], changed: [])
            .details(after: FetchResult(identifiers: ["b", "c", "d", "a"], token: 1))
        #expect(diff.moves == [FetchResultChangeDetails.Move(from: 0, to: 3)])
        #expect(diff.removedIndexes.isEmpty && diff.insertedIndexes.isEmpty)
    }
}
