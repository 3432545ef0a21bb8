import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// Our 256-px thumbnails against a colour-managed reference, vips, for every corpus image
/// both decode: vips applies embedded profiles and treats untagged images as sRGB.
@Suite("Agreement with vipsthumbnail")
struct ColourAgreementTests {
    /// `vipsthumbnail`, or nil when libvips-tools is not installed.
    static let vipsthumbnail: String? = ["/usr/bin/vipsthumbnail", "/usr/local/bin/vipsthumbnail"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The largest tolerated mean absolute difference of 8×8 block means, in levels of 255,
    /// for the worst channel. Per-pixel differences are dominated by JPEG noise (vips' own
    /// Q80 JPEG differs from its PNG by 3 to 7 levels a pixel); block means are not.
    static let tolerance = 3.0

    /// Our thumbnail as compared: the default 256-px fit, encoded at quality 100 (full-resolution
    /// chroma), so what is measured is decoding, shrinking and colour, not JPEG's own loss:
    /// 4:2:0 chroma alone moves the block means of a small colourful picture by 3 to 5 levels.
    static let request = ThumbnailRequest(maxPixelSize: 256, format: .jpeg(quality: 100))

    /// Images compared but not held to the tolerance, and why.
    enum Exemption: String {
        case pngOrientation = "PNG with an EXIF orientation: we turn it upright (as browsers do), vips 8.14 does not"
        case pngGammaWithoutProfile = "PNG gAMA chunk without a profile: libpng honours it, vips ignores it"
        case hdrTransfer = "HDR (PQ or HLG transfer): vips 8.14 does not tone-map, it shows the raw signal"
        case heifExifOrientation = "HEIF with an EXIF orientation and no irot (a third-party camera app's): we turn it upright as the photo's own reading says, libheif and vips follow the container alone"
        case damaged = "damaged file decoded partially: each decoder fills what is missing its own way"
        case floatTIFF = "32-bit float TIFF: vipsthumbnail runs the scRGB floats through their embedded linear profile once more; vips' own `colourspace srgb` gives our mean (195.6)"
        case cameraThumbnail = "the camera's own EXIF thumbnail was used (it covers the size): the camera rendered it, not a decoder"
        case jpeg2000ShrinkOnLoad = "JPEG 2000: vipsthumbnail 8.14 shrinks it on load past the size asked (200×130 comes out 7×5, 2717×3701 85×116), so neither size nor colour is comparable; JPEG2000DecodingTests hold ours to exiftool's sizes and ffmpeg's decode"
        case netpbmMaxval = "Netpbm with a maxval below 255: the specification scales samples by maxval (1 of 1 is full), vips 8.14 keeps them as they are (1 of 1 is 1 of 255)"
    }

    static func exemption(for file: String, path: ThumbnailPath, warnings: [String]) -> Exemption? {
        let reading = Corpus.exiftool[file] ?? [:]
        if reading["PNG:Gamma"] != nil, reading["PNG:ICC_Profile"] == nil, reading["ICC_Profile:ProfileDescription"] == nil,
           reading["PNG:SRGBRendering"] == nil {
            return .pngGammaWithoutProfile
        }
        if file.lowercased().hasSuffix(".png"), let orientation = reading["IFD0:Orientation"]?.number, orientation > 1 {
            return .pngOrientation
        }
        if reading["File:FileType"]?.string == "HEIC" || reading["File:FileType"]?.string == "HEIF",
           let orientation = reading["IFD0:Orientation"]?.number, orientation > 1, reading["QuickTime:Rotation"] == nil {
            return .heifExifOrientation
        }
        if reading["IFD0:SampleFormat"]?.string?.hasPrefix("3") == true { return .floatTIFF }
        if ["JP2", "J2C", "JPX"].contains(reading["File:FileType"]?.string ?? "") { return .jpeg2000ShrinkOnLoad }
        if reading["File:FileType"]?.string.map({ ["PPM", "PGM", "PBM", "PAM"].contains($0) }) == true,
           let maxval = reading["File:MaxVal"]?.number, maxval < 255 {
            return .netpbmMaxval
        }
        if let transfer = reading["QuickTime:TransferCharacteristics"]?.number, transfer == 16 || transfer == 18 {
            return .hdrTransfer
        }
        if !warnings.isEmpty { return .damaged }
        if path == .embeddedExifThumbnail { return .cameraThumbnail }
        return nil
    }

    struct Row: Sendable {
        var path: String
        var ours: (Int, Int)
        var theirs: (Int, Int)
        var difference: Double
        var exemption: Exemption?
    }

    @Test("every corpus image both decode is within 3 levels of vips over 8×8 blocks, and within a pixel in size",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func agreesWithVips() throws {
        guard let vips = Self.vipsthumbnail else {
            if Corpus.isCI { Issue.record("vipsthumbnail is missing under CI: scripts/install-dependencies --test installs libvips-tools") }
            print("vipsthumbnail is not installed (apt-get install libvips-tools): the agreement test is skipped")
            return
        }
        let files = ThumbnailTestSupport.manifestEntries.compactMap { entry -> String? in
            guard let path = ThumbnailTestSupport.path(entry.path), let source = try? FileByteSource(path: path),
                  let format = try? MetadataReader.detectFormat(source), format.mediaType == .image, !format.isRaw,
                  ThumbnailGenerator.supports(format) else { return nil }
            return entry.path
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("mediaindex-vips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }

        let rows = Locked([Row?](repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let relative = files[index]
            guard let path = ThumbnailTestSupport.path(relative),
                  let ours = try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: Self.request),
                  let ourPixels = try? ThumbnailTestSupport.pixels(ofJPEG: ours.data) else { return }
            let target = output.appendingPathComponent("\(index).png")
            guard Self.runVips(vips, path, to: target.path),
                  let png = try? Data(contentsOf: target),
                  let theirPixels = try? [UInt8](png).withUnsafeBufferPointer({ try PNGDecoder.decode($0, pixelLimit: 1 << 24) })
            else { return }
            let theirs = theirPixels.flattenedOnWhite()
            let difference = Self.blockDifference(ourPixels, theirs)
            rows.update { $0[index] = Row(path: relative, ours: (ourPixels.width, ourPixels.height),
                                          theirs: (theirs.width, theirs.height), difference: difference,
                                          exemption: Self.exemption(for: relative, path: ours.path, warnings: ours.warnings)) }
        }
        let compared = rows.value.compactMap { $0 }.sorted { $0.difference > $1.difference }
        print("image | ours | vips | worst-channel block MAD | exemption")
        for row in compared {
            print("\(row.path) | \(row.ours.0)×\(row.ours.1) | \(row.theirs.0)×\(row.theirs.1) | "
                  + String(format: "%.2f", row.difference) + " | \(row.exemption?.rawValue ?? "")")
        }
        print("compared \(compared.count) of \(files.count) images both tools decode")
        #expect(compared.count >= 300, "only \(compared.count) images were decoded by both tools")
        #expect(compared.contains { $0.path.hasSuffix("IMG_5195.HEIC") }, "the iPhone HEICs are compared")
        // Wrong shapes that issue 16's Shape section fixes in the HEIF reader, not here.
        let shapeFixPending: Set<String> = ["exiv2-test-data/test/data/Canon.HIF"]
        for row in compared where row.exemption != .pngOrientation && row.exemption != .heifExifOrientation
            && row.exemption != .jpeg2000ShrinkOnLoad && !shapeFixPending.contains(row.path) {
            #expect(abs(row.ours.0 - row.theirs.0) <= 1 && abs(row.ours.1 - row.theirs.1) <= 1,
                    "\(row.path): ours \(row.ours.0)×\(row.ours.1), vips \(row.theirs.0)×\(row.theirs.1)")
            if row.exemption == nil {
                #expect(row.difference <= Self.tolerance, "\(row.path) differs from vips by \(row.difference) levels")
            }
        }
    }

    /// Runs `vipsthumbnail FILE -s '256x256>' --import-profile srgb --export-profile srgb`, writing 8-bit PNG.
    static func runVips(_ vips: String, _ path: String, to output: String) -> Bool {
        ThumbnailTestSupport.run(vips, [path, "-s", "256x256>", "--import-profile", "srgb", "--export-profile", "srgb",
                                        "-o", output + "[bitdepth=8]"])
            && FileManager.default.fileExists(atPath: output)
    }

    /// The worst channel's mean absolute difference of 8×8 block means, both pictures first
    /// brought to the smaller one's size.
    static func blockDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let width = min(a.width, b.width), height = min(a.height, b.height)
        let x = AreaResampler.resize(a.flattenedOnWhite(), width: width, height: height)
        let y = AreaResampler.resize(b.flattenedOnWhite(), width: width, height: height)
        var totals = [Double](repeating: 0, count: 3)
        var blocks = 0
        for by in stride(from: 0, to: height, by: 8) {
            for bx in stride(from: 0, to: width, by: 8) {
                var sumX = [Double](repeating: 0, count: 3), sumY = [Double](repeating: 0, count: 3)
                var count = 0.0
                for py in by..<min(height, by + 8) {
                    for px in bx..<min(width, bx + 8) {
                        let i = (py * width + px) * 3
                        for c in 0..<3 { sumX[c] += Double(x.pixels[i + c]); sumY[c] += Double(y.pixels[i + c]) }
                        count += 1
                    }
                }
                for c in 0..<3 { totals[c] += abs(sumX[c] - sumY[c]) / count }
                blocks += 1
            }
        }
        return totals.map { $0 / Double(max(1, blocks)) }.max() ?? 0
    }
}

/// A value shared by the parallel workers of a test. `@unchecked Sendable`: every access
/// goes through the lock.
final class Locked<Value>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    func update(_ body: (inout Value) -> Void) { lock.lock(); body(&stored); lock.unlock() }
}
