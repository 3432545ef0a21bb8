import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex

// Google Takeout's layout, as these tests build it. Sources for the forms modelled:
// - immich-go, `adapters/googlePhotos/matchers.go` and `matcher_test.go` (simulot/immich-go):
//   `DSC_0101.JPG(1).json` ↔ `DSC_0101(1).JPG`, names cut to 46 characters
//   (`…_27214_n.j(1).json`, `….ORIGIN.json`), `DSC_0104.JPG.json` not for `DSC_0104(1).JPG`;
// - ente pull request #4956 (ente/ente): `NAME.supplemental-metadata.json`, with
//   `NAME.supplemental-metadata` cut to 46 characters, `.json` never cut, the `(1)` counter
//   after the cut (`IMG_1234.jpg.supplemental-metadata(1).json`); #12691: the suffix not cut;
// - GooglePhotosTakeoutHelper #353/#448 and its fork's #29: `.supplemen.json`, `.suppl.json`,
//   `..json`; `-edited` copies (and `-bearbeitet`, `-modifié`, …) have no JSON of their own;
// - Takeout's JSON itself (as quoted in those threads): `photoTakenTime.timestamp` a string of
//   UTC seconds, `geoData`/`geoDataExif` with `0.0` for "no location", `favorited: true`,
//   and an album folder's `metadata.json` with its `title`.

/// A media file's JSON, as Takeout writes it (text, its field order and string timestamps).
func takeoutJSON(title: String, timestamp: Int? = nil, latitude: Double = 0, longitude: Double = 0,
                 exifLatitude: Double = 0, exifLongitude: Double = 0, description: String = "",
                 favorited: Bool = false) -> String {
    var fields = [
        "  \"title\": \"\(title)\"",
        "  \"description\": \"\(description)\"",
        "  \"imageViews\": \"3\"",
        "  \"creationTime\": {\n    \"timestamp\": \"1700000000\",\n    \"formatted\": \"Nov 14, 2023, 10:13:20 PM UTC\"\n  }",
    ]
    if let timestamp {
        fields.append("  \"photoTakenTime\": {\n    \"timestamp\": \"\(timestamp)\",\n    \"formatted\": \"(as Takeout formats it)\"\n  }")
    }
    fields.append("  \"geoData\": {\n    \"latitude\": \(latitude),\n    \"longitude\": \(longitude),\n    \"altitude\": 0.0,\n    \"latitudeSpan\": 0.0,\n    \"longitudeSpan\": 0.0\n  }")
    fields.append("  \"geoDataExif\": {\n    \"latitude\": \(exifLatitude),\n    \"longitude\": \(exifLongitude),\n    \"altitude\": 0.0,\n    \"latitudeSpan\": 0.0,\n    \"longitudeSpan\": 0.0\n  }")
    if favorited { fields.append("  \"favorited\": true") }
    fields.append("  \"url\": \"https://photos.google.com/photo/AF1Qip\"")
    fields.append("  \"googlePhotosOrigin\": {\n    \"mobileUpload\": {\n      \"deviceType\": \"ANDROID_PHONE\"\n    }\n  }")
    return "{\n" + fields.joined(separator: ",\n") + "\n}"
}

/// The UTC instant of a Unix timestamp as ISO 8601 (`2015-03-01T17:00:00Z`), by Foundation.
private func utcISO(_ timestamp: Int) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(timestamp)))
}

/// exiftool, for making fixtures only: nil when it is not installed.
private let exiftoolPath: String? = {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let candidate = String(folder) + "/exiftool"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}()

private var canMakeFixtures: Bool { Corpus.isAvailable && (exiftoolPath != nil || Corpus.isCI) }

/// Runs exiftool on a fixture (it must succeed).
private func exiftool(_ arguments: [String]) throws {
    let exiftool = try #require(exiftoolPath, "exiftool is needed to make the fixtures")
    let outcome = try ExternalTool.outcome(exiftool, ["-q", "-q", "-overwrite_original"] + arguments)
    try #require(outcome.exitStatus == 0, "exiftool \(arguments.joined(separator: " ")) failed: \(outcome.standardErrorText)")
}

