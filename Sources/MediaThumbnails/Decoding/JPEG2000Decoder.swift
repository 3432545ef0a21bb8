import COpenJPEG

/// Decodes JPEG 2000 (JP2 and JPX files, bare J2K/J2C codestreams) through OpenJPEG, at a
/// reduced resolution when the thumbnail is smaller: a codestream's wavelet levels hold
/// the picture at 1/2, 1/4, … of its size, and OpenJPEG decodes only those asked for.
///
/// Colour: the components become RGB (sRGB and unspecified three-component pictures as
/// they are, sYCC converted with BT.601 full range, grey repeated), an alpha component
/// is kept, and the JP2 header's ICC profile (`colr` method 2) is returned for the caller
/// to convert from.
enum JPEG2000Decoder {
    struct Decoded {
        var image: PixelBuffer
        /// The full picture's size (the decode may be reduced).
        var size: (width: Int, height: Int)
        /// How many halvings the codestream's wavelet levels gave for free.
        var reduction: Int
        var iccProfile: [UInt8]?
    }

    /// Bytes OpenJPEG reads from, and the messages it reports. Lives for one decode.
    final class Input {
        let data: UnsafeBufferPointer<UInt8>
        var position = 0
        var errors: [String] = []
        init(_ data: UnsafeBufferPointer<UInt8>) { self.data = data }
    }

    /// OpenJPEG's handles (`opj_codec_t *`, `opj_stream_t *`: pointers to `void *`).
    typealias Codec = UnsafeMutablePointer<opj_codec_t?>
    typealias Stream = UnsafeMutablePointer<opj_stream_t?>

    static func fail(_ reason: String) -> ThumbnailError { .decodeFailed("the JPEG 2000 \(reason)") }

    /// Whether `data` is a bare codestream (SOC marker) rather than a JP2/JPX file.
    static func isCodestream(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        data.count >= 2 && data[0] == 0xFF && data[1] == 0x4F
    }

