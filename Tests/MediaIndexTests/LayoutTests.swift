import CorpusSupport
import Foundation
import MediaIndexInterface
import MediaMetadata
import Testing
@testable import MediaIndex

/// Fixtures for the layouts of issue 15: copies of corpus files under the names devices and
/// exporters give, and Apple adjustments files written with Foundation.
enum LayoutFixtures {
    static let heic = "synthetic/live-apple/IMG_7001.HEIC"        // 2566×3313, content identifier 5B2CA818…
    static let liveMovie = "synthetic/live-apple/IMG_7001.MOV"    // 2.5 s, the same identifier
    static let stemStill = "synthetic/live-stem/IMG_7004.JPG"     // no identifier
    static let stemMovie = "synthetic/live-stem/IMG_7004.MOV"     // 2.5 s, no identifier
    static let longMovie = "synthetic/live-stem/IMG_7005.MOV"     // 12 s, no identifier
    static let rawDNG = "synthetic/raw-jpeg/IMG_7008.DNG"
    static let rawJPEG = "synthetic/raw-jpeg/IMG_7008.JPG"
    /// A landscape JPEG (exiftool: 400×300), the "edited rendering" of the portrait HEIC.
    static let landscape = "exiv2-test-data/test/data/FurnaceCreekInn3.jpg"
    static let otherJPEG = "exiv2-test-data/test/data/Reagan.jpg"
    static let thirdJPEG = "ente-test-fixtures/ml/indexing/v1/files/man.jpeg"
    /// exiftool: GIF:FrameCount 11.
    static let animatedGIF = "metadata-extractor-images/gif/ImageTestSuite/ea754e040929b7f9c157efc88c4d0eaf.gif"

    static let adjustmentDate = Date(timeIntervalSince1970: 1_586_070_207)  // 2020-04-05T07:03:27Z

    /// An `.AAE` as Photos writes it: the keys, types and values of the samples published on
    /// openaaefile.com ("AAE File Format"), rae.tnir.org ("Data inside Apple's AAE files") and
    /// Stack Overflow question 61023739, written by Foundation's PropertyListSerialization.
    static func adjustments(format: PropertyListSerialization.PropertyListFormat = .xml,
                            identifier: String = "com.apple.photo") throws -> Data {
        let plist: [String: Any] = [
            "adjustmentBaseVersion": 0,
            "adjustmentData": Data([0x6D, 0x90, 0x4D, 0x4F, 0xC2, 0x40, 0x10, 0x86]),
            "adjustmentEditorBundleID": "com.apple.mobileslideshow",
            "adjustmentFormatIdentifier": identifier,
            "adjustmentFormatVersion": "1.4",
            "adjustmentRenderTypes": 0,
            "adjustmentTimestamp": adjustmentDate,
        ]
        return try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
    }

