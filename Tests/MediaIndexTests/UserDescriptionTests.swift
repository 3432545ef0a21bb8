import CorpusSupport
import Foundation
@testable import MediaIndex
import MediaMetadata
import Testing

/// The user's own rating, title, caption and keywords, kept in user state.
@Suite("User descriptions in user state")
struct UserDescriptionTests {
    /// A library holding two indexed corpus JPEGs.
    static func library() throws -> (MediaLibrary, [Asset.ID], PairingTree) {
        let tree = PairingTree()
        try tree.copy("media/photoprism/internal/meta/testdata/photoshop.jpg", to: "p/a.jpg")
        try tree.copy("media/exiftool-t-images/t/images/Ricoh2.jpg", to: "p/b.jpg")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        return (library, try library.assets().map(\.id), tree)
    }

    @Test("set for many assets at once, texts in NFC, keywords as a set of paths, cleared field by field",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func setManyAndClear() throws {
        let (library, ids, _) = try Self.library()
        #expect(ids.count == 2)
        try library.blocking.setUserDescription(
            UserDescriptionEdit(rating: .set(4), title: .set("  Zu\u{0308}rich  "), keywords: .set(["Trips|Alps", "trips", "alps", "Ski"])),
            for: ids)
        for id in ids {
            #expect(try library.blocking.userDescription(of: id)
                    == DescriptiveMetadata(keywords: ["Ski", "Trips|Alps"], title: "Zürich", rating: 4))
        }
        try library.blocking.setUserDescription(UserDescriptionEdit(title: .clear, caption: .set("On the lift")), for: [ids[0]])
        #expect(try library.blocking.userDescription(of: ids[0])
                == DescriptiveMetadata(keywords: ["Ski", "Trips|Alps"], caption: "On the lift", rating: 4))
    }

    @Test("a rating outside -1…5 and an unknown asset are refused, and nothing changes",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func refusals() throws {
        let (library, ids, _) = try Self.library()
        #expect(throws: LibraryError.self) { try library.blocking.setUserDescription(UserDescriptionEdit(rating: .set(6)), for: ids) }
        let unknown: Asset.ID = "0000000000000000000000"
        #expect(throws: LibraryError.self) {
            try library.blocking.setUserDescription(UserDescriptionEdit(rating: .set(2)), for: [ids[0], unknown])
        }
        #expect(try library.blocking.userDescription(of: ids[0]) == DescriptiveMetadata())
    }
}

@Suite("Exporting the user's words to XMP sidecars")
struct XMPExportTests {
    @Test("export writes NAME.EXT.xmp that reads back as the user's words, leaves existing sidecars, and a dry run writes nothing",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func exportsAndReadsBack() throws {
        let (library, ids, tree) = try UserDescriptionTests.library()
        let words = DescriptiveMetadata(keywords: ["Ski", "Trips|Alps"], title: "A <bold> & \"quoted\" day",
                                        caption: "Zürich", rating: -1)
        try library.blocking.setUserDescription(
            UserDescriptionEdit(rating: .set(-1), title: .set(words.title!), caption: .set("Zürich"), keywords: .set(words.keywords)),
            for: [ids[0]])
        let dry = try library.blocking.exportUserDescriptionsToXMP(dryRun: true)
        #expect(dry.count == 1 && dry.first?.outcome == .written)
        let path = try #require(dry.first?.path.displayString)
        #expect(!FileManager.default.fileExists(atPath: path))

        let done = try library.blocking.exportUserDescriptionsToXMP(dryRun: false)
        #expect(done == dry)
        let read = try XMPReader.readSidecar(FileByteSource(path: path)).descriptiveMetadata
        #expect(read == words)

        // Indexed, it is the asset's sidecar; a second export leaves it alone.
        try library.blocking.index()
        let again = try library.blocking.exportUserDescriptionsToXMP(dryRun: false)
        #expect(again.map(\.outcome) == [.sidecarExists])
        withExtendedLifetime(tree) {}
    }
}
