import CHeif
#if canImport(Glibc)
import Glibc
#endif

/// Our HEVC decoder for libheif: libde265 on the calling thread, with the in-loop
/// filters (deblocking and SAO) skipped when the picture is about to be shrunk a lot.
///
/// Why: HEVC cannot decode at a reduced size, so a thumbnail of a 12- or 50-megapixel
/// HEIC pays for every pixel. Deblocking and SAO smooth 8-pixel block edges that a 4×
/// or larger area-average makes invisible, and they cost about a fifth of the decode.
/// libheif's own libde265 plugin can do neither, and starts a worker thread per tile.
///
/// The plugin is registered once, process-wide, above libheif's built-in one (libheif
/// 1.15 does not pass a chosen decoder down to grid tiles, so a per-call choice would
/// miss every iPhone photo). Filters stay on unless the calling thread asks otherwise
/// through `with(_:_:)`, so other decodes keep full quality.
enum HEVCDecoderPlugin {
    /// Whether the plugin is registered (libde265 was found).
    static var isAvailable: Bool { registration }

    /// What the decodes on one thread ask of the plugin.
    final class Policy {
        /// Skip deblocking and SAO (and cut deeper samples to 8 bits): the picture is
        /// about to be shrunk 4× or more.
        let skipLoopFilters: Bool
        /// Hand libheif the Y, Cb and Cr planes at full resolution *labelled* R, G and B.
        ///
        /// Why: libheif 1.15 converts every decoded picture (every grid tile) to planar RGB,
        /// a fifth of a HEIC thumbnail's CPU. A picture already labelled planar RGB passes
        /// through untouched: grid tiles are pasted and irot/imir/clap applied plane by plane,
        /// which is right for any content once chroma is at full resolution. The caller then
        /// shrinks the three planes and converts only the thumbnail's pixels, and must read
        /// them as YCbCr: `picturesLabelledRGB` tells it the plugin produced them. (An
        /// overlay item's background colour would be painted into these planes as RGB;
        /// no corpus file has one, and a HEIC camera writes grids, not overlays.)
        let ycbcrLabelledRGB: Bool
        /// How many pictures were handed over labelled RGB.
        var picturesLabelledRGB = 0
        /// The first picture's VUI range and matrix, for a file that declares none.
        var bitstreamConversion: YCbCrConversion?

        init(skipLoopFilters: Bool, ycbcrLabelledRGB: Bool) {
            self.skipLoopFilters = skipLoopFilters
            self.ycbcrLabelledRGB = ycbcrLabelledRGB
        }
    }

    /// Runs `body` with `policy` applied to the HEVC pictures decoded on this thread.
    /// libheif must decode on the calling thread: set the context's maximum decoding
    /// threads to 0.
    static func with<T>(_ policy: Policy, _ body: () throws -> T) rethrows -> T {
        guard registration else { return try body() }
        let previous = pthread_getspecific(policyKey)
        pthread_setspecific(policyKey, Unmanaged.passUnretained(policy).toOpaque())
        defer { pthread_setspecific(policyKey, previous) }
        return try body()
    }