/// exiftool's Google.jpg: DateTimeOriginal 2023:10:06 22:53:51 +02:00, GPS 40.40, -3.71.
private let googleJPEG = "exiftool-t-images/t/images/Google.jpg"

extension PairingTree {
    /// A copy of `googleJPEG` with every tag stripped, as Takeout strips some files;
    /// `variant` goes into a JPEG comment so that copies differ in content.
    func strippedJPEG(to name: String, variant: String) throws {
        try copy("media/" + googleJPEG, to: name)
        try exiftool(["-all=", "-Comment=\(variant)", path(name)])
    }
}

@Suite("Google Takeout JSON names")
struct TakeoutNameTests {
    @Test("IMG_1234.jpg has IMG_1234.jpg.json and IMG_1234.jpg.supplemental-metadata.json, full form first")
    func plainForms() {
        let keys = TakeoutSidecar.metadataKeys(forMediaName: "IMG_1234.jpg")
        #expect(keys.first == "img_1234.jpg.supplemental-metadata")
        #expect(keys.contains("img_1234.jpg"))
        #expect(keys.contains("img_1234"))
    }

    @Test("NAME.supplemental-metadata is cut to 46 characters: ….supplemental-, ….supplemen, ….suppl, ….")
    func cutForms() {
        // 46 − 14 = 32 characters of name leave `.supplemental-`; 36 leave `.supplemen`; 40 `.suppl`; 45 `.`.
        for (length, suffix) in [(32, ".supplemental-"), (36, ".supplemen"), (40, ".suppl"), (45, ".")] {
            let name = String(repeating: "a", count: length - 4) + ".jpg"
            #expect(name.count == length)
            #expect(TakeoutSidecar.metadataKeys(forMediaName: name).contains(name + suffix), "\(length): \(suffix)")
        }
    }

    @Test("a name longer than 46 characters is cut itself (immich-go's #613 and LONG_EXPOSURE examples)")
    func longNames() {
        #expect(TakeoutSidecar.metadataKeys(forMediaName: "13039_327707840323_537645323_9470255_27214_n(1).jpg")
            .contains("13039_327707840323_537645323_9470255_27214_n.j(1)"))
        #expect(TakeoutSidecar.metadataKeys(forMediaName: "PXL_20230809_203449253.LONG_EXPOSURE-02.ORIGINA.jpg")
            .contains("pxl_20230809_203449253.long_exposure-02.origin"))
        #expect(TakeoutSidecar.metadataKeys(forMediaName: "05yqt21kruxwwlhhgrwrdyb6chhwszi9bqmzu16w0 2.jpg")
            .contains("05yqt21kruxwwlhhgrwrdyb6chhwszi9bqmzu16w0 2.jp"))
    }

    @Test("the (1) counter moves after the cut: IMG_1234(1).jpg ↔ IMG_1234.jpg(1).json and ….supplemental-metadata(1).json")
    func counters() {
        let keys = TakeoutSidecar.metadataKeys(forMediaName: "IMG_1234(1).jpg")
        #expect(keys.contains("img_1234.jpg(1)"))
        #expect(keys.contains("img_1234.jpg.supplemental-metadata(1)"))
        #expect(!keys.contains("img_1234.jpg"))
        // immich-go: DSC_0103.JPG(1).json is not DSC_0103.JPG's, DSC_0104.JPG.json not DSC_0104(1).JPG's.
        #expect(!TakeoutSidecar.metadataKeys(forMediaName: "DSC_0103.JPG").contains("dsc_0103.jpg(1)"))
        #expect(!TakeoutSidecar.metadataKeys(forMediaName: "DSC_0104(1).JPG").contains("dsc_0104.jpg"))
        #expect(!TakeoutSidecar.metadataKeys(forMediaName: "DSC_0102(1).JPG").contains("dsc_0102.jpg(2)"))
    }

    @Test("edited copies name their original: -edited, -bearbeitet, -modifié, with a counter")
    func editedNames() {
        #expect(TakeoutSidecar.originalName(ofEdited: "IMG_1234-edited.jpg") == "IMG_1234.jpg")
        #expect(TakeoutSidecar.originalName(ofEdited: "IMG_1234-EDITED.JPG") == "IMG_1234.JPG")
        #expect(TakeoutSidecar.originalName(ofEdited: "IMG_1234-bearbeitet.jpg") == "IMG_1234.jpg")
        #expect(TakeoutSidecar.originalName(ofEdited: "PXL_20220405_090123740.PORTRAIT-modifié.jpg")
            == "PXL_20220405_090123740.PORTRAIT.jpg")
        #expect(TakeoutSidecar.originalName(ofEdited: "IMG_1234-edited(1).jpg") == "IMG_1234(1).jpg")
        #expect(TakeoutSidecar.originalName(ofEdited: "IMG_1234.jpg") == nil)
        #expect(TakeoutSidecar.originalName(ofEdited: "-edited.jpg") == nil)
    }
}

