import MediaMetadata

/// Area averaging of one plane of samples (a decoder's R, G or B plane, 8 or 16 bits
/// per sample) to floats, without copying the plane first.
///
/// Vertical pass first: each output row accumulates the weighted source rows it covers
/// into one float row as wide as the source, read once in memory order; then that row is
/// reduced horizontally. So a 50-megapixel plane is streamed once, and the only buffers are
/// one source-wide row and the small output.
enum PlaneResampler {
    /// The plane at `base` scaled to `width` × `height`, in its own sample units.
    ///
    /// - Parameters:
    ///   - bytesPerSample: 1, or 2 for native-endian 16-bit samples (10- and 12-bit HEIF).
    ///   - rowBytes: the plane's stride.
    static func average(_ base: UnsafeRawPointer, width sw: Int, height sh: Int, rowBytes: Int, bytesPerSample: Int,
                        toWidth width: Int, toHeight height: Int) -> [Float] {
        let dw = max(1, width), dh = max(1, height)
        var out = [Float](repeating: 0, count: dw * dh)
        out.withUnsafeMutableBufferPointer { dst in
            AreaResampler.forEachOutputRow(sourceWidth: sw, sourceHeight: sh, rowLength: sw, toWidth: dw, toHeight: dh,
                                           accumulate: { sourceRow, weight, acc, first in
                let line = base + sourceRow * rowBytes
                if bytesPerSample == 1 {
                    AreaResampler.accumulateRow(line.assumingMemoryBound(to: UInt8.self), weight: weight, into: acc, first: first)
                } else {
                    AreaResampler.accumulateRow(line.assumingMemoryBound(to: UInt16.self), weight: weight, into: acc, first: first)
                }
            }, reduce: { y, acc, h in
                let outRow = y * dw
                for x in 0..<dw {
                    let start = h.starts[x], m = h.counts[x], o = h.offsets[x]
                    var sum: Float = 0
                    for j in 0..<m { sum += h.weights[o + j] * acc[start + j] }
                    dst[outRow + x] = sum
                }
            })
        }
        return out
    }

    /// 8-bit interleaved pixels from same-size planes of 8-bit-unit floats, rounded and clamped.
    static func interleave(_ planes: [[Float]], width: Int, height: Int) -> PixelBuffer {
        let channels = planes.count, count = width * height
        var out = [UInt8](repeating: 0, count: count * channels)
        out.withUnsafeMutableBufferPointer { dst in
            for (c, plane) in planes.enumerated() {
                plane.withUnsafeBufferPointer { src in
                    for i in 0..<min(count, src.count) {
                        let v = src[i] + 0.5
                        dst[i * channels + c] = v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v))
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: out)
    }

}

/// How YCbCr samples become RGB: the matrix (Kr, Kb) and the range, from the item's
/// `colr` nclx box, else from the coded picture's own video usability information.
struct YCbCrConversion: Equatable {
    var kr: Float
    var kb: Float
    var fullRange: Bool
    /// Whether the file declares nothing (no nclx box), so the HEVC stream's VUI decides:
    /// its `video_full_range_flag` (0, limited range, when the VUI is absent, as the HEVC
    /// specification defaults it) and its matrix. Until a picture is decoded, BT.601 limited.
    var followsBitstream = false

    /// What a file without an nclx box gets until its HEVC stream says otherwise.
    static let undeclared = YCbCrConversion(kr: 0.299, kb: 0.114, fullRange: false, followsBitstream: true)

    init(kr: Float, kb: Float, fullRange: Bool, followsBitstream: Bool = false) {
        self.kr = kr
        self.kb = kb
        self.fullRange = fullRange
        self.followsBitstream = followsBitstream
    }

    /// For an undeclared conversion, the one a decoded HEVC picture's VUI asks for (BT.601 for
    /// unspecified matrices); a declared one is returned unchanged.
    func resolved(library: LibDe265, picture: LibDe265.Picture) -> YCbCrConversion {
        guard followsBitstream, let rangeFlag = library.fullRangeFlag, let matrix = library.matrixCoefficients else { return self }
        let fullRange = rangeFlag(picture) != 0
        return YCbCrConversion(matrixCoefficients: Int(matrix(picture)), fullRange: fullRange)
            ?? YCbCrConversion(kr: 0.299, kb: 0.114, fullRange: fullRange)
    }

    /// The conversion an ISO/IEC 23091-2 (nclx) description asks for, or nil for matrices
    /// left to libheif (identity/GBR, chromaticity-derived, ICtCp…).
    init?(matrixCoefficients: Int, fullRange: Bool) {
        switch matrixCoefficients {
        case 1: self.init(kr: 0.2126, kb: 0.0722, fullRange: fullRange)       // BT.709
        case 2, 5, 6: self.init(kr: 0.299, kb: 0.114, fullRange: fullRange)   // unspecified, BT.601
        case 4: self.init(kr: 0.30, kb: 0.11, fullRange: fullRange)           // FCC
        case 7: self.init(kr: 0.212, kb: 0.087, fullRange: fullRange)         // SMPTE 240M
        case 9, 10: self.init(kr: 0.2627, kb: 0.0593, fullRange: fullRange)   // BT.2020
        default: return nil
        }
    }

    /// The conversion a HEIF item's `colr` nclx property declares (`.undeclared` without
    /// one), read without libheif; nil for matrices left to libheif.
    init?(items: HEIFItems?, item: UInt32) {
        guard let payload = items?.properties(of: item).first(where: { $0.type == "colr" && $0.payload.starts(with: Array("nclx".utf8)) })?
            .payload, payload.count >= 11 else {
            self = .undeclared
            return
        }
        // nclx: colour_primaries, transfer_characteristics, matrix_coefficients (16 bits each), full_range_flag.
        self.init(matrixCoefficients: Int(payload[8]) << 8 | Int(payload[9]), fullRange: payload[10] & 0x80 != 0)
    }

    /// 8-bit interleaved RGB from same-size Y, Cb, Cr planes in 8-bit units.
    func rgb(y: [Float], cb: [Float], cr: [Float], width: Int, height: Int) -> PixelBuffer {
        let count = min(width * height, y.count, cb.count, cr.count)
        let kg = 1 - kr - kb
        let crToR = 2 * (1 - kr), cbToB = 2 * (1 - kb)
        let crToG = -2 * kr * (1 - kr) / kg, cbToG = -2 * kb * (1 - kb) / kg
        let lumaScale: Float = fullRange ? 1 : 255 / 219, lumaOffset: Float = fullRange ? 0 : 16
        let chromaScale: Float = fullRange ? 1 : 255 / 224
        var out = [UInt8](repeating: 0, count: width * height * 3)
        out.withUnsafeMutableBufferPointer { dst in
            for i in 0..<count {
                let l = (y[i] - lumaOffset) * lumaScale
                let u = (cb[i] - 128) * chromaScale, v = (cr[i] - 128) * chromaScale
                dst[i * 3] = AreaResampler.byte(l + crToR * v)
                dst[i * 3 + 1] = AreaResampler.byte(l + crToG * v + cbToG * u)
                dst[i * 3 + 2] = AreaResampler.byte(l + cbToB * u)
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: out)
    }
}
