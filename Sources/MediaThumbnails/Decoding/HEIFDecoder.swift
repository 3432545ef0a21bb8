import CHeif
import Foundation
import MediaMetadata

/// Decodes HEIC, HEIF and AVIF through libheif, which applies `irot`/`imir` itself.
///
/// A thumbnail item at least as large as the request is decoded instead of the primary
/// image: a 320-px item instead of forty-eight 512-px HEVC tiles.
enum HEIFDecoder {
    /// A libheif context, freed when released.
    final class Context {
        let pointer: OpaquePointer
        /// The rewritten file the context reads, when libheif refused the file itself.
        private var rewritten: UnsafeMutableBufferPointer<UInt8>?
        /// - Throws: `ThumbnailError.decodeFailed` when libheif cannot be loaded or allocate one.
        init() throws {
            guard let pointer = try HeifLibrary.load().context_alloc() else {
                throw ThumbnailError.decodeFailed("libheif could not allocate a context")
            }
            self.pointer = pointer
        }
        deinit {
            libheif.context_free(pointer)
            rewritten?.deallocate()
        }

        /// A context that has read `data` (which must outlive it); when libheif refuses the
        /// file, a copy holding only the references the primary image needs
        /// (`HEIFPrimaryReferences`: iOS 17/18 gain maps), owned by the context, with
        /// every item at the same offset as in `data`.
        ///
        /// - Throws: `ThumbnailError.decodeFailed` with libheif's reason for the file itself
        ///   when no rewrite helps.
        static func reading(_ data: UnsafeBufferPointer<UInt8>, threads: Int) throws -> Context {
            let context = try Context()
            libheif.context_set_max_decoding_threads(context.pointer, Int32(threads))
            let refusal: Error
            do {
                try check(libheif.context_read_from_memory_without_copy(context.pointer, data.baseAddress, data.count, nil))
                return context
            } catch { refusal = error }
            guard let items = try? HEIFItems.read(BufferByteSource(data)),
                  let bytes = HEIFPrimaryReferences.rewritten(data, items: items) else { throw refusal }
            let retry = try Context()
            libheif.context_set_max_decoding_threads(retry.pointer, Int32(threads))
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = copy.initialize(from: bytes)
            retry.rewritten = copy
            guard libheif.context_read_from_memory_without_copy(retry.pointer, copy.baseAddress, copy.count, nil).code
                    == heif_error_Ok else { throw refusal }
            return retry
        }
    }

    /// An image handle, released when released.
    final class Handle {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { libheif.image_handle_release(pointer) }
        var size: (width: Int, height: Int) {
            (Int(libheif.image_handle_get_width(pointer)), Int(libheif.image_handle_get_height(pointer)))
        }
    }

