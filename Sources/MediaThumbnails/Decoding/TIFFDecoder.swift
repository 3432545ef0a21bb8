import CTIFF
import Foundation
import MediaMetadata

/// Decodes TIFF through libtiff: strips and tiles; 1- to 16-bit; bilevel, grayscale,
/// palette, RGB(A), CMYK, YCbCr and CIE L*a*b*; every compression libtiff is built with
/// (none, LZW, Deflate, JPEG, PackBits, CCITT…).
///
/// The first page of a multi-page file is decoded, or, when one covers the request, the
/// smallest reduced-resolution image (a SubIFD or a later directory marked
/// `NewSubfileType` = reduced). CMYK, L*a*b* and 32-bit floating point are read sample by sample
/// (`decodeSeparated`, `decodeLab`, `decodeFloatingPoint`); libtiff's RGBA reader converts every other layout to 8-bit RGBA;
/// it is asked for bands of whole strips or tiles, each shrunk into the thumbnail at once,
/// so only one band of the full-size picture is ever held.
enum TIFFDecoder {
    /// A decoded, already shrunk picture.
    struct Decoded {
        var image: PixelBuffer
        /// The size of the image decoded (the full one, or the reduced-resolution one used).
        var decodedSize: (width: Int, height: Int)
        /// The first page's full size.
        var fullSize: (width: Int, height: Int)
        /// Whether a reduced-resolution image was used.
        var reduced: Bool
        /// TIFF tag 34675.
        var iccProfile: [UInt8]?
        var warnings: [String]
    }

    /// No single allocation inside libtiff may exceed this (a lying strip size).
    static let maxAllocation = 512 << 20
    /// A band's raster is kept near this many bytes (whole strips or tiles, at least one).
    static let bandBytes = 16 << 20
    /// At most this many directories and SubIFDs are looked at for a reduced image.
    static let maxDirectories = 32
    /// At most this many strips or tiles of one directory are listed (`imageDataOffsets`).
    static let maxStriles = 1 << 20

    // MARK: - The handle

    /// Where libtiff reads from: a `ByteSource` and a position, and the whole file when
    /// libtiff is to see it mapped.
    final class Cursor {
        let source: ByteSource
        var position: UInt64 = 0
        var whole: [UInt8]?
        init(source: ByteSource) { self.source = source }
    }

    /// Files read whole for libtiff's mapped path are at most this large.
    static let maxMappedBytes: UInt64 = 256 << 20

    /// An open TIFF, closed when released, with the first error libtiff reported on it.
    final class File {
        let handle: OpaquePointer
        private let cursor: Unmanaged<Cursor>
        private let errors: UnsafeMutablePointer<mediaindex_tiff_message>

        /// Wraps `TIFFClientOpenExt` (through `mediaindex_tiff_open`).
        ///
        /// - Parameter mapped: read the whole file first and let libtiff use it as a mapping.
        init(source: ByteSource, mapped: Bool = false) throws {
            let reader = Cursor(source: source)
            if mapped {
                guard source.size <= TIFFDecoder.maxMappedBytes else {
                    throw ThumbnailError.unsupportedFormat("uncompressed tiled TIFFs over \(TIFFDecoder.maxMappedBytes >> 20) MiB with tiles of this size")
                }
                reader.whole = try ThumbnailGenerator.wrapIO { try source.readExactly(at: 0, count: Int(source.size)) }
            }
            let cursor = Unmanaged.passRetained(reader)
            let errors = UnsafeMutablePointer<mediaindex_tiff_message>.allocate(capacity: 1)
            errors.initialize(to: mediaindex_tiff_message())
            guard let handle = mediaindex_tiff_open(cursor.toOpaque(), File.read, File.seek, File.size, mapped ? File.map : nil, errors,
                                                    tmsize_t(TIFFDecoder.maxAllocation)) else {
                let message = File.text(errors)
                cursor.release()
                errors.deallocate()
                throw ThumbnailError.decodeFailed(message.isEmpty ? "libtiff could not read the TIFF header" : "libtiff: \(message)")
            }
            self.handle = handle
            self.cursor = cursor
            self.errors = errors
        }

        deinit {
            TIFFClose(handle)
            cursor.release()
            errors.deallocate()
        }