@Suite("Google Takeout JSON values")
struct TakeoutValueTests {
    private func media(_ text: String, name: String = "IMG_1.jpg.json") throws -> TakeoutValues {
        guard case .media(let values) = try TakeoutSidecar.parse(Array(text.utf8), name: name) else {
            Issue.record("not read as a media file's JSON")
            return TakeoutValues()
        }
        return values
    }

    @Test("reads photoTakenTime (UTC), geoData, title, description and favorited")
    func fields() throws {
        let values = try media(takeoutJSON(title: "IMG_1.jpg", timestamp: 1425229200, latitude: 48.8584, longitude: 2.2945,
                                           description: "Tour Eiffel", favorited: true))
        #expect(values.takenTimestamp == 1425229200)
        #expect(values.captureDate?.iso8601 == utcISO(1425229200))
        #expect(values.captureDate?.utcOffsetSeconds == 0)
        #expect(values.location?.latitude == 48.8584 && values.location?.longitude == 2.2945)
        #expect(values.title == "IMG_1.jpg")
        #expect(values.description == "Tour Eiffel")
        #expect(values.favorited == true)
        #expect(values.warnings.isEmpty)
    }

    @Test("geoData 0,0 is no location: geoDataExif fills it; both 0,0 is none")
    func zeroLocation() throws {
        let exif = try media(takeoutJSON(title: "a.jpg", timestamp: 1, exifLatitude: -33.8568, exifLongitude: 151.2153))
        #expect(exif.location?.latitude == -33.8568 && exif.location?.longitude == 151.2153)
        let none = try media(takeoutJSON(title: "a.jpg", timestamp: 1))
        #expect(none.location == nil)
        #expect(none.description == nil)
        #expect(none.favorited == nil)
    }

    @Test("fields of the wrong type are ignored with a warning, never a crash")
    func wrongTypes() throws {
        let values = try media("""
            {"title": 12, "description": ["x"], "photoTakenTime": {"timestamp": "soon"},
             "geoData": "Paris", "geoDataExif": {"latitude": 95, "longitude": 10}, "favorited": "true"}
            """)
        #expect(values.takenTimestamp == nil && values.location == nil && values.title == nil)
        #expect(values.description == nil && values.favorited == nil)
        #expect(values.warnings.count == 6)
        #expect(values.warnings.allSatisfy { $0.hasPrefix("Google Takeout JSON: `") })
        // A number where Takeout writes a string is still the timestamp.
        #expect(try media(#"{"photoTakenTime": {"timestamp": 1425229200}}"#).takenTimestamp == 1425229200)
        // `favorited: 1` is not `true`.
        #expect(try media(#"{"photoTakenTime": {"timestamp": "1"}, "favorited": 1}"#).favorited == nil)
    }

