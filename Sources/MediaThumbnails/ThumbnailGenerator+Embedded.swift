import CHeif
import MediaMetadata

extension ThumbnailGenerator {
    /// The thumbnail a file holds ready-made — a JPEG's EXIF thumbnail, a HEIF's thumbnail
    /// item, a raw's largest preview — scaled down to `request` when larger, kept as it is
    /// when smaller, whatever its shape: what a grid shows at once (`.fast` delivery)
    /// before a thumbnail made from the picture itself replaces it.
    ///
    /// - Parameters:
    ///   - format: the format, when known; nil to detect it.
    ///   - orientation: the orientation that governs display (`MediaMetadata.orientation`);
    ///     nil to read it from the file.
    /// - Returns: nil when the file holds no such thumbnail (or is not an image).
    /// - Throws: `ThumbnailError` when the file cannot be read or the thumbnail is damaged.
    public static func embeddedThumbnail(ofFileAt path: String, request: ThumbnailRequest,
                                         format knownFormat: MediaFormat? = nil, orientation knownOrientation: Int? = nil,
                                         pixelLimit: Int = defaultPixelLimit) throws -> EncodedThumbnail? {
        try embeddedThumbnail(ofFileAtBytes: Array(path.utf8), request: request, format: knownFormat,
                              orientation: knownOrientation, pixelLimit: pixelLimit)
    }

    /// `embeddedThumbnail(ofFileAt:…)` for a path given as bytes (a name that is not
    /// UTF-8 is opened exactly).
    ///
    /// - Throws: as `embeddedThumbnail(ofFileAt:…)`.
    public static func embeddedThumbnail(ofFileAtBytes path: [UInt8], beneath root: [UInt8]? = nil, request: ThumbnailRequest,
                                         format knownFormat: MediaFormat? = nil, orientation knownOrientation: Int? = nil,
                                         pixelLimit: Int = defaultPixelLimit) throws -> EncodedThumbnail? {
        _ = AllocatorTuning.applied
        let source: FileByteSource
        do { source = try FileByteSource(pathBytes: path, beneath: root) } catch { throw ThumbnailError.io("\(error)") }
        guard let format = knownFormat ?? (try? MetadataReader.detectFormat(source)) ?? nil,
              format.mediaType == .image else { return nil }
        let orientation = knownOrientation ?? (try? MetadataReader.read(source))??.orientation ?? 1
        let upright = (1...8).contains(orientation) ? orientation : 1
        switch format {
        case .jpeg:
            guard let embedded = try wrapIO({ try MetadataReader.embeddedImages(in: source, format: .jpeg) })
                .first(where: { $0.kind == .exifThumbnail }),
                  embedded.length <= RawPreviewExtractor.maxPreviewBytes else { return nil }
            let bytes = try wrapIO { try source.readExactly(at: embedded.offset, count: Int(embedded.length)) }
            let decoded = try bytes.withUnsafeBufferPointer { try JPEGDecoder.decode($0, request: request, pixelLimit: pixelLimit) }
            return try finish(decoded.image, orientation: upright, request: request, path: .embeddedExifThumbnail,
                              warnings: decoded.warnings)
        case .heic, .heif, .avif:
            guard source.size <= maxFileBytes else { return nil }
            let bytes = try wrapIO { try source.readExactly(at: 0, count: Int(source.size)) }
            return try bytes.withUnsafeBufferPointer { data -> EncodedThumbnail? in
                guard let image = try HEIFDecoder.decodeThumbnailItem(data, request: request, pixelLimit: pixelLimit) else { return nil }
                let items = try? HEIFItems.read(BufferByteSource(data))
                let transformed = items.flatMap { items in items.primaryID.map(items.isTransformed) } ?? true
                return try finish(image, orientation: transformed ? 1 : upright, request: request,
                                  path: .heifThumbnailItem, warnings: [])
            }
        default:
            guard format.isRaw else { return nil }
            do {
                return try previewThumbnail(of: source, format: format, orientation: upright, request: request, pixelLimit: pixelLimit)
            } catch ThumbnailError.unsupportedFormat {
                return nil  // its previews are other pictures: none to show at once
            }
        }
    }
}

extension HEIFDecoder {
    /// The largest thumbnail item of the primary image, decoded (its irot/imir applied)
    /// and shrunk to `request` when larger; nil when the file has none.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` when libheif cannot read the file.
    static func decodeThumbnailItem(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest,
                                    pixelLimit: Int) throws -> PixelBuffer? {
        _ = HEVCDecoderPlugin.isAvailable
        let context = try Context.reading(data, threads: 0)
        var primaryPointer: OpaquePointer?
        try check(libheif.context_get_primary_image_handle(context.pointer, &primaryPointer))
        guard let primaryPointer else { return nil }
        let primary = Handle(primaryPointer)
        let count = Int(libheif.image_handle_get_number_of_thumbnails(primary.pointer))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: min(count, 16))
        let listed = Int(libheif.image_handle_get_list_of_thumbnail_IDs(primary.pointer, &ids, Int32(ids.count)))
        var best: Handle?
        for id in ids.prefix(listed) {
            var pointer: OpaquePointer?
            guard libheif.image_handle_get_thumbnail(primary.pointer, id, &pointer).code == heif_error_Ok, let pointer else { continue }
            let thumb = Handle(pointer)
            let size = thumb.size
            guard size.width > 0, size.height > 0, size.width * size.height <= pixelLimit else { continue }
            if best.map({ size.width * size.height > $0.size.width * $0.size.height }) ?? true { best = thumb }
        }
        guard let best else { return nil }
        let bytesPerSample = libheif.image_handle_get_luma_bits_per_pixel(best.pointer) > 8 ? 2 : 1
        return try decodeThroughLibheif(best, in: data, request: request, skipLoopFilters: false, viaPlanes: true,
                                        bytesPerSample: bytesPerSample, shape: nil)
    }
}
