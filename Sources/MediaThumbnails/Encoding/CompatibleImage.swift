import MediaMetadata

/// How a compatible JPEG (PhotoKit's `.compatible`) is made from a still.
public struct CompatibleImageOptions: Hashable, Sendable {
    /// Convert the picture to sRGB; otherwise its own ICC profile is kept and embedded.
    public var convertsToSRGB: Bool
    /// Leave the EXIF GPS directory out.
    public var omitsLocation: Bool
    /// The JPEG quality (from 90 up, chroma is kept at full resolution).
    public var quality: Int

    public init(convertsToSRGB: Bool = false, omitsLocation: Bool = false, quality: Int = 92) {
        self.convertsToSRGB = convertsToSRGB
        self.omitsLocation = omitsLocation
        self.quality = quality
    }
}

extension ThumbnailGenerator {
    /// The still at `path` as a full-size JPEG turned upright, with the file's EXIF
    /// (orientation reset to 1, GPS left out with `omitsLocation`) in APP1 and its ICC
    /// profile in APP2, unless `convertsToSRGB` turned the picture into sRGB (then no
    /// profile is embedded: JPEG's default).
    ///
    /// - Parameters: as `thumbnail(ofFileAtBytes:…)`.
    /// - Throws: `ThumbnailError`; `.unsupportedFormat` for a video.
    public static func compatibleImage(ofFileAtBytes path: [UInt8], beneath root: [UInt8]? = nil,
                                       format knownFormat: MediaFormat? = nil, orientation: Int? = nil,
                                       options: CompatibleImageOptions = CompatibleImageOptions(),
                                       pixelLimit: Int = defaultPixelLimit) throws -> EncodedThumbnail {
        let source: FileByteSource
        do { source = try FileByteSource(pathBytes: path, beneath: root) } catch { throw ThumbnailError.io("\(error)") }
        guard let format = knownFormat ?? (try? MetadataReader.detectFormat(source)) ?? nil else {
            throw ThumbnailError.unsupportedFormat("a file that is not a recognised image")
        }
        guard format.mediaType != .video else { throw ThumbnailError.unsupportedFormat("a video as a still") }
        var request = ThumbnailRequest(maxPixelSize: 1 << 20, mode: .fit, format: .jpeg(quality: options.quality))
        request.isRendition = true
        request.convertsToSRGB = options.convertsToSRGB
        let upright = orientation ?? (try? MetadataReader.read(source))??.orientation
        var made = try compatibleHEIFPlanes(source, format: format, orientation: upright ?? 1, options: options,
                                            pixelLimit: pixelLimit)
            ?? thumbnail(of: source, format: format, orientation: upright, request: request, pixelLimit: pixelLimit)
        let exif = ExifRendition.block(in: source, format: format).flatMap {
            ExifRendition.rewritten($0, omitLocation: options.omitsLocation)
        }
        made.data = JPEGMarkers.inserting(exif: exif, iccProfile: made.iccProfile, into: made.data)
        return made
    }
}

extension ThumbnailGenerator {
    /// `compatibleHEIFPlanes` for a HEIC or HEIF file; nil for other formats.
    static func compatibleHEIFPlanes(_ source: FileByteSource, format: MediaFormat, orientation: Int,
                                     options: CompatibleImageOptions, pixelLimit: Int) throws -> EncodedThumbnail? {
        guard format == .heic || format == .heif, source.size <= maxFileBytes else { return nil }
        let bytes = try wrapIO { try source.readExactly(at: 0, count: Int(source.size)) }
        return bytes.withUnsafeBufferPointer { data in
            compatibleHEIFPlanes(data, orientation: (1...8).contains(orientation) ? orientation : 1, options: options,
                                 pixelLimit: pixelLimit)
        }
    }
}

/// Adds APP1 (EXIF) and APP2 (ICC) segments to a JPEG TurboJPEG wrote.
enum JPEGMarkers {
    /// `jpeg` with the segments placed right after its JFIF APP0 (or SOI). An EXIF block
    /// too large for one segment (64 KiB) is left out; a profile is split over APP2
    /// chunks as ICC.1 Annex B says.
    static func inserting(exif: [UInt8]?, iccProfile: [UInt8]?, into jpeg: [UInt8]) -> [UInt8] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return jpeg }
        var segments: [UInt8] = []
        func append(marker: UInt8, _ payload: [UInt8]) {
            let length = payload.count + 2
            segments += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        if let exif, exif.count + 6 <= 65533 { append(marker: 0xE1, Array("Exif".utf8) + [0, 0] + exif) }
        if let iccProfile, !iccProfile.isEmpty {
            let chunk = 65519
            let count = (iccProfile.count + chunk - 1) / chunk
            if count <= 255 {
                for index in 0..<count {
                    let part = iccProfile[(index * chunk)..<min(iccProfile.count, (index + 1) * chunk)]
                    append(marker: 0xE2, Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)] + part)
                }
            }
        }
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count > 6 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        guard at <= jpeg.count else { return jpeg }
        return Array(jpeg[..<at]) + segments + Array(jpeg[at...])
    }
}
