import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex

/// An XMP sidecar as Lightroom and digiKam write the describing fields.
func describingXMP(subjects: [String] = [], hierarchical: [String] = [], title: String? = nil, caption: String? = nil,
                   rating: Int? = nil, label: String? = nil, faces: [(name: String, x: Double, y: Double)] = []) -> String {
    func bag(_ items: [String]) -> String {
        "<rdf:Bag>" + items.map { "<rdf:li>\($0)</rdf:li>" }.joined() + "</rdf:Bag>"
    }
    func alt(_ text: String) -> String { "<rdf:Alt><rdf:li xml:lang=\"x-default\">\(text)</rdf:li></rdf:Alt>" }
    var body = ""
    if !subjects.isEmpty { body += "<dc:subject>\(bag(subjects))</dc:subject>" }
    if !hierarchical.isEmpty { body += "<lr:hierarchicalSubject>\(bag(hierarchical))</lr:hierarchicalSubject>" }
    if let title { body += "<dc:title>\(alt(title))</dc:title>" }
    if let caption { body += "<dc:description>\(alt(caption))</dc:description>" }
    if let rating { body += "<xmp:Rating>\(rating)</xmp:Rating>" }
    if let label { body += "<xmp:Label>\(label)</xmp:Label>" }
    if !faces.isEmpty {
        body += "<mwg-rs:Regions rdf:parseType=\"Resource\"><mwg-rs:RegionList><rdf:Bag>"
        for face in faces {
            body += """
                <rdf:li rdf:parseType="Resource"><mwg-rs:Name>\(face.name)</mwg-rs:Name><mwg-rs:Type>Face</mwg-rs:Type>
                <mwg-rs:Area stArea:x="\(face.x)" stArea:y="\(face.y)" stArea:w="0.2" stArea:h="0.2" stArea:unit="normalized"/></rdf:li>
                """
        }
        body += "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>"
    }
    return """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
          xmlns:lr="http://ns.adobe.com/lightroom/1.0/" xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/"
          xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#">\(body)</rdf:Description>
        </rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """
}

private let canonJPEG = "media/ianare-exif-samples/jpg/Canon_40D.jpg"

