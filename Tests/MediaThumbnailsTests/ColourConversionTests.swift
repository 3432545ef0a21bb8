import Foundation
import Testing
import CLCMS2
@testable import MediaThumbnails

/// Conversion to sRGB: ICC profiles (built here with Little CMS from published primaries),
/// nclx primaries and transfers, and the transform cache.
@Suite("Colour conversion to sRGB")
struct ColourConversionTests {
    /// An ICC profile with the given primaries (D65) and one curve, serialised by lcms2.
    static func profile(red: (Double, Double), green: (Double, Double), blue: (Double, Double), gamma: Double?) -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
                                        Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
        // sRGB's parametric curve (type 4), or a pure gamma.
        var parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = gamma.map { cmsBuildGamma(nil, $0) } ?? cmsBuildParametricToneCurve(nil, 4, &parameters)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let handle = curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }
        defer { cmsCloseProfile(handle) }
        return serialise(handle)
    }

    static func serialise(_ handle: cmsHPROFILE?) -> [UInt8] {
        var length: cmsUInt32Number = 0
        _ = cmsSaveProfileToMem(handle, nil, &length)
        var bytes = [UInt8](repeating: 0, count: Int(length))
        _ = cmsSaveProfileToMem(handle, &bytes, &length)
        return bytes
    }

    static let displayP3 = profile(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), gamma: nil)

    static func swatch(_ colours: [(UInt8, UInt8, UInt8)]) -> PixelBuffer {
        PixelBuffer(width: colours.count, height: 1, channels: 3, pixels: colours.flatMap { [$0.0, $0.1, $0.2] })
    }

    @Test("a Display P3 profile makes saturated colours more saturated in sRGB, and leaves grays alone")
    func displayP3() throws {
        let input = Self.swatch([(200, 60, 50), (60, 180, 70), (128, 128, 128)])
        let (output, warning) = ColourConverter.toSRGB(input, from: .icc(Self.displayP3))
        #expect(warning == nil)
        let p = output.pixels
        // P3's red is redder than sRGB's: in sRGB the same colour needs more red and less green.
        #expect(p[0] > 200 && p[1] < 60, "\(Array(p[0..<3]))")
        #expect(p[4] > 180, "\(Array(p[3..<6]))")
        #expect(abs(Int(p[6]) - 128) <= 1 && abs(Int(p[7]) - 128) <= 1 && abs(Int(p[8]) - 128) <= 1)
    }

    @Test("a half-transparent picture with a profile is composited on white after its conversion to sRGB, as vips flattens it")
    func transparencyIsFlattenedInSRGB() throws {
        // Display P3 (20, 200, 40) at alpha 128, the whole picture.
        let colour: [UInt8] = [20, 200, 40], alpha = 128
        let picture = PixelBuffer(width: 32, height: 32, channels: 4, pixels: (0..<(32 * 32)).flatMap { _ in colour + [UInt8(alpha)] })
        let thumbnail = try ThumbnailGenerator.finish(picture, orientation: 1, request: ThumbnailRequest(maxPixelSize: 16),
                                                      path: .fullDecode, warnings: [], colour: .icc(Self.displayP3))
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        func composite(_ value: UInt8) -> Double { (Double(value) * Double(alpha) + 255 * Double(255 - alpha)) / 255 }
        // Right: the colour in sRGB, then mixed with white.
        let inSRGB = ColourConverter.toSRGB(Self.swatch([(colour[0], colour[1], colour[2])]), from: .icc(Self.displayP3)).image.pixels
        let expected = inSRGB.map(composite)
        #expect(zip(mean, expected).allSatisfy { abs($0 - $1) <= 2 }, "mean \(mean), expected \(expected)")
        // Wrong: white mixed in as if it were a P3 colour, then converted.
        let mixed = colour.map { UInt8(composite($0).rounded()) }
        let flattenedFirst = ColourConverter.toSRGB(Self.swatch([(mixed[0], mixed[1], mixed[2])]), from: .icc(Self.displayP3)).image.pixels
        #expect(zip(flattenedFirst.map(Double.init), expected).contains { abs($0 - $1) > 4 },
                "the fixture does not tell the two orders apart: \(flattenedFirst) vs \(expected)")
    }

    @Test("nclx Display P3 primaries with the sRGB transfer convert as the Display P3 ICC profile does")
    func nclxMatchesICC() throws {
        let input = Self.swatch([(200, 60, 50), (60, 180, 70), (20, 40, 230), (250, 250, 10)])
        let viaICC = ColourConverter.toSRGB(input, from: .icc(Self.displayP3)).image
        let viaNCLX = ColourConverter.toSRGB(input, from: ColourSpace.fromCoded(primaries: 12, transfer: 13)).image
        for i in viaICC.pixels.indices {
            #expect(abs(Int(viaICC.pixels[i]) - Int(viaNCLX.pixels[i])) <= 2, "sample \(i): \(viaICC.pixels[i]) vs \(viaNCLX.pixels[i])")
        }
    }

    @Test("BT.709 and unspecified nclx values are sRGB and change nothing")
    func bt709IsIdentity() {
        #expect(ColourSpace.fromCoded(primaries: 1, transfer: 1) == .sRGB)
        #expect(ColourSpace.fromCoded(primaries: 2, transfer: 2) == .sRGB)
        #expect(ColourSpace.fromCoded(primaries: 1, transfer: 13) == .sRGB)
        #expect(ColourSpace.fromCoded(primaries: 9, transfer: 16) == .coded(primaries: 9, transfer: 16))
    }

    @Test("a gray profile with a linear curve brightens mid-gray to sRGB's 188")
    func grayProfile() throws {
        let curve = cmsBuildGamma(nil, 1.0)
        defer { cmsFreeToneCurve(curve) }
        let gray = cmsCreateGrayProfile(cmsD50_xyY(), curve)
        defer { cmsCloseProfile(gray) }
        let input = Self.swatch([(128, 128, 128), (0, 0, 0), (255, 255, 255)])
        let output = ColourConverter.toSRGB(input, from: .icc(Self.serialise(gray))).image
        // Linear 0.502 is sRGB 188 (IEC 61966-2-1).
        #expect(abs(Int(output.pixels[0]) - 188) <= 2, "\(output.pixels)")
        #expect(output.pixels[3] <= 1 && output.pixels[8] >= 254)
    }

    @Test("transforms are built once per profile and reused")
    func cached() {
        let profile = Self.profile(red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06), gamma: 2.2)  // Adobe RGB (1998)
        let input = Self.swatch([(10, 200, 30)])
        _ = ColourConverter.toSRGB(input, from: .icc(profile))
        let before = TransformCache.shared.built
        for _ in 0..<5 { _ = ColourConverter.toSRGB(input, from: .icc(profile)) }
        #expect(TransformCache.shared.built == before)
    }

    @Test("an unreadable profile leaves the picture as it is, with a warning")
    func unreadableProfile() {
        let input = Self.swatch([(10, 200, 30)])
        let (output, warning) = ColourConverter.toSRGB(input, from: .icc([UInt8](repeating: 7, count: 300)))
        #expect(output.pixels == input.pixels)
        #expect(warning != nil)
    }

    @Test("PQ and HLG tone mapping: black stays black, reference white is bright, highlights roll off below clipping")
    func toneMapping() {
        for code in [16, 18] {
            let transfer = CodedTransfer(code)
            #expect(transfer.linear(0) < 0.001)
            var previous = -1.0
            for step in 0...100 {
                let value = transfer.linear(Double(step) / 100)
                #expect(value >= previous, "transfer \(code) is not monotonic at \(step)")
                previous = value
            }
            #expect(previous <= 1 && previous > 0.95, "transfer \(code) peak \(previous)")
        }
        // PQ code value 0.58 is 203 cd/m² (BT.2408 reference white): at the knee's shoulder.
        let white = CodedTransfer(16).linear(0.5807)
        #expect(white > 0.85 && white < 0.95, "\(white)")
        // HLG's reference white is its 75 % signal.
        let hlgWhite = CodedTransfer(18).linear(0.75)
        #expect(hlgWhite > 0.85 && hlgWhite < 0.95, "\(hlgWhite)")
    }
}
