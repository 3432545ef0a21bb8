import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex

@Suite("SubtypeClassifier")
struct SubtypeClassifierTests {
    private func image(_ format: MediaFormat = .jpeg, _ change: (inout MediaMetadata) -> Void = { _ in }) -> MediaMetadata {
        var m = MediaMetadata(format: format)
        change(&m)
        return m
    }

    @Test("iOS screenshots by UserComment; Android ones by name only without a camera make")
    func screenshots() {
        #expect(SubtypeClassifier.subtypes(of: image(.png) { $0.userComment = "Screenshot" }, fileName: "IMG_1.PNG") == .screenshot)
        #expect(SubtypeClassifier.subtypes(of: image(.png), fileName: "Screenshot_20240301-101500.png") == .screenshot)
        // A camera photo someone named like a screenshot is not one.
        #expect(SubtypeClassifier.subtypes(of: image { $0.make = "Google" }, fileName: "Screenshot_1.jpg") == [])
        #expect(SubtypeClassifier.subtypes(of: image(.png), fileName: "IMG_1.png") == [])
        #expect(SubtypeClassifier.subtypes(of: image { $0.userComment = "Taken on holiday" }, fileName: nil) == [])
    }

    @Test("panoramas by GPano, or a camera photo at least 2.5:1; a phone's 18:9 to 21:9 frame is not one")
    func panoramas() {
        #expect(SubtypeClassifier.subtypes(of: image { $0.panoramaProjectionType = "equirectangular" }, fileName: nil) == .panorama)
        #expect(SubtypeClassifier.subtypes(of: image { $0.usesPanoramaViewer = true }, fileName: nil) == .panorama)
        let wide = image { $0.make = "Apple"; $0.pixelWidth = 6000; $0.pixelHeight = 1200 }
        #expect(SubtypeClassifier.subtypes(of: wide, fileName: nil) == .panorama)
        let tall = image { $0.make = "Apple"; $0.pixelWidth = 1000; $0.pixelHeight = 2600 }
        #expect(SubtypeClassifier.subtypes(of: tall, fileName: nil) == .panorama)
        // Samsung's full-screen frames (19.5:9 and 18:9), as in the corpus.
        #expect(SubtypeClassifier.subtypes(of: image(.heic) { $0.make = "samsung"; $0.pixelWidth = 4000; $0.pixelHeight = 1848 }, fileName: nil) == [])
        #expect(SubtypeClassifier.subtypes(of: image { $0.make = "samsung"; $0.pixelWidth = 4032; $0.pixelHeight = 2012 }, fileName: nil) == [])
        // A wide banner from no camera, and an ordinary 4:3 photo, are not.
        #expect(SubtypeClassifier.subtypes(of: image { $0.pixelWidth = 1140; $0.pixelHeight = 70 }, fileName: nil) == [])
        #expect(SubtypeClassifier.subtypes(of: image { $0.make = "Canon"; $0.pixelWidth = 4000; $0.pixelHeight = 3000 }, fileName: nil) == [])
    }

    @Test("HDR by gain map, depth effect by depth or matte, selfie by front lens, animated by frames")
    func imageKinds() {
        #expect(SubtypeClassifier.subtypes(of: image(.heic) { $0.hasGainMap = true }, fileName: nil) == .hdr)
        #expect(SubtypeClassifier.subtypes(of: image(.heic) { $0.hasDepth = true }, fileName: nil) == .depthEffect)
        #expect(SubtypeClassifier.subtypes(of: image(.heic) { $0.hasPortraitMatte = true }, fileName: nil) == .depthEffect)
        #expect(SubtypeClassifier.subtypes(of: image { $0.lensModel = "iPhone 5 front camera 2.18mm f/2.4" }, fileName: nil) == .selfie)
        #expect(SubtypeClassifier.subtypes(of: image { $0.lensModel = "iPhone 11 back dual wide camera 4.25mm f/1.8" }, fileName: nil) == [])
        #expect(SubtypeClassifier.subtypes(of: image(.gif) { $0.frameCount = 12; $0.isAnimated = true }, fileName: nil) == .animated)
        #expect(SubtypeClassifier.subtypes(of: image(.gif) { $0.frameCount = 1; $0.isAnimated = false }, fileName: nil) == [])
    }

