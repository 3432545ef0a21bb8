import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing

/// One field's agreement with a reference reading over the corpus.
struct FieldAgreement {
    let name: String
    var agreed = 0
    var compared = 0
    var disagreements: [String] = []

    mutating func record(_ path: String, agrees: Bool, ours: String, theirs: String) {
        compared += 1
        if agrees { agreed += 1 } else { disagreements.append("\(path): ours \(ours), reference \(theirs)") }
    }

    var rate: Double { compared == 0 ? 1 : Double(agreed) / Double(compared) }
}

/// The ISO-BMFF files of the corpus, with the format their content has.
enum ISOBMFFCorpus {
    static let formatsByFileType: [String: MediaFormat] = [
        "MOV": .quickTime, "MP4": .mp4, "M4V": .m4v, "3GP": .threeGP, "3G2": .threeGP,
        "HEIC": .heic, "HEIF": .heif, "AVIF": .avif, "CR3": .cr3,
    ]

    static var files: [(path: String, format: MediaFormat, categories: [String])] {
        Corpus.manifest.compactMap { entry in
            guard let path = entry["path"]?.string, let type = entry["exiftool_file_type"]?.string,
                  let format = formatsByFileType[type] else { return nil }
            var categories: [String] = []
            if case .array(let list)? = entry["categories"] { categories = list.compactMap(\.string) }
            return (path, format, categories)
        }
    }

    static func read(_ path: String, format: MediaFormat, in folder: URL?) -> Result<ContainerReading, Error> {
        guard let folder else { return .failure(MetadataError.io("no corpus")) }
        return Result {
            let source = try FileByteSource(path: folder.appendingPathComponent(path).path)
            return try ISOBMFFReader.read(source, format: format)
        }
    }

    /// exiftool's `YYYY:MM:DD HH:MM:SS[.sss][±HH:MM]` as comparable parts.
    static func referenceDate(_ text: String) -> (civil: String, offset: Int?)? {
        guard text.count >= 19, !text.hasPrefix("0000") else { return nil }
        let civil = String(text.prefix(19))
        let rest = text.dropFirst(19).drop { $0 == "." || $0.isNumber }
        return (civil, rest.isEmpty ? nil : CaptureDate.parseOffset(String(rest)))
    }

    static func civil(_ date: CaptureDate) -> String {
        func pad(_ v: Int, _ w: Int) -> String { String(repeating: "0", count: max(0, w - String(v).count)) + String(v) }
        return "\(pad(date.year, 4)):\(pad(date.month, 2)):\(pad(date.day, 2)) \(pad(date.hour, 2)):\(pad(date.minute, 2)):\(pad(date.second, 2))"
    }
}