    static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        // libheif ends some messages with a newline; a recorded reason is one line.
        let message = error.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        throw ThumbnailError.decodeFailed("libheif: \(message.isEmpty ? "unknown error" : message)")
    }

    /// Decodes the primary image (or a large-enough thumbnail item) of `data`, which
    /// must stay alive during the call, with its irot/imir applied; `displayedSize` is the
    /// primary image's size after them.
    ///
    /// - Parameter threads: libheif's tile-decoding threads; 0 decodes on the calling
    ///   thread, which is best when many files are decoded in parallel.
    /// - Parameter skipLoopFiltersWhenShrinking: whether an HEVC picture shrunk 4× or
    ///   more skips deblocking and SAO (see `HEVCDecoderPlugin`); tests turn it off to
    ///   measure what that changes.
    /// - Parameter viaPlanes: whether to shrink libheif's planar RGB (false: its interleaved
    ///   RGB, one more full-size conversion, kept as the reference for tests).
    /// - Parameter direct: whether an HEVC primary image (one picture or a grid) is decoded
    ///   by `HEIFDirectDecoder`, tile by tile, without libheif (false: through libheif, kept
    ///   as the reference for tests).
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, pixelLimit: Int,
                       threads: Int, skipLoopFiltersWhenShrinking: Bool = true, viaPlanes: Bool = true,
                       direct: Bool = true) throws -> (image: PixelBuffer, usedThumbnail: Bool,
                                                       displayedSize: (width: Int, height: Int), colour: ColourSpace) {
        _ = HEVCDecoderPlugin.isAvailable  // registers our HEVC decoder once
        let context = try Context.reading(data, threads: threads)
        var primaryPointer: OpaquePointer?
        try check(libheif.context_get_primary_image_handle(context.pointer, &primaryPointer))
        guard let primaryPointer else { throw ThumbnailError.decodeFailed("the HEIF file has no primary image") }
        let primary = Handle(primaryPointer)
        let size = primary.size
        guard size.width > 0, size.height > 0 else { throw ThumbnailError.decodeFailed("the HEIF primary image has no size") }
        guard size.width * size.height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: size.width, height: size.height, limit: pixelLimit)
        }

        // The smallest thumbnail item that covers the request and has the primary's shape.
        var chosen = primary
        var usedThumbnail = false
        let count = Int(libheif.image_handle_get_number_of_thumbnails(primary.pointer))
        if count > 0 {
            var ids = [heif_item_id](repeating: 0, count: min(count, 16))
            let listed = Int(libheif.image_handle_get_list_of_thumbnail_IDs(primary.pointer, &ids, Int32(ids.count)))
            for id in ids.prefix(listed) {
                var thumbPointer: OpaquePointer?
                guard libheif.image_handle_get_thumbnail(primary.pointer, id, &thumbPointer).code == heif_error_Ok,
                      let thumbPointer else { continue }
                let thumb = Handle(thumbPointer)
                let t = thumb.size
                if t.width > 0, t.height > 0,
                   ThumbnailGeometry.sameAspect(t, size),
                   ThumbnailGeometry.covers(candidate: t, original: size, request: request),
                   t.width * t.height < chosen.size.width * chosen.size.height {
                    chosen = thumb
                    usedThumbnail = true
                }
            }
        }

        let colour = colourSpace(of: chosen) ?? colourSpace(of: primary) ?? .sRGB
        // Skipping HEVC's in-loop filters only shows when the picture is not shrunk much.
        let chosenSize = chosen.size
        let target = ThumbnailGeometry.scaledSize(width: chosenSize.width, height: chosenSize.height, request: request)
        let skipLoopFilters = skipLoopFiltersWhenShrinking
            && max(chosenSize.width, chosenSize.height) >= 4 * max(target.width, target.height)
        // Small pictures (thumbnail items, most phone photos' tiles) need no budget, so they
        // keep the other core busy while a huge one decodes alone.
        let bytesPerSample = libheif.image_handle_get_luma_bits_per_pixel(chosen.pointer) > 8 ? 2 : 1
        let noAlpha = libheif.image_handle_has_alpha_channel(chosen.pointer) == 0
        // The primary image without libheif: only one grid tile is ever held at full size.
        if direct, viaPlanes, !usedThumbnail, noAlpha, let conversion = conversion(for: chosen),
           let plan = try? HEIFDirectDecoder(data), plan.displayedSize == chosenSize {
            // Its workers each hold one piece at full size.
            let largest = plan.largestPiece
            var cost = largest >= DecodeBudget.exemptBelow ? largest * bytesPerSample * plan.workers : 0
            if plan.codec == .av1 {
                // dav1d holds the picture's three planes; beyond the limit it is refused.
                let pictureBytes = plan.largestAV1PictureBytes
                if pictureBytes > maxAV1PictureBytes {
                    throw ThumbnailError.imageTooLarge(width: size.width, height: size.height,
                                                       limit: largest * maxAV1PictureBytes / max(1, pictureBytes))
                }
                if largest >= DecodeBudget.exemptBelow { cost = pictureBytes * plan.workers }
            }
            let image = try? DecodeBudget.shared.withPixels(cost) {
                try plan.decode(target: target, skipLoopFilters: skipLoopFilters, conversion: conversion)
            }
            if let image { return (image, usedThumbnail, size, colour) }
        }
        if usedThumbnail {
            // A thumbnail item whose picture turns out another shape than the primary's
            // (its HEVC picture cut short of its `ispe`) is not used.
            if let image = try? decodeThroughLibheif(chosen, in: data, request: request, skipLoopFilters: skipLoopFilters,
                                                      viaPlanes: viaPlanes, bytesPerSample: bytesPerSample, shape: size) {
                return (image, true, size, colour)
            }
            chosen = primary
        }
        let primaryTarget = ThumbnailGeometry.scaledSize(width: size.width, height: size.height, request: request)
        let skipPrimaryLoopFilters = skipLoopFiltersWhenShrinking
            && max(size.width, size.height) >= 4 * max(primaryTarget.width, primaryTarget.height)
        let image = try decodeThroughLibheif(chosen, in: data, request: request, skipLoopFilters: usedThumbnail ? skipPrimaryLoopFilters : skipLoopFilters,
                                             viaPlanes: viaPlanes, bytesPerSample: bytesPerSample, shape: nil)
        return (image, false, size, colour)
    }

    /// The decoded picture was not the shape asked for.
    struct WrongShape: Error {}

    /// Decodes `chosen` through libheif (planar, else interleaved RGB) to the thumbnail size.
    ///
    /// - Parameter shape: a size whose aspect the decoded picture must have (within 1 %),
    ///   else `WrongShape` is thrown.
    static func decodeThroughLibheif(_ chosen: Handle, in data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, skipLoopFilters: Bool, viaPlanes: Bool,
                                     bytesPerSample: Int, shape: (width: Int, height: Int)?) throws -> PixelBuffer {
        let chosenSize = chosen.size
        let noAlpha = libheif.image_handle_has_alpha_channel(chosen.pointer) == 0
        let pixels = chosenSize.width * chosenSize.height
        // AV1 cannot decode at a reduced size, and through libheif a picture exists about four
        // times over at full size (the decoder's frame and references, libheif's copy): a
        // 10-bit 4:4:4 AVIF of 20 megapixels peaked at 525 MB. Beyond this, it is refused.
        if isAV1(data), pixels * bytesPerSample > maxAV1SampleBytes {
            throw ThumbnailError.imageTooLarge(width: chosenSize.width, height: chosenSize.height,
                                               limit: maxAV1SampleBytes / bytesPerSample)
        }
        let cost = pixels >= DecodeBudget.exemptBelow ? pixels * bytesPerSample : 0
        return try DecodeBudget.shared.withPixels(cost) {
            // AVIF: the decoder's own YCbCr planes, with no full-size conversion.
            if viaPlanes, noAlpha, isAV1(data), let conversion = conversion(for: chosen),
               let image = try decodeNativePlanes(chosen, request: request, conversion: conversion) {
                return image
            }
            if viaPlanes, noAlpha, let conversion = conversion(for: chosen) {
                let policy = HEVCDecoderPlugin.Policy(skipLoopFilters: skipLoopFilters, ycbcrLabelledRGB: true)
                if let image = try HEVCDecoderPlugin.with(policy, {
                    try decodePlanes(chosen, request: request, policy: policy, conversion: conversion, shape: shape)
                }) {
                    return image
                }
            }
            let policy = HEVCDecoderPlugin.Policy(skipLoopFilters: skipLoopFilters, ycbcrLabelledRGB: false)
            return try HEVCDecoderPlugin.with(policy) { try decodeRGB(chosen, request: request, shape: shape) }
        }
    }

    /// The part of a decoded plane of `width` × `height` that holds the picture: libheif
    /// 1.15 hands a thumbnail item out at its HEVC picture's coded size, rows and columns
    /// past its `ispe` included.
    static func pictureRegion(width: Int, height: Int, of chosen: Handle,
                              shape: (width: Int, height: Int)?) throws -> (width: Int, height: Int) {
        let stated = chosen.size
        let region = (width: min(width, stated.width > 0 ? stated.width : width),
                      height: min(height, stated.height > 0 ? stated.height : height))
        if let shape, !ThumbnailGeometry.sameAspect(region, shape) { throw WrongShape() }
        return region
    }

    /// The item's colour: its ICC profile (colr prof/rICC), else its nclx primaries and
    /// transfer; nil when it declares neither. Wraps `heif_image_handle_get_raw_color_profile`
    /// and `heif_image_handle_get_nclx_color_profile`.
    static func colourSpace(of handle: Handle) -> ColourSpace? {
        let size = libheif.image_handle_get_raw_color_profile_size(handle.pointer)
        if size >= 132, size < 64 << 20 {
            var bytes = [UInt8](repeating: 0, count: size)
            if libheif.image_handle_get_raw_color_profile(handle.pointer, &bytes).code == heif_error_Ok { return .icc(bytes) }
        }
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard libheif.image_handle_get_nclx_color_profile(handle.pointer, &profile).code == heif_error_Ok,
              let profile else { return nil }
        defer { libheif.nclx_color_profile_free(profile) }
        return .fromCoded(primaries: Int(profile.pointee.color_primaries.rawValue),
                          transfer: Int(profile.pointee.transfer_characteristics.rawValue))
    }

    /// Fresh decoding options; the caller frees them.
    static func decodingOptions() throws -> UnsafeMutablePointer<heif_decoding_options> {
        guard let options = libheif.decoding_options_alloc() else {
            throw ThumbnailError.decodeFailed("libheif could not allocate decoding options")
        }
        return options
    }

    /// Decodes to libheif's planar RGB, shrinks each plane by area averaging, and when the
    /// planes are really our plugin's Y, Cb and Cr (`Policy.ycbcrLabelledRGB`), converts
    /// the thumbnail's pixels to RGB as libheif would have converted the whole picture.
    ///
    /// Why planar RGB, not YCbCr: libheif 1.15 always converts a decoded picture to planar
    /// RGB (a grid is even assembled in it), and converts again to whatever else is asked
    /// for: asking for YCbCr 4:2:0 costs two full-size conversions, interleaved RGB one;
    /// planar RGB none. Nil when libheif hands back a layout this does not read, so the
    /// caller falls back to interleaved RGB.
    static func decodePlanes(_ chosen: Handle, request: ThumbnailRequest, policy: HEVCDecoderPlugin.Policy,
                             conversion: YCbCrConversion, shape: (width: Int, height: Int)? = nil) throws -> PixelBuffer? {
        let options = try decodingOptions()
        defer { libheif.decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1  // libheif skips this when no conversion is due; 16-bit planes are read too
        var imagePointer: OpaquePointer?
        try check(libheif.decode_image(chosen.pointer, &imagePointer, heif_colorspace_RGB, heif_chroma_444, options))
        guard let imagePointer else { throw ThumbnailError.decodeFailed("libheif returned no image") }
        defer { libheif.image_release(imagePointer) }
        // libheif asserts on queries about channels an image lacks: ask has_channel first.
        let channels = [heif_channel_R, heif_channel_G, heif_channel_B]
        guard libheif.image_get_colorspace(imagePointer) == heif_colorspace_RGB,
              channels.allSatisfy({ libheif.image_has_channel(imagePointer, $0) != 0 }) else { return nil }
        let planeWidth = Int(libheif.image_get_width(imagePointer, heif_channel_R))
        let planeHeight = Int(libheif.image_get_height(imagePointer, heif_channel_R))
        guard planeWidth > 0, planeHeight > 0 else { return nil }
        let (width, height) = try pictureRegion(width: planeWidth, height: planeHeight, of: chosen, shape: shape)
        let target = ThumbnailGeometry.scaledSize(width: width, height: height, request: request)
        var averaged: [[Float]] = []
        for channel in channels {
            // Only the picture's region of a plane that may be coded larger is averaged.
            guard libheif.image_get_width(imagePointer, channel) == planeWidth, libheif.image_get_height(imagePointer, channel) == planeHeight,
                  let values = averagedPlane(imagePointer, channel, within: (planeWidth, planeHeight), region: (width, height),
                                             to: target) else { return nil }
            averaged.append(values)
        }
        if policy.picturesLabelledRGB > 0 {
            let conversion = conversion.followsBitstream ? (policy.bitstreamConversion ?? conversion) : conversion
            return conversion.rgb(y: averaged[0], cb: averaged[1], cr: averaged[2], width: target.width, height: target.height)
        }
        return PlaneResampler.interleave(averaged, width: target.width, height: target.height)
    }

    /// AV1 pictures decoded by dav1d directly (`HEIFDirectDecoder`) beyond this many bytes of
    /// planes are refused: dav1d holds them whole while decoding (AV1 has no reduced-size
    /// decoding), and with the process's other memory they would pass the 300 MB target.
    /// 160 MB is a 10-bit 4:4:4 picture of 26 megapixels, or 8-bit 4:2:0 of 106; grid tiles
    /// count one at a time.
    static let maxAV1PictureBytes = 160_000_000

    /// AV1 pictures through libheif beyond this many bytes of luma samples (24 megapixels at 8 bits, 12 at 10
    /// or 12) are refused: decoding them would take more than the 300 MB a thumbnail may use.
    static let maxAV1SampleBytes = 24_000_000

    /// Whether the file's brands announce AV1 images (`avif`, `avis`). Wraps `heif_has_compatible_brand`.
    static func isAV1(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = data.baseAddress else { return false }
        let length = Int32(clamping: min(data.count, 4096))
        return libheif.has_compatible_brand(base, length, "avif") == 1 || libheif.has_compatible_brand(base, length, "avis") == 1
    }

    /// Decodes to the decoder's own layout (YCbCr at its chroma resolution, or monochrome),
    /// which libheif hands over without converting it, and shrinks each plane at its own
    /// resolution; only the thumbnail's pixels are converted to RGB. Nil for layouts this
    /// does not read.
    ///
    /// Why: asking libheif for RGB makes it convert the whole picture, at 16 bits for a
    /// 10-bit one: a 10-bit 20-megapixel AVIF peaked at 560 MB that way, and needs one
    /// 4:2:0 copy (60 MB) here.
    static func decodeNativePlanes(_ chosen: Handle, request: ThumbnailRequest,
                                   conversion: YCbCrConversion) throws -> PixelBuffer? {
        let options = try decodingOptions()
        defer { libheif.decoding_options_free(options) }
        var imagePointer: OpaquePointer?
        try check(libheif.decode_image(chosen.pointer, &imagePointer, heif_colorspace_undefined, heif_chroma_undefined, options))
        guard let imagePointer else { throw ThumbnailError.decodeFailed("libheif returned no image") }
        defer { libheif.image_release(imagePointer) }
        let colourspace = libheif.image_get_colorspace(imagePointer)
        let channels: [heif_channel]
        switch colourspace {
        case heif_colorspace_YCbCr: channels = [heif_channel_Y, heif_channel_Cb, heif_channel_Cr]
        case heif_colorspace_monochrome: channels = [heif_channel_Y]
        default: return nil
        }
        guard channels.allSatisfy({ libheif.image_has_channel(imagePointer, $0) != 0 }) else { return nil }
        let width = Int(libheif.image_get_width(imagePointer, heif_channel_Y))
        let height = Int(libheif.image_get_height(imagePointer, heif_channel_Y))
        guard width > 0, height > 0 else { return nil }
        let target = ThumbnailGeometry.scaledSize(width: width, height: height, request: request)
        var averaged: [[Float]] = []
        for channel in channels {
            guard let values = averagedPlane(imagePointer, channel, within: (width, height), to: target) else { return nil }
            averaged.append(values)
        }
        if averaged.count == 1 {
            let neutral = [Float](repeating: 128, count: target.width * target.height)
            averaged += [neutral, neutral]
        }
        // AV1 streams carry no VUI libheif reads: an item without nclx is BT.601 limited range.
        return conversion.rgb(y: averaged[0], cb: averaged[1], cr: averaged[2], width: target.width, height: target.height)
    }

    /// One plane of a decoded libheif image (8 or 16 bits a sample, at most `within` in
    /// size; chroma may be smaller) area-averaged to `target`, in 8-bit units; nil for a
    /// layout this does not read.
    ///
    /// - Parameter region: the part of the plane averaged (from its top left), when the
    ///   plane is coded larger than the picture; nil for the whole plane.
    static func averagedPlane(_ image: OpaquePointer, _ channel: heif_channel, within: (width: Int, height: Int),
                              region: (width: Int, height: Int)? = nil, to target: (width: Int, height: Int)) -> [Float]? {
        let planeWidth = Int(libheif.image_get_width(image, channel)), planeHeight = Int(libheif.image_get_height(image, channel))
        let w = min(planeWidth, region?.width ?? planeWidth), h = min(planeHeight, region?.height ?? planeHeight)
        let storageBits = Int(libheif.image_get_bits_per_pixel(image, channel))
        let rangeBits = Int(libheif.image_get_bits_per_pixel_range(image, channel))
        var stride: Int32 = 0
        guard w > 0, h > 0, planeWidth <= within.width, planeHeight <= within.height, storageBits == 8 || storageBits == 16,
              (8...16).contains(rangeBits), let plane = libheif.image_get_plane_readonly(image, channel, &stride),
              Int(stride) >= w * storageBits / 8 else { return nil }
        var values = PlaneResampler.average(UnsafeRawPointer(plane), width: w, height: h, rowBytes: Int(stride),
                                            bytesPerSample: storageBits / 8, toWidth: target.width, toHeight: target.height)
        if rangeBits > 8 {
            let scale = 1 / Float(1 << (rangeBits - 8))
            for i in values.indices { values[i] *= scale }
        }
        return values
    }

    /// How the chosen image's YCbCr becomes RGB: its `colr` nclx box's matrix and range,
    /// else what its HEVC stream's VUI says (`YCbCrConversion.undeclared`). Nil for matrices
    /// we leave to libheif.
    static func conversion(for chosen: Handle) -> YCbCrConversion? {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard libheif.image_handle_get_nclx_color_profile(chosen.pointer, &profile).code == heif_error_Ok,
              let profile else { return .undeclared }
        defer { libheif.nclx_color_profile_free(profile) }
        return YCbCrConversion(matrixCoefficients: Int(profile.pointee.matrix_coefficients.rawValue),
                               fullRange: profile.pointee.full_range_flag != 0)
    }

    /// Decodes to interleaved RGB(A) through libheif's own conversion, then shrinks.
    static func decodeRGB(_ chosen: Handle, request: ThumbnailRequest, shape: (width: Int, height: Int)? = nil) throws -> PixelBuffer {
        let hasAlpha = libheif.image_handle_has_alpha_channel(chosen.pointer) != 0
        let options = try decodingOptions()
        defer { libheif.decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var imagePointer: OpaquePointer?
        try check(libheif.decode_image(chosen.pointer, &imagePointer, heif_colorspace_RGB,
                                    hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options))
        guard let imagePointer else { throw ThumbnailError.decodeFailed("libheif returned no image") }
        defer { libheif.image_release(imagePointer) }
        guard libheif.image_has_channel(imagePointer, heif_channel_interleaved) != 0 else {
            throw ThumbnailError.decodeFailed("libheif returned no interleaved plane")
        }
        let planeWidth = Int(libheif.image_get_width(imagePointer, heif_channel_interleaved))
        let planeHeight = Int(libheif.image_get_height(imagePointer, heif_channel_interleaved))
        var stride: Int32 = 0
        guard planeWidth > 0, planeHeight > 0,
              let planePointer = libheif.image_get_plane_readonly(imagePointer, heif_channel_interleaved, &stride),
              stride >= Int32(planeWidth * (hasAlpha ? 4 : 3)) else {
            throw ThumbnailError.decodeFailed("libheif returned no interleaved plane")
        }
        let (width, height) = try pictureRegion(width: planeWidth, height: planeHeight, of: chosen, shape: shape)
        let channels = hasAlpha ? 4 : 3
        // Downscale straight from libheif's plane, so the full-size picture exists once.
        let target = ThumbnailGeometry.scaledSize(width: width, height: height, request: request)
        let plane = UnsafeBufferPointer(start: planePointer, count: Int(stride) * (height - 1) + width * channels)
        return AreaResampler.resize(pixels: plane, width: width, height: height, channels: channels,
                                    rowBytes: Int(stride), toWidth: target.width, toHeight: target.height)
    }
}
