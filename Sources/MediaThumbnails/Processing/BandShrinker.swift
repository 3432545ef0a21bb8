/// Shrinks a picture that arrives as bands of interleaved 8-bit rows (libtiff's RGBA
/// reader, BMP rows, JPEG XL's row callback) straight into the thumbnail, so the full-size
/// picture is never held: only the band being added.
struct BandShrinker {
    private var accumulator: TileAccumulator
    private var plane: [UInt8] = []
    let channels: Int

    /// A shrinker of a `width × height` picture of `channels` interleaved channels into `target`.
    init(width: Int, height: Int, target: (width: Int, height: Int), channels: Int) {
        self.channels = channels
        accumulator = TileAccumulator(width: width, height: height, targetWidth: min(width, target.width),
                                      targetHeight: min(height, target.height), channels: channels)
    }

    /// Adds `rows × width` pixels whose left edge is at `x`, top row at `y` of the picture.
    ///
    /// - Parameters:
    ///   - pixels: interleaved samples; row `r` starts at `r * rowBytes`.
    ///   - sourceChannels: channels per pixel in `pixels` (the first `channels` are used).
    mutating func add(_ pixels: UnsafeRawBufferPointer, x: Int = 0, y: Int, width: Int, rows: Int,
                      rowBytes: Int, sourceChannels: Int) {
        guard width > 0, rows > 0, let base = pixels.baseAddress,
              pixels.count >= rowBytes * (rows - 1) + width * sourceChannels else { return }
        let count = width * rows
        if plane.count < count { plane = [UInt8](repeating: 0, count: count) }
        let source = base.assumingMemoryBound(to: UInt8.self)
        for channel in 0..<channels {
            plane.withUnsafeMutableBufferPointer { out in
                for r in 0..<rows {
                    let line = source + r * rowBytes + channel
                    let o = r * width
                    for i in 0..<width { out[o + i] = line[i * sourceChannels] }
                }
            }
            plane.withUnsafeBytes { samples in
                accumulator.add(samples.baseAddress!, samplesWide: width, samplesHigh: rows, rowBytes: width,
                                samples: .bytes, originX: x, originY: y, extentWidth: width, extentHeight: rows,
                                channel: channel)
            }
        }
    }

    /// The thumbnail-sized picture.
    var image: PixelBuffer {
        PlaneResampler.interleave(accumulator.planes, width: accumulator.targetWidth, height: accumulator.targetHeight)
    }
}
