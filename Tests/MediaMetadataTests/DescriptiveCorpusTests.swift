import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

/// Keywords, title, caption, rating and label of every corpus file, compared with
/// exiftool's readings of the same tags (`exiftool.json`, `-n -G1`), reconciled as
/// exiftool's MWG composite tags do (`Image::ExifTool::MWG`: IPTC over XMP only when
/// `File:CurrentIPTCDigest` differs from the stored `Photoshop:IPTCDigest`; EXIF
/// `ImageDescription` first for the caption), then the further sources of
/// `docs/descriptive-metadata.md` in their order. `docs/fidelity.md` holds the figures.
@Suite("Descriptive metadata against exiftool on the corpus")
struct DescriptiveCorpusTests {
    static let fields = ["keywords", "title", "caption", "rating", "label"]

    /// The reference reading of one file, from exiftool's tags.
    struct Reference {
        var keywords: Set<String>
        var title: String?
        var caption: String?
        var rating: Int?
        var label: String?
    }

    /// The texts of a tag; exiftool's placeholder for binary data is no text.
    static func strings(_ value: JSONValue?) -> [String] {
        let texts: [String]
        switch value {
        case .array(let items)?: texts = items.compactMap(\.string)
        case let value?: texts = value.string.map { [$0] } ?? []
        default: texts = []
        }
        return texts.filter { !$0.hasPrefix("(Binary data ") }
    }

    static func text(_ e: [String: JSONValue], _ keys: String...) -> String? {
        keys.lazy.compactMap { key in DescriptiveText.clean(strings(e[key]).joined(separator: ", ")) }.first
    }

    /// MWG's rule: XMP unless there is IPTC that changed after it (or XMP lacks the value).
    static func mwg<T>(_ e: [String: JSONValue], iptc: T?, xmp: T?) -> T? {
        let current = e["File:CurrentIPTCDigest"]?.string, stored = e["Photoshop:IPTCDigest"]?.string
        if current == nil || (xmp != nil && (stored == nil || stored == current)) { return xmp }
        return iptc
    }

    static func reference(_ e: [String: JSONValue], make: String?, model: String?) -> Reference {
        let iptcKeywords = strings(e["IPTC:Keywords"]), xmpKeywords = strings(e["XMP-dc:Subject"])
        var flat = mwg(e, iptc: iptcKeywords, xmp: xmpKeywords.isEmpty ? nil : xmpKeywords) ?? []
        flat += text(e, "IFD0:XPKeywords").map { $0.split(separator: ";").map(String.init) } ?? []
        flat += text(e, "Keys:Keywords", "UserData:Keywords", "ItemList:Keywords")
            .map { $0.split(whereSeparator: { $0 == "," || $0 == ";" }).map(String.init) } ?? []
        var paths = strings(e["XMP-lr:HierarchicalSubject"]).map { KeywordPath.levels($0, separator: "|") }
        paths += (strings(e["XMP-digiKam:TagsList"]) + strings(e["XMP-microsoft:LastKeywordXMP"]))
            .map { KeywordPath.levels($0, separator: "/") }
        let people = paths.filter(KeywordPath.isPeopleTag).compactMap(\.last)
        paths = paths.filter { !$0.isEmpty && !KeywordPath.isPeopleTag($0) }
        let keywords = KeywordPath.keywordSet(flat: DescriptiveText.clean(flat), paths: paths, folded: people)

        let title = mwg(e, iptc: text(e, "IPTC:ObjectName"), xmp: text(e, "XMP-dc:Title"))
            ?? text(e, "IFD0:XPTitle", "Keys:Title", "UserData:Title", "ItemList:Title")
        let description = text(e, "IFD0:ImageDescription")
            .flatMap { DescriptiveText.isCameraPlaceholder($0, make: make, model: model) ? nil : $0 }
        let userComment = text(e, "ExifIFD:UserComment")
            .flatMap { DescriptiveText.isCameraPlaceholder($0, make: make, model: model) ? nil : $0 }
        let caption = description
            ?? mwg(e, iptc: text(e, "IPTC:Caption-Abstract"), xmp: text(e, "XMP-dc:Description"))
            ?? text(e, "IFD0:XPComment") ?? userComment
            ?? text(e, "Keys:Description", "UserData:Description", "ItemList:Description")
        var rating = e["XMP-xmp:Rating"]?.number.map { Int(max(-1, min(5, $0.rounded()))) }
        rating = rating ?? e["IFD0:Rating"]?.number.map { max(-1, min(5, Int($0))) }
        rating = rating ?? e["IFD0:RatingPercent"]?.number.map(DescriptiveSources.stars(percent:))
        return Reference(keywords: Set(keywords.map { $0.lowercased() }), title: title, caption: caption,
                         rating: rating, label: text(e, "XMP-xmp:Label"))
    }

