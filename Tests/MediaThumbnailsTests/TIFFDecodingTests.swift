import Foundation
import Testing
import CTIFF
import CLCMS2
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// TIFF through libtiff: fixtures written with libtiff in every layout the decoder claims,
/// and the corpus's TIFFs against exiftool's sizes.
@Suite("TIFF decoding")
struct TIFFDecodingTests {
    /// How a fixture stores its pixels.
    struct Layout: CustomStringConvertible {
        enum Kind: String { case rgb, rgba, gray8, gray16, palette, bilevel, cmyk, cmyk16, lab8, lab16, float32, grayFloat32 }
        var kind: Kind
        var compression: UInt16
        var tiled: Bool
        /// Rows per strip, when not tiled; the whole height in one strip when nil.
        var rowsPerStrip: Int? = 8
        var description: String {
            "\(kind.rawValue), compression \(compression)\(tiled ? ", tiled" : rowsPerStrip == nil ? ", one strip" : ", strips")"
        }
    }

    static let width = 96, height = 64

    /// The picture every fixture holds, as RGB: a horizontal red ramp, a vertical green ramp, blue 128.
    static func expected(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), 128)
    }

    /// Writes one page (and optionally a half-size reduced page) with libtiff, with `profile`
    /// as its ICC profile (tag 34675) when given.
    static func write(_ layout: Layout, to path: String, reducedPage: Bool = false, pages: Int = 1,
                      profile: [UInt8]? = nil) throws {
        guard let tif = TIFFOpen(path, "w") else { throw ThumbnailError.io("cannot create \(path)") }
        defer { TIFFClose(tif) }
        for page in 0..<(pages + (reducedPage ? 1 : 0)) {
            let reduced = reducedPage && page == pages
            let w = reduced ? width / 2 : width, h = reduced ? height / 2 : height
            if let profile { _ = profile.withUnsafeBytes { mediaindex_tiff_set_icc(tif, UInt32($0.count), $0.baseAddress) } }
            try writeDirectory(tif, layout, width: w, height: h, reduced: reduced, page: page)
            guard TIFFWriteDirectory(tif) == 1 else { throw ThumbnailError.io("libtiff could not write a directory") }
        }
    }

    static func writeDirectory(_ tif: OpaquePointer, _ layout: Layout, width w: Int, height h: Int, reduced: Bool, page: Int) throws {
        func u16(_ tag: Int32, _ value: Int) { _ = mediaindex_tiff_set_u16(tif, UInt32(tag), UInt16(value)) }
        func u32(_ tag: Int32, _ value: Int) { _ = mediaindex_tiff_set_u32(tif, UInt32(tag), UInt32(value)) }
        u32(TIFFTAG_IMAGEWIDTH, w); u32(TIFFTAG_IMAGELENGTH, h)
        u16(TIFFTAG_PLANARCONFIG, Int(PLANARCONFIG_CONTIG))
        u16(TIFFTAG_COMPRESSION, Int(layout.compression))
        if reduced { u32(TIFFTAG_SUBFILETYPE, Int(FILETYPE_REDUCEDIMAGE)) }
        let samples: Int, bits: Int
        switch layout.kind {
        case .rgb: samples = 3; bits = 8; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_RGB))
        case .rgba: samples = 4; bits = 8; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_RGB))
        case .gray8: samples = 1; bits = 8; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_MINISBLACK))
        case .gray16: samples = 1; bits = 16; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_MINISBLACK))
        case .palette: samples = 1; bits = 8; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_PALETTE))
        case .bilevel: samples = 1; bits = 1; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_MINISBLACK))
        case .cmyk: samples = 4; bits = 8; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_SEPARATED))
        case .cmyk16: samples = 4; bits = 16; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_SEPARATED))
        case .lab8: samples = 3; bits = 8; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_CIELAB))
        case .lab16: samples = 3; bits = 16; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_CIELAB))
        case .float32: samples = 3; bits = 32; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_RGB))
        case .grayFloat32: samples = 1; bits = 32; u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_MINISBLACK))
        }
        if bits == 32 { u16(TIFFTAG_SAMPLEFORMAT, Int(SAMPLEFORMAT_IEEEFP)) }
        u16(TIFFTAG_SAMPLESPERPIXEL, samples); u16(TIFFTAG_BITSPERSAMPLE, bits)
        if layout.kind == .rgba {
            var kind = UInt16(EXTRASAMPLE_UNASSALPHA)
            _ = mediaindex_tiff_set_extrasamples(tif, 1, &kind)
        }
        if layout.compression == UInt16(COMPRESSION_JPEG) { u32(TIFFTAG_JPEGQUALITY, 95) }
        if layout.kind == .palette {
            // Index i is the gray i, so the fixture's expected picture is its gray.
            var ramp = (0..<256).map { UInt16($0 * 257) }
            var green = ramp, blue = ramp
            _ = mediaindex_tiff_set_colormap(tif, &ramp, &green, &blue)
        }
        let rowBytes = (w * samples * bits + 7) / 8
        func row(_ y: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: rowBytes)
            for x in 0..<w {
                let (r, g, b) = expected(x * width / w, y * height / h)
                let sourceX = x * width / w, sourceY = y * height / h
                let gray = UInt8((Int(r) + Int(g) + Int(b)) / 3)
                switch layout.kind {
                case .rgb: bytes[x * 3] = r; bytes[x * 3 + 1] = g; bytes[x * 3 + 2] = b
                case .rgba: bytes[x * 4] = r; bytes[x * 4 + 1] = g; bytes[x * 4 + 2] = b; bytes[x * 4 + 3] = 255
                case .gray8, .palette: bytes[x] = gray
                case .gray16: bytes[x * 2] = gray; bytes[x * 2 + 1] = gray  // native little-endian 16-bit = gray × 257
                case .bilevel: if x >= w / 2 { bytes[x / 8] |= 0x80 >> UInt8(x % 8) }
                case .cmyk: bytes[x * 4] = 255 - r; bytes[x * 4 + 1] = 255 - g; bytes[x * 4 + 2] = 255 - b; bytes[x * 4 + 3] = 0
                case .lab8, .lab16:
                    // CIELab relative to D50 (no WhitePoint tag): L* unsigned, a* and b* signed.
                    let lab = Self.labPicture[sourceY * width + sourceX]
                    if layout.kind == .lab8 {
                        bytes[x * 3] = UInt8((lab.L * 255 / 100).rounded())
                        bytes[x * 3 + 1] = UInt8(bitPattern: Int8(max(-128, min(127, lab.a.rounded()))))
                        bytes[x * 3 + 2] = UInt8(bitPattern: Int8(max(-128, min(127, lab.b.rounded()))))
                    } else {
                        let values = [UInt16((lab.L * 65_535 / 100).rounded()),
                                      UInt16(bitPattern: Int16(max(-32_768, min(32_767, (lab.a * 256).rounded())))),
                                      UInt16(bitPattern: Int16(max(-32_768, min(32_767, (lab.b * 256).rounded()))))]
                        for (c, v) in values.enumerated() { bytes[x * 6 + c * 2] = UInt8(v & 0xFF); bytes[x * 6 + c * 2 + 1] = UInt8(v >> 8) }
                    }
                case .float32, .grayFloat32:
                    // Linear light (scRGB): the sRGB value decoded by IEC 61966-2-1's curve, native order.
                    let values = layout.kind == .float32 ? [r, g, b] : [gray]
                    for (c, value) in values.enumerated() {
                        let e = Double(value) / 255
                        let linear = Float(e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4))
                        withUnsafeBytes(of: linear.bitPattern.littleEndian) { for k in 0..<4 { bytes[(x * values.count + c) * 4 + k] = $0[k] } }
                    }
                case .cmyk16:
                    // Native little-endian 16-bit: ink × 257 in both bytes.
                    for (c, ink) in [255 - r, 255 - g, 255 - b, 0].enumerated() {
                        bytes[x * 8 + c * 2] = ink; bytes[x * 8 + c * 2 + 1] = ink
                    }
                }
            }
            return bytes
        }
        if layout.tiled {
            let tile = 16
            u32(TIFFTAG_TILEWIDTH, tile); u32(TIFFTAG_TILELENGTH, tile)
            let tileRowBytes = (tile * samples * bits + 7) / 8
            for ty in stride(from: 0, to: h, by: tile) {
                let rows = (0..<tile).map { ty + $0 < h ? row(ty + $0) : [UInt8](repeating: 0, count: rowBytes) }
                for tx in stride(from: 0, to: w, by: tile) {
                    var buffer = [UInt8](repeating: 0, count: tileRowBytes * tile)
                    let startByte = tx * samples * bits / 8
                    for r in 0..<tile {
                        for i in 0..<tileRowBytes where startByte + i < rowBytes { buffer[r * tileRowBytes + i] = rows[r][startByte + i] }
                    }
                    guard TIFFWriteTile(tif, &buffer, UInt32(tx), UInt32(ty), 0, 0) >= 0 else {
                        throw ThumbnailError.io("libtiff could not write a tile")
                    }
                }
            }
        } else {
            u32(TIFFTAG_ROWSPERSTRIP, layout.rowsPerStrip ?? h)
            for y in 0..<h {
                var bytes = row(y)
                guard TIFFWriteScanline(tif, &bytes, UInt32(y), 0) == 1 else { throw ThumbnailError.io("libtiff could not write a row") }
            }
        }
    }

    /// The fixture's picture in CIE L*a*b* relative to D50, through lcms2's sRGB profile,
    /// row by row.
    static let labPicture: [cmsCIELab] = {
        let srgb = cmsCreate_sRGBProfile(), xyzProfile = cmsCreateXYZProfile()
        defer { cmsCloseProfile(srgb); cmsCloseProfile(xyzProfile) }
        let transform = cmsCreateTransform(srgb, mediaindex_lcms_rgb8(), xyzProfile, mediaindex_lcms_xyz_double(),
                                           cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)
        defer { cmsDeleteTransform(transform) }
        return (0..<height).flatMap { y in
            (0..<width).map { x in
                let (r, g, b) = expected(x, y)
                var rgb = [r, g, b], xyz = cmsCIEXYZ(), lab = cmsCIELab()
                cmsDoTransform(transform, &rgb, &xyz, 1)
                cmsXYZ2Lab(cmsD50_XYZ(), &lab, &xyz)
                return lab
            }
        }
    }()

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mediaindex-tiff-\(UUID().uuidString)-\(name).tif").path
    }

    static func decode(_ path: String, size: Int) throws -> (thumbnail: EncodedThumbnail, pixels: PixelBuffer) {
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: size))
        return (thumbnail, try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
    }

    static let compressions: [(String, UInt16)] = [
        ("none", UInt16(COMPRESSION_NONE)), ("LZW", UInt16(COMPRESSION_LZW)),
        ("Deflate", UInt16(COMPRESSION_ADOBE_DEFLATE)), ("PackBits", UInt16(COMPRESSION_PACKBITS)),
    ]

    @Test("decodes RGB, RGBA, 8- and 16-bit gray, palette, bilevel, 8- and 16-bit CMYK and L*a*b*, 32-bit float RGB and gray, in strips and tiles, with every lossless compression")
    func everyLayout() throws {
        let kinds: [Layout.Kind] = [.rgb, .rgba, .gray8, .gray16, .palette, .bilevel, .cmyk, .cmyk16, .lab8, .lab16,
                                    .float32, .grayFloat32]
        for kind in kinds {
            for (name, compression) in Self.compressions {
                for tiled in [false, true] {
                    let layout = Layout(kind: kind, compression: compression, tiled: tiled)
                    let path = Self.temporaryPath("\(kind.rawValue)-\(name)")
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    try Self.write(layout, to: path)
                    let thumbnail: EncodedThumbnail, pixels: PixelBuffer
                    do { (thumbnail, pixels) = try Self.decode(path, size: 48) } catch {
                        Issue.record("\(layout): \(error)")
                        continue
                    }
                    #expect(thumbnail.width == 48 && thumbnail.height == 32, "\(layout)")
                    #expect(thumbnail.path == .fullDecode, "\(layout)")
                    // Left-centre and right-centre sample points, against the fixture's picture.
                    for x in [6, 42] {
                        let i = (16 * pixels.width + x) * 3
                        let got = (Int(pixels.pixels[i]), Int(pixels.pixels[i + 1]), Int(pixels.pixels[i + 2]))
                        let (r, g, b) = Self.expected(x * 2 + 1, 33)
                        let want: (Int, Int, Int)
                        switch kind {
                        case .rgb, .rgba, .cmyk, .cmyk16, .lab8, .lab16, .float32: want = (Int(r), Int(g), Int(b))
                        case .gray8, .gray16, .palette, .grayFloat32:
                            let gray = (Int(r) + Int(g) + Int(b)) / 3
                            want = (gray, gray, gray)
                        case .bilevel: want = x < 24 ? (0, 0, 0) : (255, 255, 255)
                        }
                        // Lab goes through lcms2 both ways, and is shrunk as 8-bit Lab (one step of
                        // a* or b* moves a saturated colour by a few levels): it comes back within 5.
                        let tolerance = kind == .lab8 || kind == .lab16 ? 5 : 8
                        #expect(abs(got.0 - want.0) <= tolerance && abs(got.1 - want.1) <= tolerance && abs(got.2 - want.2) <= tolerance,
                                "\(layout) at x=\(x): \(got), expected \(want)")
                    }
                }
            }
        }
    }

    @Test("a CMYK TIFF, 8- or 16-bit, in strips or tiles, goes through its embedded CMYK profile as vips' colour-managed transform does",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus (its SWOP profile)"))
    func cmykThroughItsProfile() throws {
        guard let vips = ["/usr/bin/vips", "/usr/local/bin/vips"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
              let vipsthumbnail = ColourAgreementTests.vipsthumbnail else {
            if Corpus.isCI { Issue.record("vips is missing under CI: scripts/install-dependencies --test installs libvips-tools") }
            print("vips is not installed (apt-get install libvips-tools): the CMYK profile test is skipped")
            return
        }
        // U.S. Web Coated (SWOP) v2, from the corpus's CMYK JPEG.
        guard let jpeg = ThumbnailTestSupport.path("metadata-extractor-images/jpg/Multiple ICC segments.jpg"),
              let data = FileManager.default.contents(atPath: jpeg) else { Issue.record("the corpus's CMYK JPEG is missing"); return }
        guard case .icc(let profile) = [UInt8](data).withUnsafeBufferPointer({ JPEGDecoder.colour(of: $0).space }),
              ColourConverter.isCMYKProfile(profile) else { Issue.record("the corpus's CMYK JPEG has no CMYK profile"); return }
        for kind in [Layout.Kind.cmyk, .cmyk16] {
            for tiled in [false, true] {
                let layout = Layout(kind: kind, compression: UInt16(COMPRESSION_LZW), tiled: tiled)
                let path = Self.temporaryPath("profiled-\(kind.rawValue)")
                let converted = path + ".srgb.png", reference = path + ".thumbnail.png"
                defer { for file in [path, converted, reference] { try? FileManager.default.removeItem(atPath: file) } }
                try Self.write(layout, to: path, profile: profile)
                let (thumbnail, ours) = try Self.decode(path, size: 48)
                #expect(thumbnail.warnings.isEmpty, "\(layout): \(thumbnail.warnings)")
                // The reference: vips converts the full picture through the embedded profile
                // (relative colorimetric, black-point compensation), then shrinks it.
                let transformed = ThumbnailTestSupport.run(vips, ["icc_transform", path, converted, "srgb", "--embedded", "--intent", "relative",
                                                  "--black-point-compensation"])
                guard transformed, ThumbnailTestSupport.run(vipsthumbnail, [converted, "-s", "48x48>", "-o", reference]),
                      let bytes = FileManager.default.contents(atPath: reference) else {
                    Issue.record("\(layout): vips could not make the reference"); continue
                }
                let theirs = try [UInt8](bytes).withUnsafeBufferPointer { try PNGDecoder.decode($0, pixelLimit: 1 << 20) }
                let difference = ColourAgreementTests.blockDifference(ours, theirs)
                #expect(difference <= ColourAgreementTests.tolerance, "\(layout): \(difference) levels from vips")
                // The same inks without the profile (the naive complement) are further from vips.
                let untagged = path + ".untagged.tif"
                defer { try? FileManager.default.removeItem(atPath: untagged) }
                try Self.write(layout, to: untagged)
                let naive = ColourAgreementTests.blockDifference(try Self.decode(untagged, size: 48).pixels, theirs)
                #expect(naive > difference + ColourAgreementTests.tolerance,
                        "\(layout): \(difference) levels from vips with the profile, \(naive) without it")
            }
        }
    }

    @Test("a 16-bit ICCLab TIFF is read in ICC's version 2 encoding: L* 100 is 0xFF00, so its white is sRGB white",
          arguments: [false, true])
    func iccLab16White(tiled: Bool) throws {
        let path = Self.temporaryPath("icclab16")
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let tif = TIFFOpen(path, "w") else { throw ThumbnailError.io("cannot create \(path)") }
        func u16(_ tag: Int32, _ value: Int) { _ = mediaindex_tiff_set_u16(tif, UInt32(tag), UInt16(value)) }
        func u32(_ tag: Int32, _ value: Int) { _ = mediaindex_tiff_set_u32(tif, UInt32(tag), UInt32(value)) }
        let side = 32
        u32(TIFFTAG_IMAGEWIDTH, side); u32(TIFFTAG_IMAGELENGTH, side)
        u16(TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_ICCLAB)); u16(TIFFTAG_SAMPLESPERPIXEL, 3); u16(TIFFTAG_BITSPERSAMPLE, 16)
        u16(TIFFTAG_PLANARCONFIG, Int(PLANARCONFIG_CONTIG)); u16(TIFFTAG_COMPRESSION, Int(COMPRESSION_NONE))
        // L* 100 (0xFF00), a* = b* = 0 (0x8000), in native (little-endian) order.
        let pixel: [UInt8] = [0x00, 0xFF, 0x00, 0x80, 0x00, 0x80]
        if tiled {
            u32(TIFFTAG_TILEWIDTH, 16); u32(TIFFTAG_TILELENGTH, 16)
            var tile = [UInt8]((0..<(16 * 16)).flatMap { _ in pixel })
            for y in stride(from: 0, to: side, by: 16) {
                for x in stride(from: 0, to: side, by: 16) { _ = TIFFWriteTile(tif, &tile, UInt32(x), UInt32(y), 0, 0) }
            }
        } else {
            var row = [UInt8]((0..<side).flatMap { _ in pixel })
            for y in 0..<side { _ = TIFFWriteScanline(tif, &row, UInt32(y), 0) }
        }
        TIFFClose(tif)
        let pixels = try Self.decode(path, size: 16).pixels
        // Read over 0…65535 (CIELab's scale), 0xFF00 would be L* 99.6: sRGB 254, not 255.
        #expect(pixels.pixels.allSatisfy { $0 == 255 }, "\(Set(pixels.pixels).sorted())")
    }

    @Test("decodes JPEG-compressed TIFF")
    func jpegCompressed() throws {
        for tiled in [false, true] {
            let path = Self.temporaryPath("jpeg")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Self.write(Layout(kind: .rgb, compression: UInt16(COMPRESSION_JPEG), tiled: tiled), to: path)
            let (thumbnail, pixels) = try Self.decode(path, size: 48)
            #expect(thumbnail.width == 48 && thumbnail.height == 32)
            let mean = ThumbnailTestSupport.meanColour(pixels)
            // The fixture's mean colour: both ramps average to about 127.5, blue is 128.
            #expect(mean.allSatisfy { abs($0 - 128) < 6 }, "tiled \(tiled): mean \(mean)")
        }
    }

    @Test("a JPEG-compressed TIFF in one strip is decoded by libtiff, not taken for an embedded JPEG preview",
          arguments: [Layout.Kind.rgb, .cmyk])
    func jpegCompressedSingleStrip(kind: Layout.Kind) throws {
        // The strip starts with a JPEG's SOI and has the picture's shape, but its tables are
        // in the JPEGTables tag: TurboJPEG alone fails on it ("Quantization table 0x00 was
        // not defined"), and a CMYK one would lose its photometric and profile.
        let path = Self.temporaryPath("jpeg-one-strip")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let layout = Layout(kind: kind, compression: UInt16(COMPRESSION_JPEG), tiled: false, rowsPerStrip: nil)
        try Self.write(layout, to: path)
        let (thumbnail, pixels) = try Self.decode(path, size: 48)
        #expect(thumbnail.path == .fullDecode, "\(layout)")
        #expect(thumbnail.width == 48 && thumbnail.height == 32, "\(layout)")
        let mean = ThumbnailTestSupport.meanColour(pixels)
        #expect(mean.allSatisfy { abs($0 - 128) < 6 }, "\(layout): mean \(mean)")
    }

    @Test("uses the first page of a multi-page file, and a reduced-resolution page when it covers the size")
    func pagesAndReducedResolution() throws {
        let path = Self.temporaryPath("pages")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.write(Layout(kind: .rgb, compression: UInt16(COMPRESSION_LZW), tiled: false), to: path, reducedPage: true, pages: 2)
        let small = try Self.decode(path, size: 32)
        #expect(small.thumbnail.path == .tiffReducedResolution(width: 48, height: 32))
        #expect(small.thumbnail.width == 32 && small.thumbnail.height == 21)
        let large = try Self.decode(path, size: 80)
        #expect(large.thumbnail.path == .fullDecode, "a 48-px reduced page cannot give 80 px")
        #expect(large.thumbnail.width == 80 && large.thumbnail.height == 53)
    }

    @Test("a TIFF cut short or with lying sizes gives a readable error or a partial picture, never a crash")
    func hostile() throws {
        let path = Self.temporaryPath("whole")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.write(Layout(kind: .rgb, compression: UInt16(COMPRESSION_LZW), tiled: true), to: path)
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for cut in [8, 16, 100, whole.count / 3, whole.count - 10] {
            let bytes = Array(whole.prefix(cut))
            do {
                let thumbnail = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .tiff, orientation: 1,
                                                                 request: ThumbnailRequest(maxPixelSize: 32))
                #expect(thumbnail.width > 0)
            } catch let error as ThumbnailError {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test("every corpus TIFF that exiftool sizes gets a thumbnail of that shape",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusTIFFs() throws {
        var made = 0
        for entry in ThumbnailTestSupport.manifestEntries where !entry.categories.contains("corrupted") {
            guard let path = ThumbnailTestSupport.path(entry.path), let source = try? FileByteSource(path: path),
                  (try? MetadataReader.detectFormat(source)) == .tiff,
                  let reading = Corpus.exiftool[entry.path],
                  let w = (reading["IFD0:ImageWidth"] ?? reading["File:ImageWidth"])?.number,
                  let h = (reading["IFD0:ImageHeight"] ?? reading["File:ImageHeight"])?.number, w > 1, h > 1 else { continue }
            do {
                let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
                let orientation = Int(reading["IFD0:Orientation"]?.number ?? 1)
                let (dw, dh) = orientation >= 5 ? (h, w) : (w, h)
                let expectedLonger = min(256, Int(max(dw, dh)))
                #expect(max(thumbnail.width, thumbnail.height) == expectedLonger, "\(entry.path)")
                #expect(abs(Double(thumbnail.width) / Double(thumbnail.height) - dw / dh) < 2.5 / Double(min(thumbnail.width, thumbnail.height)) + 0.02,
                        "\(entry.path): \(thumbnail.width)×\(thumbnail.height) for \(Int(dw))×\(Int(dh))")
                made += 1
            } catch {
                print("no TIFF thumbnail: \(entry.path): \(error)")
            }
        }
        print("corpus TIFF thumbnails: \(made)")
        #expect(made >= 24)
    }
}
