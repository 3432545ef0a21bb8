import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

/// Files written by exiftool the way each tool lays out its metadata (Lightroom,
/// darktable, digiKam, Windows Explorer, IPTC-only writers in Latin-1 and UTF-8, an IPTC
/// edit after the XMP, QuickTime keys), read by us and by exiftool, and compared with
/// the same rules as the corpus (`DescriptiveCorpusTests.reference`).
@Suite("Descriptive metadata as each tool writes it, against exiftool")
struct DescriptiveToolLayoutTests {
    static let exiftool = ExternalTool.exiftool
    static let ffmpeg = ExternalTool.ffmpeg
    /// exiftool writes the files; ffmpeg makes the movie exiftool writes into (exiftool
    /// needs a complete one, with sample tables and data references).
    static var hasTools: Bool { ExternalTool.hasExiftoolAndFFmpeg }

    /// One layout: the base file and the exiftool arguments that write it (in steps).
    struct Layout: CustomStringConvertible {
        var name: String
        var movie = false
        var steps: [[String]]
        var description: String { name }
    }

    static let layouts: [Layout] = [
        Layout(name: "Lightroom", steps: [[
            "-XMP-dc:Subject=Dog", "-XMP-dc:Subject=Animals", "-XMP-dc:Subject=Paris",
            "-XMP-lr:HierarchicalSubject=Animals|Dog", "-XMP-lr:HierarchicalSubject=Places|France|Paris",
            "-XMP-dc:Title=Morning walk", "-XMP-dc:Description=Rex in the park", "-XMP-xmp:Rating=4",
            "-XMP-xmp:Label=Red", "-XMP-dc:Creator=Ann Smith", "-XMP-dc:Rights=© 2024 Ann Smith"]]),
        Layout(name: "darktable", steps: [[
            "-XMP-dc:Subject=darktable|format|jpg", "-XMP-lr:HierarchicalSubject=darktable|format|jpg",
            "-XMP-lr:HierarchicalSubject=Trips|Alps", "-XMP-xmp:Rating=-1", "-XMP-xmp:Label=Green",
            "-XMP-dc:Description=Glacier, rejected"]]),
        Layout(name: "digiKam", steps: [[
            "-XMP-digiKam:TagsList=Places/Zürich", "-XMP-digiKam:TagsList=People/Alice",
            "-XMP-dc:Subject=Zürich", "-XMP-dc:Subject=Alice", "-XMP-xmp:Rating=5",
            "-XMP-mwg-rs:RegionInfo={AppliedToDimensions={W=100,H=50,Unit=pixel},RegionList=[{Area={X=0.5,Y=0.4,W=0.2,H=0.3,Unit=normalized},Name=Alice,Type=Face}]}"]]),
        Layout(name: "Windows Explorer", steps: [[
            "-IFD0:XPTitle=Fête", "-IFD0:XPComment=Grand-mère’s birthday", "-IFD0:XPKeywords=family;cake",
            "-IFD0:XPAuthor=Jo", "-IFD0:Rating=3", "-IFD0:RatingPercent=50",
            "-XMP-microsoft:LastKeywordXMP=family", "-XMP-microsoft:LastKeywordXMP=cake"]]),
        Layout(name: "IPTC only, Latin-1", steps: [[
            "-charset", "iptc=latin", "-IPTC:Keywords=Zürich", "-IPTC:Keywords=Café", "-IPTC:ObjectName=Straße",
            "-IPTC:Caption-Abstract=Ein schöner Tag", "-IPTC:By-line=Jörg"]]),
        Layout(name: "IPTC only, UTF-8", steps: [[
            "-IPTC:CodedCharacterSet=UTF8", "-IPTC:Keywords=東京", "-IPTC:Keywords=Ærø",
            "-IPTC:ObjectName=Ça va", "-IPTC:Caption-Abstract=Μια μέρα"]]),
        Layout(name: "IPTC and XMP in step (MWG digest)", steps: [[
            "-use", "MWG", "-IPTC:CodedCharacterSet=UTF8", "-MWG:Keywords=one", "-MWG:Keywords=two",
            "-MWG:Description=Both agree"]]),
        Layout(name: "IPTC edited after the XMP", steps: [
            ["-use", "MWG", "-IPTC:CodedCharacterSet=UTF8", "-MWG:Keywords=old", "-MWG:Description=Old caption"],
            ["-IPTC:Keywords=new", "-IPTC:Caption-Abstract=New caption",
             "-Photoshop:IPTCDigest=00000000000000000000000000000000"]]),
        Layout(name: "camera placeholder under a caption", steps: [[
            "-IFD0:Make=OLYMPUS IMAGING CORP.", "-IFD0:ImageDescription=OLYMPUS DIGITAL CAMERA",
            "-XMP-dc:Description=The harbour at dusk"]]),
        Layout(name: "QuickTime keys", movie: true, steps: [[
            "-Keys:Keywords=beach,sunset", "-Keys:Title=Evening", "-Keys:Description=Waves at Biarritz"]]),
        Layout(name: "QuickTime user data", movie: true, steps: [[
            "-UserData:Title=Birthday", "-UserData:Description=Candles", "-UserData:Artist=Jo"]]),
    ]