    @Test("slow motion at 100 fps or more captured; time-lapse below half the playback rate")
    func videoKinds() {
        func video(_ change: (inout MediaMetadata) -> Void) -> MediaMetadata {
            var m = MediaMetadata(format: .quickTime); change(&m); return m
        }
        #expect(SubtypeClassifier.subtypes(of: video { $0.frameRate = 240 }, fileName: nil) == .slomoVideo)
        #expect(SubtypeClassifier.subtypes(of: video { $0.frameRate = 30; $0.captureFrameRate = 240 }, fileName: nil) == .slomoVideo)
        #expect(SubtypeClassifier.subtypes(of: video { $0.frameRate = 30; $0.captureFrameRate = 2 }, fileName: nil) == .timelapseVideo)
        #expect(SubtypeClassifier.subtypes(of: video { $0.frameRate = 30; $0.captureFrameRate = 30 }, fileName: nil) == [])
        #expect(SubtypeClassifier.subtypes(of: video { $0.frameRate = 60 }, fileName: nil) == [])
    }

    @Test("raw by format; a motion photo is a live photo and a motion photo")
    func rawAndMotion() {
        #expect(SubtypeClassifier.subtypes(of: image(.dng), fileName: nil) == .raw)
        let motion = image { $0.motionPhoto = MotionPhotoInfo(videoOffset: 10, videoLength: 5, videoOffsetFromEnd: 5, locatedBy: .microVideoOffset) }
        #expect(SubtypeClassifier.subtypes(of: motion, fileName: nil) == [.livePhoto, .motionPhoto])
    }

    @Test("on the corpus: every UserComment=Screenshot file is a screenshot, and no camera photo is one",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func corpusScreenshots() throws {
        let media = try #require(Corpus.media).path
        var checked = 0
        for (relative, tags) in Corpus.exiftool {
            guard let source = try? FileByteSource(path: media + "/" + relative),
                  let metadata = try? MetadataReader.read(source) else { continue }
            let name = (relative as NSString).lastPathComponent
            let isScreenshot = SubtypeClassifier.subtypes(of: metadata, fileName: name).contains(.screenshot)
            let commented = tags["ExifIFD:UserComment"]?.string == "Screenshot" || tags["XMP-exif:UserComment"]?.string == "Screenshot"
            #expect(isScreenshot == commented, "\(relative)")
            if tags["IFD0:Make"] != nil { #expect(!isScreenshot, "\(relative)") }
            checked += 1
        }
        #expect(checked > 500)
    }
}

@Suite("Burst representatives")
struct BurstRepresentativeTests {
    @Test("exactly one representative per burst: the earliest frame, recomputed when it goes")
    func oneRepresentative() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let writer = try library.requireWriter()
        // Given three frames of one burst, inserted as the indexer would (all representatives by default)
        try writer.transaction { db in
            try db.execute("INSERT INTO roots (id, path, added_at) VALUES (1, X'2F72', 0)")
            for (index, time) in [(1, 300.0), (2, 100.0), (3, 200.0)] {
                try db.execute("""
                    INSERT INTO assets (id, identifier, media_type, creation_timestamp, burst_identifier, fingerprint, added_at, modified_at)
                    VALUES (?, ?, 'image', ?, 'B1', 'f', 0, 0)
                    """, [index, "a\(index)", time])
                try db.execute("""
                    INSERT INTO files (id, root_id, path, size, mtime_ns, inode, status, format, asset_id, role, indexed_at)
                    VALUES (?, 1, ?, 1, 1, 1, 'media', 'jpeg', ?, 'photo', 0)
                    """, [index, Array("/r/\(index).jpg".utf8), index])
            }
        }
        func representatives() throws -> [Int] {
            try writer.write { db in
                try db.rows("SELECT id FROM assets WHERE is_burst_representative = 1 ORDER BY id").compactMap { $0.int("id") }
            }
        }
        // When the pairer runs
        try writer.transaction { db in var pairer = AssetPairer(db: db); _ = try pairer.run(touchedSince: 1) }
        // Then the earliest frame alone stands for the burst
        #expect(try representatives() == [2])

        // When that frame is deleted, the next earliest takes over
        try writer.transaction { db in
            try db.execute("DELETE FROM files WHERE id = 2")
            try db.execute("DELETE FROM assets WHERE id = 2")
            var pairer = AssetPairer(db: db)
            _ = try pairer.run(touchedSince: 1)
        }
        #expect(try representatives() == [3])
    }
}