    @Test("truncated, huge and deeply nested JSON is refused with one sentence")
    func hostile() throws {
        let whole = takeoutJSON(title: "IMG_1.jpg", timestamp: 1425229200)
        #expect(throws: TakeoutSidecarError.self) {
            try TakeoutSidecar.parse(Array(whole.utf8.prefix(whole.utf8.count / 2)), name: "IMG_1.jpg.json")
        }
        let huge = MemoryByteSource(Array(repeating: UInt8(ascii: " "), count: TakeoutSidecar.maxBytes + 1))
        #expect(throws: TakeoutSidecarError.self) { try TakeoutSidecar.read(huge, name: "IMG_1.jpg.json") }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        do {
            _ = try TakeoutSidecar.parse(Array(deep.utf8), name: "IMG_1.jpg.json")
            Issue.record("deep nesting was accepted")
        } catch let error as TakeoutSidecarError {
            #expect(error.description == "the Google Takeout JSON nests deeper than 32 levels")
        }
        // Brackets inside strings are text, not nesting.
        let quoted = #"{"title": "\#(String(repeating: "[", count: 100))\"", "photoTakenTime": {"timestamp": "5"}}"#
        #expect(try media(quoted).takenTimestamp == 5)
        #expect(TakeoutSidecarError.notJSON.description.contains("not valid JSON"))
    }

    @Test("an album's metadata.json gives its title; other JSON is not Takeout's")
    func albumAndOther() throws {
        let album = #"{"title": "Trip to Rome", "description": "", "access": "protected", "date": {"timestamp": "1425229200", "formatted": "…"}}"#
        #expect(try TakeoutSidecar.parse(Array(album.utf8), name: "metadata.json") == .album(TakeoutAlbumValues(title: "Trip to Rome")))
        let older = #"{"albumData": {"title": "Rome", "date": {"timestamp": "1"}}}"#
        #expect(try TakeoutSidecar.parse(Array(older.utf8), name: "metadata.json") == .album(TakeoutAlbumValues(title: "Rome")))
        #expect(try TakeoutSidecar.parse(Array(#"{"name": "my-app", "version": "1.0"}"#.utf8), name: "package.json") == .other)
        #expect(try TakeoutSidecar.parse(Array("[1, 2]".utf8), name: "list.json") == .other)
    }
}

@Suite("Google Takeout layout", .enabled(if: canMakeFixtures, "needs the corpus and exiftool (\(Corpus.missingMessage))"))
struct TakeoutLayoutTests {
    /// The asset holding the file at `name` in the tree.
    private func asset(_ byPath: [String: Asset], _ tree: PairingTree, _ name: String) throws -> Asset {
        try #require(byPath[tree.path(name)], "no asset holds \(name)")
    }

    @Test("every name form Takeout writes attaches its JSON, which fills the date and place of a stripped file")
    func everyNameForm() throws {
        let tree = PairingTree()
        let folder = "Takeout/Google Photos/Photos from 2015/"
        let long32 = String(repeating: "a", count: 28) + ".jpg", long36 = String(repeating: "b", count: 32) + ".jpg"
        let long40 = String(repeating: "c", count: 36) + ".jpg", long50 = String(repeating: "d", count: 46) + ".jpg"
        // media name → its JSON's name, as Takeout writes it.
        let forms: [(media: String, json: String)] = [
            ("IMG_1001.jpg", "IMG_1001.jpg.json"),
            ("IMG_1002.jpg", "IMG_1002.jpg.supplemental-metadata.json"),
            (long32, long32 + ".supplemental-.json"),
            (long36, long36 + ".supplemen.json"),
            (long40, long40 + ".suppl.json"),
            (long50, String(long50.prefix(46)) + ".json"),
            ("IMG_1003(1).jpg", "IMG_1003.jpg(1).json"),
            ("IMG_1003.jpg", "IMG_1003.jpg.json"),
            ("IMG_1004(1).jpg", "IMG_1004.jpg.supplemental-metadata(1).json"),
            ("IMG_1004.jpg", "IMG_1004.jpg.supplemental-metadata.json"),
        ]
        for (index, form) in forms.enumerated() {
            try tree.strippedJPEG(to: folder + form.media, variant: "\(index)")
            try tree.write(takeoutJSON(title: form.media, timestamp: 1425229200 + index * 3600,
                                       latitude: 40 + Double(index), longitude: -3.5), to: folder + form.json)
        }
        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(summary.added == forms.count && summary.failed == 0)
        #expect(try library.assets().count == forms.count)
        let byPath = try pairingAssetsByPath(library)
        for (index, form) in forms.enumerated() {
            let asset = try asset(byPath, tree, folder + form.media)
            // Takeout's UTC instant, shown in the local time of its place (Spain, +01:00).
            #expect(asset.creationDate == Date(timeIntervalSince1970: Double(1425229200 + index * 3600)), "\(form.media)")
            #expect(!placesInstalled || asset.captureOffsetSource == .place, "\(form.media)")
            #expect(asset.location?.latitude == 40 + Double(index) && asset.location?.longitude == -3.5, "\(form.media)")
            #expect(asset.resources.map(\.type) == [.photo, .takeoutMetadata], "\(form.media)")
            #expect(asset.resources.last?.path.displayString == tree.path(folder + form.json))
            #expect(asset.resources.last?.uniformType?.preferredMIMEType == "application/json")
        }
        #expect(try library.blocking.errors().isEmpty)
    }

