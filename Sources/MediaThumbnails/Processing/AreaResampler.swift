/// Downscaling by area averaging: each output pixel is the mean of the exact source
/// footprint it covers, with fractional weights at the footprint's edges.
///
/// This is a box filter matched to the scale, so fine patterns average to their mean
/// instead of aliasing as nearest-neighbour sampling would. Separable: a horizontal
/// pass into a float row buffer, then a vertical pass accumulating whole rows.
enum AreaResampler {
    /// For each output index along one axis: the first source index and the weights of
    /// the source pixels it covers (summing to 1).
    struct Footprints {
        var starts: [Int]
        var counts: [Int]
        var offsets: [Int]
        var weights: [Float]

        init(source: Int, destination: Int) {
            starts = []; counts = []; offsets = []; weights = []
            starts.reserveCapacity(destination)
            let scale = Double(source) / Double(destination)
            for d in 0..<destination {
                let lo = Double(d) * scale
                let hi = min(Double(source), Double(d + 1) * scale)
                let first = min(source - 1, Int(lo))
                var last = max(first, Int(hi.rounded(.up)) - 1)
                last = min(last, source - 1)
                starts.append(first)
                offsets.append(weights.count)
                var total = 0.0
                var local: [Double] = []
                for s in first...last {
                    let overlap = min(hi, Double(s + 1)) - max(lo, Double(s))
                    local.append(max(0, overlap))
                    total += max(0, overlap)
                }
                if total <= 0 { local = [1]; total = 1; last = first }
                counts.append(local.count)
                for w in local { weights.append(Float(w / total)) }
            }
        }
    }

    /// `image` scaled to exactly `width` × `height`; never larger than the source on either axis.
    static func resize(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        if max(1, width) == image.width && max(1, height) == image.height { return image }
        return image.pixels.withUnsafeBufferPointer { pixels in
            resize(pixels: pixels, width: image.width, height: image.height, channels: image.channels,
                   rowBytes: image.width * image.channels, toWidth: width, toHeight: height)
        }
    }

    /// Scales pixels held elsewhere (a decoder's own plane, with its row stride) without
    /// copying them first: a 50-megapixel HEIC is never held twice at full size.
    static func resize(pixels source: UnsafeBufferPointer<UInt8>, width sw: Int, height sh: Int, channels c: Int,
                       rowBytes: Int, toWidth width: Int, toHeight height: Int) -> PixelBuffer {
        let dw = max(1, width), dh = max(1, height)
        let horizontal = Footprints(source: sw, destination: dw)
        let vertical = Footprints(source: sh, destination: dh)

        // Horizontal pass: sh rows of dw pixels, in floats.
        var rows = [Float](repeating: 0, count: dw * sh * c)
        do {
            let src = source
            rows.withUnsafeMutableBufferPointer { tmp in
                horizontal.starts.withUnsafeBufferPointer { starts in
                horizontal.counts.withUnsafeBufferPointer { counts in
                horizontal.offsets.withUnsafeBufferPointer { offsets in
                horizontal.weights.withUnsafeBufferPointer { weights in
                    for y in 0..<sh {
                        let srcRow = y * rowBytes
                        let tmpRow = y * dw * c
                        for x in 0..<dw {
                            let start = srcRow + starts[x] * c
                            let n = counts[x], w0 = offsets[x]
                            if c == 3 {
                                var r: Float = 0, g: Float = 0, b: Float = 0
                                for k in 0..<n {
                                    let w = weights[w0 + k], p = start + k * 3
                                    r += w * Float(src[p]); g += w * Float(src[p + 1]); b += w * Float(src[p + 2])
                                }
                                let t = tmpRow + x * 3
                                tmp[t] = r; tmp[t + 1] = g; tmp[t + 2] = b
                            } else {
                                for ch in 0..<c {
                                    var sum: Float = 0
                                    for k in 0..<n { sum += weights[w0 + k] * Float(src[start + k * c + ch]) }
                                    tmp[tmpRow + x * c + ch] = sum
                                }
                            }
                        }
                    }
                }}}}
            }
        }

        // Vertical pass: each output row accumulates the weighted source rows it covers.
        var out = [UInt8](repeating: 0, count: dw * dh * c)
        let rowLength = dw * c
        var accumulator = [Float](repeating: 0, count: rowLength)
        rows.withUnsafeBufferPointer { tmp in
            out.withUnsafeMutableBufferPointer { dst in
                accumulator.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<dh {
                        for i in 0..<rowLength { acc[i] = 0 }
                        let n = vertical.counts[y], w0 = vertical.offsets[y], first = vertical.starts[y]
                        for k in 0..<n {
                            let w = vertical.weights[w0 + k]
                            let row = (first + k) * rowLength
                            for i in 0..<rowLength { acc[i] += w * tmp[row + i] }
                        }
                        let outRow = y * rowLength
                        for i in 0..<rowLength {
                            let v = acc[i] + 0.5
                            dst[outRow + i] = v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v))
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: dw, height: dh, channels: c, pixels: out)
    }
}
