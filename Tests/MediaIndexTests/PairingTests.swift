import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex

@Suite("Asset pairing on the corpus", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PairingCorpusTests {
    @Test("every synthetic case of EXPECTED.json holds: pairs, non-pairs, motion photo, RAW+JPEG, subtypes")
    func syntheticExpectations() throws {
        // Given the synthetic cases, indexed
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let synthetic = try #require(Corpus.synthetic).path
        try library.blocking.index(roots: [PathBytes(synthetic)])
        let byPath = try pairingAssetsByPath(library)
        let expected = try pairingCorpusJSON("synthetic/EXPECTED.json")
        func asset(_ relative: String) throws -> Asset { try #require(byPath[synthetic + "/" + relative], "\(relative)") }

        // Then each live pair is one asset with the movie as its paired video
        let livePhotos = try #require(expected["livePhotos"] as? [[String: String]])
        #expect(livePhotos.count == 3)
        for pair in livePhotos {
            let still = try asset(try #require(pair["still"])), movie = try asset(try #require(pair["movie"]))
            #expect(still.id == movie.id, "\(pair)")
            #expect(still.pairingRule?.rawValue == pair["by"])
            #expect(still.mediaType == .image && still.mediaSubtypes.contains(.livePhoto))
            #expect(still.resources.map(\.type) == [.photo, .pairedVideo])
        }
        // And the non-pairs stay two assets, neither a live photo
        let notPaired = try #require(expected["notPaired"] as? [[String]])
        for entry in notPaired {
            guard entry.count == 3 else { Issue.record("bad notPaired entry \(entry)"); continue }
            let (stillPath, moviePath, reason) = (entry[0], entry[1], entry[2])
            let still = try asset(stillPath), movie = try asset(moviePath)
            #expect(still.id != movie.id, "\(reason)")
            #expect(!still.mediaSubtypes.contains(.livePhoto) && still.pairingRule == nil)
            #expect(movie.mediaType == .video && movie.resources.map(\.type) == [.video])
        }
        // And the motion photo is one asset whose embedded video was read in place
        for motion in try #require(expected["motionPhotos"] as? [[String: Any]]) {
            let still = try asset(try #require(motion["file"] as? String))
            let duration = try #require(motion["embeddedVideoDurationSeconds"] as? Double)
            #expect(still.mediaSubtypes.contains(.livePhoto) && still.mediaSubtypes.contains(.motionPhoto))
            #expect(still.pairingRule == .motionPhoto)
            #expect(still.resources.count == 1)
            let video = try #require(still.embeddedVideo)
            #expect(abs((video.duration ?? 0) - duration) < 0.01)
        }
        // And RAW+JPEG is one asset, the JPEG primary
        for entry in try #require(expected["rawPlusJpeg"] as? [[String]]) {
            guard entry.count == 2 else { Issue.record("bad rawPlusJpeg entry \(entry)"); continue }
            let (jpeg, raw) = (entry[0], entry[1])
            let primary = try asset(jpeg), alternate = try asset(raw)
            #expect(primary.id == alternate.id)
            #expect(primary.pairingRule == .rawPlusJpeg)
            #expect(primary.resources.map(\.type) == [.photo, .alternatePhoto])
            #expect(primary.resources.first?.path.displayString.hasSuffix(jpeg) == true)
        }
        // And every listed file has exactly the listed subtypes
        for (relative, names) in try #require(expected["subtypes"] as? [String: [String]]) {
            #expect(try asset(relative).mediaSubtypes.names == names, "\(relative)")
        }
    }

    @Test("every pair of live-pairs.json is found, with no false live pair anywhere in the corpus")
    func realCorpusLivePairs() throws {
        // Given the whole corpus (real files and synthetic cases), indexed
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let root = try #require(Corpus.root).path
        let summary = try library.blocking.index(roots: [PathBytes(root)])

        // The pairs we must find: live-pairs.json's (paths under media/) and the synthetic ones.
        let livePairs = try pairingCorpusJSON("live-pairs.json")
        var expectedPairs = Set<[String]>()
        for pair in try #require(livePairs["pairs"] as? [[String: Any]]) {
            expectedPairs.insert([root + "/media/" + (pair["image"] as? String ?? ""),
                                  root + "/media/" + (pair["video"] as? String ?? "")])
        }
        let realCount = expectedPairs.count
        for pair in try #require(try pairingCorpusJSON("synthetic/EXPECTED.json")["livePhotos"] as? [[String: String]]) {
            expectedPairs.insert([root + "/synthetic/" + (pair["still"] ?? ""), root + "/synthetic/" + (pair["movie"] ?? "")])
        }

        // When we collect every asset with a paired video
        var foundPairs = Set<[String]>()
        var motionPhotos = Set<String>()
        try library.forEachAsset { asset in
            let primary = asset.resources.first { $0.type == .photo || $0.type == .video }
            for movie in asset.resources where movie.type == .pairedVideo {
                foundPairs.insert([primary?.path.displayString ?? "", movie.path.displayString])
            }
            if asset.mediaSubtypes.contains(.motionPhoto), let primary { motionPhotos.insert(primary.path.displayString) }
        }

        // Then they are exactly the expected pairs: all found, none false
        #expect(foundPairs == expectedPairs)
        #expect(summary.paired >= expectedPairs.count)
        print("live pairs: \(foundPairs.intersection(expectedPairs).count) of \(expectedPairs.count) found (\(realCount) real), \(foundPairs.subtracting(expectedPairs).count) false")

        // And the Android motion photos, and only they, are motion photos
        var expectedMotion = Set<String>()
        for entry in try #require(livePairs["android_motion_photos"] as? [[String: Any]]) {
            expectedMotion.insert(root + "/media/" + (entry["path"] as? String ?? ""))
        }
        for entry in try #require(try pairingCorpusJSON("synthetic/EXPECTED.json")["motionPhotos"] as? [[String: Any]]) {
            expectedMotion.insert(root + "/synthetic/" + (entry["file"] as? String ?? ""))
        }
        #expect(motionPhotos == expectedMotion)
        // And stills whose movie is missing stay plain photos
        let byPath = try pairingAssetsByPath(library)
        for orphan in try #require(livePairs["images_with_content_id_but_no_video"] as? [[String: Any]]) {
            let path = root + "/media/" + (orphan["path"] as? String ?? "")
            if let asset = byPath[path] { #expect(!asset.mediaSubtypes.contains(.livePhoto), "\(path)") }
        }
    }

    @Test("the Samsung motion photo's video is the MP4 exiftool extracts, read in place")
    func samsungMotionPhoto() throws {
        let relative = "immich-test-assets/formats/motionphoto/samsung-one-ui-6.heic"
        let reference = try #require(Corpus.exiftool[relative])
        let source = try FileByteSource(path: try #require(Corpus.media).path + "/" + relative)
        let metadata = try #require(try MetadataReader.read(source))
        let motion = try #require(metadata.motionPhoto)
        // exiftool: "(Binary data 3226469 bytes, use -b option to extract)"
        let described = try #require(reference["QuickTime:MotionPhotoVideo"]?.string)
        #expect(described.contains("\(motion.videoLength) bytes"))
        #expect(motion.presentationTimestampUs == reference["XMP-GCamera:MotionPhotoPresentationTimestampUs"]?.number.map { Int64($0) })
        #expect((motion.videoDurationSeconds ?? 0) > 0)
    }
}

