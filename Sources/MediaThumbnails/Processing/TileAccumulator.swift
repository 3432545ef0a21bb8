/// Area averaging of a picture that arrives in pieces (grid tiles, chroma at half
/// resolution) straight into thumbnail-sized float planes, so the full-size picture
/// never exists.
///
/// Each output sample averages the source area it covers, exactly as
/// `AreaResampler.Footprints` weighs it over the whole picture; a piece adds the part of
/// that average it holds. A chroma sample counts as the luma area it covers (2×2 for
/// 4:2:0), which is what averaging chroma repeated up to full resolution gives, without
/// the repeating.
struct TileAccumulator {
    /// The full picture's size, in luma samples.
    let width: Int, height: Int
    /// The thumbnail's size.
    let targetWidth: Int, targetHeight: Int
    /// One plane of `targetWidth × targetHeight` sums per channel.
    private(set) var planes: [[Float]]

    init(width: Int, height: Int, targetWidth: Int, targetHeight: Int, channels: Int) {
        self.width = width
        self.height = height
        self.targetWidth = max(1, targetWidth)
        self.targetHeight = max(1, targetHeight)
        planes = Array(repeating: [Float](repeating: 0, count: self.targetWidth * self.targetHeight), count: channels)
    }

    /// How samples are stored and turned into 8-bit units.
    enum Samples {
        case bytes
        /// 16-bit samples of `bits` significant bits, scaled to 8-bit units.
        case wide(bits: Int)
        /// 16-bit samples of `bits` bits, each rounded to 8 bits first (what our HEVC plugin
        /// hands libheif when it skips the loop filters).
        case wideRoundedTo8(bits: Int)
    }

    /// Which output samples one axis of a piece touches, and with what weights.
    struct Spans {
        var outputs: [Int] = [], starts: [Int] = [], counts: [Int] = [], offsets: [Int] = []
        var weights: [Float] = []

        /// Samples `0..<samples` spread evenly over `origin ..< origin + extent` of a
        /// `full`-sample axis (clipped to it) shrunk to `destination` samples.
        init(full: Int, destination: Int, origin: Int, extent: Int, samples: Int) {
            let end = min(full, origin + extent)
            guard samples > 0, extent > 0, origin < end else { return }
            let scale = Double(full) / Double(destination)
            let sampleSize = Double(extent) / Double(samples)
            var d = max(0, Int(Double(origin) / scale) - 1)
            while d < destination {
                let lo = Double(d) * scale, hi = min(Double(full), Double(d + 1) * scale)
                if lo >= Double(end) { break }
                let from = max(lo, Double(origin)), to = min(hi, Double(end))
                if to > from, hi > lo {
                    let first = min(samples - 1, max(0, Int((from - Double(origin)) / sampleSize)))
                    let last = min(samples - 1, max(first, Int(((to - Double(origin)) / sampleSize).rounded(.up)) - 1))
                    outputs.append(d); starts.append(first); offsets.append(weights.count)
                    for s in first...last {
                        let sampleLo = Double(origin) + Double(s) * sampleSize
                        let overlap = min(to, sampleLo + sampleSize) - max(from, sampleLo)
                        weights.append(Float(max(0, overlap) / (hi - lo)))
                    }
                    counts.append(last - first + 1)
                }
                d += 1
            }
        }
    }

    /// Adds a plane of `samplesWide × samplesHigh` samples that covers the picture's
    /// luma area `originX, originY` (`extentWidth × extentHeight`) to `channel`.
    mutating func add(_ base: UnsafeRawPointer, samplesWide: Int, samplesHigh: Int, rowBytes: Int, samples: Samples,
                      originX: Int, originY: Int, extentWidth: Int, extentHeight: Int, channel: Int) {
        let horizontal = Spans(full: width, destination: targetWidth, origin: originX, extent: extentWidth, samples: samplesWide)
        let vertical = Spans(full: height, destination: targetHeight, origin: originY, extent: extentHeight, samples: samplesHigh)
        guard !horizontal.outputs.isEmpty, !vertical.outputs.isEmpty, channel < planes.count else { return }
        let scale: Float
        switch samples {
        case .wide(let bits) where bits > 8: scale = 1 / Float(1 << (bits - 8))
        default: scale = 1
        }
        let dw = targetWidth
        var row = [Float](repeating: 0, count: samplesWide)
        row.withUnsafeMutableBufferPointer { acc in
            planes[channel].withUnsafeMutableBufferPointer { out in
                for v in vertical.outputs.indices {
                    let first = vertical.starts[v], w0 = vertical.offsets[v]
                    for k in 0..<vertical.counts[v] {
                        let weight = vertical.weights[w0 + k]
                        let line = base + (first + k) * rowBytes
                        switch samples {
                        case .bytes:
                            AreaResampler.accumulateRow(line.assumingMemoryBound(to: UInt8.self), weight: weight, into: acc, first: k == 0)
                        case .wide:
                            AreaResampler.accumulateRow(line.assumingMemoryBound(to: UInt16.self), weight: weight, into: acc, first: k == 0)
                        case .wideRoundedTo8(let bits):
                            Self.accumulateRounded(line.assumingMemoryBound(to: UInt16.self), shift: max(1, bits - 8),
                                                   weight: weight, into: acc, first: k == 0)
                        }
                    }
                    let outRow = vertical.outputs[v] * dw
                    for h in horizontal.outputs.indices {
                        let start = horizontal.starts[h], o = horizontal.offsets[h]
                        var sum: Float = 0
                        for j in 0..<horizontal.counts[h] { sum += horizontal.weights[o + j] * acc[start + j] }
                        out[outRow + horizontal.outputs[h]] += sum * scale
                    }
                }
            }
        }
    }

    /// Adds the sums of another accumulator of the same picture and thumbnail size (the
    /// pieces another thread decoded).
    mutating func add(_ other: TileAccumulator) {
        precondition(other.targetWidth == targetWidth && other.targetHeight == targetHeight && other.planes.count == planes.count)
        for channel in planes.indices {
            other.planes[channel].withUnsafeBufferPointer { source in
                planes[channel].withUnsafeMutableBufferPointer { sums in
                    for i in sums.indices { sums[i] += source[i] }
                }
            }
        }
    }

    /// Sets every sample of `channel` to `value` (neutral chroma of a monochrome picture).
    mutating func fill(channel: Int, with value: Float) {
        guard channel < planes.count else { return }
        for i in planes[channel].indices { planes[channel][i] = value }
    }

    @inline(__always)
    private static func accumulateRounded(_ line: UnsafePointer<UInt16>, shift: Int, weight: Float,
                                          into acc: UnsafeMutableBufferPointer<Float>, first: Bool) {
        let rounding = UInt16(1) << UInt16(shift - 1), s = UInt16(shift)
        for x in 0..<acc.count {
            let value = Float(min(255, (line[x] &+ rounding) >> s))
            acc[x] = first ? weight * value : acc[x] + weight * value
        }
    }
}