        /// libtiff's first error on this file, or nil.
        var firstError: String? {
            let text = File.text(errors)
            return text.isEmpty ? nil : text
        }

        private static func text(_ errors: UnsafeMutablePointer<mediaindex_tiff_message>) -> String {
            withUnsafeBytes(of: &errors.pointee.text) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }

        func u32(_ tag: UInt32) -> UInt32? {
            var value: UInt32 = 0
            return mediaindex_tiff_get_u32(handle, tag, &value) == 1 ? value : nil
        }

        func u16(_ tag: UInt32) -> UInt16? {
            var value: UInt16 = 0
            return mediaindex_tiff_get_u16(handle, tag, &value) == 1 ? value : nil
        }

        /// The current directory's size, or nil when it has none.
        var size: (width: Int, height: Int)? {
            guard let width = u32(UInt32(TIFFTAG_IMAGEWIDTH)), let height = u32(UInt32(TIFFTAG_IMAGELENGTH)),
                  width > 0, height > 0 else { return nil }
            return (Int(width), Int(height))
        }

        var iccProfile: [UInt8]? {
            var count: UInt32 = 0
            var data: UnsafeMutableRawPointer?
            guard mediaindex_tiff_get_bytes(handle, UInt32(TIFFTAG_ICCPROFILE), &count, &data) == 1, let data,
                  count >= 132, count < 64 << 20 else { return nil }
            return Array(UnsafeRawBufferPointer(start: data, count: Int(count)))
        }

        var subIFDs: [UInt64] {
            var count: UInt16 = 0
            var offsets: UnsafeMutablePointer<UInt64>?
            guard mediaindex_tiff_get_subifds(handle, &count, &offsets) == 1, let offsets else { return [] }
            return Array(UnsafeBufferPointer(start: offsets, count: min(Int(count), TIFFDecoder.maxDirectories)))
        }

        /// Where the file's own pictures start: every strip and tile of the first page, its
        /// SubIFDs and the later directories (as many as `reducedImage` looks at), and the
        /// first page's `JPEGInterchangeFormat` when it is an old-style JPEG. A
        /// JPEG-compressed strip starts with a JPEG's SOI, so a scan for embedded previews
        /// finds it; it is the picture itself (or another page), and needs libtiff's tables,
        /// photometric and profile to decode. A later directory's `JPEGInterchangeFormat` is
        /// an EXIF-style thumbnail, and stays a preview. Leaves the handle on another directory.
        func imageDataOffsets() -> Set<UInt64> {
            var offsets: Set<UInt64> = []
            func collect(firstPage: Bool = false) {
                let tiled = TIFFIsTiled(handle) != 0
                let count = min(Int(tiled ? TIFFNumberOfTiles(handle) : TIFFNumberOfStrips(handle)), TIFFDecoder.maxStriles)
                for strile in 0..<count {
                    var error: Int32 = 0
                    let offset = TIFFGetStrileOffsetWithErr(handle, UInt32(strile), &error)
                    if error == 0, offset > 0 { offsets.insert(offset) }
                }
                if firstPage, let start = u32(UInt32(TIFFTAG_JPEGIFOFFSET)), start > 0 { offsets.insert(UInt64(start)) }
            }
            guard TIFFSetDirectory(handle, 0) == 1 else { return offsets }
            collect(firstPage: true)
            forEachOtherImage { _, _ in collect() }
            return offsets
        }

        /// Makes each of the first page's SubIFDs, then each later directory (as many as
        /// `maxDirectories`), the current directory in turn, and calls `visit` with its
        /// directory index and SubIFD offset (nil for a directory). Call it with the first
        /// page current; it leaves the handle on another directory.
        func forEachOtherImage(_ visit: (_ directory: UInt32, _ subIFD: UInt64?) -> Void) {
            for offset in subIFDs where TIFFSetSubDirectory(handle, offset) == 1 { visit(0, offset) }
            var index: UInt32 = 1
            while index < UInt32(TIFFDecoder.maxDirectories), TIFFSetDirectory(handle, index) == 1 {
                visit(index, nil)
                index += 1
            }
        }

        private static let read: TIFFReadWriteProc = { handle, buffer, size in
            guard let handle, let buffer, size > 0 else { return 0 }
            let cursor = Unmanaged<Cursor>.fromOpaque(handle).takeUnretainedValue()
            guard let bytes = try? cursor.source.read(at: cursor.position, count: Int(size)) else { return -1 }
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            cursor.position += UInt64(bytes.count)
            return tmsize_t(bytes.count)
        }

