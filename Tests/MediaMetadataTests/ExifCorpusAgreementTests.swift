import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

/// Our readings of the real corpus against exiftool's, field by field.
@Suite("EXIF corpus agreement")
struct ExifCorpusAgreementTests {
    /// exiftool file types read by the JPEG and TIFF readers.
    static let fileTypes: Set<String> = ["JPEG", "TIFF", "DNG", "NEF", "CR2", "RW2", "IIQ", "ARW", "ORF", "PEF", "SRW"]

    /// Files where we disagree with exiftool on purpose, by field, with the reason.
    static let deliberateDisagreements: [String: [String: String]] = [
        "ianare-exif-samples/jpg/tests/30-type_error.jpg": [
            "captureDate": "IFD0's ExifOffset has a string type; exiftool refuses the pointer and falls back to ModifyDate, libexif follows it to a plausible DateTimeOriginal",
        ],
        "exiv2-test-data/test/data/IMGP0006-min.jpg": [
            "make": "the file ends right after its APP1 segment; exiftool drops the segment, we keep the partial EXIF of a cut-off JPEG",
        ],
        "exiv2-test-data/test/data/issue_1881_coverage.jpg": [
            "make": "a 0xFF byte in Make: we decode invalid UTF-8 as Latin-1 (ÿ), exiftool substitutes '?'",
            "size": "a fuzzed file with no frame header: we fall back to its Exif dimensions (2x2), which exiftool does not report as ExifImageWidth",
        ],
        "metadata-extractor-images/jpg/beach.jpg": [
            "size": "the frame header says height 0 (to be set by a DNL marker after the scan); we record no size rather than a zero",
        ],
    ]

    struct Tally {
        var compared = 0, agreed = 0
        var disagreements: [String] = []
        mutating func record(_ agree: Bool, _ detail: @autoclosure () -> String) {
            compared += 1
            if agree { agreed += 1 } else { disagreements.append(detail()) }
        }
        var rate: Double { compared == 0 ? 1 : Double(agreed) / Double(compared) }
    }

    /// exiftool's capture date in our order of preference: EXIF's, then XMP's.
    static func referenceDate(_ e: [String: JSONValue]) -> (local: String, offset: String?)? {
        let chain: [(String, [String])] = [
            ("ExifIFD:DateTimeOriginal", ["ExifIFD:OffsetTimeOriginal", "ExifIFD:OffsetTime"]),
            ("ExifIFD:CreateDate", ["ExifIFD:OffsetTimeDigitized", "ExifIFD:OffsetTime"]),
            ("IFD0:ModifyDate", ["ExifIFD:OffsetTime"]),
        ]
        for (dateKey, offsetKeys) in chain {
            guard let text = e[dateKey]?.string, let date = CaptureDate(exif: text) else { continue }
            // Without an offset tag, an ISO 8601 date may carry its own (`…T21:23:44Z`).
            let offset = offsetKeys.lazy.compactMap { e[$0]?.string }.first ?? ExifDecoder.trailingOffset(text)
            return (localString(date), offset)
        }
        // Without an EXIF date, XMP's, whose text carries its own offset.
        for key in ["XMP-exif:DateTimeOriginal", "XMP-photoshop:DateCreated", "XMP-xmp:CreateDate"] {
            guard let text = e[key]?.string, let date = CaptureDate(exif: text) else { continue }
            let offset = text.count > 19 ? String(text.dropFirst(19)).drop { $0 != "Z" && $0 != "+" && $0 != "-" } : ""
            return (localString(date), offset.isEmpty ? nil : String(offset))
        }
        return nil
    }

    static func localString(_ d: CaptureDate) -> String {
        var noOffset = d
        noOffset.utcOffsetSeconds = nil
        noOffset.nanosecond = 0
        return noOffset.iso8601
    }

    /// exiftool's image size: the JPEG frame (`File:`) for JPEGs, the composite for
    /// TIFF-based files (whose `File:` size is sometimes an 8x8 stub in exiftool's
    /// shrunken test images), and the Exif dimensions when neither exists, as our
    /// reader falls back to them.
    static func referenceSize(_ e: [String: JSONValue], type: String) -> (Int, Int)? {
        func pair(_ wKey: String, _ hKey: String) -> (Int, Int)? {
            guard let w = e[wKey]?.number, let h = e[hKey]?.number else { return nil }
            return (Int(w), Int(h))
        }
        var composite: (Int, Int)?
        if let size = e["Composite:ImageSize"]?.string {
            let parts = size.split(whereSeparator: { $0 == " " || $0 == "x" }).compactMap { Double($0) }
            if parts.count == 2 { composite = (Int(parts[0]), Int(parts[1])) }
        }
        let frame = pair("File:ImageWidth", "File:ImageHeight")
        let exif = pair("ExifIFD:ExifImageWidth", "ExifIFD:ExifImageHeight")
        return type == "JPEG" ? (frame ?? exif) : (composite ?? frame ?? exif)
    }