@Suite("Describing fields: stored, shown, filtered and searched", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct DescriptiveFieldTests {
    /// Two photos: one described by a Lightroom-style sidecar, one plain.
    static func library() throws -> (PairingTree, MediaLibrary) {
        let tree = PairingTree()
        try tree.copy(canonJPEG, to: "a/walk.jpg")
        try tree.copy(canonJPEG, to: "a/plain.jpg")
        try tree.write(describingXMP(subjects: ["Dog", "Animals", "Paris"],
                                     hierarchical: ["Animals|Dog", "Places|France|Paris"], title: "Morning walk",
                                     caption: "Rex in the Jardin du Luxembourg", rating: 4, label: "Red",
                                     faces: [("Zoë Martin", 0.5, 0.4)]), to: "a/walk.jpg.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        return (tree, library)
    }

    static func asset(_ library: MediaLibrary, named name: String) throws -> Asset {
        try #require(try library.assets().first { String(decoding: $0.resources.first?.path.lastComponent ?? [], as: UTF8.self) == name })
    }

    static func names(_ library: MediaLibrary, _ change: (inout FetchOptions) -> Void) throws -> Set<String> {
        var options = FetchOptions()
        change(&options)
        let listed = try library.blocking.fetchAssets(options).assets
        #expect(try library.blocking.countAssets(options).total == listed.count)
        return Set(listed.map { String(decoding: $0.resources.first?.path.lastComponent ?? [], as: UTF8.self) })
    }

    @Test("a sidecar's describing fields are the asset's; the JSON leaves empty ones out")
    func stored() throws {
        let (tree, library) = try Self.library()
        defer { withExtendedLifetime(tree) {} }
        let walk = try Self.asset(library, named: "walk.jpg")
        #expect(walk.keywords == ["Animals|Dog", "Places|France|Paris"])
        #expect(walk.title == "Morning walk" && walk.caption == "Rex in the Jardin du Luxembourg")
        #expect(walk.rating == 4 && walk.label == "Red")
        #expect(walk.people.map(\.name) == ["Zoë Martin"])
        let face = try #require(walk.people.first?.face)
        #expect(abs(face.x - 0.4) < 1e-9 && abs(face.y - 0.3) < 1e-9 && face.width == 0.2)
        let plain = try Self.asset(library, named: "plain.jpg")
        #expect(plain.keywords.isEmpty && plain.title == nil && plain.people.isEmpty)
        let declared = AssetFields.all.filter(\.omittedWhenEmpty).map(\.field)
        for field in [Asset.Field.keywords, .title, .caption, .label, .people, .creator, .copyright] {
            #expect(declared.contains(field), "\(field.rawValue)")
            #expect(AssetFields.byField[field].map { if case .null = $0.value(plain) { true } else { false } } == true)
        }
    }

    @Test("a sidecar edited later updates the asset, and the change feed names the fields that changed")
    func sidecarEdited() throws {
        let (tree, library) = try Self.library()
        let before = try Self.asset(library, named: "walk.jpg")
        let token = try library.blocking.currentChangeToken()
        try tree.write(describingXMP(subjects: ["Cat"], title: "Morning walk", caption: "Rex in the Jardin du Luxembourg",
                                     rating: 4, label: "Red", faces: [("Zoë Martin", 0.5, 0.4)]), to: "a/walk.jpg.xmp")
        try library.blocking.index()
        let after = try Self.asset(library, named: "walk.jpg")
        #expect(after.id == before.id && after.keywords == ["Cat"])
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated])
        #expect(changes.first?.fields == ["keywords"])
    }

    @Test("in watch, a sidecar written by darktable after indexing updates the asset, and the feed names the fields")
    func sidecarInWatch() throws {
        let tree = try WatchedTree(files: [(WatchedTree.canon, "a.jpg")])
        let before = try #require(tree.asset(tree.first + "/a.jpg"))
        try tree.start()
        let token = try tree.library.blocking.currentChangeToken()
        try Data(describingXMP(hierarchical: ["Trips|Alps"], caption: "Glacier", rating: -1, label: "Green").utf8)
            .write(to: URL(fileURLWithPath: tree.first + "/a.jpg.xmp"))
        #expect(eventually { tree.asset(tree.first + "/a.jpg")?.keywords == ["Trips|Alps"] })
        let after = try #require(tree.asset(tree.first + "/a.jpg"))
        #expect(after.id == before.id && after.caption == "Glacier" && after.rating == -1 && after.label == "Green")
        #expect(eventually { !tree.changes(since: token).isEmpty })
        let changes = tree.changes(since: token)
        #expect(changes.map(\.kind) == [.updated])
        #expect(Set(changes.first?.fields ?? []) == ["keywords", "caption", "rating", "label"])
    }

    @Test("the user's own rating, title and keywords stand over the file's, with the source noted, in fetches and filters")
    func userWordsOver() throws {
        let (tree, library) = try Self.library()
        defer { withExtendedLifetime(tree) {} }
        let walk = try Self.asset(library, named: "walk.jpg")
        try library.blocking.setUserDescription(UserDescriptionEdit(rating: .set(1), keywords: .set(["Trips|Alps"])),
                                                for: [walk.id])
        let shown = try Self.asset(library, named: "walk.jpg")
        #expect(shown.rating == 1 && shown.keywords == ["Trips|Alps"] && shown.title == "Morning walk")
        #expect(shown.userDescribed == [.rating, .keywords])
        #expect(try Self.names(library) { $0.minimumRating = 4 }.isEmpty)
        #expect(try Self.names(library) { $0.rating = 1 } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.keywords = ["alps"] } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.keywords = ["Dog"] }.isEmpty)
    }

    @Test("each describing filter finds what it names; a parent keyword finds its children; a person is a name or a word of it")
    func filters() throws {
        let (tree, library) = try Self.library()
        defer { withExtendedLifetime(tree) {} }
        #expect(try Self.names(library) { $0.keywords = ["Places"] } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.keywords = ["places|FRANCE"] } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.keywords = ["France|Paris"] } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.keywords = ["Fran"] }.isEmpty)
        #expect(try Self.names(library) { $0.keywords = ["Places|Germany"] }.isEmpty)
        #expect(try Self.names(library) { $0.people = ["zoe"] } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.people = ["Zoë Martin"] } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.people = ["Mart"] }.isEmpty)
        #expect(try Self.names(library) { $0.minimumRating = 4 } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.rating = 5 }.isEmpty)
        #expect(try Self.names(library) { $0.label = "red" } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.hasCaption = true } == ["walk.jpg"])
        #expect(try Self.names(library) { $0.hasCaption = false } == ["plain.jpg"])
        #expect(try Self.names(library) { $0.hasTitle = false } == ["plain.jpg"])
        #expect(throws: AssetQueryError.invalidRating(6)) { try Self.names(library) { $0.minimumRating = 6 } }
    }

    @Test("keyword:, person:, label:, title: and free text search the describing fields")
    func search() throws {
        let (tree, library) = try Self.library()
        defer { withExtendedLifetime(tree) {} }
        func found(_ query: String) throws -> Set<String> {
            try Self.names(library) { $0.search = try? SearchQuery(parsing: query) }
        }
        #expect(try found("keyword:places") == ["walk.jpg"])
        #expect(try found("keyword:\"Places|France\"") == ["walk.jpg"])
        #expect(try found("-keyword:dog") == ["plain.jpg"])
        #expect(try found("person:zoe") == ["walk.jpg"])
        #expect(try found("label:red rating:>=4") == ["walk.jpg"])
        #expect(try found("title:morning") == ["walk.jpg"])
        #expect(try found("luxembourg") == ["walk.jpg"])
        #expect(try found("zoe") == ["walk.jpg"])
        let suggestions = try library.blocking.searchSuggestions(for: "pari")
        #expect(suggestions.contains { $0.kind == .keyword && $0.text == "Places|France|Paris" && $0.count == 1 })
        let people = try library.blocking.searchSuggestions(for: "person:zo")
        #expect(people.first { $0.kind == .person }?.term == "person:\"Zoë Martin\"")
    }
}
