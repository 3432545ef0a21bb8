import Foundation

/// 64-bit perceptual hashes of an upright picture: what stays the same when a photo is
/// re-encoded, resized, converted to another format or stripped of its metadata.
///
/// - `dct`: pHash. The picture in grey, a uniform frame (a border) trimmed, averaged to
///   32×32, its 2-D DCT-II; a bit per coefficient of the 8×8 lowest frequencies, set when
///   above their median.
/// - `croppedDCT`: the same of the picture's centre without `cropMargins` of each side:
///   a copy cropped by up to 5 % per side hashes close to one of them, which the whole
///   picture's hash alone would not (a 5 % crop is a 10 % change of scale).
/// - `gradient`: dHash. The picture in grey, averaged to 9×8; a bit per horizontal
///   neighbour pair, set when brightness rises to the right (measured, not used to group).
///
/// All are read from the decode a thumbnail already makes (`EncodedThumbnail.hashes`),
/// after orientation, so copies that differ by their orientation tag alone hash alike.
public struct PerceptualHashes: Hashable, Sendable {
    /// The DCT hash (pHash) of the whole picture.
    public var dct: UInt64
    /// The DCT hashes of the centre without each of `cropMargins` per side.
    public var croppedDCT: [UInt64]
    /// The gradient hash (dHash).
    public var gradient: UInt64

    /// The share of each side left out for `croppedDCT`: crops up to 5 % per side land
    /// within 1.25 % of one of 0, 2.5 % and 5 %.
    public static let cropMargins = [0.025, 0.05]

    public init(dct: UInt64, croppedDCT: [UInt64], gradient: UInt64) {
        self.dct = dct
        self.croppedDCT = croppedDCT
        self.gradient = gradient
    }

    /// The number of differing bits of two hashes.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// The hashes of an upright picture, after trimming a uniform frame (a border an
    /// export or a messenger added) off each side.
    static func of(_ image: PixelBuffer) -> PerceptualHashes {
        let grey = GreyPicture(image).trimmed()
        return PerceptualHashes(dct: dctHash(grey.averaged(width: 32, height: 32)),
                                croppedDCT: cropMargins.map { dctHash(grey.centre(without: $0).averaged(width: 32, height: 32)) },
                                gradient: gradientHash(grey.averaged(width: 9, height: 8)))
    }

    /// The hashes of the per-pixel average of several frames (a video's frames at fixed
    /// fractions of its duration), so a video hashes as the sequence, not one moment.
    static func of(frames: [PixelBuffer]) -> PerceptualHashes? {
        guard !frames.isEmpty else { return nil }
        let pictures = frames.map { GreyPicture($0).trimmed() }
        func averaged(_ width: Int, _ height: Int, margin: Double = 0) -> [Float] {
            var sum = [Float](repeating: 0, count: width * height)
            for picture in pictures {
                for (i, value) in picture.centre(without: margin).averaged(width: width, height: height).enumerated() {
                    sum[i] += value
                }
            }
            return sum.map { $0 / Float(frames.count) }
        }
        return PerceptualHashes(dct: dctHash(averaged(32, 32)),
                                croppedDCT: cropMargins.map { dctHash(averaged(32, 32, margin: $0)) },
                                gradient: gradientHash(averaged(9, 8)))
    }

    /// The hashes of interleaved 8-bit RGB pixels, upright (for pictures decoded elsewhere).
    public init(rgb pixels: [UInt8], width: Int, height: Int) {
        precondition(pixels.count >= width * height * 3 && width > 0 && height > 0, "RGB pixels of the size given")
        self = Self.of(PixelBuffer(width: width, height: height, channels: 3, pixels: pixels))
    }

    /// pHash of a 32×32 grey picture.
    static func dctHash(_ grey: [Float]) -> UInt64 {
        // Rows, then columns: only the 8 lowest frequencies of each are needed. Term u of
        // row y is at rows[y * 8 + u]; the columns are those of `rows`, so the second pass
        // leaves frequency (u, v) at low[u * 8 + v].
        let rows = lowFrequencies(grey, lines: 32, lineStride: 32, step: 1)
        let low = lowFrequencies(rows, lines: 8, lineStride: 1, step: 8)
        // The median of the 63 AC terms: the DC term is the mean brightness, far above them.
        let median = low.dropFirst().sorted()[31]
        var hash: UInt64 = 0
        for u in 0..<8 {
            for v in 0..<8 where low[u * 8 + v] > median { hash |= 1 << UInt64(v * 8 + u) }
        }
        return hash
    }

    /// One pass of the 2-D transform: the 8 lowest cosine terms of each of `lines` lines
    /// of 32 values, value x of line l at `values[l * lineStride + x * step]`; term u of
    /// line l goes to `l * 8 + u`.
    private static func lowFrequencies(_ values: [Float], lines: Int, lineStride: Int, step: Int) -> [Float] {
        let n = 32, kept = 8
        var terms = [Float](repeating: 0, count: lines * kept)
        for line in 0..<lines {
            for u in 0..<kept {
                var sum: Float = 0
                for x in 0..<n { sum += values[line * lineStride + x * step] * cosines[u * n + x] }
                terms[line * kept + u] = sum
            }
        }
        return terms
    }

