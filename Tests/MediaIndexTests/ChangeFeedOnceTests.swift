import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

@Suite("One event, one feed entry", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ChangeFeedOnceTests {
    @Test("a live photo moved with both halves gives one moved entry")
    func livePhotoMovesOnce() throws {
        let scratch = try ScratchLibrary()
        try scratch.addSynthetic("live-apple/IMG_7001.HEIC", as: "2024/IMG_7001.HEIC")
        try scratch.addSynthetic("live-apple/IMG_7001.MOV", as: "2024/IMG_7001.MOV")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let live = try #require(try library.assets().first)
        let token = try library.blocking.currentChangeToken()

        try scratch.move("2024/IMG_7001.HEIC", to: "export/IMG_7001.HEIC")
        try scratch.move("2024/IMG_7001.MOV", to: "export/IMG_7001.MOV")
        try library.blocking.index()

        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.moved])
        #expect(changes.map(\.id) == [live.id])
    }

    @Test("an edit in place gives one updated entry naming each field once")
    func updateNamesEachFieldOnce() throws {
        let scratch = try ScratchLibrary()
        try scratch.add("ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg", as: "a.jpg")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let token = try library.blocking.currentChangeToken()

        // Other content at the same path: its capture date (two columns), camera and size differ.
        try scratch.remove("a.jpg")
        try scratch.add("ianare-exif-samples/jpg/Canon_40D.jpg", as: "a.jpg")
        try library.blocking.index()

        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.count == 1)
        let fields = try #require(changes.first?.fields).map(\.rawValue)
        #expect(fields.contains("creationDate") && fields.contains("make"))
        #expect(fields.count == Set(fields).count, "\(fields)")
    }
}
