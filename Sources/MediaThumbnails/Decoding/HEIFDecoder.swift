import CHeif

/// Decodes HEIC, HEIF and AVIF through libheif, which applies `irot`/`imir` itself.
///
/// A thumbnail item at least as large as the request is decoded instead of the primary
/// image: a 320-px item instead of forty-eight 512-px HEVC tiles.
enum HEIFDecoder {
    /// A libheif context, freed when released.
    final class Context {
        let pointer: OpaquePointer
        init() throws {
            guard let pointer = heif_context_alloc() else {
                throw ThumbnailError.decodeFailed("libheif could not allocate a context")
            }
            self.pointer = pointer
        }
        deinit { heif_context_free(pointer) }
    }

    /// An image handle, released when released.
    final class Handle {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { heif_image_handle_release(pointer) }
        var size: (width: Int, height: Int) {
            (Int(heif_image_handle_get_width(pointer)), Int(heif_image_handle_get_height(pointer)))
        }
    }

    static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "unknown error"
        throw ThumbnailError.decodeFailed("libheif: \(message)")
    }

    /// Decodes the primary image (or a large-enough thumbnail item) of `data`, which
    /// must stay alive during the call.
    ///
    /// - Parameter threads: libheif's tile-decoding threads; 0 decodes on the calling
    ///   thread, which is best when many files are decoded in parallel.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, pixelLimit: Int,
                       threads: Int) throws -> (image: PixelBuffer, usedThumbnail: Bool) {
        let context = try Context()
        heif_context_set_max_decoding_threads(context.pointer, Int32(threads))
        try check(heif_context_read_from_memory_without_copy(context.pointer, data.baseAddress, data.count, nil))
        var primaryPointer: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context.pointer, &primaryPointer))
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
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary.pointer))
        if count > 0 {
            var ids = [heif_item_id](repeating: 0, count: min(count, 16))
            let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary.pointer, &ids, Int32(ids.count)))
            for id in ids.prefix(listed) {
                var thumbPointer: OpaquePointer?
                guard heif_image_handle_get_thumbnail(primary.pointer, id, &thumbPointer).code == heif_error_Ok,
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

        let hasAlpha = heif_image_handle_has_alpha_channel(chosen.pointer) != 0
        guard let options = heif_decoding_options_alloc() else {
            throw ThumbnailError.decodeFailed("libheif could not allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var imagePointer: OpaquePointer?
        try check(heif_decode_image(chosen.pointer, &imagePointer, heif_colorspace_RGB,
                                    hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options))
        guard let imagePointer else { throw ThumbnailError.decodeFailed("libheif returned no image") }
        defer { heif_image_release(imagePointer) }
        let width = Int(heif_image_get_width(imagePointer, heif_channel_interleaved))
        let height = Int(heif_image_get_height(imagePointer, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0,
              let planePointer = heif_image_get_plane_readonly(imagePointer, heif_channel_interleaved, &stride),
              stride >= Int32(width * (hasAlpha ? 4 : 3)) else {
            throw ThumbnailError.decodeFailed("libheif returned no interleaved plane")
        }
        let channels = hasAlpha ? 4 : 3
        // Downscale straight from libheif's plane, so the full-size picture exists once.
        let target = ThumbnailGeometry.scaledSize(width: width, height: height, request: request)
        let plane = UnsafeBufferPointer(start: planePointer, count: Int(stride) * (height - 1) + width * channels)
        let image = AreaResampler.resize(pixels: plane, width: width, height: height, channels: channels,
                                         rowBytes: Int(stride), toWidth: target.width, toHeight: target.height)
        return (image, usedThumbnail)
    }
}