    static func write(_ data: Data, in tree: PairingTree, as name: String) throws {
        let path = tree.path(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func media(_ relative: String) -> String { "media/" + relative }

    /// exiftool's `File:ImageWidth`/`File:ImageHeight` of a corpus file under `media/`.
    static func size(_ relative: String) throws -> (width: Int, height: Int) {
        let reading = try #require(Corpus.exiftool[relative])
        return (Int(try #require(reading["File:ImageWidth"]?.number)), Int(try #require(reading["File:ImageHeight"]?.number)))
    }
}

@Suite("Layout names")
struct NameLayoutTests {
    @Test("edited copies share their original's base and say they are edits", arguments: [
        ("img_e1234.heic", "img_1234"), ("img_e1234.jpg", "img_1234"), ("img_e1234.mov", "img_1234"),
        ("img_1234 (edited).heic", "img_1234"), ("img_1234_edited.jpeg", "img_1234"),
        ("img_1234-edited.jpg", "img_1234"), ("pxl_20230101_123456789~2.jpg", "pxl_20230101_123456789"),
        // Takeout's duplicate counter comes after the mark (as `TakeoutSidecar.originalName(ofEdited:)`).
        ("img_1234-edited(1).jpg", "img_1234(1)"), ("img_1234-bearbeitet(12).jpg", "img_1234(12)"),
    ])
    func edits(name: String, base: String) {
        let layout = NameLayout(lowercasedName: name)
        #expect(layout.baseKey == base && layout.isEdit)
    }

    @Test("originals, adjustments and names that only look alike are no edits", arguments: [
        ("img_1234.heic", "img_1234"), ("img_1234.aae", "img_1234"), ("img_o1234.aae", "img_1234"),
        ("img_12~1.jpg", "img_12~1"), ("img_edit.jpg", "img_edit"), ("edited.jpg", "edited"),
        ("img_1234_3.jpg", "img_1234_3"), ("img_1234_hevc.jpg", "img_1234_hevc"),
        ("img_1234(1).jpg", "img_1234(1)"), ("img_1234-edited(x).jpg", "img_1234-edited(x)"),
    ])
    func notEdits(name: String, base: String) {
        let layout = NameLayout(lowercasedName: name)
        #expect(layout.baseKey == base && !layout.isEdit)
    }

    @Test("renamed live-photo movies share their still's base", arguments: [
        "img_1234_hevc.mov", "img_1234_3.mov", "img_1234.jpg.mov", "img_1234.heic.mov", "img_1234.mov",
    ])
    func renamedMovies(name: String) {
        #expect(NameLayout(lowercasedName: name).baseKey == "img_1234")
    }

    @Test("a Pixel RAW pair shares one base (Immich issue #8674, immich-go #94 and #651)", arguments: [
        ("pxl_20231207_032111247.raw-01.mp.cover.jpg", NameLayout.PixelPart.cover),
        ("pxl_20231207_032111247.raw-01.cover.jpg", .cover),
        ("pxl_20231207_032111247.raw-02.original.dng", .original),
    ])
    func pixelPairs(name: String, part: NameLayout.PixelPart) {
        let layout = NameLayout(lowercasedName: name)
        #expect(layout.baseKey == "pxl_20231207_032111247" && layout.pixelPart == part && !layout.isEdit)
    }

    @Test("burst names give one identifier per burst and mark the cover (immich-go #345, #99)")
    func bursts() {
        let cover = NameLayout.burst(ofFileName: "00001IMG_00001_BURST20201123164411530_COVER.jpg")
        let frame = NameLayout.burst(ofFileName: "00002IMG_00002_BURST20201123164411530.jpg")
        let sony = NameLayout.burst(ofFileName: "DSC_0052_BURST20230709220904977_COVER.JPG")
        let huawei = NameLayout.burst(ofFileName: "IMG_20231014_183246_BURST002.jpg")
        let huaweiCover = NameLayout.burst(ofFileName: "IMG_20231014_183246_BURST001_COVER.jpg")
        #expect(cover?.identifier == "BURST20201123164411530" && cover?.isCover == true)
        #expect(frame?.identifier == cover?.identifier && frame?.isCover == false)
        #expect(sony?.identifier == "BURST20230709220904977" && sony?.isCover == true)
        #expect(huawei?.identifier == huaweiCover?.identifier && huaweiCover?.isCover == true)
        #expect(NameLayout.burst(ofFileName: "IMG_1234.JPG") == nil)
        #expect(NameLayout.burst(ofFileName: "my_bursting_party.jpg") == nil)
    }
}

@Suite("Apple adjustments files")
struct AdjustmentFileTests {
    @Test("an XML .AAE gives its format identifier, version, editor and date")
    func xml() throws {
        let values = try AdjustmentFile.parse([UInt8](try LayoutFixtures.adjustments()))
        #expect(values.formatIdentifier == "com.apple.photo")
        #expect(values.formatVersion == "1.4")
        #expect(values.editorBundleID == "com.apple.mobileslideshow")
        #expect(values.timestamp == LayoutFixtures.adjustmentDate.timeIntervalSince1970)
        #expect(values.baseVersion == 0 && values.renderTypes == 0 && values.dataBytes == 8)
        #expect(values.warnings.isEmpty)
    }

    @Test("a binary .AAE reads the same")
    func binary() throws {
        let values = try AdjustmentFile.parse([UInt8](try LayoutFixtures.adjustments(format: .binary,
                                                                                     identifier: "com.apple.video.slomo")))
        #expect(values.formatIdentifier == "com.apple.video.slomo")
        #expect(values.timestamp == LayoutFixtures.adjustmentDate.timeIntervalSince1970)
    }

    @Test("values of the wrong type are left out with a warning")
    func wrongTypes() throws {
        let plist: [String: Any] = ["adjustmentFormatIdentifier": 42, "adjustmentTimestamp": "yesterday",
                                    "adjustmentData": "not data", "adjustmentBaseVersion": "zero"]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let values = try AdjustmentFile.parse([UInt8](data))
        #expect(values.formatIdentifier == nil && values.timestamp == nil && values.dataBytes == nil && values.baseVersion == nil)
        #expect(values.warnings.count == 4)
    }

    @Test("hostile files are refused with one sentence, never a crash", arguments: [
        "truncated XML", "truncated binary", "huge", "not a dictionary", "no adjustment keys", "deep XML",
        "binary loop", "binary lying trailer", "random bytes", "empty",
    ])
    func hostile(kind: String) throws {
        let xml = [UInt8](try LayoutFixtures.adjustments()), binary = [UInt8](try LayoutFixtures.adjustments(format: .binary))
        var bytes: [UInt8]
        switch kind {
        case "truncated XML": bytes = Array(xml.prefix(xml.count / 2))
        case "truncated binary": bytes = Array(binary.prefix(binary.count - 20))
        case "huge": bytes = xml + [UInt8](repeating: 0x20, count: AdjustmentFile.maxBytes)
        case "not a dictionary":
            bytes = [UInt8](try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0))
        case "no adjustment keys":
            bytes = [UInt8](try PropertyListSerialization.data(fromPropertyList: ["x": 1], format: .binary, options: 0))
        case "deep XML":
            bytes = Array(("<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100_000)).utf8)
        case "binary loop":
            // One array holding itself: object 0 at offset 8 is `A1 00`; the offset table at 10.
            bytes = Array("bplist00".utf8) + [0xA1, 0x00, 0x08] + [0, 0, 0, 0, 0, 0, 1, 1] + be64(1) + be64(0) + be64(10)
        case "binary lying trailer":
            bytes = Array(binary.dropLast(8)) + be64(UInt64(Int64.max))
        case "random bytes": bytes = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }
        default: bytes = []
        }
        #expect(throws: MetadataError.self) { try AdjustmentFile.parse(bytes) }
        do {
            _ = try AdjustmentFile.read(MemoryByteSource(bytes))
            Issue.record("\(kind) was read")
        } catch let error as MetadataError {
            #expect(error.description.contains("adjustments file"), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("a few thousand damaged copies of real-form .AAE files are read or refused, never a crash")
    func mutations() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(truncatingIfNeeded: state & 0x7FFF_FFFF)
        }
        var read = 0, refused = 0
        for original in [[UInt8](try LayoutFixtures.adjustments()), [UInt8](try LayoutFixtures.adjustments(format: .binary))] {
            for round in 0..<1500 {
                var bytes = original
                switch round % 3 {
                case 0: for _ in 0..<(1 + next() % 4) { bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next()) }
                case 1: bytes = Array(bytes.prefix(next() % bytes.count))
                default:
                    let at = next() % bytes.count
                    bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + next() % 64)], at: at)
                }
                do { _ = try AdjustmentFile.parse(bytes); read += 1 } catch is MetadataError { refused += 1 }
            }
        }
        #expect(read + refused == 3000)
        #expect(refused > 0)
    }