    @Test("osxphotos' real Takeout sample: the JSON attaches, EXIF's time stands, and a stripped copy gets the JSON's UTC time")
    func realTakeoutSample() throws {
        let folder = "osxphotos/tests/test-images/Takeout/Google Photos/Photos from 2019/"
        let tree = PairingTree()
        for name in ["wedding.jpg", "wedding.jpg.json", "Tulips.jpg.json"] {
            try tree.copy("media/" + folder + name, to: "Photos from 2019/" + name)
        }
        try tree.copy("media/" + folder + "Tulips.jpg", to: "Photos from 2019/Tulips.jpg")
        try exiftool(["-all=", tree.path("Photos from 2019/Tulips.jpg")])
        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(summary.added == 2 && summary.skipped == 2 && summary.failed == 0)
        let byPath = try pairingAssetsByPath(library)

        let wedding = try asset(byPath, tree, "Photos from 2019/wedding.jpg")
        #expect(wedding.resources.map(\.type) == [.photo, .takeoutMetadata])
        // exiftool: ExifIFD:DateTimeOriginal 2019:04:15 14:40:24 (SubSec .86): the file's, not the JSON's.
        let weddingEXIF = try #require(Corpus.exiftool[folder + "wedding.jpg"]?["ExifIFD:DateTimeOriginal"]?.string)
        #expect(weddingEXIF == "2019:04:15 14:40:24")
        #expect(wedding.captureTime?.iso8601.hasPrefix("2019-04-15T14:40:24") == true)
        #expect(wedding.location == nil)  // geoData and geoDataExif are both 0,0.

        // Stripped, Tulips.jpg takes the JSON's time: exiftool's Composite:DateTimeCreated
        // of the original, 2019:07:04 16:24:01-07:00, is 23:24:01 UTC.
        let created = try #require(Corpus.exiftool[folder + "Tulips.jpg"]?["Composite:DateTimeCreated"]?.string)
        #expect(created == "2019:07:04 16:24:01-07:00")
        let tulips = try asset(byPath, tree, "Photos from 2019/Tulips.jpg")
        #expect(tulips.captureTime?.iso8601 == "2019-07-04T23:24:01Z")
        #expect(tulips.resources.map(\.type) == [.photo, .takeoutMetadata])

        // exiftool's JSON:Description of the sidecar is what the reader gives.
        let text = try Data(contentsOf: URL(fileURLWithPath: tree.path("Photos from 2019/Tulips.jpg.json")))
        guard case .media(let values) = try TakeoutSidecar.parse(Array(text), name: "Tulips.jpg.json") else {
            Issue.record("the real JSON is not read as a media file's")
            return
        }
        #expect(values.description == Corpus.exiftool[folder + "Tulips.jpg.json"]?["JSON:Description"]?.string)
        #expect(values.title == "Tulips.jpg")
        // …and what the asset shows.
        #expect(tulips.takeoutDescription == "Tulips in a flower shop")
        #expect(tulips.takeoutTitle == "Tulips.jpg")
        #expect(wedding.takeoutDescription == Corpus.exiftool[folder + "wedding.jpg.json"]?["JSON:Description"]?.string)
    }

