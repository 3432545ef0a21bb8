import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

/// The whole-corpus fidelity table: every image and video of the corpus, all formats
/// together, read through `MetadataReader` and compared field by field with
/// exiftool's (`-n -G1`) and ffprobe's readings. `docs/fidelity.md` holds the last
/// measured table and explains every remaining disagreement.
///
/// Which reference value each field is compared with:
/// - capture date: the first reference date in our documented order of sources
///   (movies: `Keys:CreationDate`, `UserData:DateTimeOriginal` (©day), `QuickTime:CreateDate`
///   (`mvhd`, UTC), `Matroska:DateTimeOriginal`, `RIFF:DateTimeOriginal`, `ASF:CreationDate`, `DV:DateTimeOriginal`; then, for every
///   file, EXIF `DateTimeOriginal`, `CreateDate` (digitized), IFD0 `ModifyDate`; then XMP
///   `exif:DateTimeOriginal`, `photoshop:DateCreated`, `xmp:CreateDate`; then the raw
///   formats' own `CanonRaw:`, `CIFF:`, `SigmaRaw:DateTimeOriginal`). Agreement is
///   the local wall-clock time to the second, plus the UTC offset where the reference
///   gives one (the EXIF `OffsetTime*` tag of that date, or the offset in the text).
/// - displayed pixel size: images: `Composite:ImageSize` (else `File:ImageWidth/Height`),
///   which is the stored size, with the axes swapped when the reference orientation
///   (below) is 5–8. Movies: ffprobe's video `width`/`height`, swapped when its
///   display-matrix rotation is a quarter turn. Ours: `MediaMetadata.displaySize`.
/// - duration: ffprobe's `format.duration`; within 1 ms or 0.1%, whichever is larger.
/// - frame rate: ffprobe's `avg_frame_rate` of the video stream (not compared where
///   ffprobe reports 0/0); within 0.1%.
/// - GPS: `Composite:GPSLatitude/GPSLongitude` (else XMP `exif:GPSLatitude/Longitude`);
///   within 1e-5°.
/// - make, model: QuickTime `Keys:`, then `UserData:` (movies), then `IFD0:`, then
///   `XMP-tiff:`, then the raw formats' own groups.
/// - orientation: images: `IFD0:Orientation` (else `XMP-tiff:Orientation`; for HEIF/AVIF
///   without either, `QuickTime:Rotation`, exiftool's reading of `irot` in counter-clockwise
///   degrees: it is the last `irot` of any item, not the primary's, so it comes last). Movies:
///   ffprobe's display-matrix rotation (none = 0) as an EXIF orientation (−90° = 6,
///   180° = 3, 90° = 8). Values outside 1–8 are no orientation; our nil counts as 1.
/// - content identifier: `Apple:MediaGroupUUID` (stills), `Keys:ContentIdentifier` (movies).
@Suite("Fidelity table against exiftool and ffprobe")
struct FidelityTableTests {
    static let fields = ["captureDate", "displaySize", "duration", "frameRate", "gps", "make", "model",
                         "orientation", "contentIdentifier"]

    /// exiftool file types of formats the index reads; an image or video of another type
    /// (PSD, JPEG 2000, ICO …) is not indexed and is outside the table.
    static let indexedFileTypes: Set<String> = [
        "JPEG", "PNG", "GIF", "BMP", "WEBP", "Extended WEBP", "TIFF", "BTF", "DNG", "CR2", "CR3", "CRW", "NEF",
        "RAF", "RW2", "IIQ", "X3F", "ARW", "ORF", "PEF", "SRW", "HEIC", "HEIF", "AVIF", "MOV", "MP4", "M4V",
        "3GP", "3G2", "MKV", "WEBM", "AVI", "WMV", "FLV", "DV", "MXF", "OGV", "M2V", "JXL", "JXL Codestream",
        "JP2", "J2C", "ICO", "BPG", "PPM", "PGM", "PBM", "PCX", "FLIF", "DJVU", "DJVU (multi-page)", "HDR", "PGF", "MRC",
        "CZI", "LFP", "RAW", "MRW", "3FR", "FFF", "DCR", "KDC", "K25", "DCS", "DRF", "ERF", "MEF", "MOS", "BAY", "RWL",
        "NRW", "SR2", "SRF", "ORI", "CAP", "ARI", "M2TS", "MTS", "M2T", "TS",
    ]

