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
