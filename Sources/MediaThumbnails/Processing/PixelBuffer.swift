/// Decoded 8-bit pixels, interleaved RGB (3 channels) or RGBA (4 channels, not premultiplied).
struct PixelBuffer: Sendable {
    var width: Int
    var height: Int
    var channels: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// An uninitialised-looking (zeroed) buffer of the given size.
    init(width: Int, height: Int, channels: Int) {
        self.init(width: width, height: height, channels: channels,
                  pixels: [UInt8](repeating: 0, count: width * height * channels))
    }

    var hasAlpha: Bool { channels == 4 }

    /// Whether any pixel is not fully opaque.
    var hasTransparency: Bool {
        guard channels == 4 else { return false }
        return pixels.withUnsafeBufferPointer { p in
            var i = 3
            while i < p.count {
                if p[i] != 255 { return true }
                i += 4
            }
            return false
        }
    }

    /// RGB, with transparent pixels composited on white (JPEG has no alpha).
    func flattenedOnWhite() -> PixelBuffer {
        guard channels == 4 else { return self }
        let count = width * height
        var out = [UInt8](repeating: 0, count: count * 3)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<count {
                    let a = UInt32(src[i * 4 + 3])
                    let inverse = 255 - a
                    for c in 0..<3 {
                        let v = (UInt32(src[i * 4 + c]) * a + 255 * inverse + 127) / 255
                        dst[i * 3 + c] = UInt8(truncatingIfNeeded: v)
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: out)
    }

    /// Multiplies colour by alpha, so averaging does not bleed the colour of invisible pixels.
    mutating func premultiplyAlpha() {
        transformColourOfTranslucentPixels { colour, alpha in UInt8((colour * alpha + 127) / 255) }
    }

    /// The inverse of `premultiplyAlpha`.
    mutating func unpremultiplyAlpha() {
        transformColourOfTranslucentPixels { colour, alpha in
            alpha == 0 ? UInt8(colour) : UInt8(min(255, (colour * 255 + alpha / 2) / alpha))
        }
    }

    /// Replaces each colour sample of an RGBA pixel whose alpha is below 255 by
    /// `transform(sample, alpha)`.
    @inline(__always)
    private mutating func transformColourOfTranslucentPixels(_ transform: (UInt32, UInt32) -> UInt8) {
        guard channels == 4 else { return }
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i + 3 < p.count {
                let a = UInt32(p[i + 3])
                if a != 255 {
                    for c in i..<(i + 3) { p[c] = transform(UInt32(p[c]), a) }
                }
                i += 4
            }
        }
    }

    /// The rectangle at (`x`, `y`) of the given size, clamped to the picture.
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> PixelBuffer {
        let x0 = max(0, min(x, width - 1)), y0 = max(0, min(y, height - 1))
        let cw = max(1, min(w, width - x0)), ch = max(1, min(h, height - y0))
        if x0 == 0 && y0 == 0 && cw == width && ch == height { return self }
        var out = [UInt8](repeating: 0, count: cw * ch * channels)
        let rowBytes = cw * channels
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<ch {
                    let from = ((y0 + row) * width + x0) * channels
                    for i in 0..<rowBytes { dst[row * rowBytes + i] = src[from + i] }
                }
            }
        }
        return PixelBuffer(width: cw, height: ch, channels: channels, pixels: out)
    }

    /// The picture turned upright for an EXIF orientation (1–8); other values change nothing.
    func oriented(_ orientation: Int) -> PixelBuffer {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let dw = swaps ? height : width, dh = swaps ? width : height
        let w = width, h = height, c = channels
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<dh {
                    for x in 0..<dw {
                        // The stored pixel that appears at (x, y) once displayed.
                        let sx: Int, sy: Int
                        switch orientation {
                        case 2: sx = w - 1 - x; sy = y
                        case 3: sx = w - 1 - x; sy = h - 1 - y
                        case 4: sx = x; sy = h - 1 - y
                        case 5: sx = y; sy = x
                        case 6: sx = y; sy = h - 1 - x
                        case 7: sx = w - 1 - y; sy = h - 1 - x
                        default: sx = w - 1 - y; sy = x  // 8
                        }
                        let s = (sy * w + sx) * c, d = (y * dw + x) * c
                        for k in 0..<c { dst[d + k] = src[s + k] }
                    }
                }
            }
        }
        return PixelBuffer(width: dw, height: dh, channels: c, pixels: out)
    }
}
