/// Where a decoded picture's colour values are defined, as its file declares it.
///
/// Thumbnails are sRGB: `ColourConverter` turns a thumbnail from this space into sRGB.
enum ColourSpace: Hashable, Sendable {
    /// sRGB, or nothing declared (treated as sRGB, as browsers and vips do).
    case sRGB
    /// An embedded ICC profile (JPEG APP2, PNG iCCP, WebP ICCP, TIFF tag 34675, HEIF colr prof/rICC, JPEG XL).
    case icc([UInt8])
    /// ISO/IEC 23091-2 colour primaries and transfer characteristics (a HEIF/AVIF `colr` nclx box).
    case coded(primaries: Int, transfer: Int)

    /// nclx values that amount to sRGB: BT.709 (or unspecified) primaries with an SDR transfer.
    ///
    /// BT.709, BT.601 and unspecified transfer functions are taken as sRGB's curve, as
    /// browsers display such images; only primaries and HDR transfers change a thumbnail.
    static func fromCoded(primaries: Int, transfer: Int) -> ColourSpace {
        let sdrPrimaries = primaries == 1 || primaries == 2 || primaries == 0
        if sdrPrimaries && !CodedTransfer(transfer).isHDR { return .sRGB }
        guard CodedPrimaries(primaries) != nil else { return .sRGB }
        return .coded(primaries: primaries, transfer: transfer)
    }
}

/// The nclx colour primaries MediaThumbnails converts from, as CIE xy chromaticities (D65 white).
struct CodedPrimaries: Equatable {
    var red: (x: Double, y: Double)
    var green: (x: Double, y: Double)
    var blue: (x: Double, y: Double)
    var white: (x: Double, y: Double) = (0.3127, 0.3290)

    /// BT.709 (1), BT.470 System B/G (5), BT.601 (6), SMPTE 240M (7), BT.2020 (9),
    /// DCI-P3 (11, with its own white), Display P3 (12); nil for the rest (left as sRGB).
    init?(_ code: Int) {
        switch code {
        case 0, 1, 2: self.init(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06))
        case 5: self.init(red: (0.64, 0.33), green: (0.29, 0.60), blue: (0.15, 0.06))
        case 6, 7: self.init(red: (0.630, 0.340), green: (0.310, 0.595), blue: (0.155, 0.070))
        case 9: self.init(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046))
        case 11: self.init(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.314, 0.351))
        case 12: self.init(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
        default: return nil
        }
    }

    init(red: (x: Double, y: Double), green: (x: Double, y: Double), blue: (x: Double, y: Double),
         white: (x: Double, y: Double) = (0.3127, 0.3290)) {
        self.red = red
        self.green = green
        self.blue = blue
        self.white = white
    }

    static func == (a: CodedPrimaries, b: CodedPrimaries) -> Bool {
        a.red == b.red && a.green == b.green && a.blue == b.blue && a.white == b.white
    }
}

/// An nclx transfer characteristic, and how its values become SDR linear light.
///
/// HDR tone mapping, kept simple and deliberate:
/// - PQ (16): the signal is decoded to absolute light (SMPTE ST 2084); 203 cd/m², BT.2408's
///   reference white, becomes sRGB white's linear 1.0.
/// - HLG (18): the inverse OETF gives scene light, the BT.2100 OOTF (system gamma 1.2)
///   display light; HLG's reference white (75 % signal) becomes 1.0.
/// - Then, for both, linear values above 0.75 roll off exponentially towards 1.0
///   (`y = k + (1 − k)(1 − e^(−(x − k)/(1 − k)))`, k = 0.75), so highlights up to the
///   mastering peak keep some gradation instead of clipping, and everything below the
///   knee is unchanged. Each channel is mapped on its own.
struct CodedTransfer {
    let code: Int
    init(_ code: Int) { self.code = code }

    var isHDR: Bool { code == 16 || code == 18 }

    /// Linear light, 0...1 (SDR white = 1), of an 8-bit-scaled signal value 0...1.
    func linear(_ signal: Double) -> Double {
        let e = min(1, max(0, signal))
        switch code {
        case 8: return e  // linear
        case 16:
            let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
            let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
            let p = pow(e, 1 / m2)
            let nits = 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
            return Self.rollOff(nits / 203)
        case 18:
            let scene = Self.hlgInverseOETF(e)
            let referenceWhite = pow(Self.hlgInverseOETF(0.75), 1.2)
            return Self.rollOff(pow(scene, 1.2) / referenceWhite)
        default:  // SDR curves: sRGB's (see ColourSpace.fromCoded)
            return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4)
        }
    }

    static func hlgInverseOETF(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
    }

    /// Identity below the knee, an exponential shoulder approaching 1 above it.
    static func rollOff(_ x: Double, knee k: Double = 0.75) -> Double {
        guard x > k else { return max(0, x) }
        return k + (1 - k) * (1 - exp(-(x - k) / (1 - k)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
