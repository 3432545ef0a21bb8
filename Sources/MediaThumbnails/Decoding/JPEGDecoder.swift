import CJPEG
#if canImport(Glibc)
import Glibc
#endif
import MediaMetadata

/// Decodes JPEG through TurboJPEG, at the smallest DCT scale that still covers twice the
/// request, or 1.5 times it at 1/8 (`minimumLastStep`, `minimumLastStepAtOneEighth`).
enum JPEGDecoder {
    struct Header {
        var width: Int
        var height: Int
        var colorspace: Int32
    }

    /// A TurboJPEG decompressor, destroyed when released.
    final class Decompressor {
        let handle: tjhandle

        init() throws {
            guard let handle = tjInitDecompress() else {
                throw ThumbnailError.decodeFailed("TurboJPEG could not start a decompressor")
            }
            self.handle = handle
        }

        deinit { tjDestroy(handle) }

        var errorMessage: String {
            guard let text = tjGetErrorStr2(handle) else { return "unknown TurboJPEG error" }
            return String(cString: text)
        }

        /// Wraps `tjDecompressHeader3`.
        func header(_ data: UnsafeBufferPointer<UInt8>) throws -> Header {
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard let base = data.baseAddress else { throw ThumbnailError.decodeFailed("the file is empty") }
            let status = tjDecompressHeader3(handle, base, UInt(data.count), &width, &height, &subsampling, &colorspace)
            // A warning (stray bytes before a marker) still leaves a readable header.
            let usable = status == 0 || tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
            guard usable, width > 0, height > 0 else {
                throw ThumbnailError.decodeFailed(width == 0 && usable ? "the JPEG has no frame header before its end" : errorMessage)
            }
            return Header(width: Int(width), height: Int(height), colorspace: colorspace)
        }
    }

    /// The least factor the area averaging after the DCT scaling shrinks by: 2, as vips
    /// leaves its last reduce; the scaled IDCTs above 1/8 approximate, and a scale landing
    /// near the size shows it (3/8 of a 1140×70 banner is 3.9 levels from vips).
    static let minimumLastStep = 2.0
    /// The same at 1/8, where the DCT yields each 8×8 block's exact mean (its DC): 1.5. A
    /// phone's 4032×3024 JPEG then decodes at 1/8 (504 px) for a 256-px thumbnail, not at
    /// 1/4 (1008 px: four times the pixels to upsample, convert and average).
    static let minimumLastStepAtOneEighth = 1.5

    /// Reads only the header: the stored size, or nil when it is not a readable JPEG.
    static func size(of data: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int)? {
        guard let decompressor = try? Decompressor(), let header = try? decompressor.header(data) else { return nil }
        return (header.width, header.height)
    }