    /// exiftool's image types that hold only metadata, not a picture: the Exiv2 sidecar
    /// (EXV) and the Meta Information Encapsulation file (MIE). They are not assets and
    /// are left out of the asset coverage.
    static let metadataOnlyFileTypes: Set<String> = ["EXV", "MIE"]

    /// Formats whose files are indexed but whose metadata is not read yet (the reader
    /// records only the format, with a warning). Their rows are counted in the second
    /// set of columns, "all indexed", and not in the asserted ones.
    static let formatsNotReadYet: Set<MediaFormat> = [.mxf, .czi]

    /// Disagreements we keep on purpose, by file and field, each with its reason. The
    /// same list, with the same reasons, is in `docs/fidelity.md`.
    static let deliberateDisagreements: [String: [String: String]] = [
        "ianare-exif-samples/jpg/tests/30-type_error.jpg": [
            "captureDate": "IFD0's ExifOffset has a string type: exiftool refuses the pointer and falls back to IFD0 ModifyDate; libexif follows it to a plausible DateTimeOriginal",
        ],
        "exiv2-test-data/test/data/issue_1881_coverage.jpg": [
            "make": "a 0xFF byte in Make: we decode invalid UTF-8 as Latin-1 (ÿ), exiftool substitutes '?'",
        ],
        "ianare-exif-samples/heic/mobile/HMD_Nokia_8.3_5G.heif": [
            "orientation": "Nokia writes irot 3 (display 90° clockwise) and EXIF orientation 1: in HEIF irot governs display, so we report 6; exiftool's IFD0 says 1",
            "displaySize": "follows from the orientation above: the picture is shown turned a quarter",
        ],
        "ente-test-fixtures/ml/indexing/v1/files/7949_mirror_horizontal_rotate_270_cw.HEIC": [
            "orientation": "no irot/imir, EXIF orientation 5, but the coded picture (1210×1548) is already portrait where EXIF's own size (3088×2316) is landscape: a converter turned the pixels and kept the tag, so we report 1; exiftool's IFD0 says 5",
            "displaySize": "follows from the orientation above: the picture is shown as stored",
        ],
        "photoview/api/scanner/test_media/real_media/webm.webm": [
            "frameRate": "the track's DefaultDuration is one timestamp tick (1 ms) and ffprobe reports 1000 fps; that is the time base of a variable-rate stream, so we record no frame rate",
        ],
        "exiftool-t-images/t/images/SigmaDP2.x3f": [
            "displaySize": "exiftool's test file swaps the embedded JPEG for an 8×8 placeholder and takes its frame as the image size; the X3F header, the image section and ExifImageWidth/Height all say 2640×1760, which we report",
        ],
        "photoprism/pkg/media/video/testdata/isom-avc1.mp4": [
            "gps": "`loci` holds 0,0, the placeholder of a device without a fix: we record no place",
        ],
    ]

    struct Tally {
        var compared = 0, agreed = 0
        var disagreements: [String] = []
        var excluded: [String] = []
        var percent: Double { compared == 0 ? 100 : 100 * Double(agreed) / Double(compared) }
    }

    // MARK: Reference values

    /// A reference capture date: civil time `YYYY:MM:DD HH:MM:SS` and the offset if given.
    struct ReferenceDate { var civil: String; var offset: Int?; var key: String }

    static func civil(_ d: CaptureDate) -> String {
        func pad(_ v: Int, _ w: Int) -> String { String(repeating: "0", count: max(0, w - String(v).count)) + String(v) }
        return "\(pad(d.year, 4)):\(pad(d.month, 2)):\(pad(d.day, 2)) \(pad(d.hour, 2)):\(pad(d.minute, 2)):\(pad(d.second, 2))"
    }

    /// exiftool's date text (`YYYY:MM:DD HH:MM:SS[.fff][±HH:MM|Z]`) as civil time and
    /// offset; nil for blank and zero dates, which the readers ignore too.
    static func parseReferenceDate(_ text: String, key: String, offsetText: String? = nil) -> ReferenceDate? {
        guard let date = CaptureDate(exif: text) else { return nil }
        var offset = offsetText.flatMap(CaptureDate.parseOffset)
        if offset == nil, text.count > 19 {
            let rest = text.dropFirst(19).drop { $0 == "." || $0.isNumber }
            if !rest.isEmpty { offset = CaptureDate.parseOffset(String(rest)) }
        }
        return ReferenceDate(civil: civil(date), offset: offset, key: key)
    }