    /// The policy set on this thread, if any (alive for as long as `with` runs).
    private static var currentPolicy: Policy? {
        pthread_getspecific(policyKey).map { Unmanaged<Policy>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: - Registration

    /// Higher than libheif's built-in libde265 plugin (100).
    static let priority: Int32 = 120

    private static let policyKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static let registration: Bool = {
        guard LibDe265.shared != nil, (try? HeifLibrary.load()) != nil else { return false }
        _ = policyKey
        // `struct heif_decoder_plugin` of heif_plugin.h, API version 3. The functions
        // capture nothing: they call the static entry points below.
        var plugin = heif_decoder_plugin()
        plugin.plugin_api_version = 3
        plugin.get_plugin_name = { cString("MediaThumbnails libde265 (loop filters optional)") }
        // init_plugin and deinit_plugin stay NULL: LibDe265 initialised the library.
        plugin.does_support_format = { $0 == heif_compression_HEVC ? HEVCDecoderPlugin.priority : 0 }
        plugin.new_decoder = { out in HEVCDecoderPlugin.newDecoder(out) }
        plugin.free_decoder = { raw in
            guard let raw else { return }
            Unmanaged<PictureDecoder>.fromOpaque(raw).release()
        }
        plugin.push_data = { raw, data, size in HEVCDecoderPlugin.push(raw, data, size) }
        plugin.decode_image = { raw, out in HEVCDecoderPlugin.decodeImage(raw, out) }
        plugin.set_strict_decoding = { _, _ in }
        plugin.id_name = cString("mediaindex-libde265")
        // libheif keeps the pointer: the plugin lives as long as the process.
        let registered = UnsafeMutablePointer<heif_decoder_plugin>.allocate(capacity: 1)
        registered.initialize(to: plugin)
        return libheif.register_decoder_plugin(registered).code == heif_error_Ok
    }()

    // MARK: - The decoder

    /// One picture's libde265 context.
    final class PictureDecoder {
        let library: LibDe265
        private(set) var context: LibDe265.Context?
        /// The policy of the thread that started this picture (nil: full quality, YCbCr).
        let policy: Policy?
        /// Whether deeper samples are cut to 8 bits when copied out: set with the filters,
        /// since a picture about to be shrunk 4× needs no more (libheif's later full-size
        /// planes then take half the memory: 200 MB less for a 33-MP 10-bit HIF).
        var reduceTo8Bits: Bool { policy?.skipLoopFilters ?? false }

        init?(library: LibDe265, policy: Policy?) {
            guard let context = library.newDecoder() else { return nil }
            self.library = library
            self.context = context
            self.policy = policy
            if policy?.skipLoopFilters == true {
                library.setParameterBool(context, LibDe265.parameterDisableDeblocking, 1)
                library.setParameterBool(context, LibDe265.parameterDisableSAO, 1)
            }
        }

        /// Frees libde265's picture and per-block tables as soon as the picture is copied out,
        /// before libheif allocates its full-size RGB conversion (libheif frees the decoder later).
        func finish() {
            if let context { _ = library.freeDecoder(context) }
            context = nil
        }

        deinit { finish() }
    }

    private static func newDecoder(_ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> heif_error {
        guard let out, let library = LibDe265.shared,
              let decoder = PictureDecoder(library: library, policy: currentPolicy)
        else { return failure(heif_error_Memory_allocation_error, "libde265 could not start a decoder") }
        out.pointee = Unmanaged.passRetained(decoder).toOpaque()
        return success
    }

    /// libheif hands over NAL units, each preceded by a 4-byte big-endian length.
    private static func push(_ raw: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ size: Int) -> heif_error {
        guard let raw else { return failure(heif_error_Decoder_plugin_error, "no decoder") }
        let decoder = Unmanaged<PictureDecoder>.fromOpaque(raw).takeUnretainedValue()
        guard let context = decoder.context else { return failure(heif_error_Decoder_plugin_error, "the decoder has finished") }
        guard let data, size > 0 else { return success }
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        var position = 0
        while position < size {
            guard size - position >= 4 else { return failure(heif_error_Decoder_plugin_error, "a NAL unit length is cut off") }
            let length = Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16
                | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            position += 4
            guard length <= size - position else { return failure(heif_error_Decoder_plugin_error, "a NAL unit runs past its data") }
            _ = decoder.library.pushNAL(context, data + position, Int32(length), 0, nil)
            position += length
        }
        return success
    }

    private static func decodeImage(_ raw: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> heif_error {
        guard let raw, let out else { return failure(heif_error_Decoder_plugin_error, "no decoder") }
        let decoder = Unmanaged<PictureDecoder>.fromOpaque(raw).takeUnretainedValue()
        let library = decoder.library
        out.pointee = nil
        guard let context = decoder.context else { return failure(heif_error_Decoder_plugin_error, "the decoder has finished") }
        defer { decoder.finish() }
        library.decodePictures(context) { picture in
            if let policy = decoder.policy, policy.bitstreamConversion == nil {
                policy.bitstreamConversion = YCbCrConversion.undeclared.resolved(library: library, picture: picture)
            }
            let labelledRGB = decoder.policy?.ycbcrLabelledRGB ?? false
            let converted = labelledRGB
                ? imageLabelledRGB(from: picture, library: library, reduceTo8Bits: decoder.reduceTo8Bits)
                : image(from: picture, library: library, reduceTo8Bits: decoder.reduceTo8Bits)
            if let converted {
                if labelledRGB { decoder.policy?.picturesLabelledRGB += 1 }
                if let previous = out.pointee { libheif.image_release(previous) }
                out.pointee = converted
            }
            return true
        }
        return out.pointee == nil ? failure(heif_error_Decoder_plugin_error, "libde265 produced no picture") : success
    }

    /// A copy of a decoded picture as a libheif image (YCbCr or monochrome, 8–16 bits).
    private static func image(from picture: LibDe265.Picture, library: LibDe265, reduceTo8Bits: Bool) -> OpaquePointer? {
        guard let layout = PictureLayout(picture, library: library, reduceTo8Bits: reduceTo8Bits) else { return nil }
        let (chroma, width, height, bits, mono) = (layout.chroma, layout.width, layout.height, layout.bits, layout.mono)
        let (bytesPerSample, shift, outputBits) = (layout.bytesPerSample, layout.shift, layout.outputBits)
        let heifChroma: heif_chroma = mono ? heif_chroma_monochrome : heif_chroma(rawValue: UInt32(chroma))
        var image: OpaquePointer?
        guard libheif.image_create(width, height, mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
                                heifChroma, &image).code == heif_error_Ok, let image else { return nil }
        let channels: [heif_channel] = mono ? [heif_channel_Y] : [heif_channel_Y, heif_channel_Cb, heif_channel_Cr]
        for (index, channel) in channels.enumerated() {
            let c = Int32(index)
            let w = library.imageWidth(picture, c), h = library.imageHeight(picture, c)
            var sourceStride: Int32 = 0
            guard w > 0, h > 0, library.bitsPerPixel(picture, c) == bits,
                  let source = library.imagePlane(picture, c, &sourceStride),
                  Int(sourceStride) >= Int(w) * bytesPerSample,
                  libheif.image_add_plane(image, channel, w, h, outputBits).code == heif_error_Ok else {
                libheif.image_release(image)
                return nil
            }
            var destinationStride: Int32 = 0
            guard let destination = libheif.image_get_plane(image, channel, &destinationStride),
                  Int(destinationStride) >= Int(w) * (shift > 0 ? 1 : bytesPerSample) else {
                libheif.image_release(image)
                return nil
            }
            if shift > 0 {
                let rounding = UInt16(1) << (shift - 1), maximum = UInt16(255)
                for row in 0..<Int(h) {
                    let from = UnsafeRawPointer(source + row * Int(sourceStride)).assumingMemoryBound(to: UInt16.self)
                    let to = destination + row * Int(destinationStride)
                    for x in 0..<Int(w) { to[x] = UInt8(min(maximum, (from[x] &+ rounding) >> UInt16(shift))) }
                }
            } else {
                let rowBytes = Int(w) * bytesPerSample
                for row in 0..<Int(h) {
                    memcpy(destination + row * Int(destinationStride), source + row * Int(sourceStride), rowBytes)
                }
            }
        }
        return image
    }

    /// A copy of a decoded picture as libheif "planar RGB" holding Y, Cb and Cr, chroma
    /// repeated up to full resolution (see `Policy.ycbcrLabelledRGB`); monochrome gets
    /// neutral chroma.
    private static func imageLabelledRGB(from picture: LibDe265.Picture, library: LibDe265, reduceTo8Bits: Bool) -> OpaquePointer? {
        guard let layout = PictureLayout(picture, library: library, reduceTo8Bits: reduceTo8Bits) else { return nil }
        let (width, height, bits, mono) = (layout.width, layout.height, layout.bits, layout.mono)
        let (bytesPerSample, shift, outputBits) = (layout.bytesPerSample, layout.shift, layout.outputBits)
        let outputBytes = Int(outputBits + 7) / 8
        var image: OpaquePointer?
        guard libheif.image_create(width, height, heif_colorspace_RGB, heif_chroma_444, &image).code == heif_error_Ok,
              let image else { return nil }
        let w = Int(width), h = Int(height)
        for (index, channel) in [heif_channel_R, heif_channel_G, heif_channel_B].enumerated() {
            var destinationStride: Int32 = 0
            guard libheif.image_add_plane(image, channel, width, height, outputBits).code == heif_error_Ok,
                  let destination = libheif.image_get_plane(image, channel, &destinationStride),
                  Int(destinationStride) >= w * outputBytes else {
                libheif.image_release(image)
                return nil
            }
            let stride = Int(destinationStride)
            if mono && index > 0 {
                let neutral = 1 << (Int(outputBits) - 1)
                for row in 0..<h {
                    let to = destination + row * stride
                    if outputBytes == 1 {
                        memset(to, Int32(neutral), w)
                    } else {
                        let wide = UnsafeMutableRawPointer(to).assumingMemoryBound(to: UInt16.self)
                        for x in 0..<w { wide[x] = UInt16(neutral) }
                    }
                }
                continue
            }
            let c = Int32(index)
            let sw = Int(library.imageWidth(picture, c)), sh = Int(library.imageHeight(picture, c))
            var sourceStride: Int32 = 0
            guard sw > 0, sh > 0, sw <= w, sh <= h, library.bitsPerPixel(picture, c) == bits,
                  let source = library.imagePlane(picture, c, &sourceStride),
                  Int(sourceStride) >= sw * bytesPerSample else {
                libheif.image_release(image)
                return nil
            }
            // Source column of each output column; chroma is 1/2 or 1/1 of luma per axis.
            let columns = (0..<w).map { $0 * sw / w }
            columns.withUnsafeBufferPointer { column in
                for row in 0..<h {
                    let from = source + (row * sh / h) * Int(sourceStride)
                    let to = destination + row * stride
                    if bytesPerSample == 1 {
                        if sw == w { memcpy(to, from, w) } else { for x in 0..<w { to[x] = from[column[x]] } }
                    } else {
                        let wideFrom = UnsafeRawPointer(from).assumingMemoryBound(to: UInt16.self)
                        if shift > 0 {
                            let rounding = UInt16(1) << (shift - 1), maximum = UInt16(255)
                            for x in 0..<w { to[x] = UInt8(min(maximum, (wideFrom[column[x]] &+ rounding) >> UInt16(shift))) }
                        } else {
                            let wideTo = UnsafeMutableRawPointer(to).assumingMemoryBound(to: UInt16.self)
                            for x in 0..<w { wideTo[x] = wideFrom[column[x]] }
                        }
                    }
                }
            }
        }
        return image
    }

    /// A decoded picture's luma size, chroma format and sample depth, and the depth it is
    /// copied out at; nil for a picture this does not copy.
    private struct PictureLayout {
        let chroma: Int32
        let width: Int32, height: Int32
        let bits: Int32
        let mono: Bool
        let bytesPerSample: Int
        /// Bits dropped from each sample when cutting deeper samples to 8 bits; 0 to keep them.
        let shift: Int
        let outputBits: Int32

        init?(_ picture: LibDe265.Picture, library: LibDe265, reduceTo8Bits: Bool) {
            chroma = library.chromaFormat(picture)
            width = library.imageWidth(picture, 0)
            height = library.imageHeight(picture, 0)
            bits = library.bitsPerPixel(picture, 0)
            guard width > 0, height > 0, (1...16).contains(bits), (0...3).contains(chroma) else { return nil }
            mono = chroma == LibDe265.chromaMono
            bytesPerSample = Int(bits + 7) / 8
            shift = reduceTo8Bits && bits > 8 ? Int(bits) - 8 : 0
            outputBits = shift > 0 ? 8 : bits
        }
    }

    // MARK: - heif_error values

    private static var success: heif_error { heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: cString("Success")) }

    private static func failure(_ code: heif_error_code, _ message: StaticString) -> heif_error {
        heif_error(code: code, subcode: heif_suberror_Unspecified, message: cString(message))
    }

    /// A C string that lives as long as the program (libheif keeps these pointers).
    private static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