        private static let seek: TIFFSeekProc = { handle, offset, whence in
            guard let handle else { return toff_t.max }
            let cursor = Unmanaged<Cursor>.fromOpaque(handle).takeUnretainedValue()
            let signed = Int64(bitPattern: offset)
            let base: Int64
            switch whence {
            case SEEK_CUR: base = Int64(cursor.position)
            case SEEK_END: base = Int64(cursor.source.size)
            default: base = 0
            }
            let (target, overflow) = base.addingReportingOverflow(signed)
            guard !overflow, target >= 0 else { return toff_t.max }
            cursor.position = UInt64(target)
            return cursor.position
        }

        private static let map: TIFFMapFileProc = { handle, base, size in
            guard let handle, let base, let size else { return 0 }
            let cursor = Unmanaged<Cursor>.fromOpaque(handle).takeUnretainedValue()
            guard let whole = cursor.whole else { return 0 }
            // The array lives as long as the cursor, which outlives the handle.
            whole.withUnsafeBytes { base.pointee = UnsafeMutableRawPointer(mutating: $0.baseAddress) }
            size.pointee = toff_t(whole.count)
            return 1
        }

        private static let size: TIFFSizeProc = { handle in
            guard let handle else { return 0 }
            return Unmanaged<Cursor>.fromOpaque(handle).takeUnretainedValue().source.size
        }
    }

    // MARK: - Decoding