    static func referenceDate(_ e: [String: JSONValue], isMovie: Bool) -> ReferenceDate? {
        if isMovie {
            for key in ["Keys:CreationDate", "UserData:DateTimeOriginal", "QuickTime:CreateDate",
                        "Matroska:DateTimeOriginal", "RIFF:DateTimeOriginal", "ASF:CreationDate", "DV:DateTimeOriginal",
                        "H264:DateTimeOriginal"] {
                if let text = e[key]?.string, let date = parseReferenceDate(text, key: key) { return date }
            }
        }
        let exifChain: [(String, [String])] = [
            ("ExifIFD:DateTimeOriginal", ["ExifIFD:OffsetTimeOriginal", "ExifIFD:OffsetTime"]),
            ("ExifIFD:CreateDate", ["ExifIFD:OffsetTimeDigitized", "ExifIFD:OffsetTime"]),
            ("IFD0:ModifyDate", ["ExifIFD:OffsetTime"]),
        ]
        for (key, offsetKeys) in exifChain {
            guard let text = e[key]?.string else { continue }
            let offset = offsetKeys.lazy.compactMap { e[$0]?.string }.first
            if let date = parseReferenceDate(text, key: key, offsetText: offset) { return date }
        }
        // The raw formats' own dates come last: exiftool reads them without a zone.
        for key in ["XMP-exif:DateTimeOriginal", "XMP-photoshop:DateCreated", "XMP-xmp:CreateDate",
                    "CanonRaw:DateTimeOriginal", "CIFF:DateTimeOriginal", "SigmaRaw:DateTimeOriginal", "KyoceraRaw:DateTimeOriginal",
                    "Lytro:DateTimeOriginal", "DjVu-Meta:CreateDate"] {
            if let text = e[key]?.string, let date = parseReferenceDate(text, key: key) { return date }
        }
        return nil
    }

    static func firstString(_ e: [String: JSONValue], _ keys: [String]) -> String? {
        for key in keys {
            if let text = e[key]?.string?.trimmingSpacesAndNULs(), !text.isEmpty { return text }
        }
        return nil
    }

    /// EXIF orientation of a display rotation in degrees clockwise.
    static func orientation(clockwiseDegrees degrees: Double) -> Int {
        switch ((Int(degrees.rounded()) % 360) + 360) % 360 {
        case 90: return 6
        case 180: return 3
        case 270: return 8
        default: return 1
        }
    }

    static func validOrientation(_ value: Double?) -> Int? {
        value.map { Int($0) }.flatMap { (1...8).contains($0) ? $0 : nil }
    }

    static func imageSize(_ e: [String: JSONValue]) -> (Int, Int)? {
        if let size = e["Composite:ImageSize"]?.string {
            let parts = size.split(whereSeparator: { $0 == " " || $0 == "x" }).compactMap { Double($0) }
            if parts.count == 2, parts[0] > 0, parts[1] > 0 { return (Int(parts[0]), Int(parts[1])) }
        }
        if let w = e["File:ImageWidth"]?.number, let h = e["File:ImageHeight"]?.number, w > 0, h > 0 {
            return (Int(w), Int(h))
        }
        return nil
    }

    static func videoStream(_ probe: JSONValue) -> JSONValue? {
        guard case .array(let streams)? = probe["streams"] else { return nil }
        return streams.first { $0["codec_type"]?.string == "video" && $0["disposition"]?["attached_pic"]?.number != 1 }
    }

    /// ffprobe's display rotation, clockwise degrees: the display matrix's rotation is
    /// counter-clockwise (−90 = a quarter turn clockwise); the old `rotate` tag clockwise.
    static func clockwiseRotation(_ video: JSONValue) -> Double {
        if case .array(let sides)? = video["side_data_list"], let r = sides.compactMap({ $0["rotation"]?.number }).first {
            return -r
        }
        return video["tags"]?["rotate"]?.number ?? 0
    }

