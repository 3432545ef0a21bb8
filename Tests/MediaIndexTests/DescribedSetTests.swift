import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex

/// Photos (and a movie) described by several tools, written with exiftool at test time;
/// each query's answer must be the set of assets computed from exiftool's reading of the
/// tags, not from our own.
@Suite("A set described by several tools answers queries as their tags say")
struct DescribedSetTests {
    static let exiftool = ExternalTool.exiftool
    static let ffmpeg = ExternalTool.ffmpeg
    static var hasTools: Bool { ExternalTool.hasExiftoolAndFFmpeg }

    /// A file: its name and the exiftool arguments that describe it (written into the
    /// file itself, or into `NAME.xmp` beside it for `sidecar`).
    struct Described {
        var name: String
        var arguments: [String]
        var sidecar: [String] = []
    }

    static let files: [Described] = [
        Described(name: "lightroom.jpg", arguments: [
            "-XMP-dc:Subject=Dog", "-XMP-dc:Subject=Animals", "-XMP-dc:Subject=Paris",
            "-XMP-lr:HierarchicalSubject=Animals|Dog", "-XMP-lr:HierarchicalSubject=Places|France|Paris",
            "-XMP-dc:Description=Rex in the park", "-XMP-xmp:Rating=4", "-XMP-xmp:Label=Red",
            "-XMP-mwg-rs:RegionInfo={AppliedToDimensions={W=16,H=16,Unit=pixel},RegionList=[{Area={X=0.5,Y=0.5,W=0.2,H=0.2,Unit=normalized},Name=Ann Lee,Type=Face}]}"]),
        Described(name: "darktable.jpg", arguments: [
            "-XMP-dc:Subject=Alps", "-XMP-lr:HierarchicalSubject=Trips|Alps", "-XMP-xmp:Rating=-1",
            "-XMP-xmp:Label=Green", "-XMP-dc:Description=Glacier at noon"]),
        Described(name: "digikam.jpg", arguments: [
            "-XMP-digiKam:TagsList=Places/Zürich", "-XMP-digiKam:TagsList=People/Alice Stone", "-XMP-xmp:Rating=5",
            "-XMP-mwg-rs:RegionInfo={AppliedToDimensions={W=16,H=16,Unit=pixel},RegionList=[{Area={X=0.3,Y=0.3,W=0.2,H=0.2,Unit=normalized},Name=Alice Stone,Type=Face}]}"]),
        Described(name: "windows.jpg", arguments: [
            "-IFD0:XPKeywords=family;cake", "-IFD0:XPComment=Birthday party", "-IFD0:Rating=3"]),
        Described(name: "iptc.jpg", arguments: [
            "-charset", "iptc=latin", "-IPTC:Keywords=Zürich", "-IPTC:Keywords=Café", "-IPTC:Caption-Abstract=Ein schöner Tag"]),
        Described(name: "person.jpg", arguments: [
            "-XMP-iptcExt:PersonInImage=Bob Stone", "-XMP-dc:Subject=dog", "-XMP-xmp:Rating=2"]),
        Described(name: "plain.jpg", arguments: []),
        Described(name: "sidecar.jpg", arguments: ["-XMP-dc:Subject=Old", "-XMP-xmp:Rating=5", "-XMP-dc:Description=Kept"],
                  sidecar: ["-XMP-dc:Subject=New", "-XMP-dc:Subject=Dog", "-XMP-xmp:Rating=1"]),
        Described(name: "clip.mov", arguments: ["-Keys:Keywords=beach,sunset", "-Keys:Description=Waves at Biarritz"]),
    ]

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data { try ExternalTool.run(tool, arguments) }

    /// What exiftool reads from a file (`-G1 -a -n`), as group:tag → values.
    static func reading(_ path: String) throws -> [String: [String]] {
        let json = try run(exiftool, ["-json", "-G1", "-a", "-n", "-q", "-q", path])
        let object = try #require((try JSONSerialization.jsonObject(with: json) as? [[String: Any]])?.first)
        return object.mapValues { value in
            if let list = value as? [Any] { return list.map { "\($0)" } }
            return ["\(value)"]
        }
    }

    /// The describing values of a file, computed from exiftool's reading of its tags.
    struct Tags {
        /// Every keyword level, folded.
        var levels: Set<String> = []
        var people: [String] = []
        var rating: Int?
        var label: String?
        var hasCaption = false

        init(_ e: [String: [String]]) {
            func values(_ key: String) -> [String] { e[key] ?? [] }
            var paths: [[String]] = []
            for flat in values("XMP-dc:Subject") + values("IPTC:Keywords") { paths.append([flat]) }
            for list in values("IFD0:XPKeywords") { paths += list.split(separator: ";").map { [String($0)] } }
            for list in values("Keys:Keywords") { paths += list.split(separator: ",").map { [String($0)] } }
            for path in values("XMP-lr:HierarchicalSubject") { paths.append(path.split(separator: "|").map(String.init)) }
            for path in values("XMP-digiKam:TagsList") {
                let levels = path.split(separator: "/").map(String.init)
                if levels.first == "People" { people.append(levels.dropFirst().joined(separator: "/")) } else { paths.append(levels) }
            }
            levels = Set(paths.flatMap { $0 }.map { DescriptiveColumns.fold($0.trimmingCharacters(in: .whitespaces)) })
            people += values("XMP-mwg-rs:RegionName") + values("XMP-iptcExt:PersonInImage")
            rating = (values("XMP-xmp:Rating").first ?? values("IFD0:Rating").first).flatMap { Double($0) }.map { Int($0) }
            label = values("XMP-xmp:Label").first
            hasCaption = !(values("XMP-dc:Description") + values("IPTC:Caption-Abstract") + values("IFD0:XPComment")
                           + values("Keys:Description")).isEmpty
        }