    struct Tally {
        var compared: [String: Int] = [:]
        var agreed: [String: Int] = [:]
        var withValue: [String: Int] = [:]
        var disagreements: [String] = []

        mutating func record(_ field: String, _ agree: Bool, hasValue: Bool, _ detail: @autoclosure () -> String) {
            compared[field, default: 0] += 1
            if hasValue { withValue[field, default: 0] += 1 }
            if agree { agreed[field, default: 0] += 1 } else { disagreements.append("\(field): \(detail())") }
        }

        func rate(_ field: String) -> Double {
            Double(agreed[field] ?? 0) / Double(max(1, compared[field] ?? 0))
        }
    }

    /// Our reading of a corpus file: an `.xmp` file as a sidecar, anything else as media.
    static func ours(_ url: URL, fileType: String) throws -> DescriptiveMetadata? {
        let source = try FileByteSource(path: url.path)
        if fileType == "XMP" { return try XMPReader.readSidecar(source).descriptiveMetadata }
        return try MetadataReader.read(source)?.descriptive
    }

    @Test("keywords, title, caption, rating and label agree with exiftool on at least 99.5% of the corpus",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func agreesWithExiftool() throws {
        let media = try #require(Corpus.media)
        var tally = Tally()
        for (path, e) in Corpus.exiftool.sorted(by: { $0.key < $1.key }) {
            guard e["ExifTool:Error"] == nil, let type = e["File:FileType"]?.string,
                  type == "XMP" || FidelityTableTests.indexedFileTypes.contains(type),
                  let read = try? Self.ours(media.appendingPathComponent(path), fileType: type) ?? DescriptiveMetadata()
            else { continue }
            let make = e["IFD0:Make"]?.string, model = e["IFD0:Model"]?.string
            let expected = Self.reference(e, make: make, model: model)
            let keywords = Set(read.keywords.map { $0.lowercased() })
            tally.record("keywords", keywords == expected.keywords, hasValue: !expected.keywords.isEmpty,
                         "\(path): ours \(keywords.sorted()), exiftool \(expected.keywords.sorted())")
            tally.record("title", read.title == expected.title, hasValue: expected.title != nil,
                         "\(path): ours \(read.title ?? "nil"), exiftool \(expected.title ?? "nil")")
            tally.record("caption", read.caption == expected.caption, hasValue: expected.caption != nil,
                         "\(path): ours \(read.caption ?? "nil"), exiftool \(expected.caption ?? "nil")")
            tally.record("rating", read.rating == expected.rating, hasValue: expected.rating != nil,
                         "\(path): ours \(read.rating.map(String.init) ?? "nil"), exiftool \(expected.rating.map(String.init) ?? "nil")")
            tally.record("label", read.label == expected.label, hasValue: expected.label != nil,
                         "\(path): ours \(read.label ?? "nil"), exiftool \(expected.label ?? "nil")")
        }
        for field in Self.fields {
            print("descriptive \(field): \(tally.agreed[field] ?? 0)/\(tally.compared[field] ?? 0) agree "
                  + "(\(tally.withValue[field] ?? 0) with a value), \(String(format: "%.2f", 100 * tally.rate(field)))%")
        }
        for line in tally.disagreements { print("  disagrees: \(line)") }
        for field in Self.fields {
            #expect(tally.rate(field) >= 0.995, "\(field): \(tally.rate(field))")
            #expect((tally.withValue[field] ?? 0) > 0 || field == "label", "no corpus file has a \(field)")
        }
    }
}