    private func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
}

@Suite("Apple edits join their original", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct AppleEditTests {
    @Test("IMG_E, its edited movie and the .AAE are resources of the original live photo's asset")
    func wholeLayout() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.heic, to: "IMG_7001.HEIC")
        try tree.copy(LayoutFixtures.liveMovie, to: "IMG_7001.MOV")
        try tree.copy(LayoutFixtures.media(LayoutFixtures.landscape), to: "IMG_E7001.JPG")
        try tree.copy(LayoutFixtures.stemMovie, to: "IMG_E7001.MOV")
        try LayoutFixtures.write(try LayoutFixtures.adjustments(), in: tree, as: "IMG_7001.AAE")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])

        let assets = try library.assets()
        try #require(assets.count == 1)
        let asset = assets[0]
        let roles = Dictionary(uniqueKeysWithValues: asset.resources.map { ($0.path.lastComponentString, $0.type.rawValue) })
        #expect(roles == ["IMG_7001.HEIC": "photo", "IMG_7001.MOV": "pairedVideo", "IMG_E7001.JPG": "fullSizePhoto",
                          "IMG_E7001.MOV": "fullSizePairedVideo", "IMG_7001.AAE": "adjustmentData"])
        #expect(asset.resources.first?.type == .photo)
        #expect(asset.hasAdjustments)
        #expect(asset.adjustments?.formatIdentifier == "com.apple.photo")
        #expect(asset.adjustments?.editorBundleID == "com.apple.mobileslideshow")
        #expect(asset.adjustments?.date == LayoutFixtures.adjustmentDate)
        #expect(asset.playbackStyle == .livePhoto)
        #expect(asset.pairingRule == .contentIdentifier)
        // The size is the current version's (PhotoKit's): exiftool's of the edit; the rest is the original's.
        let edit = try LayoutFixtures.size(LayoutFixtures.landscape)
        #expect(asset.pixelWidth == edit.width && asset.pixelHeight == edit.height)
        let heic = try #require(Corpus.syntheticExiftool["live-apple/IMG_7001.HEIC"])
        #expect(asset.contentIdentifier == heic["Apple:MediaGroupUUID"]?.string)
        #expect(asset.renderingResource?.path.lastComponentString == "IMG_E7001.JPG")

        var options = FetchOptions()
        options.filter = .edited
        #expect(try library.blocking.fetchAssets(options).assets.map(\.id) == [asset.id])
        options.filter = try MediaFilter(parsing: "!edited")
        #expect(try library.blocking.fetchAssets(options).assets.isEmpty)

        let json = JSONShapes.asset(asset).compactText
        #expect(json.contains("\"hasAdjustments\":true") && json.contains("\"playbackStyle\":\"livePhoto\""))
        #expect(json.contains("\"formatIdentifier\":\"com.apple.photo\"") && json.contains("\"date\":\"\(JSONShapes.isoUTC(LayoutFixtures.adjustmentDate))\""))
        #expect(json.contains("\"role\":\"fullSizePairedVideo\"") && json.contains("\"role\":\"adjustmentData\""))
    }

    @Test("an edit that arrives later updates the original's asset: same id, revision up, one updated change")
    func laterEdit() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.heic, to: "IMG_7001.HEIC")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let before = try #require(try library.assets().first)
        #expect(!before.hasAdjustments && before.playbackStyle == .image)
        let token = try library.blocking.currentChangeToken()
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: tree.folder.file("cache")))
        let original = try library.with(cache).blocking.thumbnail(for: before, size: 256)
        let originalSize = try #require(ThumbnailTestFiles.jpegSize([UInt8](try original.data())))
        #expect(originalSize.width < originalSize.height)  // exiftool: 2566×3313

        try tree.copy(LayoutFixtures.media(LayoutFixtures.landscape), to: "IMG_E7001.JPG")
        try library.blocking.index()

        let assets = try library.assets()
        try #require(assets.count == 1)
        let after = assets[0]
        #expect(after.id == before.id)
        #expect(after.revision == before.revision + 1)
        #expect(after.hasAdjustments)
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated])
        #expect(changes.first?.id == before.id)
        #expect(Set(changes.first?.fields ?? []) == [.hasAdjustments, .pixelWidth, .pixelHeight, .revision])

        // The size and thumbnails are the edit's: exiftool's 400×300, fitted into 256.
        let edit = try LayoutFixtures.size(LayoutFixtures.landscape)
        #expect(after.pixelWidth == edit.width && after.pixelHeight == edit.height)
        let thumbnail = try library.with(cache).blocking.thumbnail(for: after, size: 256)
        #expect(thumbnail.made && thumbnail.path != original.path)
        let size = try #require(ThumbnailTestFiles.jpegSize([UInt8](try thumbnail.data())))
        #expect(size.width == 256 && size.height == Int((256.0 * Double(edit.height) / Double(edit.width)).rounded()))

        // The edit goes: no adjustments, a new revision, thumbnails from the original again.
        try tree.remove("IMG_E7001.JPG")
        let token2 = try library.blocking.currentChangeToken()
        try library.blocking.index()
        let reverted = try #require(try library.assets().first)
        #expect(reverted.id == before.id && !reverted.hasAdjustments && reverted.revision == after.revision + 1)
        #expect(reverted.pixelWidth == before.pixelWidth && reverted.pixelHeight == before.pixelHeight)
        #expect(try library.blocking.changes(since: token2).changes.map(\.kind) == [.updated])
        #expect(reverted.renderingResource == reverted.primaryResource)
    }

    @Test("an .AAE that arrives later sets hasAdjustments on the original; deleting it clears it")
    func laterAdjustments() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.heic, to: "IMG_7001.HEIC")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let before = try #require(try library.assets().first)
        let token = try library.blocking.currentChangeToken()
        try LayoutFixtures.write(try LayoutFixtures.adjustments(format: .binary), in: tree, as: "IMG_O7001.AAE")
        try library.blocking.index()
        let after = try #require(try library.assets().first)
        #expect(after.id == before.id && after.hasAdjustments && after.adjustments?.formatIdentifier == "com.apple.photo")
        #expect(try library.blocking.changes(since: token).changes.map(\.fields) == [[.hasAdjustments]])
        try tree.remove("IMG_O7001.AAE")
        try library.blocking.index()
        let cleared = try #require(try library.assets().first)
        #expect(!cleared.hasAdjustments && cleared.adjustments == nil && cleared.resources.map(\.type) == [.photo])
    }

    @Test("other exporters' edit names join their original", arguments: [
        "IMG_7004 (Edited).JPG", "IMG_7004_edited.jpeg", "IMG_7004-edited.jpg", "IMG_E7004.JPG",
    ])
    func exporterNames(name: String) throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.stemStill, to: "IMG_7004.JPG")
        try tree.copy(LayoutFixtures.media(LayoutFixtures.otherJPEG), to: name)
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let assets = try library.assets()
        try #require(assets.count == 1, "\(assets.map(\.resources))")
        #expect(assets[0].resources.map(\.type) == [.photo, .fullSizePhoto])
        #expect(assets[0].primaryResource?.path.lastComponentString == "IMG_7004.JPG")
        #expect(assets[0].hasAdjustments)
        // The first run inserted it: its insert says everything, nothing is deleted.
        #expect(try library.blocking.changes(since: .initial).changes.map(\.kind) == [.inserted])
    }

    @Test("Android's PXL_…~2.jpg is an edited copy of PXL_….jpg")
    func androidTilde() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.media(LayoutFixtures.otherJPEG), to: "PXL_20230101_123456789.jpg")
        try tree.copy(LayoutFixtures.media(LayoutFixtures.landscape), to: "PXL_20230101_123456789~2.jpg")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let assets = try library.assets()
        try #require(assets.count == 1)
        #expect(assets[0].resources.map(\.path.lastComponentString) == ["PXL_20230101_123456789.jpg", "PXL_20230101_123456789~2.jpg"])
        #expect(assets[0].resources.map(\.type) == [.photo, .fullSizePhoto])
    }

    @Test("an edit without its original is an asset of its own until the original comes")
    func editAlone() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.media(LayoutFixtures.landscape), to: "IMG_E7001.JPG")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let alone = try #require(try library.assets().first)
        #expect(alone.resources.map(\.type) == [.photo] && !alone.hasAdjustments)

        try tree.copy(LayoutFixtures.heic, to: "IMG_7001.HEIC")
        try library.blocking.index()
        let assets = try library.assets()
        try #require(assets.count == 1)
        #expect(assets[0].id != alone.id)  // identity follows the original
        #expect(assets[0].primaryResource?.path.lastComponentString == "IMG_7001.HEIC")
        #expect(assets[0].resources.map(\.type) == [.photo, .fullSizePhoto] && assets[0].hasAdjustments)
    }

    @Test("a hostile .AAE is a readable error of its own file; the photo is untouched")
    func hostileAdjustments() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.heic, to: "IMG_7001.HEIC")
        let xml = try LayoutFixtures.adjustments()
        try LayoutFixtures.write(xml.prefix(xml.count / 2), in: tree, as: "IMG_7001.AAE")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let asset = try #require(try library.assets().first)
        #expect(!asset.hasAdjustments && asset.resources.map(\.type) == [.photo])
        let errors = try library.blocking.errors()
        #expect(errors.map(\.path.lastComponentString) == ["IMG_7001.AAE"])
        #expect(errors.first?.message.contains("adjustments file") == true)
    }
}