    /// Decodes the first page (or a reduced image covering `request`) into a picture of
    /// about the thumbnail's size.
    ///
    /// - Throws: `ThumbnailError.imageTooLarge` from the header alone, `.decodeFailed`
    ///   with libtiff's reason (a layout it cannot convert, such as floating-point samples).
    static func decode(_ source: ByteSource, request: ThumbnailRequest, pixelLimit: Int) throws -> Decoded {
        _ = silenced
        var file = try File(source: source)
        // libtiff 4.5 rejects uncompressed tiles whose size is not a multiple of 1 KiB when it
        // reads them into its own buffer (its buffer is rounded up, then compared); read
        // through a mapping, it takes them as they are.
        if TIFFIsTiled(file.handle) != 0, file.u16(UInt32(TIFFTAG_COMPRESSION)) == UInt16(COMPRESSION_NONE),
           TIFFTileSize(file.handle) % 1024 != 0 {
            file = try File(source: source, mapped: true)
        }
        guard let full = file.size else { throw ThumbnailError.decodeFailed("the TIFF's first image has no width or height") }
        guard full.width * full.height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: full.width, height: full.height, limit: pixelLimit)
        }
        let profile = file.iccProfile
        let chosen = reducedImage(in: file, full: full, request: request)
        if let chosen {
            _ = chosen.subIFD.map { TIFFSetSubDirectory(file.handle, $0) } ?? TIFFSetDirectory(file.handle, chosen.directory)
        } else {
            _ = TIFFSetDirectory(file.handle, 0)
        }
        guard let size = file.size else { throw ThumbnailError.decodeFailed("the TIFF's image has no width or height") }
        let target = ThumbnailGeometry.scaledSize(width: full.width, height: full.height, request: request)
        let clamped = (min(target.width, size.width), min(target.height, size.height))
        // Every reader's result, with what libtiff reported while decoding after the reader's own warning.
        func decoded(_ image: PixelBuffer, profile: [UInt8]?, warning: String? = nil) -> Decoded {
            let warnings = [warning, file.firstError.map { "libtiff reported a problem while decoding: \($0)" }].compactMap { $0 }
            return Decoded(image: image, decodedSize: size, fullSize: full, reduced: chosen != nil, iccProfile: profile,
                           warnings: warnings)
        }
        if let floats = try decodeFloatingPoint(file, size: size, target: clamped) {
            // Linear light already encoded as sRGB: the profile (a linear one) is not applied again.
            return decoded(floats, profile: nil)
        }
        if let lab = try decodeLab(file, size: size, target: clamped) {
            // Converted to sRGB already; a profile of a Lab picture describes Lab itself.
            return decoded(lab, profile: nil)
        }
        if let separated = try decodeSeparated(file, size: size, target: clamped, profile: profile) {
            // Converted to sRGB already, through the CMYK profile when there is one.
            return decoded(separated.image, profile: nil, warning: separated.warning)
        }
        return decoded(try decodeCurrent(file, size: size, target: clamped), profile: profile)
    }

    /// The smallest reduced-resolution image with the first page's shape that covers the
    /// request and libtiff can convert.
    static func reducedImage(in file: File, full: (width: Int, height: Int), request: ThumbnailRequest)
        -> (directory: UInt32, subIFD: UInt64?, size: (width: Int, height: Int))? {
        var best: (directory: UInt32, subIFD: UInt64?, size: (width: Int, height: Int))?
        func consider(directory: UInt32, subIFD: UInt64?) {
            let reduced = (file.u32(UInt32(TIFFTAG_SUBFILETYPE)) ?? 0) & UInt32(FILETYPE_REDUCEDIMAGE) != 0
            guard reduced, let size = file.size,
                  ThumbnailGeometry.sameAspect(size, full),
                  ThumbnailGeometry.covers(candidate: size, original: full, request: request),
                  size.width * size.height < (best.map { $0.size.width * $0.size.height } ?? full.width * full.height)
            else { return }
            var message = [CChar](repeating: 0, count: 1024)
            guard TIFFRGBAImageOK(file.handle, &message) == 1 else { return }
            best = (directory, subIFD, size)
        }
        file.forEachOtherImage(consider)
        return best
    }

    /// Reads the current directory through libtiff's RGBA reader in bands, shrinking each
    /// into `target`. Wraps `TIFFRGBAImageBegin`, `TIFFRGBAImageGet` and `TIFFRGBAImageEnd`.
    static func decodeCurrent(_ file: File, size: (width: Int, height: Int), target: (width: Int, height: Int)) throws -> PixelBuffer {
        var message = [CChar](repeating: 0, count: 1024)
        var reader = TIFFRGBAImage()
        guard TIFFRGBAImageOK(file.handle, &message) == 1,
              TIFFRGBAImageBegin(&reader, file.handle, 0, &message) == 1 else {
            let reason = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ThumbnailError.decodeFailed("libtiff cannot convert this TIFF: \(reason.isEmpty ? "unknown layout" : reason)")
        }
        defer { TIFFRGBAImageEnd(&reader) }
        // The stored order: the generator applies the Orientation tag to the thumbnail.
        reader.req_orientation = reader.orientation
        let hasAlpha = reader.alpha != 0
        let width = size.width, height = size.height

        // Bands of whole strips or tiles, so each is decoded once.
        let unit: Int
        if TIFFIsTiled(file.handle) != 0 {
            unit = Int(file.u32(UInt32(TIFFTAG_TILELENGTH)) ?? UInt32(height))
        } else if file.u16(UInt32(TIFFTAG_COMPRESSION)) == UInt16(COMPRESSION_NONE) {
            // libtiff reads an uncompressed strip only up to the rows asked for: bands of any
            // height keep a one-strip scan from being held whole.
            unit = 1
        } else {
            unit = Int(file.u32(UInt32(TIFFTAG_ROWSPERSTRIP)) ?? UInt32(height))
        }
        let unitRows = max(1, min(height, unit))
        let unitsPerBand = max(1, bandBytes / max(1, width * 4 * unitRows))
        let band = min(height, unitRows * unitsPerBand)

        let channels = hasAlpha ? 4 : 3
        var shrinker = BandShrinker(width: width, height: height, target: target, channels: channels)
        var raster = [UInt32](repeating: 0, count: width * band)
        var anyRead = false
        var y = 0
        while y < height {
            let rows = min(band, height - y)
            reader.row_offset = Int32(y)
            let ok = raster.withUnsafeMutableBufferPointer {
                TIFFRGBAImageGet(&reader, $0.baseAddress, UInt32(width), UInt32(rows))
            }
            anyRead = anyRead || ok == 1
            raster.withUnsafeBytes { rgba in
                shrinker.add(rgba, y: y, width: width, rows: rows, rowBytes: width * 4, sourceChannels: 4)
            }
            y += rows
        }
        guard anyRead else {
            throw ThumbnailError.decodeFailed("libtiff could not decode the image data: \(file.firstError ?? "unknown error")")
        }
        var image = shrinker.image
        // libtiff hands out associated (premultiplied) alpha.
        if hasAlpha { image.unpremultiplyAlpha() }
        return image
    }

    /// 32-bit floating-point RGB or gray, in strips or tiles, which libtiff's RGBA reader
    /// refuses: values are taken as linear light with sRGB primaries (scRGB, as vips reads
    /// them), clamped to 0...1 and encoded with sRGB's curve. Nil for any other layout.
    static func decodeFloatingPoint(_ file: File, size: (width: Int, height: Int),
                                    target: (width: Int, height: Int)) throws -> PixelBuffer? {
        guard let layout = SampleLayout(file, minimumSamples: 1, floatingPoint: true), layout.isFloatingPoint,
              let photometric = file.u16(UInt32(TIFFTAG_PHOTOMETRIC)),
              (photometric == UInt16(PHOTOMETRIC_RGB) && layout.samples >= 3) || photometric == UInt16(PHOTOMETRIC_MINISBLACK)
        else { return nil }
        let channels = photometric == UInt16(PHOTOMETRIC_RGB) ? 3 : 1
        let encode = (0...SampleLayout.floatSteps).map { i -> UInt8 in
            let v = Double(i) / Double(SampleLayout.floatSteps)
            let e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
            return UInt8(max(0, min(255, (e * 255).rounded())))
        }
        guard let image = try shrinkSamples(file, layout: layout, size: size, target: target, channels: channels,
                                            convert: { step, _ in encode[Int(step)] })
        else { return nil }
        guard channels == 1 else { return image }
        // Gray, shrunk as one channel, is handed on as RGB.
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        for (i, value) in image.pixels.enumerated() { rgb[i * 3] = value; rgb[i * 3 + 1] = value; rgb[i * 3 + 2] = value }
        return PixelBuffer(width: image.width, height: image.height, channels: 3, pixels: rgb)
    }

    /// CMYK (`PhotometricInterpretation` separated, `InkSet` CMYK) of 8 or 16 bits,
    /// contiguous, in strips or tiles: shrunk as CMYK, then converted through the file's
    /// CMYK profile (tag 34675) when it has one, as CMYK JPEGs are (relative colorimetric
    /// with black-point compensation), else by the naive complement. libtiff's RGBA reader
    /// takes only 8-bit CMYK and cannot apply a profile. Extra samples (alpha, spot
    /// channels) are ignored. Nil for any other layout.
    static func decodeSeparated(_ file: File, size: (width: Int, height: Int), target: (width: Int, height: Int),
                                profile: [UInt8]?) throws -> (image: PixelBuffer, warning: String?)? {
        guard file.u16(UInt32(TIFFTAG_PHOTOMETRIC)) == UInt16(PHOTOMETRIC_SEPARATED),
              (file.u16(UInt32(TIFFTAG_INKSET)) ?? UInt16(INKSET_CMYK)) == UInt16(INKSET_CMYK),
              let layout = SampleLayout(file, minimumSamples: 4)
        else { return nil }
        // 16-bit samples scaled to 8 bits, rounded.
        guard let cmyk = try shrinkSamples(file, layout: layout, size: size, target: target, channels: 4, convert: { sample, _ in
            layout.bits == 8 ? UInt8(sample) : UInt8((UInt32(sample) * 255 + 32_767) / 65_535)
        }) else { return nil }
        if let profile, ColourConverter.isCMYKProfile(profile),
           let rgb = ColourConverter.rgb(fromCMYK: cmyk, profile: profile, inverted: false) {
            return (rgb, nil)
        }
        let warning = profile == nil ? nil
            : "the embedded ICC profile is not a usable CMYK profile (converted by the naive complement)"
        return (ColourConverter.naiveRGB(fromCMYK: cmyk, inverted: false), warning)
    }

    /// CIE L*a*b* (`PhotometricInterpretation` CIELab, with signed a* and b*, or ICCLab,
    /// with them offset by 128) of 8 or 16 bits, contiguous, in strips or tiles: shrunk in
    /// Lab, then converted to sRGB (`ColourConverter.rgb(fromLab:white:)`) from Lab relative
    /// to the `WhitePoint` tag's white, D50 without one (as Adobe's TIFF technote has it,
    /// and libtiff defaults it).
    /// libtiff's RGBA reader converts Lab through a rough display model instead (7 levels
    /// from vips' reading). Nil for any other layout.
    static func decodeLab(_ file: File, size: (width: Int, height: Int), target: (width: Int, height: Int)) throws -> PixelBuffer? {
        guard let photometric = file.u16(UInt32(TIFFTAG_PHOTOMETRIC)),
              photometric == UInt16(PHOTOMETRIC_CIELAB) || photometric == UInt16(PHOTOMETRIC_ICCLAB),
              let layout = SampleLayout(file, minimumSamples: 3)
        else { return nil }
        let signed = photometric == UInt16(PHOTOMETRIC_CIELAB)
        // To lcms2's 8-bit Lab: L* 0…100 as 0…255, a* and b* offset by 128. At 16 bits CIELab
        // spans L* over 0…65535; ICCLab uses ICC's version 2 encoding (lcms2's own `tificc`
        // reads it as `PT_LabV2`), where L* 100 is 0xFF00 and a*, b* are 256ths offset by 128.
        guard let lab = try shrinkSamples(file, layout: layout, size: size, target: target, channels: 3, convert: { sample, channel in
            if layout.bits == 8 { return channel == 0 || !signed ? UInt8(sample) : UInt8(sample) ^ 0x80 }
            if channel == 0, signed { return UInt8((UInt32(sample) * 255 + 32_767) / 65_535) }
            return UInt8(min(255, (UInt32(signed ? sample ^ 0x8000 : sample) + 128) >> 8))  // rounded
        }) else { return nil }
        var x: Float = 0, y: Float = 0
        let white = mediaindex_tiff_get_whitepoint(file.handle, &x, &y) == 1 && x > 0 && y > 0 && x < 1 && y < 1
            ? (x: Double(x), y: Double(y)) : nil
        guard let rgb = ColourConverter.rgb(fromLab: lab, white: white) else {
            throw ThumbnailError.decodeFailed("lcms2 could not convert L*a*b* to sRGB")
        }
        return rgb
    }

    /// How a directory's samples are stored, for the sample-by-sample readers: 8 or 16
    /// unsigned bits, or (when `floatingPoint` is allowed) 32-bit IEEE floats, contiguous,
    /// at least `minimumSamples` per pixel.
    struct SampleLayout {
        let bits: Int
        let samples: Int
        let isFloatingPoint: Bool

        /// Floating-point samples reach `convert` as 0…`floatSteps` for 0…1, clamped, and
        /// 0 for NaN and infinities.
        static let floatSteps = 4096

        init?(_ file: File, minimumSamples: Int, floatingPoint: Bool = false) {
            let format = file.u16(UInt32(TIFFTAG_SAMPLEFORMAT)) ?? UInt16(SAMPLEFORMAT_UINT)
            guard let bits = file.u16(UInt32(TIFFTAG_BITSPERSAMPLE)),
                  (file.u16(UInt32(TIFFTAG_PLANARCONFIG)) ?? UInt16(PLANARCONFIG_CONTIG)) == UInt16(PLANARCONFIG_CONTIG),
                  let samples = file.u16(UInt32(TIFFTAG_SAMPLESPERPIXEL)).map(Int.init), samples >= minimumSamples
            else { return nil }
            if format == UInt16(SAMPLEFORMAT_UINT), bits == 8 || bits == 16 {
                isFloatingPoint = false
            } else if floatingPoint, format == UInt16(SAMPLEFORMAT_IEEEFP), bits == 32 {
                isFloatingPoint = true
            } else {
                return nil
            }
            self.bits = Int(bits)
            self.samples = samples
        }

        var pixelBytes: Int { samples * bits / 8 }
    }

    /// Reads the current directory's strips line by line, or its tiles one row of tiles at
    /// a time, turning the first `channels` samples of each pixel into 8 bits with
    /// `convert(sample, channel)` (16-bit samples come in the machine's byte order, floats
    /// as `SampleLayout.floatSteps` steps), and
    /// shrinks them into `target`. A damaged strip or tile reads as zero samples. Nil when
    /// the tile geometry is unusable.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` when no strip or tile could be read.
    static func shrinkSamples(_ file: File, layout: SampleLayout, size: (width: Int, height: Int),
                              target: (width: Int, height: Int), channels: Int,
                              convert: (UInt16, Int) -> UInt8) throws -> PixelBuffer? {
        let width = size.width, height = size.height, samples = layout.samples
        func put(_ raw: UnsafeRawBufferPointer, from: Int, into out: UnsafeMutableBufferPointer<UInt8>, at: Int, count: Int) {
            if layout.bits == 8 {
                let source = raw.bindMemory(to: UInt8.self)
                for i in 0..<count {
                    for c in 0..<channels { out[(at + i) * channels + c] = convert(UInt16(source[(from + i) * samples + c]), c) }
                }
            } else if layout.isFloatingPoint {
                let source = raw.bindMemory(to: Float.self), steps = Float(SampleLayout.floatSteps)
                for i in 0..<count {
                    for c in 0..<channels {
                        let value = source[(from + i) * samples + c]
                        out[(at + i) * channels + c] = convert(value.isFinite ? UInt16(max(0, min(1, value)) * steps) : 0, c)
                    }
                }
            } else {
                let source = raw.bindMemory(to: UInt16.self)
                for i in 0..<count {
                    for c in 0..<channels { out[(at + i) * channels + c] = convert(source[(from + i) * samples + c], c) }
                }
            }
        }
        var shrinker = BandShrinker(width: width, height: height, target: target, channels: channels)
        var anyRead = false
        if TIFFIsTiled(file.handle) != 0 {
            guard let tileWidth = file.u32(UInt32(TIFFTAG_TILEWIDTH)).map(Int.init),
                  let tileLength = file.u32(UInt32(TIFFTAG_TILELENGTH)).map(Int.init), tileWidth > 0, tileLength > 0,
                  tileWidth * tileLength * layout.pixelBytes <= bandBytes * 4,
                  width * min(tileLength, height) * channels <= bandBytes * 4,
                  case let tileBytes = Int(TIFFTileSize(file.handle)), tileBytes >= tileWidth * tileLength * layout.pixelBytes
            else { return nil }
            var tile = [UInt8](repeating: 0, count: tileBytes)
            var band = [UInt8](repeating: 0, count: width * min(tileLength, height) * channels)
            for tileY in stride(from: 0, to: height, by: tileLength) {
                let rows = min(tileLength, height - tileY)
                for tileX in stride(from: 0, to: width, by: tileWidth) {
                    let read = tile.withUnsafeMutableBytes {
                        TIFFReadTile(file.handle, $0.baseAddress, UInt32(tileX), UInt32(tileY), 0, 0)
                    }
                    if read < 0 { tile.withUnsafeMutableBufferPointer { for i in $0.indices { $0[i] = 0 } } } else { anyRead = true }
                    let columns = min(tileWidth, width - tileX)
                    tile.withUnsafeBytes { raw in
                        band.withUnsafeMutableBufferPointer { out in
                            for r in 0..<rows { put(raw, from: r * tileWidth, into: out, at: r * width + tileX, count: columns) }
                        }
                    }
                }
                band.withUnsafeBytes {
                    shrinker.add($0, y: tileY, width: width, rows: rows, rowBytes: width * channels, sourceChannels: channels)
                }
            }
        } else {
            let scanline = Int(TIFFScanlineSize(file.handle))
            guard scanline >= width * layout.pixelBytes else { return nil }
            var line = [UInt8](repeating: 0, count: scanline)
            var band = [UInt8](repeating: 0, count: width * channels)
            for y in 0..<height {
                let ok = line.withUnsafeMutableBytes { TIFFReadScanline(file.handle, $0.baseAddress, UInt32(y), 0) }
                if ok == 1 { anyRead = true } else { line.withUnsafeMutableBufferPointer { for i in $0.indices { $0[i] = 0 } } }
                line.withUnsafeBytes { raw in band.withUnsafeMutableBufferPointer { put(raw, from: 0, into: $0, at: 0, count: width) } }
                band.withUnsafeBytes { shrinker.add($0, y: y, width: width, rows: 1, rowBytes: width * channels, sourceChannels: channels) }
            }
        }
        guard anyRead else {
            throw ThumbnailError.decodeFailed("libtiff could not decode the image data: \(file.firstError ?? "unknown error")")
        }
        return shrinker.image
    }

    /// libtiff's process-wide handlers print to stderr; ours collect per file instead.
    private static let silenced: Bool = {
        mediaindex_tiff_silence()
        return true
    }()
}
