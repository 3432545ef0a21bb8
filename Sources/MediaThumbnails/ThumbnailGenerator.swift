import MediaMetadata

/// Makes thumbnails: decode (at reduced scale where the format allows), downscale by area
/// averaging, turn upright, encode.
///
/// Stateless and thread-safe: call it from as many threads as there are cores.
public enum ThumbnailGenerator {
    /// Declared sizes beyond this many pixels are refused before anything is allocated.
    public static let defaultPixelLimit = 200_000_000
    /// Files larger than this are not read into memory (no still image is this big).
    public static let maxFileBytes: UInt64 = 1 << 30

    /// Whether the `ffmpeg` program is available for video thumbnails.
    public static var canMakeVideoThumbnails: Bool { VideoFrameExtractor.ffmpegPath != nil }

    /// The formats whose stills this module decodes (videos need `ffmpeg` besides).
    public static func supports(_ format: MediaFormat) -> Bool {
        switch format {
        case .jpeg, .png, .gif, .webp, .heic, .heif, .avif, .tiff, .bmp, .jpegXL: return true
        default: return format.isRaw || format.mediaType == .video
        }
    }

    /// A thumbnail of the file at `path`, detecting its format and reading its orientation.
    ///
    /// - Parameters:
    ///   - videoFrameTime: for a live photo's movie, the still-image time in seconds.
    ///   - durationSeconds: a video's duration, when known, to pick a frame 10 % in.
    /// - Throws: `ThumbnailError`.
    public static func thumbnail(ofFileAt path: String, request: ThumbnailRequest,
                                 videoFrameTime: Double? = nil, durationSeconds: Double? = nil,
                                 pixelLimit: Int = defaultPixelLimit) throws -> EncodedThumbnail {
        let source: FileByteSource
        do { source = try FileByteSource(path: path) } catch {
            throw ThumbnailError.io("\(error)")
        }
        guard let format = try? MetadataReader.detectFormat(source) else {
            throw ThumbnailError.unsupportedFormat("a file that is not a recognised image or video")
        }
        if format.mediaType == .video {
            return try videoThumbnail(ofFileAt: path, request: request, stillTime: videoFrameTime,
                                      durationSeconds: durationSeconds)
        }
        var orientation: Int?
        if appliesExifOrientation(format) {
            orientation = (try? MetadataReader.read(source))??.orientation
        }
        return try thumbnail(of: source, format: format, orientation: orientation, request: request, pixelLimit: pixelLimit)
    }

    /// A thumbnail of an image held by `source`.
    ///
    /// - Parameters:
    ///   - format: the format detected by `MetadataReader.detectFormat`.
    ///   - orientation: the EXIF orientation (1–8) to apply; ignored for HEIF and AVIF,
    ///     whose `irot`/`imir` libheif applies itself.
    ///   - pixelLimit: declared sizes beyond this are refused before decoding.
    /// - Throws: `ThumbnailError`. A video needs a file path: use `thumbnail(ofFileAt:…)`
    ///   or `videoThumbnail(ofFileAt:…)`, or pass a `FileByteSource`.
    public static func thumbnail(of source: ByteSource, format: MediaFormat, orientation: Int?,
                                 request: ThumbnailRequest,
                                 pixelLimit: Int = defaultPixelLimit) throws -> EncodedThumbnail {
        _ = AllocatorTuning.applied
        if format.mediaType == .video {
            guard let file = source as? FileByteSource else {
                throw ThumbnailError.unsupportedFormat("a video held in memory (ffmpeg needs a file)")
            }
            return try videoThumbnail(ofFileAt: file.path, request: request, stillTime: nil, durationSeconds: nil)
        }
        let upright = appliesExifOrientation(format) ? (orientation ?? 1) : 1
        if format == .tiff {
            return try tiffThumbnail(source, orientation: upright, request: request, pixelLimit: pixelLimit)
        }
        if format.isRaw {
            guard let preview = try wrapIO({ try RawPreviewExtractor.largestPreview(in: source, format: format) }) else {
                throw ThumbnailError.unsupportedFormat("this \(format.rawValue.uppercased()) raw: it has no decodable embedded JPEG preview")
            }
            let decoded = try preview.bytes.withUnsafeBufferPointer {
                try JPEGDecoder.decode($0, request: request, pixelLimit: pixelLimit)
            }
            return try finish(decoded.image, orientation: upright, request: request,
                              path: .rawEmbeddedPreview(width: preview.width, height: preview.height), warnings: decoded.warnings,
                              colour: decoded.colour)
        }
        guard source.size <= maxFileBytes else {
            throw ThumbnailError.io("the file has \(source.size) bytes, more than the \(maxFileBytes >> 20) MiB read for one still image")
        }
        let bytes = try wrapIO { try source.readExactly(at: 0, count: Int(source.size)) }
        return try bytes.withUnsafeBufferPointer { data in
            try thumbnail(ofData: data, format: format, orientation: upright, request: request, pixelLimit: pixelLimit)
        }
    }

