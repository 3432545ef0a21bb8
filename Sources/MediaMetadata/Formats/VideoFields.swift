/// Bounds-checked integer fields of byte arrays, for the video container readers
/// (ASF, FLV, DV, MPEG). Every accessor returns nil past the end instead of trapping.
enum VideoFields {
    /// The width a picture of `codedWidth` pixels of aspect `horizontal`:`vertical` is shown
    /// at, its height kept (as ffmpeg writes a track's size, and exiftool reads it): 720
    /// pixels of 16:15 are shown as 768. `codedWidth` itself for square or unknown pixels,
    /// and for an aspect beyond 1:16…16:1 (a lying field).
    static func displayWidth(codedWidth: Int, pixelAspect: (horizontal: Int, vertical: Int)?) -> Int {
        guard let (h, v) = pixelAspect, h > 0, v > 0, h != v, h <= 16 * v, v <= 16 * h else { return codedWidth }
        return max(1, Int((Double(codedWidth) * Double(h) / Double(v)).rounded()))
    }

    static func u8(_ b: [UInt8], _ i: Int) -> Int? {
        i >= 0 && i < b.count ? Int(b[i]) : nil
    }

    static func le16(_ b: [UInt8], _ i: Int) -> Int? {
        guard i >= 0, i + 2 <= b.count else { return nil }
        return Int(b[i]) | Int(b[i + 1]) << 8
    }

    static func le32(_ b: [UInt8], _ i: Int) -> Int? {
        guard i >= 0, i + 4 <= b.count else { return nil }
        return Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
    }

    static func le64(_ b: [UInt8], _ i: Int) -> UInt64? {
        guard i >= 0, i + 8 <= b.count else { return nil }
        var value: UInt64 = 0
        for k in (0..<8).reversed() { value = value << 8 | UInt64(b[i + k]) }
        return value
    }

    static func be16(_ b: [UInt8], _ i: Int) -> Int? {
        guard i >= 0, i + 2 <= b.count else { return nil }
        return Int(b[i]) << 8 | Int(b[i + 1])
    }

    static func be24(_ b: [UInt8], _ i: Int) -> Int? {
        guard i >= 0, i + 3 <= b.count else { return nil }
        return Int(b[i]) << 16 | Int(b[i + 1]) << 8 | Int(b[i + 2])
    }

    static func be32(_ b: [UInt8], _ i: Int) -> Int? {
        guard i >= 0, i + 4 <= b.count else { return nil }
        return Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }

    /// Little-endian field of 0, 1, 2 or 4 bytes, chosen by a 2-bit ASF length type.
    static func asfLengthTypeSize(_ type: Int) -> Int {
        switch type & 3 {
        case 0: return 0
        case 1: return 1
        case 2: return 2
        default: return 4
        }
    }

    /// Snaps a measured frame rate to the nearest common rate when within `tolerance`
    /// (relative), as ffmpeg rounds its estimate to a standard rate.
    static func snappedFrameRate(_ measured: Double, tolerance: Double = 0.01) -> Double {
        let standard: [Double] = [
            24000.0 / 1001, 24, 25, 30000.0 / 1001, 30, 48, 50, 60000.0 / 1001, 60, 100, 120000.0 / 1001, 120,
            240, 15, 12.5, 12, 10, 8, 5, 1, 2, 6, 20, 15000.0 / 1001,
        ]
        var best = measured
        var bestError = tolerance
        for rate in standard {
            let error = abs(measured / rate - 1)
            if error < bestError { bestError = error; best = rate }
        }
        return best
    }
}
