import CJXL

/// Decodes JPEG XL (bare codestreams and ISOBMFF containers) through libjxl, which applies
/// the codestream's orientation itself. Animations give their first frame.
///
/// libjxl hands out decoded rows through a callback; each is shrunk into the thumbnail at
/// once (`BandShrinker`), so no full-size output buffer is allocated.
enum JXLDecoder {
    struct Decoded {
        var image: PixelBuffer
        /// The displayed size (orientation applied).
        var size: (width: Int, height: Int)
        /// The profile of the decoded pixels (`JXL_COLOR_PROFILE_TARGET_DATA`).
        var iccProfile: [UInt8]?
    }

    /// What the row callback writes into.
    final class Sink {
        var shrinker: BandShrinker?
        let channels: Int
        init(channels: Int) { self.channels = channels }
    }

    /// A libjxl decoder, destroyed when released.
    final class Decoder {
        let pointer: OpaquePointer
        let library: JxlLibrary
        /// - Throws: `ThumbnailError.decodeFailed` when libjxl cannot be loaded or start one.
        init() throws {
            library = try JxlLibrary.load()
            guard let pointer = library.Create(nil) else { throw ThumbnailError.decodeFailed("libjxl could not start a decoder") }
            self.pointer = pointer
        }
        deinit { library.Destroy(pointer) }
    }

    /// - Throws: `ThumbnailError.imageTooLarge` from the header, `.decodeFailed` when libjxl
    ///   rejects the data or it ends early.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, pixelLimit: Int) throws -> Decoded {
        guard let base = data.baseAddress, data.count > 0 else { throw ThumbnailError.decodeFailed("the file is empty") }
        let decoder = try Decoder()
        let libjxl = decoder.library
        let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard libjxl.SubscribeEvents(decoder.pointer, events) == JXL_DEC_SUCCESS,
              libjxl.SetInput(decoder.pointer, base, data.count) == JXL_DEC_SUCCESS else {
            throw ThumbnailError.decodeFailed("libjxl refused the input")
        }
        libjxl.CloseInput(decoder.pointer)

        var size = (width: 0, height: 0)
        var profile: [UInt8]?
        var sink: Sink?
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        while true {
            let status = libjxl.ProcessInput(decoder.pointer)
            switch status {
            case JXL_DEC_BASIC_INFO:
                var info = JxlBasicInfo()
                guard libjxl.GetBasicInfo(decoder.pointer, &info) == JXL_DEC_SUCCESS else {
                    throw ThumbnailError.decodeFailed("libjxl could not read the image header")
                }
                let transposed = info.orientation.rawValue >= 5
                size = transposed ? (Int(info.ysize), Int(info.xsize)) : (Int(info.xsize), Int(info.ysize))
                guard size.width > 0, size.height > 0 else { throw ThumbnailError.decodeFailed("the JPEG XL declares an empty picture") }
                guard size.width * size.height <= pixelLimit else {
                    throw ThumbnailError.imageTooLarge(width: size.width, height: size.height, limit: pixelLimit)
                }
                let channels = info.alpha_bits > 0 ? 4 : 3
                format.num_channels = UInt32(channels)
                let made = Sink(channels: channels)
                made.shrinker = BandShrinker(width: size.width, height: size.height,
                                             target: ThumbnailGeometry.scaledSize(width: size.width, height: size.height, request: request),
                                             channels: channels)
                sink = made
            case JXL_DEC_COLOR_ENCODING:
                var length = 0
                if libjxl.GetICCProfileSize(decoder.pointer, nil, JXL_COLOR_PROFILE_TARGET_DATA, &length) == JXL_DEC_SUCCESS,
                   length >= 132, length < 64 << 20 {
                    var bytes = [UInt8](repeating: 0, count: length)
                    if libjxl.GetColorAsICCProfile(decoder.pointer, nil, JXL_COLOR_PROFILE_TARGET_DATA, &bytes, length) == JXL_DEC_SUCCESS {
                        profile = bytes
                    }
                }
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard let sink else { throw ThumbnailError.decodeFailed("libjxl asked for pixels before the header") }
                let opaque = Unmanaged.passUnretained(sink).toOpaque()
                guard libjxl.SetImageOutCallback(decoder.pointer, &format, rowCallback, opaque) == JXL_DEC_SUCCESS else {
                    throw ThumbnailError.decodeFailed("libjxl refused the output format")
                }
            case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                guard let image = sink?.shrinker?.image else { throw ThumbnailError.decodeFailed("the JPEG XL has no frame") }
                // `sink` stays alive up to here, past libjxl's last callback.
                withExtendedLifetime(sink) {}
                return Decoded(image: image, size: size, iccProfile: profile)
            case JXL_DEC_NEED_MORE_INPUT:
                throw ThumbnailError.decodeFailed("the JPEG XL ends before its image is complete")
            default:
                throw ThumbnailError.decodeFailed("libjxl could not decode the image (status \(status.rawValue))")
            }
        }
    }

    /// One run of decoded pixels, `count` wide at (`x`, `y`), shrunk into the sink's thumbnail.
    private static let rowCallback: JxlImageOutCallback = { opaque, x, y, count, pixels in
        guard let opaque, let pixels, count > 0 else { return }
        let sink = Unmanaged<Sink>.fromOpaque(opaque).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: pixels, count: count * sink.channels)
        sink.shrinker?.add(bytes, x: x, y: y, width: count, rows: 1, rowBytes: count * sink.channels,
                           sourceChannels: sink.channels)
    }
}