    @Test("the file's EXIF wins where it has the value; the JSON's time is UTC and fills only what is missing")
    func exifWins() throws {
        let tree = PairingTree()
        try tree.copy("media/" + googleJPEG, to: "t/IMG_2001.jpg")
        try tree.write(takeoutJSON(title: "IMG_2001.jpg", timestamp: 1425229200, latitude: 48.8584, longitude: 2.2945),
                       to: "t/IMG_2001.jpg.json")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let asset = try #require(try library.assets().first)
        let exif = try #require(Corpus.exiftool[googleJPEG])
        // exiftool: ExifIFD:DateTimeOriginal 2023:10:06 22:53:51, OffsetTimeOriginal +02:00.
        let date = try #require(exif["ExifIFD:DateTimeOriginal"]?.string)
        let offset = try #require(exif["ExifIFD:OffsetTimeOriginal"]?.string)
        let iso = date.prefix(10).replacingOccurrences(of: ":", with: "-") + "T" + date.dropFirst(11)
        #expect(asset.captureTime?.iso8601.hasPrefix(iso) == true)
        #expect(asset.captureTime?.iso8601.hasSuffix(offset) == true)
        let latitude = try #require(exif["Composite:GPSLatitude"]?.number)
        let longitude = try #require(exif["Composite:GPSLongitude"]?.number)
        #expect(abs((asset.location?.latitude ?? 0) - latitude) < 1e-6)
        #expect(abs((asset.location?.longitude ?? 0) - longitude) < 1e-6)
        #expect(asset.resources.map(\.type) == [.photo, .takeoutMetadata])

        // GPS stripped, date kept: the date stays the file's, the place is the JSON's.
        try exiftool(["-gps:all=", tree.path("t/IMG_2001.jpg")])
        try library.blocking.index()
        let partly = try #require(try library.assets().first)
        #expect(partly.id == asset.id)
        #expect(partly.captureTime?.iso8601 == asset.captureTime?.iso8601)
        #expect(partly.location?.latitude == 48.8584 && partly.location?.longitude == 2.2945)
    }

    @Test("an -edited copy is its original's fullSizePhoto under the original's JSON; alone, it takes that JSON's values")
    func editedCopy() throws {
        let tree = PairingTree()
        try tree.strippedJPEG(to: "e/IMG_3001.jpg", variant: "original")
        try tree.strippedJPEG(to: "e/IMG_3001-edited.jpg", variant: "edited")
        try tree.strippedJPEG(to: "e/IMG_3002-bearbeitet.jpg", variant: "bearbeitet")
        try tree.strippedJPEG(to: "e/IMG_3002.jpg", variant: "original 2")
        // An edited copy whose original is not in the export.
        try tree.strippedJPEG(to: "e/IMG_3003-edited.jpg", variant: "edited alone")
        try tree.write(takeoutJSON(title: "IMG_3001.jpg", timestamp: 1500000000), to: "e/IMG_3001.jpg.json")
        try tree.write(takeoutJSON(title: "IMG_3002.jpg", timestamp: 1600000000), to: "e/IMG_3002.jpg.supplemental-metadata.json")
        try tree.write(takeoutJSON(title: "IMG_3003.jpg", timestamp: 1400000000), to: "e/IMG_3003.jpg.json")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let byPath = try pairingAssetsByPath(library)
        let original = try asset(byPath, tree, "e/IMG_3001.jpg"), edited = try asset(byPath, tree, "e/IMG_3001-edited.jpg")
        // One asset (see *Edits*): the JSON describes it, the edit is its rendering.
        #expect(edited.id == original.id)
        #expect(original.captureTime?.iso8601 == utcISO(1500000000))
        #expect(original.resources.map(\.type) == [.photo, .fullSizePhoto, .takeoutMetadata])
        #expect(original.hasAdjustments)
        // Google Photos' German suffix is an edit too.
        let second = try asset(byPath, tree, "e/IMG_3002.jpg")
        #expect(try asset(byPath, tree, "e/IMG_3002-bearbeitet.jpg").id == second.id)
        #expect(second.captureTime?.iso8601 == utcISO(1600000000))
        let alone = try asset(byPath, tree, "e/IMG_3003-edited.jpg")
        #expect(alone.captureTime?.iso8601 == utcISO(1400000000))
        #expect(!alone.resources.contains { $0.type == .takeoutMetadata })
        // The JSON removed: the asset loses its date.
        try tree.remove("e/IMG_3001.jpg.json")
        try library.blocking.index()
        let after = try pairingAssetsByPath(library)
        #expect(try asset(after, tree, "e/IMG_3001.jpg").captureTime?.iso8601 == nil)
        #expect(try asset(after, tree, "e/IMG_3001-edited.jpg").captureTime?.iso8601 == nil)
    }