    /// Decodes `data`, scaled down by the DCT as far as the request allows.
    ///
    /// - Parameter original: the size the thumbnail's size is judged from (the main
    ///   image's, when `data` is its EXIF thumbnail); defaults to this JPEG's own.
    /// - Parameter accurate: use libjpeg's accurate integer IDCT and smooth chroma
    ///   upsampling instead of the fast ones (tests reading back our own thumbnails).
    /// - Throws: `ThumbnailError.imageTooLarge` before decoding anything beyond the limit,
    ///   `.decodeFailed` with TurboJPEG's message.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, pixelLimit: Int,
                       original: (width: Int, height: Int)? = nil, accurate: Bool = false)
        throws -> (image: PixelBuffer, scale: (Int, Int), warnings: [String], colour: ColourSpace) {
        let decompressor = try Decompressor()
        let header = try decompressor.header(data)
        guard header.width * header.height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: header.width, height: header.height, limit: pixelLimit)
        }
        let reference = original ?? (header.width, header.height)

        // The smallest scaling factor whose output still covers `minimumLastStep` times the
        // request, so area averaging makes a last step of at least that: a DCT scale landing
        // right at the size is an 8-pixel box on a grid not aligned with the thumbnail's,
        // which blurs fine detail visibly (4 levels from vips on text).
        var factorCount: Int32 = 0
        var chosen = (num: 1, denom: 1)
        var chosenSize = (width: header.width, height: header.height)
        if let factors = tjGetScalingFactors(&factorCount) {
            for i in 0..<Int(factorCount) {
                let num = Int(factors[i].num), denom = Int(factors[i].denom)
                guard num > 0, denom > 0, num < denom else { continue }
                let w = (header.width * num + denom - 1) / denom
                let h = (header.height * num + denom - 1) / denom
                // At 1/8 the DCT gives each 8×8 block's exact mean, so a shorter last step serves.
                let step = num * 8 == denom ? minimumLastStepAtOneEighth : minimumLastStep
                let reach = (width: Int(Double(w) / step), height: Int(Double(h) / step))
                if w * h < chosenSize.width * chosenSize.height,
                   ThumbnailGeometry.covers(candidate: reach, original: reference, request: request) {
                    chosen = (num, denom)
                    chosenSize = (w, h)
                }
            }
        }

        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        let channels = isCMYK ? 4 : 3
        let pixelFormat = isCMYK ? Int32(TJPF_CMYK.rawValue) : Int32(TJPF_RGB.rawValue)
        var warnings: [String] = []
        var status: Int32 = 0
        // Not zero-filled first: TurboJPEG writes every pixel (a damaged scan's rest as grey).
        let pixels = [UInt8](unsafeUninitializedCapacity: chosenSize.width * chosenSize.height * channels) { out, count in
            status = tjDecompress2(decompressor.handle, data.baseAddress, UInt(data.count), out.baseAddress,
                                   Int32(chosenSize.width), 0, Int32(chosenSize.height), pixelFormat,
                                   accurate ? 0 : TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE)
            count = out.count
        }
        if status != 0 {
            // A warning (a truncated file, a corrupt scan) still leaves a usable, partly grey picture.
            guard tjGetErrorCode(decompressor.handle) == Int32(TJERR_WARNING.rawValue) else {
                throw ThumbnailError.decodeFailed(decompressor.errorMessage)
            }
            warnings.append("the JPEG was decoded partially: \(decompressor.errorMessage)")
        }
        var image = PixelBuffer(width: chosenSize.width, height: chosenSize.height, channels: channels, pixels: pixels)
        let colour = colour(of: data)
        var space = colour.space
        if isCMYK {
            // CMYK is converted at the DCT-scaled size, through the file's profile when it has one.
            if case .icc(let profile) = colour.space, ColourConverter.isCMYKProfile(profile),
               let converted = ColourConverter.rgb(fromCMYK: image, profile: profile, inverted: colour.adobe) {
                image = converted
            } else {
                image = ColourConverter.naiveRGB(fromCMYK: image, inverted: colour.adobe)
            }
            space = .sRGB
        }
        return (image, (chosen.num, chosen.denom), warnings, space)
    }

    /// The JPEG's ICC profile (APP2 chunks) and whether it has an Adobe APP14 marker, read by
    /// libjpeg (`mediaindex_jpeg_read_colour`).
    static func colour(of data: UnsafeBufferPointer<UInt8>) -> (space: ColourSpace, adobe: Bool) {
        guard let base = data.baseAddress else { return (.sRGB, false) }
        var icc: UnsafeMutablePointer<UInt8>?
        var length: UInt32 = 0
        var adobe: Int32 = 0
        guard mediaindex_jpeg_read_colour(base, UInt(data.count), &icc, &length, &adobe) == 1 else { return (.sRGB, false) }
        defer { free(icc) }
        guard let icc, length > 0 else { return (.sRGB, adobe != 0) }
        return (.icc(Array(UnsafeBufferPointer(start: icc, count: Int(length)))), adobe != 0)
    }
}