    @Test("JPEG and TIFF readings agree with exiftool on at least 99% of files per field",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func agreesWithExiftool() throws {
        guard let media = Corpus.media else { return }
        var tallies: [String: Tally] = [:]
        let fields = ["captureDate", "utcOffset", "make", "model", "gps", "orientation", "size", "contentIdentifier", "burstIdentifier"]
        for field in fields { tallies[field] = Tally() }
        var excluded: [String] = []
        var fileCount = 0

        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string, let type = entry["exiftool_file_type"]?.string,
                  Self.fileTypes.contains(type), let reference = Corpus.exiftool[path],
                  reference["ExifTool:Error"] == nil else { continue }
            fileCount += 1
            let source = try FileByteSource(path: media.appendingPathComponent(path).path)
            let ours: MediaMetadata?
            do { ours = try MetadataReader.read(source) } catch {
                ours = nil
            }
            let skip = Self.deliberateDisagreements[path] ?? [:]
            func check(_ field: String, _ agree: Bool, _ detail: String) {
                if let reason = skip[field] { excluded.append("\(field) \(path): \(reason)"); return }
                tallies[field, default: Tally()].record(agree, "\(path): \(detail)")
            }

            // Capture date: local time, then the offset where exiftool has one.
            let refDate = Self.referenceDate(reference)
            let ourDate = ours?.captureDate
            if refDate != nil || ourDate != nil {
                let ourLocal = ourDate.map(Self.localString)
                check("captureDate", ourLocal == refDate?.local, "ours \(ourLocal ?? "nil"), exiftool \(refDate?.local ?? "nil")")
            }
            if let refOffset = refDate?.offset.flatMap(CaptureDate.parseOffset) {
                check("utcOffset", ourDate?.utcOffsetSeconds == refOffset, "ours \(String(describing: ourDate?.utcOffsetSeconds)), exiftool \(refOffset)")
            } else if let ourOffset = ourDate?.utcOffsetSeconds {
                check("utcOffset", false, "ours \(ourOffset), exiftool none")
            }
            for (field, key, value) in [("make", "IFD0:Make", ours?.make), ("model", "IFD0:Model", ours?.model)] {
                let xmpKey = "XMP-tiff:" + key.dropFirst(5)
                let ref = (reference[key] ?? reference[xmpKey])?.string?.trimmingSpacesAndNULs().nilIfEmpty
                if ref != nil || value != nil {
                    check(field, ref == value, "ours \(value ?? "nil"), exiftool \(ref ?? "nil")")
                }
            }
            let refLat = (reference["Composite:GPSLatitude"] ?? reference["XMP-exif:GPSLatitude"])?.number
            let refLon = (reference["Composite:GPSLongitude"] ?? reference["XMP-exif:GPSLongitude"])?.number
            if refLat != nil || ours?.location != nil {
                var agree = false
                if let refLat, let refLon, let loc = ours?.location {
                    agree = abs(loc.latitude - refLat) < 1e-5 && abs(loc.longitude - refLon) < 1e-5
                }
                check("gps", agree, "ours \(String(describing: ours?.location)), exiftool \(String(describing: refLat)) \(String(describing: refLon))")
            }
            // Values outside 1–8 are not orientations; we record none (read as 1).
            let refOrientation = (reference["IFD0:Orientation"] ?? reference["XMP-tiff:Orientation"])?.number.map { Int($0) }.flatMap { (1...8).contains($0) ? $0 : nil }
            if refOrientation != nil || ours?.orientation != nil {
                check("orientation", refOrientation == ours?.orientation,
                      "ours \(String(describing: ours?.orientation)), exiftool \(String(describing: refOrientation))")
            }
            let refSize = Self.referenceSize(reference, type: type)
            let ourSize = ours.flatMap { m in m.pixelWidth.flatMap { w in m.pixelHeight.map { (w, $0) } } }
            if refSize != nil || ourSize != nil {
                check("size", refSize?.0 == ourSize?.0 && refSize?.1 == ourSize?.1,
                      "ours \(String(describing: ourSize)), exiftool \(String(describing: refSize))")
            }
            let refContent = reference["Apple:MediaGroupUUID"]?.string
            if type == "JPEG", refContent != nil || ours?.contentIdentifier != nil {
                check("contentIdentifier", refContent == ours?.contentIdentifier,
                      "ours \(ours?.contentIdentifier ?? "nil"), exiftool \(refContent ?? "nil")")
            }
            let refBurst = reference["Apple:BurstUUID"]?.string
            if type == "JPEG", refBurst != nil || ours?.burstIdentifier != nil {
                check("burstIdentifier", refBurst == ours?.burstIdentifier,
                      "ours \(ours?.burstIdentifier ?? "nil"), exiftool \(refBurst ?? "nil")")
            }
        }

        print("EXIF agreement over \(fileCount) JPEG/TIFF files exiftool read cleanly")
        print("field              compared  agreed  rate")
        for field in fields {
            let t = tallies[field] ?? Tally()
            let name = field.padding(toLength: 18, withPad: " ", startingAt: 0)
            print("\(name) \(String(t.compared).leftPadded(8))  \(String(t.agreed).leftPadded(6))  \(String(format: "%.4f", t.rate))")
        }
        for field in fields {
            for line in tallies[field]?.disagreements ?? [] { print("  disagree \(field): \(line)") }
        }
        for line in excluded { print("  deliberate: \(line)") }
        #expect(fileCount > 300)
        for field in fields {
            let t = tallies[field] ?? Tally()
            #expect(t.rate >= 0.99, "\(field) agrees on \(t.agreed) of \(t.compared) files")
        }
    }

    @Test("every corpus file is read or rejected with a readable error, never a crash",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func readsEveryFileWithoutCrashing() throws {
        guard let media = Corpus.media else { return }
        var read = 0, notMedia = 0, failed = 0
        let start = Date()
        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string,
                  let source = try? FileByteSource(path: media.appendingPathComponent(path).path) else { continue }
            do {
                if try MetadataReader.read(source) != nil { read += 1 } else { notMedia += 1 }
            } catch let error as MetadataError {
                failed += 1
                #expect(!error.description.isEmpty)
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("corpus: \(read) read, \(notMedia) not media, \(failed) errors in \(String(format: "%.3f", seconds)) s")
        #expect(read > 400)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