    /// A video's poster frame, taken by `ffmpeg` at the still time of a live movie, else
    /// about 10 % in (at most 1 s).
    ///
    /// - Throws: `ThumbnailError.needsFFmpeg` when ffmpeg is absent, `.decodeFailed` when
    ///   it produces no frame.
    public static func videoThumbnail(ofFileAt path: String, request: ThumbnailRequest,
                                      stillTime: Double? = nil, durationSeconds: Double? = nil) throws -> EncodedThumbnail {
        let seconds = VideoFrameExtractor.posterTime(stillTime: stillTime, duration: durationSeconds)
        let frame = try VideoFrameExtractor.frame(path: path, seconds: seconds, request: request)
        return try finish(frame.image, orientation: 1, request: request, path: .videoFrame(seconds: frame.seconds), warnings: [])
    }

    // MARK: - Internals

    /// HEIF and AVIF carry their orientation in `irot`/`imir`, which libheif applies;
    /// JPEG XL in its codestream header, which libjxl applies.
    static func appliesExifOrientation(_ format: MediaFormat) -> Bool {
        switch format {
        case .heic, .heif, .avif, .jpegXL: return false
        default: return format.mediaType == .image
        }
    }

    static func wrapIO<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ThumbnailError { throw error } catch {
            throw ThumbnailError.io("\(error)")
        }
    }

    static func thumbnail(ofData data: UnsafeBufferPointer<UInt8>, format: MediaFormat, orientation: Int,
                          request: ThumbnailRequest, pixelLimit: Int) throws -> EncodedThumbnail {
        switch format {
        case .jpeg:
            return try jpegThumbnail(data, orientation: orientation, request: request, pixelLimit: pixelLimit)
        case .png:
            let image = try PNGDecoder.decode(data, pixelLimit: pixelLimit)
            return try finish(image, orientation: orientation, request: request, path: .fullDecode, warnings: [],
                              colour: PNGDecoder.colourSpace(data))
        case .webp:
            let decoded = try WebPDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: orientation, request: request,
                              path: decoded.scaled ? .webpScaledDecode : .fullDecode, warnings: [],
                              colour: WebPDecoder.colourSpace(data))
        case .heic, .heif, .avif:
            let decoded = try HEIFDecoder.decode(data, request: request, pixelLimit: pixelLimit, threads: 0)
            return try finish(decoded.image, orientation: 1, request: request,
                              path: decoded.usedThumbnail ? .heifThumbnailItem : .fullDecode, warnings: [],
                              colour: decoded.colour)
        case .bmp:
            let decoded = try BMPDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: orientation, request: request, path: .fullDecode,
                              warnings: decoded.warnings, original: decoded.size)
        case .jpegXL:
            let decoded = try JXLDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: 1, request: request, path: .fullDecode, warnings: [],
                              original: decoded.size, colour: decoded.iccProfile.map(ColourSpace.icc) ?? .sRGB)
        case .gif:
            let image = try GIFDecoder.decodeFirstFrame(data, pixelLimit: pixelLimit)
            return try finish(image, orientation: orientation, request: request, path: .fullDecode, warnings: [])
        default:
            let reason = formatsWithoutDecoder[format] ?? "no decoder is linked"
            throw ThumbnailError.unsupportedFormat("\(format.rawValue.uppercased()) images (\(reason))")
        }
    }

    /// JPEG: the EXIF thumbnail when it is big enough and the same shape, else DCT-scaled decoding.
    static func jpegThumbnail(_ data: UnsafeBufferPointer<UInt8>, orientation: Int, request: ThumbnailRequest,
                              pixelLimit: Int) throws -> EncodedThumbnail {
        guard let size = JPEGDecoder.size(of: data) else {
            // Let the decoder produce the precise error.
            _ = try JPEGDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            throw ThumbnailError.decodeFailed("the JPEG header is unreadable")
        }
        if let exifRange = JPEGSegments(data).exif,
           let thumbnail = embeddedThumbnail(data, exif: exifRange) {
            let thumbData = UnsafeBufferPointer(rebasing: data[thumbnail])
            // One larger than the picture itself is of another picture (an edit kept the
            // camera's thumbnail of the original).
            if let thumbSize = JPEGDecoder.size(of: thumbData),
               thumbSize.width < size.width, thumbSize.height < size.height,
               ThumbnailGeometry.sameAspect(thumbSize, size),
               ThumbnailGeometry.covers(candidate: thumbSize, original: size, request: request),
               let decoded = try? JPEGDecoder.decode(thumbData, request: request, pixelLimit: pixelLimit, original: size),
               decoded.warnings.isEmpty {
                return try finish(decoded.image, orientation: orientation, request: request,
                                  path: .embeddedExifThumbnail, warnings: [], original: size,
                                  colour: JPEGDecoder.colour(of: data).space)
            }
        }
        let decoded = try JPEGDecoder.decode(data, request: request, pixelLimit: pixelLimit)
        let path: ThumbnailPath = decoded.scale.1 == 1 && decoded.scale.0 == 1
            ? .fullDecode : .jpegDCTScaled(numerator: decoded.scale.0, denominator: decoded.scale.1)
        return try finish(decoded.image, orientation: orientation, request: request, path: path,
                          warnings: decoded.warnings, original: size, colour: decoded.colour)
    }

    /// TIFF: the embedded JPEG preview when it covers the request with the image's shape
    /// (a JPEG decodes faster than most TIFF layouts), else libtiff, else any preview.
    static func tiffThumbnail(_ source: ByteSource, orientation: Int, request: ThumbnailRequest,
                              pixelLimit: Int) throws -> EncodedThumbnail {
        let preview = try? RawPreviewExtractor.largestPreview(in: source, format: .tiff)
        func fromPreview(_ preview: (bytes: [UInt8], width: Int, height: Int)) throws -> EncodedThumbnail {
            let decoded = try preview.bytes.withUnsafeBufferPointer {
                try JPEGDecoder.decode($0, request: request, pixelLimit: pixelLimit)
            }
            return try finish(decoded.image, orientation: orientation, request: request,
                              path: .rawEmbeddedPreview(width: preview.width, height: preview.height),
                              warnings: decoded.warnings, colour: decoded.colour)
        }
        let decoded: TIFFDecoder.Decoded
        do {
            let file = try TIFFDecoder.File(source: source)
            if let full = file.size, let preview = preview ?? nil,
               ThumbnailGeometry.sameAspect((preview.width, preview.height), full),
               ThumbnailGeometry.covers(candidate: (preview.width, preview.height), original: full, request: request),
               let made = try? fromPreview(preview) {
                return made
            }
            decoded = try TIFFDecoder.decode(source, request: request, pixelLimit: pixelLimit)
        } catch let error as ThumbnailError {
            if case .imageTooLarge = error { throw error }
            if let preview = preview ?? nil, let made = try? fromPreview(preview) { return made }
            throw error
        }
        let path: ThumbnailPath = decoded.reduced
            ? .tiffReducedResolution(width: decoded.decodedSize.width, height: decoded.decodedSize.height) : .fullDecode
        return try finish(decoded.image, orientation: orientation, request: request, path: path, warnings: decoded.warnings,
                          original: decoded.fullSize, colour: decoded.iccProfile.map(ColourSpace.icc) ?? .sRGB)
    }

    /// The byte range of the EXIF IFD1 JPEG thumbnail inside `data`, if it lies wholly inside.
    static func embeddedThumbnail(_ data: UnsafeBufferPointer<UInt8>, exif: Range<Int>) -> Range<Int>? {
        let block = MemoryByteSource(Array(data[exif]))
        guard let tiff = TIFFPreviewLocator(source: block), let candidate = tiff.exifThumbnail(),
              candidate.offset + candidate.length <= UInt64(exif.count), candidate.length > 4 else { return nil }
        let start = exif.lowerBound + Int(candidate.offset)
        return start..<(start + Int(candidate.length))
    }

    /// Crop (for `.fill`), area-average to the exact size, orient, encode.
    ///
    /// - Parameter original: the size the thumbnail's size is judged from, when `image`
    ///   is a reduced decode; the result never exceeds it.
    /// - Parameter colour: the colour space of `decoded`'s values; the thumbnail is converted
    ///   from it to sRGB once shrunk.
    static func finish(_ decoded: PixelBuffer, orientation: Int, request: ThumbnailRequest, path: ThumbnailPath,
                       warnings: [String], original: (width: Int, height: Int)? = nil,
                       colour: ColourSpace = .sRGB) throws -> EncodedThumbnail {
        var warnings = warnings
        var image = decoded
        // Alpha: JPEG output composites on white now, so averaging sees final colours;
        // WebP output averages premultiplied colour so transparent pixels do not bleed.
        var premultiplied = false
        if image.channels == 4 {
            if !image.hasTransparency || !request.format.keepsAlpha {
                image = image.flattenedOnWhite()
            } else {
                image.premultiplyAlpha()
                premultiplied = true
            }
        }
        let reference = original ?? (image.width, image.height)
        var target = ThumbnailGeometry.scaledSize(width: reference.width, height: reference.height, request: request)
        if request.mode == .fill {
            let side = min(image.width, image.height)
            image = image.cropped(x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
            let finalSide = min(target.width, target.height)
            target = (finalSide, finalSide)
        }
        target = (min(target.width, image.width), min(target.height, image.height))
        image = AreaResampler.resize(image, width: target.width, height: target.height)
        if premultiplied { image.unpremultiplyAlpha() }
        let converted = ColourConverter.toSRGB(image, from: colour)
        image = converted.image
        if let warning = converted.warning { warnings.append(warning) }
        image = image.oriented(orientation)
        let data = try ThumbnailEncoder.encode(image, as: request.format)
        return EncodedThumbnail(data: data, width: image.width, height: image.height, path: path, warnings: warnings)
    }
}

extension ThumbnailFormat {
    /// Whether the format stores transparency.
    var keepsAlpha: Bool {
        if case .webp = self { return true }
        return false
    }
}
