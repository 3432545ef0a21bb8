import CWebP

/// Decodes WebP through libwebp, scaling during decoding when the picture is larger
/// than needed. Animated files give their first frame.
enum WebPDecoder {
    /// What a libwebp status means, in words.
    static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
        case VP8_STATUS_INVALID_PARAM: return "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: return "the bitstream is damaged"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "a feature libwebp does not support"
        case VP8_STATUS_SUSPENDED, VP8_STATUS_NOT_ENOUGH_DATA: return "the file is cut short"
        default: return "status \(status.rawValue)"
        }
    }

    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest,
                       pixelLimit: Int) throws -> (image: PixelBuffer, scaled: Bool) {
        guard let base = data.baseAddress else { throw ThumbnailError.decodeFailed("the file is empty") }
        var features = WebPBitstreamFeatures()
        guard WebPGetFeatures(base, data.count, &features) == VP8_STATUS_OK else {
            throw ThumbnailError.decodeFailed("libwebp could not read the WebP header")
        }
        if features.has_animation != 0 {
            return try decodeFirstFrame(data, request: request, pixelLimit: pixelLimit)
        }
        let width = Int(features.width), height = Int(features.height)
        guard width > 0, height > 0 else { throw ThumbnailError.decodeFailed("the WebP declares an empty picture") }
        guard width * height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: width, height: height, limit: pixelLimit)
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ThumbnailError.decodeFailed("this libwebp is not the version the program was built against")
        }
        let hasAlpha = features.has_alpha != 0
        let target = ThumbnailGeometry.scaledSize(width: width, height: height, request: request)
        let scaled = target.width < width
        if scaled {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        config.output.colorspace = hasAlpha ? MODE_RGBA : MODE_RGB
        let status = WebPDecode(base, data.count, &config)
        defer { WebPFreeDecBuffer(&config.output) }
        guard status == VP8_STATUS_OK else {
            throw ThumbnailError.decodeFailed("libwebp could not decode the picture: \(Self.describe(status))")
        }
        let outWidth = Int(config.output.width), outHeight = Int(config.output.height)
        let channels = hasAlpha ? 4 : 3
        let stride = Int(config.output.u.RGBA.stride)
        guard let rgba = config.output.u.RGBA.rgba, outWidth > 0, outHeight > 0 else {
            throw ThumbnailError.decodeFailed("libwebp returned no pixels")
        }
        let rowBytes = outWidth * channels
        var pixels = [UInt8](repeating: 0, count: rowBytes * outHeight)
        pixels.withUnsafeMutableBufferPointer { out in
            guard let destination = out.baseAddress else { return }
            for y in 0..<outHeight {
                (destination + y * rowBytes).update(from: rgba + y * stride, count: rowBytes)
            }
        }
        return (PixelBuffer(width: outWidth, height: outHeight, channels: channels, pixels: pixels), scaled)
    }

    /// The `ICCP` chunk's profile as the colour space, else sRGB. Wraps `WebPDemuxGetChunk`.
    static func colourSpace(_ data: UnsafeBufferPointer<UInt8>) -> ColourSpace {
        var webpData = WebPData(bytes: data.baseAddress, size: data.count)
        guard let demux = WebPDemux(&webpData) else { return .sRGB }
        defer { WebPDemuxDelete(demux) }
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, "ICCP", 1, &iterator) != 0 else { return .sRGB }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let bytes = iterator.chunk.bytes, iterator.chunk.size >= 132 else { return .sRGB }
        return .icc(Array(UnsafeBufferPointer(start: bytes, count: iterator.chunk.size)))
    }

    /// The first frame of an animated WebP, through the demuxer.
    private static func decodeFirstFrame(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest,
                                         pixelLimit: Int) throws -> (image: PixelBuffer, scaled: Bool) {
        var webpData = WebPData(bytes: data.baseAddress, size: data.count)
        guard let demux = WebPDemux(&webpData) else {
            throw ThumbnailError.decodeFailed("libwebp could not read the animated WebP's structure")
        }
        defer { WebPDemuxDelete(demux) }
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &iterator) != 0 else {
            throw ThumbnailError.decodeFailed("the animated WebP has no frame")
        }
        defer { WebPDemuxReleaseIterator(&iterator) }
        guard let fragment = iterator.fragment.bytes, iterator.fragment.size > 0 else {
            throw ThumbnailError.decodeFailed("the animated WebP's first frame is empty")
        }
        let frame = UnsafeBufferPointer(start: fragment, count: iterator.fragment.size)
        var features = WebPBitstreamFeatures()
        guard WebPGetFeatures(fragment, frame.count, &features) == VP8_STATUS_OK, features.has_animation == 0 else {
            throw ThumbnailError.decodeFailed("the animated WebP's first frame is unreadable")
        }
        return try decode(frame, request: request, pixelLimit: pixelLimit)
    }
}