    static func rate(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: "/"), parts.count == 2,
              let n = Double(parts[0]), let d = Double(parts[1]), n > 0, d > 0 else { return nil }
        return n / d
    }

    // MARK: The table

    @Test("agrees with exiftool and ffprobe on at least 99.5% of the corpus, per field, and makes an asset of at least 99.5% of its images and videos",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func fidelityTable() throws {
        guard let media = Corpus.media else { return }
        var tallies: [String: Tally] = [:]
        var allIndexed: [String: Tally] = [:]
        var notReadDisagreements: [String] = []
        var inScope = 0
        var outOfScope: [String: Int] = [:]
        var readErrors: [String] = []
        var sources: [String: Int] = [:]
        // Asset coverage: every file exiftool calls an image or a video (metadata-only
        // types aside) should come back as media, with what could be read.
        var coverage = (files: 0, assets: 0)
        var notAssets: [String] = []

        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string, let type = entry["exiftool_file_type"]?.string,
                  let mime = entry["mime"]?.string, mime.hasPrefix("image/") || mime.hasPrefix("video/") else { continue }
            let source = try FileByteSource(path: media.appendingPathComponent(path).path)
            var ours: MediaMetadata?
            var readError: String?
            do { ours = try MetadataReader.read(source) } catch { readError = "\(error)" }
            if !Self.metadataOnlyFileTypes.contains(type) {
                coverage.files += 1
                if ours != nil { coverage.assets += 1 } else { notAssets.append("\(path) (\(type)): \(readError ?? "not recognised")") }
            }
            guard ours != nil || Self.indexedFileTypes.contains(type) else {
                outOfScope[type, default: 0] += 1
                continue
            }
            inScope += 1
            if let readError { readErrors.append("\(path): \(readError)") }
            if let s = ours?.captureDateSource { sources[s.rawValue, default: 0] += 1 }

            let exif = Corpus.exiftool[path].flatMap { $0["ExifTool:Error"] == nil ? $0 : nil }
            let probe = Corpus.ffprobe[path].flatMap { $0["_error"] == nil ? $0 : nil }
            let isMovie = mime.hasPrefix("video/")
            let isHEIF = ["HEIC", "HEIF", "AVIF"].contains(type)
            let deliberate = Self.deliberateDisagreements[path] ?? [:]
            let notReadYet = ours.map { Self.formatsNotReadYet.contains($0.format) } ?? false
            func record(_ field: String, _ agrees: Bool, ours: String, reference: String) {
                if let reason = deliberate[field] {
                    tallies[field, default: Tally()].excluded.append("\(path): \(reason)")
                    return
                }
                allIndexed[field, default: Tally()].compared += 1
                if agrees { allIndexed[field, default: Tally()].agreed += 1 }
                if notReadYet {
                    if !agrees { notReadDisagreements.append("\(field): \(path): ours \(ours), reference \(reference)") }
                    return
                }
                tallies[field, default: Tally()].compared += 1
                if agrees { tallies[field, default: Tally()].agreed += 1 } else {
                    tallies[field, default: Tally()].disagreements.append("\(path): ours \(ours), reference \(reference)")
                }
            }

            // Orientation first: the displayed size of an image depends on it.
            var referenceOrientation: Int?
            if isMovie, let video = probe.flatMap(Self.videoStream) {
                referenceOrientation = Self.orientation(clockwiseDegrees: Self.clockwiseRotation(video))
            } else if !isMovie, let exif {
                referenceOrientation = Self.validOrientation((exif["IFD0:Orientation"] ?? exif["XMP-tiff:Orientation"])?.number)
                // exiftool's QuickTime:Rotation is the last `irot` of any item (a gain map's
                // `irot` 0 overwrites the primary's), so it serves only without IFD0.
                if isHEIF, referenceOrientation == nil, let rotation = exif["QuickTime:Rotation"]?.number {
                    referenceOrientation = Self.orientation(clockwiseDegrees: 360 - rotation)
                }
            }
            if let referenceOrientation {
                let value = ours?.orientation ?? 1
                record("orientation", value == referenceOrientation, ours: "\(value)", reference: "\(referenceOrientation)")
            }

            if let exif {
                if let reference = Self.referenceDate(exif, isMovie: isMovie) {
                    let date = ours?.captureDate
                    let agrees = date.map { Self.civil($0) == reference.civil && (reference.offset == nil || $0.utcOffsetSeconds == reference.offset) } ?? false
                    record("captureDate", agrees,
                           ours: "\(date?.iso8601 ?? "nil") (\(ours?.captureDateSource?.rawValue ?? "-"))",
                           reference: "\(reference.civil) \(reference.offset.map(String.init) ?? "") (\(reference.key))")
                }
                let latitude = (exif["Composite:GPSLatitude"] ?? exif["XMP-exif:GPSLatitude"])?.number
                let longitude = (exif["Composite:GPSLongitude"] ?? exif["XMP-exif:GPSLongitude"])?.number
                if let latitude, let longitude {
                    let location = ours?.location
                    let agrees = location.map { abs($0.latitude - latitude) <= 1e-5 && abs($0.longitude - longitude) <= 1e-5 } ?? false
                    record("gps", agrees, ours: location.map { "\($0.latitude),\($0.longitude)" } ?? "nil",
                           reference: "\(latitude),\(longitude)")
                }
                let rawGroups = ["CanonRaw", "SigmaRaw", "KyoceraRaw", "CIFF", "H264", "Lytro"]
                let make = Self.firstString(exif, ["Keys:Make", "UserData:Make", "IFD0:Make", "XMP-tiff:Make"] + rawGroups.map { $0 + ":Make" })
                if let make { record("make", ours?.make == make, ours: ours?.make ?? "nil", reference: make) }
                let model = Self.firstString(exif, ["Keys:Model", "UserData:Model", "IFD0:Model", "XMP-tiff:Model"] + rawGroups.map { $0 + ":Model" })
                if let model { record("model", ours?.model == model, ours: ours?.model ?? "nil", reference: model) }
                if let identifier = Self.firstString(exif, ["Apple:MediaGroupUUID", "Keys:ContentIdentifier"]) {
                    record("contentIdentifier", ours?.contentIdentifier == identifier,
                           ours: ours?.contentIdentifier ?? "nil", reference: identifier)
                }
                if !isMovie, let size = Self.imageSize(exif) {
                    let swap = (5...8).contains(referenceOrientation ?? 1)
                    let expected = swap ? (size.1, size.0) : size
                    let got = ours?.displaySize
                    record("displaySize", got?.width == expected.0 && got?.height == expected.1,
                           ours: got.map { "\($0.width)x\($0.height)" } ?? "nil", reference: "\(expected.0)x\(expected.1)")
                }
            }

            if isMovie, let probe {
                if let reference = probe["format"]?["duration"]?.number, reference > 0 {
                    let value = ours?.durationSeconds
                    let agrees = value.map { abs($0 - reference) <= max(0.001, reference * 0.001) } ?? false
                    record("duration", agrees, ours: value.map { "\($0)" } ?? "nil", reference: "\(reference)")
                }
                if let video = Self.videoStream(probe) {
                    if let width = video["width"]?.number, let height = video["height"]?.number, width > 0, height > 0 {
                        let quarter = (referenceOrientation ?? 1) >= 5
                        let expected = quarter ? (Int(height), Int(width)) : (Int(width), Int(height))
                        let got = ours?.displaySize
                        record("displaySize", got?.width == expected.0 && got?.height == expected.1,
                               ours: got.map { "\($0.width)x\($0.height)" } ?? "nil", reference: "\(expected.0)x\(expected.1)")
                    }
                    if let reference = Self.rate(video["avg_frame_rate"]?.string) {
                        let value = ours?.frameRate
                        let agrees = value.map { abs($0 - reference) <= reference * 0.001 } ?? false
                        record("frameRate", agrees, ours: value.map { "\($0)" } ?? "nil", reference: "\(reference)")
                    }
                }
            }
        }

        print("Fidelity over \(inScope) images and videos of the corpus (all formats)")
        print("                   formats we read             all indexed formats")
        print("field              compared  agreed       %    compared  agreed       %")
        for field in Self.fields {
            let t = tallies[field] ?? Tally(), a = allIndexed[field] ?? Tally()
            let name = field.padding(toLength: 18, withPad: " ", startingAt: 0)
            print("\(name) \(String(t.compared).leftPadded(8))  \(String(t.agreed).leftPadded(6))  \(String(format: "%7.2f", t.percent))"
                  + "    \(String(a.compared).leftPadded(8))  \(String(a.agreed).leftPadded(6))  \(String(format: "%7.2f", a.percent))")
            for line in t.disagreements.prefix(3) { print("    \(line)") }
        }
        print("Every disagreement:")
        for field in Self.fields {
            for line in tallies[field]?.disagreements ?? [] { print("  \(field): \(line)") }
        }
        print("Disagreements in formats whose metadata is not read yet:")
        for line in notReadDisagreements { print("  \(line)") }
        print("Deliberate disagreements (excluded):")
        for field in Self.fields {
            for line in tallies[field]?.excluded ?? [] { print("  \(field): \(line)") }
        }
        print("Capture date sources used: " + sources.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("Read errors (\(readErrors.count)):")
        for line in readErrors { print("  \(line)") }
        print("Images and videos of formats we do not index: " + outOfScope.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))

        let coveragePercent = 100 * Double(coverage.assets) / Double(max(coverage.files, 1))
        print("Asset coverage: \(coverage.assets) of \(coverage.files) images and videos (\(String(format: "%.2f", coveragePercent))%); not assets:")
        for line in notAssets { print("  \(line)") }

        #expect(inScope > 450)
        #expect(coveragePercent >= 99.5, "\(coverage.assets) of \(coverage.files) images and videos are assets")
        for field in Self.fields {
            let t = tallies[field] ?? Tally()
            #expect(t.compared > 0, "\(field) was never compared")
            #expect(t.percent >= 99.5, "\(field): \(t.agreed) of \(t.compared) agree")
        }
    }

    @Test("records which source gave the capture date, in the documented order",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func recordsCaptureDateSource() throws {
        guard let media = Corpus.media else { return }
        // Given files where the reference shows which date exists,
        // when we read them, then the source named is the first in our order.
        let expectations: [(key: String, absent: [String], source: CaptureDateSource, types: Set<String>)] = [
            ("ExifIFD:DateTimeOriginal", [], .exifDateTimeOriginal, ["JPEG", "TIFF", "DNG", "NEF", "CR2", "CR3", "HEIC", "WEBP", "PNG"]),
            ("IFD0:ModifyDate", ["ExifIFD:DateTimeOriginal", "ExifIFD:CreateDate"], .exifDateTime, ["JPEG", "TIFF"]),
            ("Keys:CreationDate", [], .quickTimeCreationDate, ["MOV", "MP4"]),
            ("QuickTime:CreateDate", ["Keys:CreationDate", "UserData:DateTimeOriginal", "ItemList:ContentCreateDate"], .movieHeaderCreationTime, ["MOV", "MP4", "3GP"]),
            ("Matroska:DateTimeOriginal", [], .matroskaDateUTC, ["MKV", "WEBM"]),
        ]
        var checked: [CaptureDateSource: Int] = [:]
        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string, let type = entry["exiftool_file_type"]?.string,
                  let reference = Corpus.exiftool[path], reference["ExifTool:Error"] == nil,
                  // exiftool drops the rest of a directory after a bad entry (its warning
                  // says so), libexif keeps the good entries: "absent" would not hold.
                  reference["ExifTool:Warning"] == nil else { continue }
            for expectation in expectations where expectation.types.contains(type) {
                guard let text = reference[expectation.key]?.string, CaptureDate(exif: text) != nil,
                      expectation.absent.allSatisfy({ reference[$0] == nil }) else { continue }
                let ours = try MetadataReader.read(FileByteSource(path: media.appendingPathComponent(path).path))
                if Self.deliberateDisagreements[path]?["captureDate"] != nil { break }
                #expect(ours?.captureDateSource == expectation.source, "\(path): \(String(describing: ours?.captureDateSource))")
                checked[expectation.source, default: 0] += 1
                break
            }
        }
        for source in [CaptureDateSource.exifDateTimeOriginal, .exifDateTime, .quickTimeCreationDate,
                       .movieHeaderCreationTime, .matroskaDateUTC] {
            #expect((checked[source] ?? 0) > 0, "no corpus file exercised \(source)")
        }
    }

    @Test("metadata stored before captureDateSource existed still decodes")
    func decodesMetadataWithoutSource() throws {
        // Given JSON written by an earlier version, without the field,
        let old = #"{"format":"jpeg","captureDate":{"year":2020,"month":1,"day":2,"hour":3,"minute":4,"second":5,"nanosecond":0},"warnings":[]}"#
        // when it is decoded, then the date is kept and the source is unknown;
        let decoded = try JSONDecoder().decode(MediaMetadata.self, from: Data(old.utf8))
        #expect(decoded.captureDate?.year == 2020)
        #expect(decoded.captureDateSource == nil)
        // and a source written now survives a round trip under its stable raw value.
        var metadata = MediaMetadata(format: .mp4)
        metadata.captureDateSource = .movieHeaderCreationTime
        let json = String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self)
        #expect(json.contains(#""captureDateSource":"movieHeaderCreationTime""#))
        #expect(try JSONDecoder().decode(MediaMetadata.self, from: Data(json.utf8)) == metadata)
    }
}