@Suite("Live-photo names users report broken", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct RenamedLivePhotoTests {
    @Test("without content identifiers, the same-stem rule accepts the renamed movie", arguments: [
        "IMG_7004_HEVC.MOV", "IMG_7004_3.mov", "IMG_7004.JPG.MOV",
    ])
    func sameStem(movie: String) throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.stemStill, to: "IMG_7004.JPG")
        try tree.copy(LayoutFixtures.stemMovie, to: movie)
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let assets = try library.assets()
        try #require(assets.count == 1)
        #expect(assets[0].pairingRule == .sameStemShortMovie)
        #expect(assets[0].resources.map(\.type) == [.photo, .pairedVideo])
        #expect(assets[0].playbackStyle == .livePhoto)
    }

    @Test("with content identifiers, they pair by the identifier", arguments: [
        "IMG_7001_HEVC.MOV", "IMG_7001_3.mov", "IMG_7001.HEIC.MOV",
    ])
    func contentIdentifier(movie: String) throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.heic, to: "IMG_7001.HEIC")
        try tree.copy(LayoutFixtures.liveMovie, to: movie)
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let assets = try library.assets()
        try #require(assets.count == 1)
        #expect(assets[0].pairingRule == .contentIdentifier)
    }

    @Test("a renamed movie longer than a live photo's stays a video (ffprobe: 12 s)")
    func longMovie() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.stemStill, to: "IMG_7004.JPG")
        try tree.copy(LayoutFixtures.longMovie, to: "IMG_7004_3.mov")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let assets = try library.assets()
        #expect(assets.count == 2)
        #expect(Set(assets.map(\.playbackStyle)) == [.image, .video])
    }
}