    /// - Throws: `ThumbnailError.imageTooLarge` from the header, `.decodeFailed` with
    ///   OpenJPEG's reason for a damaged or unsupported file.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, pixelLimit: Int) throws -> Decoded {
        guard let codec = opj_create_decompress(isCodestream(data) ? OPJ_CODEC_J2K : OPJ_CODEC_JP2) else {
            throw fail("decoder could not be created")
        }
        defer { opj_destroy_codec(codec) }
        let input = Input(data)
        let unmanaged = Unmanaged.passRetained(input)
        defer { unmanaged.release() }
        let context = unmanaged.toOpaque()
        opj_set_error_handler(codec, { message, context in
            guard let message, let context else { return }
            let input = Unmanaged<Input>.fromOpaque(context).takeUnretainedValue()
            if input.errors.count < 4 { input.errors.append(String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)) }
        }, context)
        var parameters = opj_dparameters_t()
        opj_set_default_decoder_parameters(&parameters)
        guard opj_setup_decoder(codec, &parameters) != 0 else { throw fail("decoder could not be set up") }
        guard let stream = memoryStream(input) else { throw fail("input could not be set up") }
        defer { opj_stream_destroy(stream) }

        var imagePointer: UnsafeMutablePointer<opj_image_t>?
        defer { if let imagePointer { opj_image_destroy(imagePointer) } }
        guard opj_read_header(stream, codec, &imagePointer) != 0, let header = imagePointer?.pointee else {
            throw failure(input, doing: "header could not be read")
        }
        let width = Int(header.x1) - Int(header.x0), height = Int(header.y1) - Int(header.y0)
        guard width > 0, height > 0, header.numcomps > 0, header.numcomps <= 16 else {
            throw fail("declares an empty picture or \(header.numcomps) components")
        }
        guard width * height <= pixelLimit else { throw ThumbnailError.imageTooLarge(width: width, height: height, limit: pixelLimit) }
        let reduction = reductionFactor(codec: codec, size: (width, height), request: request)
        if reduction > 0 { _ = opj_set_decoded_resolution_factor(codec, OPJ_UINT32(reduction)) }
        guard opj_decode(codec, stream, imagePointer) != 0, opj_end_decompress(codec, stream) != 0,
              let decoded = imagePointer?.pointee else {
            throw failure(input, doing: "picture could not be decoded")
        }
        let image = try pixels(of: decoded)
        var icc: [UInt8]?
        if let profile = decoded.icc_profile_buf, decoded.icc_profile_len >= 132, decoded.icc_profile_len < 64 << 20 {
            icc = Array(UnsafeBufferPointer(start: profile, count: Int(decoded.icc_profile_len)))
        }
        return Decoded(image: image, size: (width, height), reduction: reduction, iccProfile: icc)
    }

    static func failure(_ input: Input, doing what: String) -> ThumbnailError {
        fail(what + (input.errors.isEmpty ? "" : " (OpenJPEG: \(input.errors.joined(separator: "; ")))"))
    }

    /// How many halvings to decode at: as many as keep the picture at least the request's
    /// size, and no more than the codestream's wavelet levels (its resolutions less one).
    static func reductionFactor(codec: Codec, size: (width: Int, height: Int), request: ThumbnailRequest) -> Int {
        guard let info = opj_get_cstr_info(codec) else { return 0 }
        var owned: UnsafeMutablePointer<opj_codestream_info_v2_t>? = info
        defer { opj_destroy_cstr_info(&owned) }
        let levels = info.pointee.m_default_tile_info.tccp_info.map { Int($0.pointee.numresolutions) - 1 } ?? 0
        let target = ThumbnailGeometry.scaledSize(width: size.width, height: size.height, request: request)
        var factor = 0
        while factor < levels, factor < 16,
              (size.width >> (factor + 1)) >= target.width, (size.height >> (factor + 1)) >= target.height {
            factor += 1
        }
        return factor
    }

    /// An OpenJPEG input stream over `input`'s bytes. Wraps `opj_stream_create` and its
    /// read, skip and seek functions.
    static func memoryStream(_ input: Input) -> Stream? {
        guard let stream = opj_stream_create(1 << 16, 1) else { return nil }
        opj_stream_set_user_data(stream, Unmanaged.passUnretained(input).toOpaque(), nil)
        opj_stream_set_user_data_length(stream, OPJ_UINT64(input.data.count))
        // Swift imports size_t as Int: OpenJPEG's (OPJ_SIZE_T)-1, the end, is -1 here.
        opj_stream_set_read_function(stream) { buffer, count, context in
            guard let buffer, let context else { return -1 }
            let input = Unmanaged<Input>.fromOpaque(context).takeUnretainedValue()
            let available = input.data.count - input.position
            guard available > 0, count > 0 else { return -1 }
            let length = min(Int(count), available)
            if let base = input.data.baseAddress {
                buffer.copyMemory(from: base + input.position, byteCount: length)
            }
            input.position += length
            return OPJ_SIZE_T(length)
        }
        // As a file stream behaves (OpenJPEG checks the length itself, and its byte count
        // assumes every skip moves by what was asked): the position may pass the end, where
        // reads return -1.
        opj_stream_set_skip_function(stream) { count, context in
            guard let context else { return -1 }
            let input = Unmanaged<Input>.fromOpaque(context).takeUnretainedValue()
            guard count >= -OPJ_OFF_T(input.position), count <= OPJ_OFF_T(Int.max - input.position) else { return -1 }
            input.position += Int(count)
            return count
        }
        opj_stream_set_seek_function(stream) { offset, context in
            guard let context, offset >= 0, offset <= OPJ_OFF_T(Int32.max) * 1024 else { return 0 }
            Unmanaged<Input>.fromOpaque(context).takeUnretainedValue().position = Int(offset)
            return 1
        }
        return stream
    }

    /// The decoded components as 8-bit RGB, or RGBA with an alpha component, at the first
    /// component's resolution (subsampled ones repeated): one component is grey, two grey
    /// and alpha, three colour, four colour and alpha.
    static func pixels(of image: opj_image_t) throws -> PixelBuffer {
        guard let comps = image.comps else { throw fail("decoded no components") }
        let components = (0..<Int(image.numcomps)).map { comps[$0] }
        let width = Int(components[0].w), height = Int(components[0].h)
        guard width > 0, height > 0, width * height <= 1 << 30,
              components.allSatisfy({ $0.data != nil && $0.w > 0 && $0.h > 0 && (1...30).contains($0.prec) }) else {
            throw fail("decoded an empty component")
        }
        guard image.color_space != OPJ_CLRSPC_CMYK else { throw ThumbnailError.unsupportedFormat("CMYK JPEG 2000 images") }
        let colour = components.count >= 3
        let hasAlpha = components.count == 2 || components.count >= 4
        var planes = (colour ? [0, 1, 2] : [0, 0, 0]).map { eightBitPlane(components[$0], width: width, height: height) }
        if colour, image.color_space == OPJ_CLRSPC_SYCC { planes = syccToRGB(planes) }
        if hasAlpha { planes.append(eightBitPlane(components[colour ? 3 : 1], width: width, height: height)) }
        let channels = planes.count
        var out = [UInt8](repeating: 0, count: width * height * channels)
        for c in 0..<channels {
            let plane = planes[c]
            for i in 0..<(width * height) { out[i * channels + c] = plane[i] }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: out)
    }

    /// One component's samples scaled to 8 bits (signed ones offset to unsigned), at
    /// `width` × `height` (a subsampled component's samples repeated).
    static func eightBitPlane(_ component: opj_image_comp_t, width: Int, height: Int) -> [UInt8] {
        guard let data = component.data else { return [UInt8](repeating: 0, count: width * height) }
        let w = Int(component.w), h = Int(component.h), precision = Int(component.prec)
        let offset = component.sgnd != 0 ? 1 << (precision - 1) : 0
        let maximum = (1 << precision) - 1
        var plane = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let sy = min(h - 1, y * h / height)
            for x in 0..<width {
                let sx = min(w - 1, x * w / width)
                let value = min(max(Int(data[sy * w + sx]) + offset, 0), maximum)
                plane[y * width + x] = UInt8((value * 255 + maximum / 2) / maximum)
            }
        }
        return plane
    }

    /// sYCC (IEC 61966-2-1 Amd. 1: BT.601 matrix, full range) to RGB.
    static func syccToRGB(_ planes: [[UInt8]]) -> [[UInt8]] {
        var rgb = planes
        for i in planes[0].indices {
            let y = Float(planes[0][i]), cb = Float(planes[1][i]) - 128, cr = Float(planes[2][i]) - 128
            rgb[0][i] = AreaResampler.byte(y + 1.402 * cr)
            rgb[1][i] = AreaResampler.byte(y - 0.344136 * cb - 0.714136 * cr)
            rgb[2][i] = AreaResampler.byte(y + 1.772 * cb)
        }
        return rgb
    }
}