    /// cos((2x + 1) u π / 64) for u in 0..<8, x in 0..<32.
    static let cosines: [Float] = {
        var values = [Float](repeating: 0, count: 8 * 32)
        for u in 0..<8 {
            for x in 0..<32 {
                let angle = Double(2 * x + 1) * Double(u) * Double.pi / 64
                values[u * 32 + x] = Float(cos(angle))
            }
        }
        return values
    }()

    /// dHash of a 9×8 grey picture.
    static func gradientHash(_ grey: [Float]) -> UInt64 {
        var hash: UInt64 = 0
        for y in 0..<8 {
            for x in 0..<8 where grey[y * 9 + x + 1] > grey[y * 9 + x] {
                hash |= 1 << UInt64(y * 8 + x)
            }
        }
        return hash
    }
}

/// A picture as luma (BT.601 weights), row by row, and the part of it hashed.
struct GreyPicture {
    var width: Int
    var height: Int
    var values: [Float]
    /// The rectangle hashed: the picture without its uniform frame.
    var left = 0, top = 0, right: Int, bottom: Int

    init(_ image: PixelBuffer) {
        let flat = image.channels == 4 ? image.flattenedOnWhite() : image
        let (w, h, c) = (flat.width, flat.height, flat.channels)
        var values = [Float](repeating: 0, count: w * h)
        flat.pixels.withUnsafeBufferPointer { p in
            for i in 0..<(w * h) {
                if c >= 3 {
                    let red = Float(p[i * c]), green = Float(p[i * c + 1]), blue = Float(p[i * c + 2])
                    values[i] = 0.299 * red + 0.587 * green + 0.114 * blue
                } else {
                    values[i] = Float(p[i * c])
                }
            }
        }
        self.width = w
        self.height = h
        self.values = values
        right = w
        bottom = h
    }

    /// At most this share of each side is taken for a frame: borders up to 5 % per side
    /// are trimmed with room to spare, and a picture's own plain sky is not eaten.
    static let maximumFrame = 0.08
    /// Brightness spread (of 255) a line of a frame may have: JPEG ringing at its edge.
    static let frameTolerance: Float = 20

    /// Without the uniform lines along each side, when they are of one brightness.
    func trimmed() -> GreyPicture {
        var picture = self
        let rows = Int(Double(height) * Self.maximumFrame), columns = Int(Double(width) * Self.maximumFrame)
        let (w, h, v) = (width, height, values)
        picture.top = Self.frameDepth(lines: rows, length: w) { k, i in v[k * w + i] }
        picture.bottom = h - Self.frameDepth(lines: rows, length: w) { k, i in v[(h - 1 - k) * w + i] }
        picture.left = Self.frameDepth(lines: columns, length: h) { k, i in v[i * w + k] }
        picture.right = w - Self.frameDepth(lines: columns, length: h) { k, i in v[i * w + w - 1 - k] }
        return picture
    }

    /// How many lines from an edge (line `k`, sample `i` of `length`) are uniform and of
    /// the first line's brightness.
    static func frameDepth(lines: Int, length: Int, _ sample: (Int, Int) -> Float) -> Int {
        guard lines > 0, length > 0 else { return 0 }
        var first: Float?
        for k in 0..<lines {
            var low = Float.greatestFiniteMagnitude, high = -Float.greatestFiniteMagnitude, sum: Float = 0
            for i in 0..<length {
                let value = sample(k, i)
                low = min(low, value)
                high = max(high, value)
                sum += value
            }
            let mean = sum / Float(length)
            if high - low > frameTolerance { return k }
            if let first, abs(mean - first) > frameTolerance / 2 { return k }
            if first == nil { first = mean }
        }
        return lines
    }

    /// The hashed rectangle without `margin` of its width and height on each side.
    func centre(without margin: Double) -> GreyPicture {
        var picture = self
        let dx = Int((Double(right - left) * margin).rounded()), dy = Int((Double(bottom - top) * margin).rounded())
        guard right - left > 2 * dx + 1, bottom - top > 2 * dy + 1 else { return self }
        picture.left += dx
        picture.right -= dx
        picture.top += dy
        picture.bottom -= dy
        return picture
    }

    /// The hashed rectangle averaged into `outWidth`×`outHeight` cells (each pixel to the
    /// cell its centre falls in; a picture smaller than the grid is sampled).
    func averaged(width outWidth: Int, height outHeight: Int) -> [Float] {
        let w = max(1, right - left), h = max(1, bottom - top)
        var sums = [Float](repeating: 0, count: outWidth * outHeight)
        var counts = [Float](repeating: 0, count: outWidth * outHeight)
        // Each column's cell, once per column rather than a division per pixel.
        let cells = (0..<w).map { min(outWidth - 1, $0 * outWidth / w) }
        values.withUnsafeBufferPointer { values in
            sums.withUnsafeMutableBufferPointer { sums in
                counts.withUnsafeMutableBufferPointer { counts in
                    for y in 0..<h {
                        let row = min(outHeight - 1, y * outHeight / h) * outWidth, start = (top + y) * width + left
                        for x in 0..<w {
                            sums[row + cells[x]] += values[start + x]
                            counts[row + cells[x]] += 1
                        }
                    }
                }
            }
        }
        for i in sums.indices where counts[i] == 0 {
            // Fewer pixels than cells: the nearest pixel.
            let x = left + min(w - 1, (i % outWidth) * w / outWidth)
            let y = top + min(h - 1, (i / outWidth) * h / outHeight)
            sums[i] = values[y * width + x]
            counts[i] = 1
        }
        return zip(sums, counts).map { $0 / $1 }
    }
}
