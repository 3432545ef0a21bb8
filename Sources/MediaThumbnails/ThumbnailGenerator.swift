import Foundation
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
        case .jpeg, .png, .gif, .webp, .heic, .heif, .avif, .tiff, .bmp, .jpegXL, .netpbm, .ico, .jpeg2000: return true
        default: return (format.isRaw && formatsWithoutDecoder[format] == nil) || format.mediaType == .video
        }
    }

    /// A thumbnail of the file at `path`.
    ///
    /// - Parameters:
    ///   - format: the format, when the caller knows it (the index does); nil to detect it.
    ///   - orientation: the orientation that governs display (`MediaMetadata.orientation`,
    ///     1 when the file has none), when the caller knows it; nil to read it from the file.
    ///   - videoFrameTime: for a live photo's movie, the still-image time in seconds.
    ///   - durationSeconds: a video's duration, when known, to pick a frame 10 % in.
    /// - Throws: `ThumbnailError`.
    public static func thumbnail(ofFileAt path: String, request: ThumbnailRequest,
                                 format knownFormat: MediaFormat? = nil, orientation knownOrientation: Int? = nil,
                                 videoFrameTime: Double? = nil, durationSeconds: Double? = nil,
                                 pixelLimit: Int = defaultPixelLimit) throws -> EncodedThumbnail {
        try thumbnail(ofFileAtBytes: Array(path.utf8), request: request, format: knownFormat,
                      orientation: knownOrientation, videoFrameTime: videoFrameTime,
                      durationSeconds: durationSeconds, pixelLimit: pixelLimit)
    }

    /// A thumbnail of the file whose path is these bytes (no encoding assumed: a name
    /// that is not UTF-8 is opened, and handed to ffmpeg, exactly).
    ///
    /// - Parameters: as `thumbnail(ofFileAt:…)`, and `root`: the indexed folder the file
    ///   lies under, inside which its path must resolve without following a symbolic
    ///   link (`BeneathRoot`); nil for a file given on its own.
    /// - Throws: `ThumbnailError`.
    public static func thumbnail(ofFileAtBytes path: [UInt8], beneath root: [UInt8]? = nil, request: ThumbnailRequest,
                                 format knownFormat: MediaFormat? = nil, orientation knownOrientation: Int? = nil,
                                 videoFrameTime: Double? = nil, durationSeconds: Double? = nil,
                                 pixelLimit: Int = defaultPixelLimit) throws -> EncodedThumbnail {
        let source: FileByteSource
        do { source = try FileByteSource(pathBytes: path, beneath: root) } catch {
            throw ThumbnailError.io("\(error)")
        }
        guard let format = knownFormat ?? (try? MetadataReader.detectFormat(source)) ?? nil else {
            throw ThumbnailError.unsupportedFormat("a file that is not a recognised image or video")
        }
        if format.mediaType == .video {
            return try videoThumbnail(ofFileAtBytes: path, beneath: root, request: request, stillTime: videoFrameTime,
                                      durationSeconds: durationSeconds)
        }
        let orientation = knownOrientation ?? (try? MetadataReader.read(source))??.orientation
        return try thumbnail(of: source, format: format, orientation: orientation, request: request, pixelLimit: pixelLimit)
    }

    /// A thumbnail of an image held by `source`.
    ///
    /// - Parameters:
    ///   - format: the format detected by `MetadataReader.detectFormat`.
    ///   - orientation: the orientation that governs display (1–8), as
    ///     `MediaMetadata.orientation` holds it. A HEIF's or AVIF's `irot`/`imir` are
    ///     applied by its decoder, so there it is applied only to a file without them.
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
            return try videoThumbnail(ofFileAtBytes: file.pathBytes, request: request, stillTime: nil, durationSeconds: nil)
        }
        let upright = (1...8).contains(orientation ?? 1) ? orientation ?? 1 : 1
        if let reason = formatsWithoutDecoder[format] {
            throw ThumbnailError.unsupportedFormat("\(format.rawValue.uppercased()) images (\(reason))")
        }
        if format.isRaw,
           let thumbnail = try previewThumbnail(of: source, format: format, orientation: upright,
                                                request: request, pixelLimit: pixelLimit) {
            return thumbnail
        }
        if format == .tiff {
            return try tiffThumbnail(source, orientation: upright, request: request, pixelLimit: pixelLimit)
        }
        if format.isRaw {
            throw ThumbnailError.unsupportedFormat("\(rawName(source, format: format)): it has no decodable embedded JPEG preview, and raw sensor data is not decoded")
        }
        guard source.size <= maxFileBytes else {
            throw ThumbnailError.io("the file has \(source.size) bytes, more than the \(maxFileBytes >> 20) MiB read for one still image")
        }
        let bytes = try wrapIO { try source.readExactly(at: 0, count: Int(source.size)) }
        return try bytes.withUnsafeBufferPointer { data in
            try thumbnail(ofData: data, format: format, orientation: upright, request: request, pixelLimit: pixelLimit)
        }
    }

    /// A raw's largest embedded JPEG preview that has the raw's shape (TIFFs: see
    /// `tiffThumbnail`). Nil when the file holds no preview that decodes.
    ///
    /// - Throws: `ThumbnailError.unsupportedFormat` naming the file when a raw's previews
    ///   all have another shape than the raw (see `rawPreviewShapeTolerance`); the error of
    ///   the last preview tried when none decodes.
    static func previewThumbnail(of source: ByteSource, format: MediaFormat, orientation: Int,
                                 request: ThumbnailRequest, pixelLimit: Int) throws -> EncodedThumbnail? {
        var previews = try wrapIO { try RawPreviewExtractor.previews(in: source, format: format) }
        guard let largest = previews.first else { return nil }
        // The raw's recorded (stored-orientation) size, as previews are stored; a size
        // smaller than a preview is a placeholder (Sigma's 8×8 IFD), not the picture's.
        let rawSize = (try? MetadataReader.read(source)).flatMap { metadata -> (width: Int, height: Int)? in
            guard let w = metadata?.pixelWidth, let h = metadata?.pixelHeight, w > 0, h > 0,
                  max(w, h) >= max(largest.width, largest.height) else { return nil }
            return (w, h)
        }
        if let rawSize {
            let fits = { (preview: RawPreviewExtractor.Preview) in
                ThumbnailGeometry.sameAspect((preview.width, preview.height), rawSize, tolerance: rawPreviewShapeTolerance)
            }
            if !previews.contains(where: fits) {
                // The structure's previews are all another picture: a scan may find the real one.
                previews = try wrapIO { try RawPreviewExtractor.previews(in: source, format: format, scanAlways: true) }
            }
            let refused = previews.filter { !fits($0) }
            previews.removeAll { !fits($0) }
            if previews.isEmpty {
                throw ThumbnailError.unsupportedFormat(Self.previewRefusal(refused, rawSize: rawSize, format: format, source: source))
            }
        }
        var lastError: Error?
        for preview in previews {
            do {
                let bytes = try wrapIO { try RawPreviewExtractor.bytes(of: preview, in: source) }
                let decoded = try bytes.withUnsafeBufferPointer {
                    try JPEGDecoder.decode($0, request: request, pixelLimit: pixelLimit)
                }
                return try finish(decoded.image, orientation: orientation, request: request,
                                  path: .rawEmbeddedPreview(width: preview.width, height: preview.height),
                                  warnings: decoded.warnings)
            } catch let error as ThumbnailError {
                if case .imageTooLarge = error { throw error }
                lastError = error  // a damaged preview: the next one may decode
            }
        }
        throw lastError ?? ThumbnailError.decodeFailed("no embedded preview decodes")
    }

    /// How far (relative) a raw's embedded preview's aspect ratio may be from the raw's
    /// recorded size and still be the same picture: 4 %. Recorded sizes may include
    /// sensor borders: a Canon CRW's 2376×1728 sensor for its 2272×1704 picture is 3.1 %
    /// off, a Fujifilm X-Trans 6160×4032 raw for its 6000×4000 picture 1.9 %, Panasonic's
    /// 3724×2754 sensor for 4:3 1.4 %, Sony's 6048×4024 for 3:2 0.2 %; Canon's 1624×1080
    /// CR3 preview of 5472×3648 is 0.25 % off. The nearest wrong pictures are further:
    /// 5:4 for 4:3 is 6.25 % off, 4:3 for 3:2 11 %, 16:9 for 3:2 16 %, an 8×8 or 1×1
    /// placeholder for 3:2 33 %.
    static let rawPreviewShapeTolerance = 0.04

    /// The sentence for a raw whose previews all have another shape: the file, the
    /// previews' sizes, the raw's shape.
    static func previewRefusal(_ refused: [RawPreviewExtractor.Preview], rawSize: (width: Int, height: Int),
                               format: MediaFormat, source: ByteSource) -> String {
        let file = rawName(source, format: format)
        let sizes = refused.prefix(4).map { "\($0.width)×\($0.height)" }
        let previews = refused.count == 1 ? "the only embedded preview is \(sizes[0]), not"
            : "none of the embedded previews (\(sizes.joined(separator: ", "))\(refused.count > 4 ? ", …" : "")) has"
        return "\(file): \(previews) the raw's \(ThumbnailGeometry.shapeName(rawSize)) shape "
            + "(\(rawSize.width)×\(rawSize.height)); raw sensor data is not decoded"
    }

    /// How a raw's refusal names it: the file's name, or `this CR2 raw` for bytes without one.
    static func rawName(_ source: ByteSource, format: MediaFormat) -> String {
        guard let file = source as? FileByteSource else { return "this \(format.rawValue.uppercased()) raw" }
        let name = file.pathBytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? file.pathBytes
        return String(decoding: name, as: UTF8.self)
    }

    /// A video's poster frame, taken by `ffmpeg` at the still time of a live movie, else
    /// about 10 % in (at most 1 s).
    ///
    /// - Throws: `ThumbnailError.needsFFmpeg` when ffmpeg is absent, `.decodeFailed` when
    ///   it produces no frame.
    public static func videoThumbnail(ofFileAt path: String, request: ThumbnailRequest,
                                      stillTime: Double? = nil, durationSeconds: Double? = nil) throws -> EncodedThumbnail {
        try videoThumbnail(ofFileAtBytes: Array(path.utf8), request: request, stillTime: stillTime,
                           durationSeconds: durationSeconds)
    }

    /// `videoThumbnail(ofFileAt:…)` for a path given as bytes, passed to ffmpeg exactly.
    /// With `root`, the path must first open inside that folder without following a
    /// symbolic link (`BeneathRoot`), as every other read of an indexed file does.
    ///
    /// - Throws: as `videoThumbnail(ofFileAt:…)`; `ThumbnailError.io` for a path that
    ///   leaves its root.
    public static func videoThumbnail(ofFileAtBytes path: [UInt8], beneath root: [UInt8]? = nil, request: ThumbnailRequest,
                                      stillTime: Double? = nil, durationSeconds: Double? = nil) throws -> EncodedThumbnail {
        let seconds = VideoFrameExtractor.posterTime(stillTime: stillTime, duration: durationSeconds)
        let header: FileByteSource?
        if root != nil {
            do { header = try FileByteSource(pathBytes: path, beneath: root) } catch { throw ThumbnailError.io("\(error)") }
        } else {
            header = try? FileByteSource(pathBytes: path)
        }
        // The container's colour, for HDR video (read from the movie header alone).
        let colour = header.flatMap { try? MetadataReader.read($0) }?.videoColour
        let frame = try VideoFrameExtractor.frame(pathBytes: path, seconds: seconds, request: request, colour: colour)
        return try finish(frame.image, orientation: 1, request: request, path: .videoFrame(seconds: frame.seconds), warnings: [])
    }

    // MARK: - Internals

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
            let decoded: (image: PixelBuffer, usedThumbnail: Bool, displayedSize: (width: Int, height: Int), colour: ColourSpace)
            do {
                // A rendition is one picture someone waits for: its tiles are decoded on every core.
                // Thumbnails run many files side by side, one thread each.
                let threads = request.isRendition ? ProcessInfo.processInfo.activeProcessorCount : 0
                decoded = try HEIFDecoder.decode(data, request: request, pixelLimit: pixelLimit, threads: threads)
            } catch let error as ThumbnailError {
                if case .imageTooLarge = error { throw error }
                guard let made = heifFallback(data, orientation: orientation, request: request, pixelLimit: pixelLimit,
                                              refusal: error) else { throw error }
                return made
            }
            // The decoder applied irot/imir; a file without them is turned by its EXIF orientation.
            let items = try? HEIFItems.read(BufferByteSource(data))
            let transformed = items.flatMap { items in items.primaryID.map(items.isTransformed) } ?? true
            return try finish(decoded.image, orientation: transformed ? 1 : orientation, request: request,
                              path: decoded.usedThumbnail ? .heifThumbnailItem : .fullDecode, warnings: [],
                              original: decoded.displayedSize, colour: decoded.colour)
        case .bmp:
            let decoded = try BMPDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: orientation, request: request, path: .fullDecode,
                              warnings: decoded.warnings, original: decoded.size)
        case .netpbm:
            let decoded = try NetpbmDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: orientation, request: request, path: .fullDecode,
                              warnings: decoded.warnings, original: decoded.size)
        case .jpegXL:
            let decoded = try JXLDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: 1, request: request, path: .fullDecode, warnings: [],
                              original: decoded.size, colour: decoded.iccProfile.map(ColourSpace.icc) ?? .sRGB)
        case .jpeg2000:
            let decoded = try JPEG2000Decoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: 1, request: request,
                              path: decoded.reduction > 0 ? .jpeg2000Reduced(factor: 1 << decoded.reduction) : .fullDecode,
                              warnings: [], original: decoded.size, colour: decoded.iccProfile.map(ColourSpace.icc) ?? .sRGB)
        case .ico:
            let decoded = try IconDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            return try finish(decoded.image, orientation: 1, request: request, path: .fullDecode, warnings: decoded.warnings,
                              colour: decoded.colour)
        case .gif:
            let image = try GIFDecoder.decodeFirstFrame(data, pixelLimit: pixelLimit)
            return try finish(image, orientation: orientation, request: request, path: .fullDecode, warnings: [])
        default:
            let reason = formatsWithoutDecoder[format] ?? "no decoder is linked"
            throw ThumbnailError.unsupportedFormat("\(format.rawValue.uppercased()) images (\(reason))")
        }
    }

    /// JPEG: the EXIF thumbnail when it is the same picture and big enough, else
    /// DCT-scaled decoding.
    static func jpegThumbnail(_ data: UnsafeBufferPointer<UInt8>, orientation: Int, request: ThumbnailRequest,
                              pixelLimit: Int) throws -> EncodedThumbnail {
        guard let size = JPEGDecoder.size(of: data) else {
            // Let the decoder produce the precise error.
            _ = try JPEGDecoder.decode(data, request: request, pixelLimit: pixelLimit)
            throw ThumbnailError.decodeFailed("the JPEG header is unreadable")
        }
        if let embedded = (try? MetadataReader.embeddedImages(in: BufferByteSource(data), format: .jpeg))?
            .first(where: { $0.kind == .exifThumbnail }) {
            let thumbData = UnsafeBufferPointer(rebasing: data[Int(embedded.offset)..<Int(embedded.offset + embedded.length)])
            // The camera's thumbnail may be another picture (FLIR's visible-light image) or
            // a crop or letterbox: only the same shape, big enough, stands in.
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
        let file = try? TIFFDecoder.File(source: source)
        let full = file?.size
        // The largest JPEG in the file that is not one of its own strips or tiles: an EXIF or
        // Photoshop thumbnail, a preview. A JPEG-compressed TIFF's strips start as JPEGs do,
        // but lack their tables; the picture is libtiff's to decode, with its profile. The
        // directories are walked for those strips only when the file holds some JPEG.
        let found = (try? RawPreviewExtractor.previews(in: source, format: .tiff)) ?? []
        let own = found.isEmpty ? [] : file?.imageDataOffsets() ?? []
        let preview = found.first { !own.contains($0.candidate.offset) }
            .flatMap { best in (try? RawPreviewExtractor.bytes(of: best, in: source)).map { (bytes: $0, width: best.width, height: best.height) } }
        /// - Parameter original: the image's size, when the preview has its shape.
        func fromPreview(_ preview: (bytes: [UInt8], width: Int, height: Int),
                         original: (width: Int, height: Int)? = nil) throws -> EncodedThumbnail {
            let decoded = try preview.bytes.withUnsafeBufferPointer {
                try JPEGDecoder.decode($0, request: request, pixelLimit: pixelLimit, original: original)
            }
            return try finish(decoded.image, orientation: orientation, request: request,
                              path: .rawEmbeddedPreview(width: preview.width, height: preview.height),
                              warnings: decoded.warnings, original: original, colour: decoded.colour)
        }
        let decoded: TIFFDecoder.Decoded
        do {
            // A preview stands in only when it is the same picture, big enough (a 24×16
            // icon of a 100×67 image is not), and decodes.
            if let full, let preview,
               ThumbnailGeometry.sameAspect((preview.width, preview.height), full),
               ThumbnailGeometry.covers(candidate: (preview.width, preview.height), original: full, request: request),
               let made = try? fromPreview(preview, original: full) {
                return made
            }
            decoded = try TIFFDecoder.decode(source, request: request, pixelLimit: pixelLimit)
        } catch let error as ThumbnailError {
            if case .imageTooLarge = error { throw error }
            if let preview, let made = try? fromPreview(preview) { return made }
            throw error
        }
        let path: ThumbnailPath = decoded.reduced
            ? .tiffReducedResolution(width: decoded.decodedSize.width, height: decoded.decodedSize.height) : .fullDecode
        return try finish(decoded.image, orientation: orientation, request: request, path: path, warnings: decoded.warnings,
                          original: decoded.fullSize, colour: decoded.iccProfile.map(ColourSpace.icc) ?? .sRGB)
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
        // A transparent picture in another colour space is composited only once in sRGB
        // (white is mixed with sRGB colours, as vips flattens after importing the profile).
        var premultiplied = false
        let flattenInSRGB = image.channels == 4 && colour != .sRGB && !request.format.keepsAlpha && image.hasTransparency
        if image.channels == 4 {
            if !flattenInSRGB && (!image.hasTransparency || !request.format.keepsAlpha) {
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
        var keptProfile: [UInt8]?
        if request.isRendition, !request.convertsToSRGB, case .icc(let profile) = colour,
           !ColourConverter.isCMYKProfile(profile), image.channels >= 3 {
            keptProfile = profile  // the values stay in the file's own space, its profile beside them
        } else {
            let converted = ColourConverter.toSRGB(image, from: colour)
            image = converted.image
            if let warning = converted.warning { warnings.append(warning) }
        }
        if flattenInSRGB { image = image.flattenedOnWhite() }
        image = image.oriented(orientation)
        let data = try ThumbnailEncoder.encode(image, as: request.format)
        // A fill thumbnail is a crop: only the whole picture is hashed.
        let hashes = request.mode == .fit && !request.isRendition && request.makesHashes ? PerceptualHashes.of(image) : nil
        var encoded = EncodedThumbnail(data: data, width: image.width, height: image.height, path: path, warnings: warnings,
                                       hashes: hashes)
        encoded.iccProfile = keptProfile
        return encoded
    }
}

extension ThumbnailFormat {
    /// Whether the format stores transparency.
    var keepsAlpha: Bool {
        if case .webp = self { return true }
        return false
    }
}