        /// A sidecar's fields over the file's, field by field.
        func overlaid(by sidecar: Tags) -> Tags {
            var result = self
            if !sidecar.levels.isEmpty { result.levels = sidecar.levels }
            if !sidecar.people.isEmpty { result.people = sidecar.people }
            result.rating = sidecar.rating ?? rating
            result.label = sidecar.label ?? label
            result.hasCaption = sidecar.hasCaption || hasCaption
            return result
        }

        func hasPerson(_ query: String) -> Bool {
            let q = DescriptiveColumns.fold(query)
            return people.contains { name in
                let folded = DescriptiveColumns.fold(name)
                return folded == q || folded.split(separator: " ").map(String.init).contains(q)
            }
        }
    }

    /// Writes the set into `root`; returns each file's tags as exiftool reads them.
    static func write(into root: String) throws -> [String: Tags] {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let stillBase = root + "/base.jpg.tmp", movieBase = root + "/base.mov.tmp"
        try run(ffmpeg, ["-v", "quiet", "-f", "lavfi", "-i", "color=c=blue:s=16x16", "-frames:v", "1", "-f", "mjpeg", "-y", stillBase])
        try run(ffmpeg, ["-v", "quiet", "-f", "lavfi", "-i", "color=c=red:s=16x16:d=0.2", "-c:v", "mpeg4", "-f", "mov", "-y", movieBase])
        var tags: [String: Tags] = [:]
        for file in files {
            let path = root + "/" + file.name
            try FileManager.default.copyItem(atPath: file.name.hasSuffix(".mov") ? movieBase : stillBase, toPath: path)
            if !file.arguments.isEmpty { try run(exiftool, file.arguments + ["-overwrite_original", "-q", "-q", path]) }
            var described = Tags(try reading(path))
            if !file.sidecar.isEmpty {
                let sidecar = path + ".xmp"
                try run(exiftool, file.sidecar + ["-q", "-q", sidecar])
                described = described.overlaid(by: Tags(try reading(sidecar)))
            }
            tags[file.name] = described
        }
        try FileManager.default.removeItem(atPath: stillBase)
        try FileManager.default.removeItem(atPath: movieBase)
        return tags
    }

    @Test("each query finds exactly the files whose tags say so", .enabled(if: hasTools, "needs exiftool and ffmpeg"))
    func queriesAnswerAsTagsSay() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        let tags = try Self.write(into: root)
        #expect(tags.count == Self.files.count)
        #expect(tags.values.filter { !$0.levels.isEmpty }.count >= 6, "exiftool wrote the keywords")
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(root)])

        func found(_ query: String) throws -> Set<String> {
            var options = FetchOptions.everyAsset
            options.search = try SearchQuery(parsing: query)
            let listed = try library.blocking.fetchAssets(options).assets
            #expect(try library.blocking.countAssets(options).total == listed.count, "\(query)")
            return Set(listed.map { String(decoding: $0.resources.first?.path.lastComponent ?? [], as: UTF8.self) })
        }
        func expected(_ holds: (Tags) -> Bool) -> Set<String> { Set(tags.filter { holds($0.value) }.keys) }

        let keywordQueries = ["dog", "places", "france", "zurich", "Zürich", "alps", "family", "beach", "cafe", "new", "old"]
        for keyword in keywordQueries {
            let folded = DescriptiveColumns.fold(keyword)
            #expect(try found("keyword:\(keyword)") == expected { $0.levels.contains(folded) }, "keyword:\(keyword)")
            #expect(try found("-keyword:\(keyword)") == expected { !$0.levels.contains(folded) }, "-keyword:\(keyword)")
        }
        for person in ["alice", "\"Alice Stone\"", "bob", "stone", "\"Ann Lee\"", "lee"] {
            let name = person.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            #expect(try found("person:\(person)") == expected { $0.hasPerson(name) }, "person:\(person)")
        }
        for (query, holds) in [("rating:>=3", { (t: Tags) in (t.rating ?? -9) >= 3 }),
                               ("rating:-1", { (t: Tags) in t.rating == -1 }),
                               ("rating:1..2", { (t: Tags) in (1...2).contains(t.rating ?? -9) }),
                               ("label:red", { (t: Tags) in t.label?.lowercased() == "red" }),
                               ("label:green OR keyword:cake", { (t: Tags) in t.label == "Green" || t.levels.contains("cake") }),
                               ("keyword:dog rating:>=2", { (t: Tags) in t.levels.contains("dog") && (t.rating ?? -9) >= 2 })] {
            #expect(try found(query) == expected(holds), "\(query)")
        }
        var options = FetchOptions.everyAsset
        options.hasCaption = true
        let captioned = Set(try library.blocking.fetchAssets(options).assets.map {
            String(decoding: $0.resources.first?.path.lastComponent ?? [], as: UTF8.self)
        })
        #expect(captioned == expected { $0.hasCaption })
    }
}
