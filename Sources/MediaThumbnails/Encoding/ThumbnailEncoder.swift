import CJPEG
import CWebP

/// Encodes finished thumbnails: JPEG through TurboJPEG (4:2:0 chroma below quality 90,
/// full-resolution chroma from 90 up, as vips decides), WebP through libwebp.
enum ThumbnailEncoder {
    static func encode(_ image: PixelBuffer, as format: ThumbnailFormat) throws -> [UInt8] {
        switch format {
        case .jpeg(let quality):
            return try encodeJPEG(image.channels == 4 ? image.flattenedOnWhite() : image, quality: quality)
        case .webp(let quality):
            return try encodeWebP(image, quality: quality)
        }
    }

    /// Wraps `tjCompress2`.
    static func encodeJPEG(_ image: PixelBuffer, quality: Int) throws -> [UInt8] {
        try withTurboJPEGCompressor { handle, output, length in
            image.pixels.withUnsafeBufferPointer { pixels in
                tjCompress2(handle, pixels.baseAddress, Int32(image.width), 0, Int32(image.height),
                            Int32(TJPF_RGB.rawValue), &output, &length,
                            Int32(quality >= 90 ? TJSAMP_444.rawValue : TJSAMP_420.rawValue),
                            Int32(max(1, min(100, quality))), 0)
            }
        }
    }

    /// Runs one TurboJPEG compression: `compress` gets a compressor and the output
    /// buffer to fill, and returns TurboJPEG's status. The buffer is copied out and
    /// freed; a failure throws TurboJPEG's own reason.
    static func withTurboJPEGCompressor(
        _ compress: (tjhandle, inout UnsafeMutablePointer<UInt8>?, inout UInt) -> Int32
    ) throws -> [UInt8] {
        guard let handle = tjInitCompress() else { throw ThumbnailError.encodeFailed("TurboJPEG could not start a compressor") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let status = compress(handle, &output, &length)
        defer { if let output { tjFree(output) } }
        guard status == 0, let output, length > 0 else {
            let reason = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
            throw ThumbnailError.encodeFailed("TurboJPEG: \(reason)")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// Wraps `WebPEncodeRGB` / `WebPEncodeRGBA`.
    static func encodeWebP(_ image: PixelBuffer, quality: Int) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let q = Float(max(0, min(100, quality)))
        let length = image.pixels.withUnsafeBufferPointer { pixels -> Int in
            guard let base = pixels.baseAddress else { return 0 }
            if image.channels == 4 {
                return WebPEncodeRGBA(base, Int32(image.width), Int32(image.height), Int32(image.width * 4), q, &output)
            }
            return WebPEncodeRGB(base, Int32(image.width), Int32(image.height), Int32(image.width * 3), q, &output)
        }
        defer { if let output { WebPFree(output) } }
        guard length > 0, let output else { throw ThumbnailError.encodeFailed("libwebp could not encode the picture") }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
