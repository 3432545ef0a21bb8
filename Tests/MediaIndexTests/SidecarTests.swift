import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex

/// A small XMP sidecar with the given values, as photo managers write them.
func sidecarXMP(dateTimeOriginal: String? = nil, latitude: String? = nil, longitude: String? = nil,
                rating: Int? = nil, forExtension: String? = nil) -> String {
    var attributes: [String] = []
    if let dateTimeOriginal { attributes.append("exif:DateTimeOriginal=\"\(dateTimeOriginal)\"") }
    if let latitude { attributes.append("exif:GPSLatitude=\"\(latitude)\"") }
    if let longitude { attributes.append("exif:GPSLongitude=\"\(longitude)\"") }
    if let rating { attributes.append("xmp:Rating=\"\(rating)\"") }
    if let forExtension { attributes.append("photoshop:SidecarForExtension=\"\(forExtension)\"") }
    return """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
            \(attributes.joined(separator: "\n    "))/>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
}

extension PairingTree {
    func write(_ text: String, to name: String) throws {
        try write(Array(text.utf8), to: name)
    }

    func write(_ bytes: [UInt8], to name: String) throws {
        let target = root + "/" + name
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
    }
}

/// The `files` row of a path: status, role, whether attached, error.
private func fileRow(_ library: MediaLibrary, _ path: String) throws -> (status: String?, role: String?, assetID: Int64?, error: String?)? {
    try library.read { db in
        try db.row("SELECT status, role, asset_id, error FROM files WHERE path = ?", [Array(path.utf8)])
    }.map { ($0.string("status"), $0.string("role"), $0.int64("asset_id"), $0.string("error")) }
}

/// exiftool's `2020:01:01 17:28:23` as ISO 8601 without offset: `2020-01-01T17:28:23`.
private func isoDate(exiftool text: String) -> String {
    let parts = text.split(separator: " ", maxSplits: 1)
    guard parts.count == 2 else { return text }
    return parts[0].replacingOccurrences(of: ":", with: "-") + "T" + parts[1]
}

private let pixelJPEG = "ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg"
private let canonJPEG = "ianare-exif-samples/jpg/Canon_40D.jpg"

@Suite("XMP sidecars", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct SidecarTests {
    // MARK: Which file a sidecar describes

    @Test("a real NAME.xmp sidecar attaches to NAME.jpg; its date, location and rating win, as exiftool reads them")
    func realSidecarWins() throws {
        let jpeg = "photoprism/internal/meta/testdata/photoshop.jpg"
        let xmp = "photoprism/internal/meta/testdata/photoshop.xmp"
        let tree = PairingTree()
        try tree.copy("media/" + jpeg, to: "p/photoshop.jpg")
        try tree.copy("media/" + xmp, to: "p/photoshop.xmp")
        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])

        #expect(summary.added == 1 && summary.skipped == 1 && summary.failed == 0)
        let assets = try library.assets()
        #expect(assets.count == 1)
        let asset = try #require(assets.first)
        #expect(asset.resources.map(\.type) == [.photo, .sidecar])
        #expect(asset.resources.last?.path.displayString == tree.path("p/photoshop.xmp"))
        #expect(asset.resources.last?.uniformType?.preferredMIMEType == "application/rdf+xml")

        let sidecar = try #require(Corpus.exiftool[xmp])
        let file = try #require(Corpus.exiftool[jpeg])
        let latitude = try #require(sidecar["XMP-exif:GPSLatitude"]?.number)
        let longitude = try #require(sidecar["XMP-exif:GPSLongitude"]?.number)
        let fileLatitude = try #require(file["Composite:GPSLatitude"]?.number)
        // The two differ in the 8th decimal: the asset must carry the sidecar's.
        #expect(abs(latitude - fileLatitude) > 1e-8)
        #expect(abs((asset.location?.latitude ?? 0) - latitude) < 1e-9)
        #expect(abs((asset.location?.longitude ?? 0) - longitude) < 1e-9)
        #expect(asset.rating == sidecar["XMP-xmp:Rating"]?.number.map { Int($0) })
        // exiftool: XMP-exif:DateTimeOriginal 2020:01:01 17:28:23 (the file adds .899614 subseconds).
        let sidecarDate = try #require(sidecar["XMP-exif:DateTimeOriginal"]?.string)
        // The sidecar's wall clock, with the offset of its position's zone.
        #expect(asset.captureTime?.iso8601.hasPrefix(isoDate(exiftool: sidecarDate)) == true)

        // Deleting the sidecar: the file's values come back.
        try tree.remove("p/photoshop.xmp")
        try library.blocking.index()
        let bare = try #require(try library.assets().first)
        #expect(bare.id == asset.id)
        #expect(bare.resources.map(\.type) == [.photo])
        // The file's own rating (its embedded xmp:Rating) comes back too.
        #expect(bare.rating == file["XMP-xmp:Rating"]?.number.map { Int($0) })
        #expect(abs((bare.location?.latitude ?? 0) - fileLatitude) < 1e-9)
        let subseconds = try #require(file["Composite:SubSecDateTimeOriginal"]?.string)
        #expect(bare.captureTime?.iso8601.hasPrefix("2020-01-01T17:28:23.") == true, "file says \(subseconds)")
    }

    @Test("the real iPhone sidecar beside its HEIC attaches; where both agree the asset keeps those values")
    func realIPhoneSidecar() throws {
        let tree = PairingTree()
        try tree.copy("media/photoprism/assets/examples/iphone_7.heic", to: "i/iphone_7.heic")
        try tree.copy("media/photoprism/assets/examples/iphone_7.xmp", to: "i/iphone_7.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let asset = try #require(try library.assets().first)
        #expect(try library.assets().count == 1)
        #expect(asset.resources.map(\.type) == [.photo, .sidecar])
        let sidecar = try #require(Corpus.exiftool["photoprism/assets/examples/iphone_7.xmp"])
        #expect(abs((asset.location?.latitude ?? 0) - (sidecar["XMP-exif:GPSLatitude"]?.number ?? 0)) < 1e-9)
        #expect(abs((asset.location?.longitude ?? 0) - (sidecar["XMP-exif:GPSLongitude"]?.number ?? 0)) < 1e-9)
        #expect(asset.captureTime?.iso8601.hasPrefix(isoDate(exiftool: sidecar["XMP-exif:DateTimeOriginal"]?.string ?? "")) == true)
    }

    @Test("NAME.EXT.xmp attaches case-insensitively, and wins over NAME.xmp where both say something")
    func exactNameForm() throws {
        let tree = PairingTree()
        try tree.copy("media/" + pixelJPEG, to: "x/IMG_1.JPG")
        try tree.write(sidecarXMP(rating: 5), to: "x/img_1.jpg.XMP")
        try tree.write(sidecarXMP(latitude: "10.5", longitude: "20.25", rating: 1), to: "x/IMG_1.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])

        let asset = try #require(try library.assets().first)
        #expect(try library.assets().count == 1)
        #expect(asset.resources.map(\.type) == [.photo, .sidecar, .sidecar])
        #expect(asset.rating == 5)
        // The exact-name sidecar has no location: the stem sidecar's fills it.
        #expect(asset.location?.latitude == 10.5 && asset.location?.longitude == 20.25)
    }

    @Test("several files with the stem: the sidecar goes to the still's asset, or to the file SidecarForExtension names")
    func sharedStem() throws {
        let tree = PairingTree()
        // A still and a movie with the same stem that do not pair (their identifiers differ).
        try tree.copy(PairingChangeTests.still, to: "s/IMG_7001.HEIC")
        try tree.copy(PairingChangeTests.otherMovie, to: "s/IMG_7001.MOV")
        try tree.write(sidecarXMP(rating: 2), to: "s/IMG_7001.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        var byPath = try pairingAssetsByPath(library)
        #expect(try library.assets().count == 2)
        let still = try #require(byPath[tree.path("s/IMG_7001.HEIC")])
        let movie = try #require(byPath[tree.path("s/IMG_7001.MOV")])
        #expect(still.rating == 2 && still.resources.map(\.type) == [.photo, .sidecar])
        #expect(movie.rating == nil && movie.resources.map(\.type) == [.video])

        // The sidecar says it is the movie's.
        try tree.write(sidecarXMP(rating: 4, forExtension: "mov"), to: "s/IMG_7001.xmp")
        try library.blocking.index()
        byPath = try pairingAssetsByPath(library)
        #expect(byPath[tree.path("s/IMG_7001.MOV")]?.rating == 4)
        #expect(byPath[tree.path("s/IMG_7001.MOV")]?.resources.map(\.type) == [.video, .sidecar])
        #expect(byPath[tree.path("s/IMG_7001.HEIC")]?.rating == nil)
        #expect(byPath[tree.path("s/IMG_7001.HEIC")]?.id == still.id)
    }

    @Test("a live photo and a RAW+JPEG pair take their stem's sidecar as one asset")
    func pairedAssets() throws {
        let tree = PairingTree()
        try tree.copy(PairingChangeTests.stemStill, to: "l/IMG_7004.JPG")
        try tree.copy(PairingChangeTests.stemMovie, to: "l/IMG_7004.MOV")
        try tree.write(sidecarXMP(rating: 3), to: "l/IMG_7004.xmp")
        try tree.copy("synthetic/raw-jpeg/IMG_7008.DNG", to: "r/IMG_7008.DNG")
        try tree.copy("synthetic/raw-jpeg/IMG_7008.JPG", to: "r/IMG_7008.jpg")
        try tree.write(sidecarXMP(rating: 1), to: "r/IMG_7008.DNG.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])

        let assets = try library.assets()
        #expect(assets.count == 2)
        let byPath = try pairingAssetsByPath(library)
        let live = try #require(byPath[tree.path("l/IMG_7004.JPG")])
        #expect(live.resources.map(\.type) == [.photo, .pairedVideo, .sidecar])
        #expect(live.rating == 3)
        let raw = try #require(byPath[tree.path("r/IMG_7008.jpg")])
        #expect(raw.resources.map(\.type) == [.photo, .alternatePhoto, .sidecar])
        #expect(raw.rating == 1)

        // The RAW's JPEG deleted: the pair dissolves, the RAW's own asset takes its sidecar.
        try tree.remove("r/IMG_7008.jpg")
        try library.blocking.index()
        let alone = try #require(try pairingAssetsByPath(library)[tree.path("r/IMG_7008.DNG")])
        #expect(alone.resources.map(\.type) == [.photo, .sidecar])
        #expect(alone.rating == 1)
    }

    // MARK: Changes

    @Test("a lone sidecar is recorded, not an asset nor an error, and attaches when its media file arrives")
    func loneSidecarWaits() throws {
        let tree = PairingTree()
        try tree.write(sidecarXMP(latitude: "48,51.504N", longitude: "2,17.4E", rating: 3), to: "w/photo.xmp")
        let library = try MediaLibrary(location: tree.library)
        let first = try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(first.added == 0 && first.failed == 0 && first.skipped == 1)
        #expect(try library.assets().isEmpty)
        #expect(try library.blocking.errors().isEmpty)
        let row = try #require(try fileRow(library, tree.path("w/photo.xmp")))
        #expect(row.status == "ignored" && row.role == "sidecar" && row.assetID == nil)
        #expect(try library.blocking.index().unchanged == 1)

        let token = try library.blocking.currentChangeToken()
        try tree.copy("media/" + canonJPEG, to: "w/photo.jpg")
        try library.blocking.index()
        let asset = try #require(try library.assets().first)
        #expect(asset.resources.map(\.type) == [.photo, .sidecar])
        #expect(asset.rating == 3)
        #expect(abs((asset.location?.latitude ?? 0) - (48 + 51.504 / 60)) < 1e-9)
        #expect(abs((asset.location?.longitude ?? 0) - (2 + 17.4 / 60)) < 1e-9)
        // A new asset is reported once, as inserted, already with the sidecar's values.
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.inserted])
    }

    @Test("a sidecar added, edited and deleted later updates the asset, reports the fields, keeps the identifier")
    func sidecarLifecycle() throws {
        let tree = PairingTree()
        try tree.copy("media/" + canonJPEG, to: "c/IMG_2.jpg")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let plain = try #require(try library.assets().first)
        #expect(plain.rating == nil)

        // Added.
        var token = try library.blocking.currentChangeToken()
        try tree.write(sidecarXMP(dateTimeOriginal: "2001-02-03T04:05:06", latitude: "-33.5", longitude: "151.25",
                                  rating: 4), to: "c/IMG_2.jpg.xmp")
        try library.blocking.index()
        let rated = try #require(try library.assets().first)
        #expect(rated.id == plain.id && rated.revision == plain.revision)
        // The wall clock as recorded, with the offset of the sidecar's position (Sydney) when places are on.
        #expect(rated.rating == 4 && rated.captureTime?.iso8601.hasPrefix("2001-02-03T04:05:06") == true)
        #expect(rated.location?.latitude == -33.5 && rated.location?.longitude == 151.25)
        #expect(rated.resources.map(\.type) == [.photo, .sidecar])
        var changes = try library.blocking.changes(since: token).changes
        #expect(changes.count == 1)
        #expect(changes.first?.kind == .updated && changes.first?.id == plain.id)
        let placed: Set<Asset.Field> = placesInstalled ? ["place", "timeZone", "captureOffset", "captureOffsetSource"] : []
        #expect(Set(changes.first?.fields ?? []) == Set(["creationDate", "location", "rating"]).union(placed))

        // The media file touched, then edited in place: its sidecar's values stay, nothing else is reported.
        token = try library.blocking.currentChangeToken()
        let jpegPath = tree.path("c/IMG_2.jpg")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: jpegPath)
        #expect(try library.blocking.index().opened == 1)
        #expect(try library.blocking.changes(since: token).changes.isEmpty)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: jpegPath)))
        bytes += [0, 0, 0, 0]  // after the JPEG's end: same picture, new content
        try Data(bytes).write(to: URL(fileURLWithPath: jpegPath))
        try library.blocking.index()
        let edited = try #require(try library.assets().first)
        #expect(edited.id == plain.id && edited.revision == plain.revision + 1)
        #expect(edited.rating == 4 && edited.captureTime?.iso8601 == rated.captureTime?.iso8601 && edited.location == rated.location)
        changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated] && changes.first?.fields == ["revision"])

        // Edited: only the rating changes.
        token = try library.blocking.currentChangeToken()
        try tree.write(sidecarXMP(dateTimeOriginal: "2001-02-03T04:05:06", latitude: "-33.5", longitude: "151.25",
                                  rating: 1), to: "c/IMG_2.jpg.xmp")
        try library.blocking.index()
        #expect(try library.assets().first?.rating == 1)
        changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated] && changes.first?.fields == ["rating"])

        // Deleted: the file's own values again.
        token = try library.blocking.currentChangeToken()
        try tree.remove("c/IMG_2.jpg.xmp")
        try library.blocking.index()
        let back = try #require(try library.assets().first)
        #expect(back.id == plain.id)
        #expect(back.rating == nil && back.captureTime?.iso8601 == plain.captureTime?.iso8601 && back.location == plain.location)
        #expect(back.resources.map(\.type) == [.photo])
        changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated])
    }

    @Test("deleting the media file deletes its asset and leaves the sidecar recorded, unattached")
    func mediaDeleted() throws {
        let tree = PairingTree()
        try tree.copy("media/" + canonJPEG, to: "d/a.jpg")
        try tree.write(sidecarXMP(rating: 2), to: "d/a.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let asset = try #require(try library.assets().first)
        let token = try library.blocking.currentChangeToken()

        try tree.remove("d/a.jpg")
        let summary = try library.blocking.index()
        #expect(summary.removed == 1)
        #expect(try library.assets().isEmpty)
        #expect(try library.blocking.changes(since: token).changes.map(\.kind) == [.deleted])
        let row = try #require(try fileRow(library, tree.path("d/a.xmp")))
        #expect(row.role == "sidecar" && row.assetID == nil)

        // The same content back: the same identifier (from its tombstone), the sidecar attached again.
        try tree.copy("media/" + canonJPEG, to: "d/a.jpg")
        try library.blocking.index()
        let again = try #require(try library.assets().first)
        #expect(again.id == asset.id && again.rating == 2)
    }

    @Test("a sidecar never changes an identifier: a library rebuilt from scratch gives the same ones")
    func identifiersFollowContent() throws {
        let tree = PairingTree()
        try tree.copy("media/" + canonJPEG, to: "k/a.jpg")
        let plainLibrary = try MediaLibrary(location: LibraryLocation(directory: tree.folder.file("plain")))
        try plainLibrary.blocking.index(roots: [PathBytes(tree.root)])
        let plainID = try #require(try plainLibrary.assets().first?.id)

        try tree.write(sidecarXMP(rating: 5), to: "k/a.xmp")
        try tree.write(sidecarXMP(rating: 1), to: "k/a.jpg.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(try library.assets().map(\.id) == [plainID])
        try plainLibrary.blocking.index()
        #expect(try plainLibrary.assets().map(\.id) == [plainID])
        #expect(try plainLibrary.assets().first?.rating == 1)
    }

    @Test("moving the media file to another folder detaches the sidecar left behind")
    func mediaMovedAway() throws {
        let tree = PairingTree()
        try tree.copy("media/" + canonJPEG, to: "m/a.jpg")
        try tree.write(sidecarXMP(rating: 3), to: "m/a.xmp")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let before = try #require(try library.assets().first)
        #expect(before.rating == 3)

        try tree.move("m/a.jpg", to: "n/a.jpg")
        try library.blocking.index()
        let after = try #require(try library.assets().first)
        #expect(after.id == before.id)
        #expect(after.rating == nil && after.resources.map(\.type) == [.photo])
        #expect(try fileRow(library, tree.path("m/a.xmp"))?.assetID == nil)
    }

    // MARK: Hostile sidecars

    @Test("a malformed or huge sidecar never fails its media file; it gives what it can")
    func hostileSidecars() throws {
        let tree = PairingTree()
        try tree.copy("media/" + canonJPEG, to: "h/a.jpg")
        try tree.write([0x3C, 0x78, 0xFF, 0x00, 0x3C] + Array(repeating: 0x3C, count: 5000), to: "h/a.xmp")
        try tree.copy("media/" + pixelJPEG, to: "h/b.jpg")
        // A valid packet followed by 5 MiB of padding: only the first 4 MiB are read.
        var huge = Array(sidecarXMP(rating: 4).utf8)
        huge += Array(repeating: 0x20, count: 5 << 20)
        try tree.write(huge, to: "h/b.xmp")
        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])

        #expect(summary.added == 2 && summary.failed == 0)
        #expect(try library.blocking.errors().isEmpty)
        let byPath = try pairingAssetsByPath(library)
        #expect(byPath[tree.path("h/a.jpg")]?.resources.map(\.type) == [.photo, .sidecar])
        #expect(byPath[tree.path("h/a.jpg")]?.rating == nil)
        #expect(byPath[tree.path("h/b.jpg")]?.rating == 4)
    }

    @Test("a sidecar that cannot be read is an error on its own row; its media file's asset is untouched (under root, checked as nobody)")
    func unreadableSidecar() throws {
        let tree = PairingTree()
        try tree.copy("media/" + canonJPEG, to: "u/a.jpg")
        try tree.write(sidecarXMP(rating: 4), to: "u/a.xmp")
        if getuid() == 0 { return try unreadableSidecarAsNobody(tree) }
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(try library.assets().first?.rating == 4)

        try Self.makeUnreadable(tree.path("u/a.xmp"))
        defer { chmod(tree.path("u/a.xmp"), 0o644) }
        try library.blocking.index()
        let errors = try library.blocking.errors()
        #expect(errors.map(\.path.displayString) == [tree.path("u/a.xmp")])
        let asset = try #require(try library.assets().first)
        #expect(asset.rating == nil && asset.resources.map(\.type) == [.photo])
    }

    /// Mode 000 and a new modification time: a mode change alone leaves size, mtime and
    /// inode as they were, and the indexer does not reopen an unchanged file.
    static func makeUnreadable(_ path: String) throws {
        chmod(path, 0)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: path)
    }

    /// Root reads mode-000 files, so the built binary runs as `nobody` (see `FaultSupport.runAsNobody`).
    private func unreadableSidecarAsNobody(_ tree: PairingTree) throws {
        chmod(tree.folder.path, 0o755)
        let home = tree.folder.file("nobody")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chmod(home, 0o777)
        guard let help = try FaultSupport.runAsNobody(["--help"], in: tree.folder), help.status == 0 else {
            print("unreadable sidecar: running as root and `nobody` cannot run the built binary; not checked")
            return
        }
        let asNobody = { (arguments: [String]) in
            try #require(try FaultSupport.runAsNobody(arguments + ["--library", home + "/library"], in: tree.folder))
        }
        let first = try asNobody(["index", "--quiet", "--cache", home + "/cache", tree.root])
        #expect(first.status == 0, "\(first.stderr)")
        try Self.makeUnreadable(tree.path("u/a.xmp"))
        defer { chmod(tree.path("u/a.xmp"), 0o644) }
        let second = try asNobody(["index", "--quiet", "--cache", home + "/cache"])
        #expect(second.status == 0, "\(second.stderr)")
        let errors = try asNobody(["errors", "--json"])
        let errorPaths = (try JSONSerialization.jsonObject(with: Data(errors.stdout.utf8)) as? [[String: Any]])?
            .compactMap { $0["path"] as? String }
        #expect(errorPaths == [tree.path("u/a.xmp")], "\(errors.stdout)")
        let shown = try asNobody(["show", tree.path("u/a.jpg"), "--json"])
        let asset = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any],
                                 "\(shown.stdout) \(shown.stderr)")
        #expect(asset["rating"] == nil || asset["rating"] is NSNull)
        let roles = (asset["resources"] as? [[String: Any]])?.compactMap { $0["role"] as? String }
        #expect(roles == ["photo"])
    }

    @Test("a sidecar whose read fails is a failed outcome with one sentence, never a thrown error")
    func failingReadIsAnOutcome() {
        struct FailingSource: ByteSource {
            var size: UInt64 { 100 }
            func read(at offset: UInt64, count: Int) throws -> [UInt8] { throw MetadataError.io("the disk went away") }
        }
        guard case .failed(let message) = FileReader.readSidecar(FailingSource(), path: PathBytes("/x/a.xmp")) else {
            Issue.record("a failing read gave no failure")
            return
        }
        #expect(message.contains("the disk went away"))
    }
}

@Suite("XMP sidecars in the corpus", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct SidecarCorpusTests {
    @Test("every corpus sidecar beside a media file of its name is attached to that file's asset; none is an asset or error")
    func corpusSidecars() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let media = try #require(Corpus.media).path
        try library.blocking.index(roots: [PathBytes(media)])
        var assetByPath: [String: Asset] = [:]
        try library.forEachAsset { asset in for r in asset.resources { assetByPath[r.path.displayString] = asset } }
        let errors = Set(try library.blocking.errors().map(\.path.displayString))

        let sidecars = Corpus.manifest.compactMap { $0["path"]?.string }.filter { $0.lowercased().hasSuffix(".xmp") }
        #expect(sidecars.count >= 10)
        var attached = 0
        for relative in sidecars {
            let path = media + "/" + relative
            #expect(!errors.contains(path), "\(relative) is an error")
            let described = String(relative.dropLast(4)).lowercased()
            let folderPrefix = (relative as NSString).deletingLastPathComponent + "/"
            // Media files of the corpus in its folder that it names (NAME.EXT.xmp or NAME.xmp).
            let partners = Corpus.manifest.compactMap { $0["path"]?.string }.filter { other in
                guard other.hasPrefix(folderPrefix), !other.lowercased().hasSuffix(".xmp"),
                      assetByPath[media + "/" + other] != nil else { return false }
                let name = other.lowercased()
                return name == described || (name as NSString).deletingPathExtension == described
            }
            if let partner = partners.first {
                attached += 1
                let asset = try #require(assetByPath[media + "/" + partner])
                #expect(asset.resources.contains { $0.type == .sidecar && $0.path.displayString == path },
                        "\(relative) is not attached to \(partner)")
                #expect(asset.resources.filter { $0.type != .sidecar }.map(\.path.displayString).contains(media + "/" + partner))
            } else {
                #expect(assetByPath[path] == nil, "\(relative) is attached though no media file has its name")
            }
        }
        #expect(attached >= 3)
        print("corpus sidecars: \(attached) of \(sidecars.count) attached")
    }
}

@Suite("A file's own star rating and its sidecar's")
struct FileRatingTests {
    @Test("a photo's EXIF rating is its asset's until an XMP sidecar gives one, and again once the sidecar is gone",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func sidecarRatingWinsOverTheFiles() throws {
        let relative = "metadata-extractor-images/jpg/Issue 80.jpg"
        let reference = try #require(Corpus.exiftool[relative]?["IFD0:Rating"]?.number).rounded()
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("media"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try #require(Corpus.media).appendingPathComponent(relative).path,
                                         toPath: folder.file("media/rated.jpg"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(folder.file("media"))])
        let original = try #require(try library.assets().first)
        #expect(original.rating.map(Double.init) == reference)

        var token = try library.blocking.currentChangeToken()
        try sidecarXMP(rating: 1).write(toFile: folder.file("media/rated.jpg.xmp"), atomically: true, encoding: .utf8)
        try library.blocking.index()
        let rated = try #require(try library.assets().first)
        #expect(rated.id == original.id && rated.rating == 1)
        #expect(try library.blocking.changes(since: token).changes.first?.fields == [.rating])

        token = try library.blocking.currentChangeToken()
        try FileManager.default.removeItem(atPath: folder.file("media/rated.jpg.xmp"))
        try library.blocking.index()
        #expect(try library.assets().first?.rating.map(Double.init) == reference)
        #expect(try library.blocking.changes(since: token).changes.contains { $0.kind == .updated && $0.fields == [.rating] })
    }
}