@Suite("Pixel RAW pairs and bursts", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PixelLayoutTests {
    @Test("PXL_….RAW-01.MP.COVER.jpg with PXL_….RAW-02.ORIGINAL.dng is one RAW+JPEG asset (Immich #8674)",
          arguments: ["RAW-01.MP.COVER.jpg", "RAW-01.COVER.jpg"])
    func rawPair(cover: String) throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.rawJPEG, to: "PXL_20231207_032111247." + cover)
        try tree.copy(LayoutFixtures.rawDNG, to: "PXL_20231207_032111247.RAW-02.ORIGINAL.dng")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let assets = try library.assets()
        try #require(assets.count == 1)
        #expect(assets[0].pairingRule == .rawPlusJpeg && assets[0].mediaSubtypes.contains(.raw))
        #expect(assets[0].primaryResource?.path.lastComponentString == "PXL_20231207_032111247." + cover)
        #expect(assets[0].resources.map(\.type) == [.photo, .alternatePhoto])
    }

    @Test("a Pixel burst is one burst with the cover as its representative")
    func burst() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.media(LayoutFixtures.otherJPEG), to: "00000IMG_00000_BURST20201123164411530.jpg")
        try tree.copy(LayoutFixtures.media(LayoutFixtures.landscape), to: "00001IMG_00001_BURST20201123164411530_COVER.jpg")
        try tree.copy(LayoutFixtures.media(LayoutFixtures.thirdJPEG), to: "00002IMG_00002_BURST20201123164411530.jpg")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let frames = try library.assets()
        #expect(frames.count == 3)
        #expect(Set(frames.map(\.burstIdentifier)) == ["BURST20201123164411530"])
        let shown = try library.blocking.fetchAssets(FetchOptions()).assets
        try #require(shown.count == 1)
        #expect(shown[0].primaryResource?.path.lastComponentString == "00001IMG_00001_BURST20201123164411530_COVER.jpg")
        var options = FetchOptions()
        options.filter = .bursts
        #expect(try library.blocking.fetchAssets(options).assets.count == 1)
    }
}