    @Test("a JSON arriving after its photo attaches and updates it; the change feed names creationDate and location")
    func lateArrival() throws {
        let tree = PairingTree()
        try tree.strippedJPEG(to: "l/IMG_4001.jpg", variant: "late")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let before = try #require(try library.assets().first)
        #expect(before.captureTime?.iso8601 == nil && before.location == nil)
        let token = try library.blocking.currentChangeToken()
        try tree.write(takeoutJSON(title: "IMG_4001.jpg", timestamp: 1425229200, latitude: 1.5, longitude: 2.5),
                       to: "l/IMG_4001.jpg.supplemental-metadata.json")
        let summary = try library.blocking.index()
        #expect(summary.added == 0)
        let after = try #require(try library.assets().first)
        #expect(after.id == before.id)
        #expect(after.captureTime?.iso8601 == utcISO(1425229200))
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.map(\.kind) == [.updated])
        // The place and the local time follow the position and the date.
        let placed: Set<String> = placesInstalled ? ["place", "timeZone", "captureOffset", "captureOffsetSource"] : []
        #expect(Set(changes.first?.fields.map(\.rawValue) ?? []) == Set(["creationDate", "location"]).union(placed))
    }

    @Test("favorited: true sets the favorite once; the user's later change is never overridden, even by a rebuild")
    func favoriteOnce() throws {
        let tree = PairingTree()
        try tree.strippedJPEG(to: "f/IMG_5001.jpg", variant: "favorite")
        try tree.strippedJPEG(to: "f/IMG_5002.jpg", variant: "plain")
        try tree.write(takeoutJSON(title: "IMG_5001.jpg", timestamp: 1425229200, favorited: true), to: "f/IMG_5001.jpg.json")
        try tree.write(takeoutJSON(title: "IMG_5002.jpg", timestamp: 1425229200), to: "f/IMG_5002.jpg.json")
        let favorite: Asset
        do {
            let library = try MediaLibrary(location: tree.library)
            try library.blocking.index(roots: [PathBytes(tree.root)])
            var byPath = try pairingAssetsByPath(library)
            favorite = try asset(byPath, tree, "f/IMG_5001.jpg")
            #expect(favorite.isFavorite)
            #expect(try !asset(byPath, tree, "f/IMG_5002.jpg").isFavorite)

            // The user unmarks it; the JSON is rewritten and indexed again: it stays unmarked.
            try library.blocking.setFavorite(false, for: [favorite.id])
            try tree.write(takeoutJSON(title: "IMG_5001.jpg", timestamp: 1425229300, favorited: true),
                           to: "f/IMG_5001.jpg.json")
            try library.blocking.index()
            byPath = try pairingAssetsByPath(library)
            #expect(try !asset(byPath, tree, "f/IMG_5001.jpg").isFavorite)
            #expect(try asset(byPath, tree, "f/IMG_5001.jpg").captureTime?.iso8601 == utcISO(1425229300))
        }

        // library.sqlite rebuilt from the files: the user's choice still stands.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: tree.library.databasePath + suffix) }
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let byPath = try pairingAssetsByPath(library)
        #expect(try asset(byPath, tree, "f/IMG_5001.jpg").id == favorite.id)
        #expect(try !asset(byPath, tree, "f/IMG_5001.jpg").isFavorite)
    }

    @Test("an album folder's metadata.json gives the folder album its title")
    func albumTitle() throws {
        let tree = PairingTree()
        try tree.strippedJPEG(to: "Takeout/Google Photos/Trip to Rome(1)/IMG_6001.jpg", variant: "album")
        try tree.write(#"{"title": "Trip to Rome", "description": "", "access": "protected", "date": {"timestamp": "1425229200", "formatted": "1 Mar 2015, 17:00:00 UTC"}}"#,
                       to: "Takeout/Google Photos/Trip to Rome(1)/metadata.json")
        let library = try MediaLibrary(location: tree.library)
        try library.blocking.index(roots: [PathBytes(tree.root)])
        let folders = try library.blocking.fetchAlbums().filter { $0.kind == .folder }
        let album = try #require(folders.first { $0.path?.displayString == tree.path("Takeout/Google Photos/Trip to Rome(1)") })
        #expect(album.title == "Trip to Rome")
        #expect(album.imageCount == 1)
        #expect(try library.assets().count == 1)
    }

    @Test("hostile JSON beside a photo is a recorded, readable error or ignored; the photo is indexed as it is")
    func hostileFiles() throws {
        let tree = PairingTree()
        try tree.copy("media/" + googleJPEG, to: "h/IMG_7001.jpg")
        try tree.copy("media/" + googleJPEG, to: "h/IMG_7002.jpg")
        try exiftool(["-Comment=second", tree.path("h/IMG_7002.jpg")])
        let whole = takeoutJSON(title: "IMG_7001.jpg", timestamp: 1425229200)
        try tree.write(String(whole.prefix(whole.count / 2)), to: "h/IMG_7001.jpg.json")
        try tree.write(Array(repeating: UInt8(ascii: " "), count: 2 << 20) + Array("{}".utf8), to: "h/IMG_7002.jpg.json")
        try tree.write(String(repeating: "[", count: 50_000), to: "h/IMG_7003.jpg.supplemental-metadata.json")
        try tree.write(#"{"title": 1, "photoTakenTime": [], "geoData": {"latitude": "x"}, "favorited": {}}"#,
                       to: "h/IMG_7002.jpg.supplemental-metadata.json")
        try tree.write("not json at all", to: "h/notes.json")
        let library = try MediaLibrary(location: tree.library)
        let summary = try library.blocking.index(roots: [PathBytes(tree.root)])
        #expect(summary.added == 2)
        #expect(try library.assets().count == 2)
        let errors = try library.blocking.errors()
        let messages = Dictionary(uniqueKeysWithValues: errors.map { ($0.path.displayString, $0.message) })
        #expect(messages[tree.path("h/IMG_7001.jpg.json")] == TakeoutSidecarError.notJSON.description)
        #expect(messages[tree.path("h/IMG_7002.jpg.json")]?.contains("more than the 1048576 read") == true)
        #expect(messages[tree.path("h/IMG_7003.jpg.supplemental-metadata.json")]?.contains("nests deeper") == true)
        #expect(errors.count == 3)
        // The wrong-typed JSON attaches and says nothing: the file's values stand.
        let byPath = try pairingAssetsByPath(library)
        let second = try asset(byPath, tree, "h/IMG_7002.jpg")
        #expect(second.resources.map(\.type) == [.photo, .takeoutMetadata])
        #expect(second.captureTime?.iso8601 == (try asset(byPath, tree, "h/IMG_7001.jpg")).captureTime?.iso8601)
    }
}
