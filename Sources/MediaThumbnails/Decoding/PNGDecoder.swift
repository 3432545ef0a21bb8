import CPNG
#if canImport(Glibc)
import Glibc
#endif

/// Decodes PNG through libpng's simplified `png_image` API, which converts 16-bit,
/// palette, grayscale and interlaced files to 8-bit RGB(A) and reports errors without
/// a longjmp reaching Swift.
///
/// A 16-bit file without `gAMA`, `sRGB` or `iCCP` is read as sRGB-encoded, as every
/// exporter writes it and vips reads it (libpng's default takes such samples as linear
/// light, which brightens the midtones by up to 60 levels); a `gAMA` chunk is applied.
enum PNGDecoder {
    /// - Throws: `ThumbnailError.imageTooLarge` from the header alone, `.decodeFailed`
    ///   with libpng's message.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, pixelLimit: Int) throws -> PixelBuffer {
        var image = png_image()
        image.version = mediaindex_png_image_version()
        defer { png_image_free(&image) }
        guard let base = data.baseAddress,
              png_image_begin_read_from_memory(&image, base, data.count) != 0 else {
            throw ThumbnailError.decodeFailed(message(of: &image))
        }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0 else { throw ThumbnailError.decodeFailed("the PNG declares an empty picture") }
        guard width * height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: width, height: height, limit: pixelLimit)
        }
        image.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
        // PNG_FORMAT_FLAG_ALPHA is 1; a palette with tRNS also reports it.
        let hasAlpha = image.format & 1 != 0
        image.format = hasAlpha ? mediaindex_png_format_rgba() : mediaindex_png_format_rgb()
        let channels = hasAlpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let ok = pixels.withUnsafeMutableBytes { out in
            png_image_finish_read(&image, nil, out.baseAddress, 0, nil)
        }
        guard ok != 0 else { throw ThumbnailError.decodeFailed(message(of: &image)) }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The PNG's `iCCP` profile as its colour space, else sRGB. Wraps `png_get_iCCP`
    /// (through `mediaindex_png_read_icc`).
    static func colourSpace(_ data: UnsafeBufferPointer<UInt8>) -> ColourSpace {
        guard let base = data.baseAddress else { return .sRGB }
        var length: UInt32 = 0
        guard let profile = mediaindex_png_read_icc(base, data.count, &length) else { return .sRGB }
        defer { free(profile) }
        return length > 0 ? .icc(Array(UnsafeBufferPointer(start: profile, count: Int(length)))) : .sRGB
    }

    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw -> String in
            let bytes = raw.prefix(while: { $0 != 0 })
            return String(decoding: bytes, as: UTF8.self)
        }
        return text.isEmpty ? "libpng could not read the file" : "libpng: \(text)"
    }
}