@Suite("Asset pairing follows changes", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PairingChangeTests {
    static let still = "synthetic/live-apple/IMG_7001.HEIC"
    static let movie = "synthetic/live-apple/IMG_7001.MOV"
    static let otherMovie = "synthetic/not-a-pair/IMG_7003.MOV"
    static let stemStill = "synthetic/live-stem/IMG_7004.JPG"
    static let stemMovie = "synthetic/live-stem/IMG_7004.MOV"

    private func livePhotoTree() throws -> (PairingTree, MediaLibrary) {
        let tree = PairingTree()
        try tree.copy(Self.still, to: "a/IMG_7001.HEIC")
        try tree.copy(Self.movie, to: "a/IMG_7001.MOV")
        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(summary.paired == 1)
        #expect(try library.assets().count == 1)
        return (tree, library)
    }

    @Test("the second half arriving later pairs, keeping the still's identifier")
    func secondHalfLater() throws {
        let tree = PairingTree()
        try tree.copy(Self.still, to: "a/IMG_7001.HEIC")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let before = try #require(try library.assets().first)
        #expect(!before.mediaSubtypes.contains(.livePhoto))

        try tree.copy(Self.movie, to: "b/IMG_7001.MOV")
        let summary = try library.blocking.index()

        #expect(summary.paired == 1)
        let assets = try library.assets()
        #expect(assets.count == 1)
        #expect(assets.first?.id == before.id)
        #expect(assets.first?.mediaSubtypes.contains(.livePhoto) == true)
        #expect(assets.first?.resources.map(\.type) == [.photo, .pairedVideo])
    }

    @Test("deleting the still leaves the movie as a plain video asset")
    func stillDeleted() throws {
        let (tree, library) = try livePhotoTree()
        try tree.remove("a/IMG_7001.HEIC")
        let summary = try library.blocking.index()

        #expect(summary.unpaired == 1)
        let assets = try library.assets()
        #expect(assets.count == 1)
        let video = try #require(assets.first)
        #expect(video.mediaType == .video)
        #expect(video.mediaSubtypes.isEmpty && video.pairingRule == nil)
        #expect(video.resources.map(\.type) == [.video])
        #expect(AssetIdentifierFactory.isWellFormed(video.id.rawValue))
        let files = try library.read { db in try db.scalarInt("SELECT count(*) FROM files WHERE asset_id IS NULL AND status = 'media'") }
        #expect(files == 0)
    }

    @Test("deleting the movie leaves a plain photo")
    func movieDeleted() throws {
        let (tree, library) = try livePhotoTree()
        let paired = try #require(try library.assets().first)
        try tree.remove("a/IMG_7001.MOV")
        let summary = try library.blocking.index()

        #expect(summary.unpaired == 1)
        let photo = try #require(try library.assets().first)
        #expect(photo.id == paired.id)
        #expect(!photo.mediaSubtypes.contains(.livePhoto) && photo.pairingRule == nil)
        #expect(photo.resources.map(\.type) == [.photo])
    }

    @Test("replacing the movie by one with another identifier unpairs them")
    func movieReplaced() throws {
        let (tree, library) = try livePhotoTree()
        try tree.copy(Self.otherMovie, to: "a/IMG_7001.MOV")
        let summary = try library.blocking.index()

        #expect(summary.unpaired == 1 && summary.paired == 0)
        let assets = try library.assets()
        #expect(assets.count == 2)
        #expect(assets.allSatisfy { !$0.mediaSubtypes.contains(.livePhoto) && $0.resources.count == 1 })
    }

    @Test("moving the movie to another folder keeps a content-identifier pair")
    func movieMoved() throws {
        let (tree, library) = try livePhotoTree()
        try tree.move("a/IMG_7001.MOV", to: "elsewhere/IMG_7001.MOV")
        let summary = try library.blocking.index()

        #expect(summary.moved == 1 && summary.unpaired == 0)
        let assets = try library.assets()
        #expect(assets.count == 1)
        #expect(assets.first?.pairingRule == .contentIdentifier)
        #expect(assets.first?.resources.last?.path.displayString == tree.path("elsewhere/IMG_7001.MOV"))
    }

    @Test("copies of one live photo in several folders pair each still with the movie beside it")
    func copiesPairWithinTheirFolder() throws {
        let tree = PairingTree()
        let folders = ["2019", "backup/2019", "backup-old/2019", "phone/DCIM"]
        for folder in folders {
            try tree.copy(Self.still, to: folder + "/IMG_7001.HEIC")
            try tree.copy(Self.movie, to: folder + "/IMG_7001.MOV")
        }
        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])

        #expect(summary.paired == folders.count)
        let assets = try library.assets()
        #expect(assets.count == folders.count)
        for asset in assets {
            #expect(asset.pairingRule == .contentIdentifier)
            let folders = Set(asset.resources.map { $0.path.displayString.split(separator: "/").dropLast().joined(separator: "/") })
            #expect(folders.count == 1, "a still and its movie come from one folder: \(asset.resources.map(\.path.displayString))")
        }
    }

    @Test("moving a name-paired movie to another folder unpairs it")
    func stemMovieMoved() throws {
        let tree = PairingTree()
        try tree.copy(Self.stemStill, to: "a/IMG_7004.JPG")
        try tree.copy(Self.stemMovie, to: "a/IMG_7004.MOV")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(try library.assets().first?.pairingRule == .sameStemShortMovie)

        try tree.move("a/IMG_7004.MOV", to: "b/IMG_7004.MOV")
        let summary = try library.blocking.index()

        #expect(summary.unpaired == 1)
        #expect(try library.assets().count == 2)
    }

    @Test("a RAW alone keeps the raw subtype; its JPEG arriving makes one RAW+JPEG asset; deleting the RAW leaves the JPEG")
    func rawPlusJpegChanges() throws {
        let tree = PairingTree()
        try tree.copy("synthetic/raw-jpeg/IMG_7008.DNG", to: "r/IMG_7008.DNG")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(try library.assets().first?.mediaSubtypes == [.raw])

        try tree.copy("synthetic/raw-jpeg/IMG_7008.JPG", to: "r/IMG_7008.jpg")
        #expect(try library.blocking.index().paired == 1)
        let pair = try #require(try library.assets().first)
        #expect(try library.assets().count == 1)
        #expect(pair.pairingRule == .rawPlusJpeg && pair.mediaSubtypes == [.raw])
        #expect(pair.resources.map(\.type) == [.photo, .alternatePhoto])

        try tree.remove("r/IMG_7008.DNG")
        #expect(try library.blocking.index().unpaired == 1)
        let jpeg = try #require(try library.assets().first)
        #expect(jpeg.id == pair.id && jpeg.mediaSubtypes.isEmpty && jpeg.pairingRule == nil)
    }
}
