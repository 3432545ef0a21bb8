import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// exiftool's reading of a file (`-j -n -G1`: numbers, tags named with their group).
func exiftoolReading(_ path: String) -> [String: Any] {
    guard let outcome = try? ExternalTool.outcome("/usr/bin/exiftool", ["-j", "-n", "-G1", path]) else { return [:] }
    return ((try? JSONSerialization.jsonObject(with: Data(outcome.standardOutput))) as? [[String: Any]])?.first ?? [:]
}

@Suite("Compatible JPEG renditions")
struct CompatibleImageTests {
    /// An iPhone HEIC (Display P3, EXIF orientation 6, GPS), 12 MP.
    static let iPhoneHEIC = "exiv2-test-data/test/data/2021-02-13-1929.heic"
    /// The iOS 17 HEIC with shared auxiliary images.
    static let iOSHEIC = "ente-test-fixtures/ml/indexing/v1/files/IMG_8606_rotate_90_cw_contains_text.HEIC"
    /// A JPEG with orientation 6 and a Generic RGB profile.
    static let rotatedJPEG = "ianare-exif-samples/jpg/orientation/landscape_6.jpg"
    /// A JPEG in Adobe RGB (1998).
    static let adobeJPEG = "exiv2-test-data/test/data/Reagan.jpg"

    /// Makes the rendition of `relative`, writes it to a temporary file and reads it back with exiftool.
    func rendition(_ relative: String, _ options: CompatibleImageOptions = CompatibleImageOptions())
        throws -> (made: EncodedThumbnail, reading: [String: Any], original: [String: Any]) {
        let path = try #require(ThumbnailTestSupport.path(relative))
        let made = try ThumbnailGenerator.compatibleImage(ofFileAtBytes: Array(path.utf8), options: options)
        let output = NSTemporaryDirectory() + "compatible-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try Data(made.data).write(to: URL(fileURLWithPath: output))
        return (made, exiftoolReading(output), exiftoolReading(path))
    }

    /// The displayed size exiftool gives for the original: its stored size, swapped for orientations 5–8.
    func uprightSize(_ original: [String: Any]) -> (Int, Int) {
        let width = original["File:ImageWidth"] as? Int ?? original["QuickTime:ImageWidth"] as? Int ?? 0
        let height = original["File:ImageHeight"] as? Int ?? original["QuickTime:ImageHeight"] as? Int ?? 0
        let orientation = original["IFD0:Orientation"] as? Int ?? 1
        return orientation >= 5 ? (height, width) : (width, height)
    }

    @Test("the iOS 17 HEIC comes out upright, full size, orientation reset to 1",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"))
    func iOSHEICIsUpright() throws {
        let (made, reading, original) = try rendition(Self.iOSHEIC)
        #expect(original["IFD0:Orientation"] as? Int == 6)
        let (width, height) = (reading["File:ImageWidth"] as? Int, reading["File:ImageHeight"] as? Int)
        #expect(width == 3024 && height == 4032, "exiftool reads \(String(describing: width))×\(String(describing: height))")
        #expect(made.width == 3024 && made.height == 4032)
        #expect(reading["IFD0:Orientation"] as? Int == 1)
    }

    @Test("EXIF is kept as exiftool reads it on the original, orientation 1, and the ICC profile is kept",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"), arguments: [iPhoneHEIC, rotatedJPEG])
    func exifAndProfileKept(relative: String) throws {
        let (_, reading, original) = try rendition(relative)
        let (width, height) = uprightSize(original)
        #expect(reading["File:ImageWidth"] as? Int == width && reading["File:ImageHeight"] as? Int == height)
        #expect(reading["IFD0:Orientation"] as? Int == 1)
        let compared = ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "ExifIFD:ExposureTime", "ExifIFD:FNumber",
                        "ExifIFD:ISO", "ExifIFD:LensModel", "ExifIFD:OffsetTimeOriginal", "GPS:GPSLatitude", "GPS:GPSLongitude",
                        "GPS:GPSAltitude", "ICC_Profile:ProfileDescription"]
        var seen = 0
        for tag in compared where original[tag] != nil {
            seen += 1
            #expect("\(reading[tag] ?? "missing")" == "\(original[tag]!)", "\(relative): \(tag)")
        }
        #expect(seen >= (relative.hasSuffix(".heic") ? 6 : 1), "\(relative) should carry the compared tags it has")
        #expect(reading["ICC_Profile:ProfileDescription"] != nil)
    }

    @Test("location=omit drops the GPS directory and keeps the rest",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"))
    func locationOmitted() throws {
        let (_, reading, original) = try rendition(Self.iPhoneHEIC, CompatibleImageOptions(omitsLocation: true))
        #expect(original["GPS:GPSLatitude"] != nil)
        #expect(reading.keys.filter { $0.hasPrefix("GPS:") }.isEmpty, "\(reading.keys.filter { $0.hasPrefix("GPS:") })")
        #expect("\(reading["IFD0:Model"] ?? "")" == "\(original["IFD0:Model"] ?? "-")")
        #expect("\(reading["ExifIFD:DateTimeOriginal"] ?? "")" == "\(original["ExifIFD:DateTimeOriginal"] ?? "-")")
    }

    @Test("colorspace=srgb converts the picture: no profile, colours as vips converts them",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"))
    func convertedToSRGB() throws {
        let (made, reading, original) = try rendition(Self.adobeJPEG, CompatibleImageOptions(convertsToSRGB: true))
        #expect("\(original["ICC_Profile:ProfileDescription"] ?? "")" == "Adobe RGB (1998)")
        #expect(reading["ICC_Profile:ProfileDescription"] == nil)
        let kept = try rendition(Self.adobeJPEG).made
        let converted = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: made.data))
        let unconverted = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: kept.data))
        // vips' conversion of the original through its embedded profile is the reference.
        let vips = ["/usr/bin/vipsthumbnail", "/usr/local/bin/vipsthumbnail"].first { FileManager.default.isExecutableFile(atPath: $0) }
        if let vips {
            let output = NSTemporaryDirectory() + "vips-\(UUID().uuidString).png"
            defer { try? FileManager.default.removeItem(atPath: output) }
            #expect(ThumbnailTestSupport.run(vips, [try #require(ThumbnailTestSupport.path(Self.adobeJPEG)), "-s", "4096x4096>",
                                                    "--export-profile", "srgb", "-o", output + "[bitdepth=8]"]))
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
            let reference = ThumbnailTestSupport.meanColour(try png.withUnsafeBufferPointer { try PNGDecoder.decode($0, pixelLimit: 1 << 26) })
            for channel in 0..<3 {
                #expect(abs(converted[channel] - reference[channel]) < 2.5,
                        "channel \(channel): ours \(converted[channel]), vips \(reference[channel])")
            }
        }
        #expect(zip(converted, unconverted).contains { abs($0 - $1) > 1 }, "the conversion should change the values")
    }
}