@Suite("Playback style", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PlaybackStyleTests {
    @Test("image, imageAnimated, livePhoto and video, in the API and the JSON")
    func styles() throws {
        let tree = PairingTree()
        try tree.copy(LayoutFixtures.media(LayoutFixtures.otherJPEG), to: "still.jpg")
        try tree.copy(LayoutFixtures.media(LayoutFixtures.animatedGIF), to: "animated.gif")
        try tree.copy(LayoutFixtures.heic, to: "live/IMG_7001.HEIC")
        try tree.copy(LayoutFixtures.liveMovie, to: "live/IMG_7001.MOV")
        try tree.copy(LayoutFixtures.longMovie, to: "clip.mov")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        var styles: [String: Asset.PlaybackStyle] = [:]
        for asset in try library.assets() {
            let name = try #require(asset.primaryResource?.path.lastComponentString)
            styles[name] = asset.playbackStyle
            #expect(JSONShapes.asset(asset).compactText.contains("\"playbackStyle\":\"\(asset.playbackStyle.rawValue)\""))
        }
        #expect(styles == ["still.jpg": .image, "animated.gif": .imageAnimated, "IMG_7001.HEIC": .livePhoto,
                           "clip.mov": .video])
        #expect(Asset.PlaybackStyle.allCases.map(\.rawValue) == ["image", "imageAnimated", "livePhoto", "video", "videoLooping"])
    }
}