@Suite("ISO-BMFF reader against the corpus")
struct ISOBMFFCorpusTests {
    @Test("agrees with ffprobe and exiftool on every ISO-BMFF file of the corpus",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func corpusAgreement() throws {
        var duration = FieldAgreement(name: "duration (ffprobe)")
        var displaySize = FieldAgreement(name: "video display size (ffprobe)")
        var codec = FieldAgreement(name: "video codec (ffprobe)")
        var frameRate = FieldAgreement(name: "frame rate (ffprobe avg)")
        var audio = FieldAgreement(name: "has audio (ffprobe)")
        var imageSize = FieldAgreement(name: "image size (exiftool File:Image*)")
        var orientation = FieldAgreement(name: "HEIF orientation (exiftool IFD0)")
        var date = FieldAgreement(name: "movie date (exiftool Keys/QuickTime)")
        var location = FieldAgreement(name: "movie GPS (exiftool Composite)")
        var makeModel = FieldAgreement(name: "movie make/model (exiftool)")
        var contentID = FieldAgreement(name: "content identifier (exiftool Keys)")
        var exifBlock = FieldAgreement(name: "EXIF block handed over (exiftool)")
        var xmpPacket = FieldAgreement(name: "XMP packet handed over (exiftool)")
        var failures: [String] = []
        var warned: [String] = []

        for file in ISOBMFFCorpus.files {
            let started = Date()
            let result = ISOBMFFCorpus.read(file.path, format: file.format, in: Corpus.media)
            let elapsed = Date().timeIntervalSince(started)
            #expect(elapsed < 30, "\(file.path) took \(elapsed) s: a hang")
            guard case .success(let reading) = result else {
                if case .failure(let error) = result { failures.append("\(file.path): \(error)") }
                continue
            }
            let ours = reading.metadata
            if !ours.warnings.isEmpty { warned.append("\(file.path): \(ours.warnings.joined(separator: " | "))") }
            let exif = Corpus.exiftool[file.path] ?? [:]
            let exiftoolFailed = exif["ExifTool:Error"] != nil

            if let probe = Corpus.ffprobe[file.path], probe["_error"] == nil, file.format.mediaType == .video {
                if let reference = probe["format"]?["duration"]?.number {
                    let value = ours.durationSeconds ?? -1
                    duration.record(file.path, agrees: abs(value - reference) <= max(0.05, reference * 0.01),
                                    ours: "\(value)", theirs: "\(reference)")
                }
                var streams: [JSONValue] = []
                if case .array(let list)? = probe["streams"] { streams = list }
                let video = streams.first { $0["codec_type"]?.string == "video" && $0["disposition"]?["attached_pic"]?.number != 1 }
                if let video, let width = video["width"]?.number, let height = video["height"]?.number, width > 0 {
                    var rotation = 0.0
                    if case .array(let sides)? = video["side_data_list"] {
                        rotation = sides.compactMap { $0["rotation"]?.number }.first ?? 0
                    }
                    if let rotate = video["tags"]?["rotate"]?.number { rotation = rotate }
                    let quarter = Int((rotation / 90).rounded()) & 1 == 1
                    let expected = quarter ? (Int(height), Int(width)) : (Int(width), Int(height))
                    let got = ours.displaySize
                    displaySize.record(file.path, agrees: got?.width == expected.0 && got?.height == expected.1,
                                       ours: "\(got.map { "\($0.width)x\($0.height)" } ?? "nil")",
                                       theirs: "\(expected.0)x\(expected.1)")
                    if let name = video["codec_name"]?.string {
                        codec.record(file.path, agrees: ours.videoCodec == name,
                                     ours: ours.videoCodec ?? "nil", theirs: name)
                    }
                    if let text = video["avg_frame_rate"]?.string, case let parts = text.split(separator: "/"),
                       parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d > 0, n > 0 {
                        let reference = n / d
                        let value = ours.frameRate ?? -1
                        frameRate.record(file.path, agrees: abs(value - reference) <= reference * 0.01,
                                         ours: "\(value)", theirs: "\(reference)")
                    }
                }
                let hasAudio = streams.contains { $0["codec_type"]?.string == "audio" }
                audio.record(file.path, agrees: ours.hasAudio == hasAudio, ours: "\(ours.hasAudio.map(String.init) ?? "nil")", theirs: "\(hasAudio)")
            }

            guard !exiftoolFailed else { continue }
            // The embedded blocks are handed over wherever exiftool found their tags.
            if file.format.mediaType == .image {
                let hasEXIF = exif.keys.contains { $0.hasPrefix("IFD0:") || $0.hasPrefix("ExifIFD:") }
                let block = reading.exif ?? []
                let startsWell = block.starts(with: [0x49, 0x49, 0x2A, 0x00]) || block.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
                    || block.starts(with: Array("Exif\0\0".utf8))
                exifBlock.record(file.path, agrees: hasEXIF == startsWell, ours: "\(block.prefix(4))", theirs: hasEXIF ? "EXIF" : "none")
                let hasXMP = exif.keys.contains { $0.hasPrefix("XMP-") }
                let packet = String(decoding: reading.xmp ?? [], as: UTF8.self)
                xmpPacket.record(file.path, agrees: hasXMP == packet.contains("x:xmpmeta"),
                                 ours: "\(packet.prefix(20))", theirs: hasXMP ? "XMP" : "none")
            }
            if file.format.mediaType == .image,
               let width = exif["File:ImageWidth"]?.number ?? exif["IFD0:ImageWidth"]?.number,
               let height = exif["File:ImageHeight"]?.number ?? exif["IFD0:ImageHeight"]?.number {
                imageSize.record(file.path, agrees: ours.pixelWidth == Int(width) && ours.pixelHeight == Int(height),
                                 ours: "\(ours.pixelWidth ?? -1)x\(ours.pixelHeight ?? -1)", theirs: "\(Int(width))x\(Int(height))")
            }
            // Where the HEIF has no irot/imir we leave orientation to EXIF, which agrees by construction.
            if file.format != .cr3, file.format.mediaType == .image, ours.orientation != nil,
               let reference = exif["IFD0:Orientation"]?.number {
                orientation.record(file.path, agrees: ours.orientation == Int(reference),
                                   ours: "\(ours.orientation ?? -1)", theirs: "\(Int(reference))")
            }
            if file.format.mediaType == .video {
                let reference = exif["Keys:CreationDate"]?.string ?? exif["UserData:DateTimeOriginal"]?.string
                    ?? exif["QuickTime:CreateDate"]?.string
                if let reference, let parts = ISOBMFFCorpus.referenceDate(reference) {
                    let got = ours.captureDate
                    let agrees = got.map { ISOBMFFCorpus.civil($0) == parts.civil && (parts.offset == nil || $0.utcOffsetSeconds == parts.offset) } ?? false
                    date.record(file.path, agrees: agrees, ours: got?.iso8601 ?? "nil", theirs: reference)
                }
                if let latitude = exif["Composite:GPSLatitude"]?.number, let longitude = exif["Composite:GPSLongitude"]?.number {
                    let got = ours.location
                    let agrees = got.map { abs($0.latitude - latitude) < 1e-4 && abs($0.longitude - longitude) < 1e-4 } ?? false
                    location.record(file.path, agrees: agrees, ours: got.map { "\($0.latitude),\($0.longitude)" } ?? "nil",
                                    theirs: "\(latitude),\(longitude)")
                }
                let make = exif["Keys:Make"]?.string ?? exif["UserData:Make"]?.string
                let model = exif["Keys:Model"]?.string ?? exif["UserData:Model"]?.string
                if make != nil || model != nil {
                    makeModel.record(file.path, agrees: ours.make == make && ours.model == model,
                                     ours: "\(ours.make ?? "nil")/\(ours.model ?? "nil")", theirs: "\(make ?? "nil")/\(model ?? "nil")")
                }
                if let identifier = exif["Keys:ContentIdentifier"]?.string {
                    contentID.record(file.path, agrees: ours.contentIdentifier == identifier,
                                     ours: ours.contentIdentifier ?? "nil", theirs: identifier)
                }
            }
        }

        let fields = [duration, displaySize, codec, frameRate, audio, imageSize, orientation, date, location, makeModel, contentID,
                      exifBlock, xmpPacket]
        print("ISO-BMFF agreement over \(ISOBMFFCorpus.files.count) files:")
        for field in fields {
            let percent = String(format: "%5.1f%%", field.rate * 100)
            print("  \(field.name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(percent)  (\(field.agreed)/\(field.compared))")
            for line in field.disagreements { print("      - \(line)") }
        }
        print("  read with warnings (\(warned.count)):")
        for line in warned { print("      - \(line)") }
        print("  read failures (\(failures.count)):")
        for line in failures { print("      - \(line)") }
        let unexpectedFailures = failures.filter { line in !ISOBMFFCorpusTests.expectedFailures.contains { line.hasPrefix($0 + ":") } }
        #expect(unexpectedFailures.isEmpty, "\(unexpectedFailures)")

        for field in fields {
            let allowed = ISOBMFFCorpusTests.deliberateDisagreements[field.name] ?? []
            let unexplained = field.disagreements.filter { line in !allowed.contains { line.hasPrefix($0 + ":") } }
            #expect(unexplained.isEmpty, "\(field.name): \(unexplained)")
            // Deliberate disagreements aside, at least 95% of comparisons agree.
            let deliberate = field.disagreements.count - unexplained.count
            let judged = field.compared - deliberate
            #expect(judged == 0 || Double(field.agreed) / Double(judged) >= 0.95, "\(field.name)")
        }
        #expect(duration.compared >= 20 && imageSize.compared >= 30, "the corpus should exercise both movies and images")
    }

    @Test("finds the still-image-time track exactly in the movies that declare its key",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func stillImageTime() throws {
        let media = try #require(Corpus.media)
        var found = 0
        for file in ISOBMFFCorpus.files where file.format.mediaType == .video {
            guard case .success(let reading) = ISOBMFFCorpus.read(file.path, format: file.format, in: media),
                  reading.metadata.hasStillImageTime != nil else { continue }
            // Reference: the key's bytes anywhere in the file (corpus files are small).
            let bytes = try [UInt8](Data(contentsOf: media.appendingPathComponent(file.path)))
            let declares = bytes.contains(subsequence: MovieBoxParser.stillImageTimeKey)
            #expect(reading.metadata.hasStillImageTime == declares, "\(file.path)")
            if declares { found += 1 }
        }
        #expect(found >= 1)
    }

    @Test("hands over a CR3's CMT1 as EXIF and CMT2/CMT4 as extra TIFF blocks",
          .enabled(if: Corpus.isAvailable, "the shared corpus is needed"))
    func canonCR3() throws {
        for file in ISOBMFFCorpus.files where file.format == .cr3 {
            let reading = try ISOBMFFCorpus.read(file.path, format: .cr3, in: Corpus.media).get()
            let reference = try #require(Corpus.exiftool[file.path])
            #expect(reading.exif?.starts(with: [0x49, 0x49, 0x2A, 0x00]) == true, "\(file.path)")
            // CMT2 (Exif IFD) always; CMT4 (GPS) is present in files with GPS tags.
            let hasGPS = reference.keys.contains { $0.hasPrefix("GPS:") }
            #expect(reading.extraExifBlocks.count >= 1, "\(file.path)")
            if hasGPS { #expect(reading.extraExifBlocks.count == 2, "\(file.path)") }
            #expect(reading.extraExifBlocks.allSatisfy { $0.starts(with: [0x49, 0x49, 0x2A, 0x00]) })
            #expect(reading.metadata.durationSeconds == nil && reading.metadata.videoCodec == nil)
            #expect(reading.metadata.pixelWidth == reference["IFD0:ImageWidth"]?.number.map(Int.init))
        }
    }

    /// Disagreements we accept, by field, each with its reason.
    static let deliberateDisagreements: [String: [String]] = [
        // Nokia writes irot 3 (display 90° clockwise) and EXIF orientation 1; HEIF says
        // irot governs, and exiftool reports the same rotation as QuickTime:Rotation 270.
        "HEIF orientation (exiftool IFD0)": ["ianare-exif-samples/heic/mobile/HMD_Nokia_8.3_5G.heif"],
        // `loci` holds 0,0: the placeholder of a device without a fix, not a place.
        "movie GPS (exiftool Composite)": ["photoprism/pkg/media/video/testdata/isom-avc1.mp4"],
    ]

    /// Files that are only an `ftyp` (or less): a readable error is the right answer.
    static let expectedFailures = [
        "nom-exif/testdata/compatible-brands.heic",
        "nom-exif/testdata/compatible-brands.mov",
        "nom-exif/testdata/crash_add_large",
    ]
}