    @discardableResult
    static func run(_ arguments: [String], tool: String = exiftool) throws -> Data {
        try ExternalTool.run(tool, arguments)
    }

    /// Writes the layout's file with exiftool; returns it and exiftool's reading of it.
    static func written(_ layout: Layout, in folder: URL) throws -> (URL, [String: JSONValue]) {
        let file = folder.appendingPathComponent(layout.movie ? "clip.mov" : "photo.jpg")
        if layout.movie {
            try run(["-v", "quiet", "-f", "lavfi", "-i", "color=c=red:s=16x16:d=0.2", "-c:v", "mpeg4", "-y", file.path],
                    tool: ffmpeg)
        } else {
            try Data(Fixture.jpeg(exif: nil)).write(to: file)
        }
        for step in layout.steps {
            try run(step + ["-overwrite_original", "-q", "-q", file.path])
        }
        let json = try run(["-json", "-G1", "-n", "-a", "-q", "-q", file.path])
        let entries = try JSONDecoder().decode([[String: JSONValue]].self, from: json)
        return (file, try #require(entries.first))
    }

    @Test("each tool's layout reads as exiftool reads it", .enabled(if: hasTools, "needs exiftool and ffmpeg"),
          arguments: layouts)
    func agreesWithExiftool(_ layout: Layout) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("descriptive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, e) = try Self.written(layout, in: folder)
        let ours = try #require(try MetadataReader.read(FileByteSource(path: file.path))?.descriptive)
        let expected = DescriptiveCorpusTests.reference(e, make: e["IFD0:Make"]?.string, model: e["IFD0:Model"]?.string)
        #expect(!expected.keywords.isEmpty || expected.title != nil || expected.caption != nil, "exiftool wrote nothing")
        #expect(Set(ours.keywords.map { $0.lowercased() }) == expected.keywords)
        #expect(ours.title == expected.title)
        #expect(ours.caption == expected.caption)
        #expect(ours.rating == expected.rating)
        #expect(ours.label == expected.label)
    }

    @Test("digiKam's face region and People tag give one person with the face's rectangle",
          .enabled(if: hasTools, "needs exiftool and ffmpeg"))
    func digiKamPeople() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("descriptive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let layout = try #require(Self.layouts.first { $0.name == "digiKam" })
        let (file, e) = try Self.written(layout, in: folder)
        let ours = try #require(try MetadataReader.read(FileByteSource(path: file.path))?.descriptive)
        #expect(DescriptiveCorpusTests.strings(e["XMP-mwg-rs:RegionName"]) == ["Alice"])
        #expect(ours.people == [PersonInImage(name: "Alice", face: FaceRectangle(x: 0.5 - 0.2 / 2, y: 0.4 - 0.3 / 2, width: 0.2, height: 0.3))])
        #expect(ours.keywords == ["Places|Zürich"])
        #expect(ours.rating == 5)
    }
}
