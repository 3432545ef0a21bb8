/// What thumbnail to make: its size, how it fits, and its file format.
///
/// A small `Hashable` value, so it can be part of a cache key (Nuke's `ThumbnailOptions`).
public struct ThumbnailRequest: Hashable, Sendable {
    /// The target size in pixels: the longer side for `.fit`, the square's side for `.fill`.
    public var maxPixelSize: Int
    /// How the picture is fitted to `maxPixelSize`.
    public var mode: ThumbnailMode
    /// The encoded file format.
    public var format: ThumbnailFormat
    /// A full-size rendition (`ThumbnailGenerator.compatibleImage`): the picture keeps its
    /// ICC profile unless `convertsToSRGB`, and no perceptual hashes are made.
    var isRendition = false
    /// For a rendition: convert to sRGB even when the picture has its own ICC profile.
    var convertsToSRGB = true
    /// Whether a `.fit` thumbnail hashes its decode (`EncodedThumbnail.hashes`); off only
    /// to measure what the hash adds (`mediaindex-bench --only-duplicates`).
    package var makesHashes = true

    /// A request; sizes below 1 are raised to 1.
    public init(maxPixelSize: Int = 256, mode: ThumbnailMode = .fit, format: ThumbnailFormat = .jpeg()) {
        self.maxPixelSize = max(1, maxPixelSize)
        self.mode = mode
        self.format = format
    }
}

/// How a thumbnail fits its size.
public enum ThumbnailMode: String, Hashable, Sendable, CaseIterable {
    /// The whole picture; its longer side becomes `maxPixelSize`.
    case fit
    /// A centred square crop; its side becomes `maxPixelSize`.
    case fill
}

/// The encoded format of a thumbnail.
public enum ThumbnailFormat: Hashable, Sendable {
    /// JPEG with 4:2:0 chroma; transparent pixels are composited on white.
    case jpeg(quality: Int = 80)
    /// Lossy WebP; transparency is kept.
    case webp(quality: Int = 80)

    /// The usual file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .webp: return "webp"
        }
    }
}

/// Which route produced a thumbnail; tests assert on it to prove a fast path was taken.
public enum ThumbnailPath: Hashable, Sendable {
    /// A JPEG decoded by DCT scaling at `1/denominator` (or `numerator/denominator`) of its size.
    case jpegDCTScaled(numerator: Int, denominator: Int)
    /// The JPEG thumbnail stored in the EXIF block (IFD1), large enough for the request.
    case embeddedExifThumbnail
    /// A HEIF thumbnail item, large enough for the request.
    case heifThumbnailItem
    /// WebP decoded by libwebp's own scaler straight to a smaller size.
    case webpScaledDecode
    /// The largest JPEG preview embedded in a camera raw.
    case rawEmbeddedPreview(width: Int, height: Int)
    /// A TIFF's reduced-resolution image (a SubIFD or a later directory), large enough for the request.
    case tiffReducedResolution(width: Int, height: Int)
    /// A JPEG 2000 decoded by OpenJPEG at `1/factor` of its size, from its wavelet levels.
    case jpeg2000Reduced(factor: Int)
    /// A video frame extracted by the `ffmpeg` program at `seconds`.
    case videoFrame(seconds: Double)
    /// The whole image decoded at full size, then downscaled.
    case fullDecode

    /// A JPEG decoded by DCT scaling at `1/denominator`.
    public static func jpegDCTScaled(denominator: Int) -> ThumbnailPath {
        .jpegDCTScaled(numerator: 1, denominator: denominator)
    }
}

/// An encoded thumbnail and how it was made.
public struct EncodedThumbnail: Sendable, Equatable {
    /// The encoded file (JPEG or WebP).
    public var data: [UInt8]
    /// The size as displayed (orientation applied).
    public var width: Int
    public var height: Int
    /// The route taken.
    public var path: ThumbnailPath
    /// Problems that did not stop the thumbnail (a truncated JPEG decoded partially), one sentence each.
    public var warnings: [String]
    /// The perceptual hashes of the upright picture (`.fit` thumbnails only), read from
    /// the same decode.
    public var hashes: PerceptualHashes?
    /// Why the picture itself could not be decoded, when the thumbnail was made from a
    /// smaller picture the file holds (a HEIF's thumbnail item or EXIF thumbnail): one sentence.
    public var fallbackReason: String?
    /// The ICC profile the picture's values are in, for a rendition that kept it (nil: sRGB).
    public var iccProfile: [UInt8]?

    public init(data: [UInt8], width: Int, height: Int, path: ThumbnailPath, warnings: [String] = [],
                hashes: PerceptualHashes? = nil) {
        self.data = data
        self.width = width
        self.height = height
        self.path = path
        self.warnings = warnings
        self.hashes = hashes
    }
}

/// Why a thumbnail could not be made; each case reads as one plain sentence.
public enum ThumbnailError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No decoder here handles the format.
    case unsupportedFormat(String)
    /// The decoder rejected the data.
    case decodeFailed(String)
    /// The declared size is beyond the pixel limit; refused before allocating anything.
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// The encoder failed.
    case encodeFailed(String)
    /// A video needs the `ffmpeg` program, which is not installed.
    case needsFFmpeg
    /// The file could not be read.
    case io(String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let what):
            return "cannot make thumbnails of \(what)"
        case .decodeFailed(let reason):
            return "the image could not be decoded: \(reason)"
        case .imageTooLarge(let width, let height, let limit):
            return "the image declares \(width)×\(height) pixels, beyond the limit of \(limit) pixels, so it was not decoded"
        case .encodeFailed(let reason):
            return "the thumbnail could not be encoded: \(reason)"
        case .needsFFmpeg:
            return "video thumbnails need the ffmpeg program, which is not installed (apt-get install ffmpeg)"
        case .io(let reason):
            return "the file could not be read: \(reason)"
        }
    }
}
