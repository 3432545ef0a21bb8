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
    ///
    /// Vertical pass first: each output row accumulates the weighted source rows it covers
    /// into one float row (read once, in memory order, in a loop the compiler vectorises),
    /// then that row is reduced horizontally. The only buffers are that row and the output.
    /// A rounded, clamped 8-bit value, without branches.
    @inline(__always)
    static func byte(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: Int32(Swift.min(Swift.max(value + 0.5, 0), 255)))
    }

    /// The vertical pass of area averaging: a source row of samples, weighted, into a
    /// float row as wide as `acc` (set by the first row of a footprint, added by the rest).
    @inline(__always)
    static func accumulateRow<Sample: BinaryInteger>(_ line: UnsafePointer<Sample>, weight: Float,
                                                     into acc: UnsafeMutableBufferPointer<Float>, first: Bool) {
        if first {
            for x in 0..<acc.count { acc[x] = weight * Float(line[x]) }
        } else {
            for x in 0..<acc.count { acc[x] += weight * Float(line[x]) }
        }
    }

    /// The horizontal footprints as buffers, for the inner loop of a row's reduction.
    struct HorizontalPass {
        let starts: UnsafeBufferPointer<Int>
        let counts: UnsafeBufferPointer<Int>
        let offsets: UnsafeBufferPointer<Int>
        let weights: UnsafeBufferPointer<Float>
    }

    /// The separable shell every resampler here shares: for each output row `y`,
    /// `accumulate(sourceRow, weight, acc, first)` adds the weighted source rows of its
    /// vertical footprint into `acc` (a float row `rowLength` wide), then `reduce(y, acc,
    /// horizontal)` turns `acc` into output row `y`. One row buffer is all it allocates.
    @inline(__always)
    static func forEachOutputRow(sourceWidth sw: Int, sourceHeight sh: Int, rowLength: Int,
                                 toWidth dw: Int, toHeight dh: Int,
                                 accumulate: (Int, Float, UnsafeMutableBufferPointer<Float>, Bool) -> Void,
                                 reduce: (Int, UnsafeMutableBufferPointer<Float>, HorizontalPass) -> Void) {
        let horizontal = Footprints(source: sw, destination: dw)
        let vertical = Footprints(source: sh, destination: dh)
        var row = [Float](repeating: 0, count: rowLength)
        row.withUnsafeMutableBufferPointer { acc in
            horizontal.starts.withUnsafeBufferPointer { starts in
            horizontal.counts.withUnsafeBufferPointer { counts in
            horizontal.offsets.withUnsafeBufferPointer { offsets in
            horizontal.weights.withUnsafeBufferPointer { weights in
                let pass = HorizontalPass(starts: starts, counts: counts, offsets: offsets, weights: weights)
                for y in 0..<dh {
                    let first = vertical.starts[y], n = vertical.counts[y], w0 = vertical.offsets[y]
                    for k in 0..<n { accumulate(first + k, vertical.weights[w0 + k], acc, k == 0) }
                    reduce(y, acc, pass)
                }
            }}}}
        }
    }

    static func resize(pixels source: UnsafeBufferPointer<UInt8>, width sw: Int, height sh: Int, channels c: Int,
                       rowBytes: Int, toWidth width: Int, toHeight height: Int) -> PixelBuffer {
        let dw = max(1, width), dh = max(1, height)
        let rowLength = sw * c
        guard let base = source.baseAddress, sh > 0, source.count >= rowBytes * (sh - 1) + rowLength else {
            return PixelBuffer(width: dw, height: dh, channels: c)
        }
        let out = [UInt8](unsafeUninitializedCapacity: dw * dh * c) { dst, initialised in
            forEachOutputRow(sourceWidth: sw, sourceHeight: sh, rowLength: rowLength, toWidth: dw, toHeight: dh,
                             accumulate: { sourceRow, weight, acc, first in
                accumulateRow(base + sourceRow * rowBytes, weight: weight, into: acc, first: first)
            }, reduce: { y, acc, h in
                let outRow = y &* dw &* c
                if c == 3 {
                    for x in 0..<dw {
                        let start = h.starts[x] &* 3, m = h.counts[x], o = h.offsets[x]
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        for j in 0..<m {
                            let w = h.weights[o &+ j], p = start &+ j &* 3
                            r += w * acc[p]; g += w * acc[p &+ 1]; b += w * acc[p &+ 2]
                        }
                        let d = outRow &+ x &* 3
                        dst[d] = byte(r); dst[d &+ 1] = byte(g); dst[d &+ 2] = byte(b)
                    }
                } else {
                    for x in 0..<dw {
                        let start = h.starts[x] &* c, m = h.counts[x], o = h.offsets[x]
                        for ch in 0..<c {
                            var sum: Float = 0
                            for j in 0..<m { sum += h.weights[o &+ j] * acc[start &+ j &* c &+ ch] }
                            dst[outRow &+ x &* c &+ ch] = byte(sum)
                        }
                    }
                }
            })
            initialised = dw * dh * c
        }
        return PixelBuffer(width: dw, height: dh, channels: c, pixels: out)
    }
}