extension PathBytes {
    /// The last component as text, for test expectations.
    var lastComponentString: String { String(decoding: lastComponent, as: UTF8.self) }
}

@Suite("Edits and adjustments in the corpus", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct CorpusEditTests {
    static let folder = "osxphotos/tests/test-images/"

    /// The string after `<key>KEY</key>` in an XML property list, read as text: an
    /// independent reading of what the file says.
    static func xmlValue(_ key: String, in text: String) -> String? {
        guard let keyRange = text.range(of: "<key>\(key)</key>") else { return nil }
        let rest = text[keyRange.upperBound...]
        guard let open = rest.firstIndex(of: ">"), let close = rest.range(of: "</") else { return nil }
        let value = rest[rest.index(after: open)..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    @Test("every .AAE of the corpus reads as its text says")
    func everyAAE() throws {
        let media = try #require(Corpus.media)
        let files = Corpus.manifest.compactMap { $0["path"]?.string }.filter { $0.lowercased().hasSuffix(".aae") }
        #expect(files.count >= 5)
        for relative in files {
            let text = try String(contentsOf: media.appendingPathComponent(relative), encoding: .utf8)
            let values = try AdjustmentFile.read(try FileByteSource(path: media.path + "/" + relative))
            #expect(values.formatIdentifier == Self.xmlValue("adjustmentFormatIdentifier", in: text), "\(relative)")
            #expect(values.formatVersion == Self.xmlValue("adjustmentFormatVersion", in: text), "\(relative)")
            #expect(values.editorBundleID == Self.xmlValue("adjustmentEditorBundleID", in: text), "\(relative)")
            let date = Self.xmlValue("adjustmentTimestamp", in: text).flatMap { ISO8601DateFormatter().date(from: $0) }
            #expect(values.timestamp == date?.timeIntervalSince1970, "\(relative)")
        }
    }

    @Test("osxphotos's IMG_1853.HEIC + IMG_E1853.heic + IMG_1853.AAE and wedding.jpg + wedding_edited.jpg + wedding.AAE are two assets")
    func osxphotosLayouts() throws {
        let tree = PairingTree()
        for name in ["IMG_1853.HEIC", "IMG_E1853.heic", "IMG_1853.AAE", "wedding.jpg", "wedding_edited.jpg", "wedding.AAE",
                     "St James Park.AAE"] {
            try tree.copy(LayoutFixtures.media(Self.folder + name), to: name)
        }
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let assets = try library.assets()
        try #require(assets.count == 2)
        #expect(try library.blocking.errors().isEmpty)
        let byName = Dictionary(uniqueKeysWithValues: assets.map { ($0.primaryResource?.path.lastComponentString ?? "", $0) })
        let heic = try #require(byName["IMG_1853.HEIC"]), wedding = try #require(byName["wedding.jpg"])
        #expect(heic.resources.map(\.type.rawValue).sorted() == ["adjustmentData", "fullSizePhoto", "photo"])
        #expect(wedding.resources.map(\.type.rawValue).sorted() == ["adjustmentData", "fullSizePhoto", "photo"])
        #expect(heic.hasAdjustments && wedding.hasAdjustments)
        let text = try String(contentsOf: try #require(Corpus.media).appendingPathComponent(Self.folder + "IMG_1853.AAE"),
                              encoding: .utf8)
        #expect(heic.adjustments?.formatIdentifier == Self.xmlValue("adjustmentFormatIdentifier", in: text))
        #expect(heic.adjustments?.date == Self.xmlValue("adjustmentTimestamp", in: text).flatMap { ISO8601DateFormatter().date(from: $0) })

        // The size and the thumbnail are the edit's: exiftool reads wedding_edited.jpg as
        // 1526×1325 (the original is 2048×1367), and IMG_E1853.heic as 3024×4032 with
        // orientation 1 (IMG_1853.HEIC: 4032×3024, orientation 6).
        let weddingEdit = try LayoutFixtures.size(Self.folder + "wedding_edited.jpg")
        #expect(wedding.pixelWidth == weddingEdit.width && wedding.pixelHeight == weddingEdit.height)
        let cache = ThumbnailCache(directory: URL(fileURLWithPath: tree.folder.file("cache")))
        for (asset, edit) in [(wedding, "wedding_edited.jpg"), (heic, "IMG_E1853.heic")] {
            let size = try LayoutFixtures.size(Self.folder + edit)
            let made = try library.with(cache).blocking.thumbnail(for: asset, size: 128)
            let thumbnail = try #require(ThumbnailTestFiles.jpegSize([UInt8](try made.data())))
            let scale = 128.0 / Double(max(size.width, size.height))
            #expect(thumbnail.width == Int((Double(size.width) * scale).rounded()), "\(edit)")
            #expect(thumbnail.height == Int((Double(size.height) * scale).rounded()), "\(edit)")
        }
    }
}
