import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

/// A HEIC's compatible JPEG made from its YCbCr planes (`compatibleHEIFPlanes`): the same
/// picture libheif decodes, upright, as ImageMagick reads the file.
@Suite("Compatible JPEG from HEIC planes")
struct CompatibleHEIFPlanesTests {
    /// The corpus's 12 MP HEVC-grid HEICs: iPhones (Display P3 profile, irot 90° or none,
    /// iOS 17 with auxiliary images) and a Samsung (nclx, no profile).
    static let twelveMegapixel = [
        "exiv2-test-data/test/data/2021-02-13-1929.heic",
        "exiv2-test-data/test/data/IMG_3578.heic",
        "ente-test-fixtures/ml/indexing/v1/files/IMG_8606_rotate_90_cw_contains_text.HEIC",
        "osxphotos/tests/test-images/IMG_3092.heic",
        "photoprism/assets/examples/iphone_7.heic",
        "immich-test-assets/formats/motionphoto/samsung-one-ui-6.heic",
    ]

    func bytes(_ relative: String) throws -> [UInt8] {
        let path = try #require(ThumbnailTestSupport.path(relative))
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// libheif's full-size RGB of the file (irot/imir applied; EXIF orientation for a file
    /// without them), the reference.
    func libheifPicture(_ data: [UInt8]) throws -> PixelBuffer {
        try data.withUnsafeBufferPointer { buffer in
            let decoded = try HEIFDecoder.decode(buffer, request: ThumbnailRequest(maxPixelSize: 1 << 20), pixelLimit: 1 << 28,
                                                 threads: 2, direct: false)
            let items = try HEIFItems.read(BufferByteSource(buffer))
            guard let primary = items.primaryID, !items.isTransformed(primary) else { return decoded.image }
            return decoded.image.oriented((try? MetadataReader.read(BufferByteSource(buffer)))??.orientation ?? 1)
        }
    }

    @Test("each 12 MP HEIC is made from its planes, upright, the picture libheif decodes",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"), arguments: twelveMegapixel)
    func samePictureAsLibheif(relative: String) throws {
        let data = try bytes(relative)
        let orientation = data.withUnsafeBufferPointer { (try? MetadataReader.read(BufferByteSource($0)))??.orientation ?? 1 }
        let made = try #require(data.withUnsafeBufferPointer {
            ThumbnailGenerator.compatibleHEIFPlanes($0, orientation: orientation, options: CompatibleImageOptions(),
                                                    pixelLimit: ThumbnailGenerator.defaultPixelLimit)
        }, "\(relative) should take the planes path")
        let ours = try ThumbnailTestSupport.pixels(ofJPEG: made.data)
        let reference = try libheifPicture(data)
        #expect(ours.width == reference.width && ours.height == reference.height,
                "\(ours.width)×\(ours.height), libheif \(reference.width)×\(reference.height)")
        let difference = ThumbnailTestSupport.meanAbsoluteDifference(ours, reference)
        #expect(difference < 2.5, "\(relative): mean absolute difference \(difference) from libheif")
    }

    @Test("the colours are ImageMagick's reading of the HEIC, and the profile is the file's",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"), arguments: twelveMegapixel)
    func coloursAsImageMagickReads(relative: String) throws {
        let path = try #require(ThumbnailTestSupport.path(relative))
        let made = try ThumbnailGenerator.compatibleImage(ofFileAtBytes: Array(path.utf8))
        let profile = exiftoolReading(path)["ICC_Profile:ProfileDescription"].map { "\($0)" }
        #expect((made.iccProfile == nil) == (profile == nil), "\(relative): the file's profile is \(profile ?? "none")")
        guard let magick = ThumbnailTestSupport.imageMagickMeanColour(path) else { return }
        let ours = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: made.data))
        for channel in 0..<3 {
            #expect(abs(ours[channel] - magick[channel]) < 2, "\(relative) channel \(channel): ours \(ours[channel]), ImageMagick \(magick[channel])")
        }
    }

    @Test("colorspace=srgb of a Display P3 HEIC needs RGB: it is made the general way, without a profile",
          .enabled(if: Corpus.isAvailable, "the shared corpus is missing"))
    func sRGBTakesTheGeneralPath() throws {
        let relative = Self.twelveMegapixel[0]
        let data = try bytes(relative)
        let options = CompatibleImageOptions(convertsToSRGB: true)
        #expect(data.withUnsafeBufferPointer {
            ThumbnailGenerator.compatibleHEIFPlanes($0, orientation: 1, options: options, pixelLimit: 1 << 28)
        } == nil)
        let path = try #require(ThumbnailTestSupport.path(relative))
        let made = try ThumbnailGenerator.compatibleImage(ofFileAtBytes: Array(path.utf8), options: options)
        #expect(made.iccProfile == nil && made.width == 3024 && made.height == 4032)
    }

    @Test("ffmpeg decodes the tiles, sent as one Annex-B stream, to the very samples libde265 decodes, placed upright alike",
          .enabled(if: Corpus.isAvailable && ThumbnailTestSupport.hasFFmpeg, "the shared corpus or ffmpeg is missing"),
          arguments: [twelveMegapixel[0], twelveMegapixel[5]])
    func ffmpegDecodesAsLibde265(relative: String) throws {
        let data = try bytes(relative)
        try data.withUnsafeBufferPointer { buffer in
            let plan = try HEIFDirectDecoder(buffer)
            let items = try HEIFItems.read(BufferByteSource(buffer))
            let primary = try #require(items.primaryID)
            let declared = try #require(YCbCrConversion(items: items, item: primary))
            let program = try #require(VideoFrameExtractor.ffmpegPath)
            for orientation in [1, 6] {
                let libde265 = try plan.fullPicture(conversion: declared, orientation: orientation)
                let placements = YCbCr420.placements(codedWidth: plan.width, codedHeight: plan.height, orientation: orientation)
                var ffmpeg = YCbCr420(upright: placements, conversion: declared)
                let described = try ffmpeg.withSharedPlanes {
                    try plan.decodeTilesWithFFmpeg(program, tiles: plan.pieces.indices, threads: 2, into: $0, placements: placements)
                }
                if declared.followsBitstream { ffmpeg.conversion = described }
                #expect(ffmpeg.width == libde265.width && ffmpeg.height == libde265.height)
                // Both are conforming HEVC decoders: the samples agree exactly.
                #expect(ffmpeg.y == libde265.y && ffmpeg.cb == libde265.cb && ffmpeg.cr == libde265.cr,
                        "orientation \(orientation)")
                #expect(ffmpeg.conversion == libde265.conversion, "ffmpeg \(ffmpeg.conversion), libde265 \(libde265.conversion)")
            }
        }
    }

    @Test("ffmpeg's description of an HEVC stream gives its range and matrix")
    func streamDescriptions() {
        func described(_ line: String) -> YCbCrConversion? {
            HEIFDirectDecoder.streamDescription(Array("  Stream #0:0: Video: hevc (Main), \(line), 512x512, 25 fps\n".utf8))
        }
        #expect(described("yuvj420p(pc, smpte170m/smpte432/bt709)") == YCbCrConversion(kr: 0.299, kb: 0.114, fullRange: true))
        #expect(described("yuv420p(tv, bt709)") == YCbCrConversion(kr: 0.2126, kb: 0.0722, fullRange: false))
        #expect(described("yuvj420p(pc, progressive)") == YCbCrConversion(kr: 0.299, kb: 0.114, fullRange: true))
        #expect(described("yuv420p") == YCbCrConversion(kr: 0.299, kb: 0.114, fullRange: false))
        #expect(described("yuv420p10le(tv, bt2020nc/bt2020/smpte2084)") == nil)
    }

    @Test("tiles placed upright give the plane PixelBuffer.oriented turns, for every orientation")
    func planeOrientation() {
        // 150 × 70 coded samples in 64 × 32 tiles: the last column and row of tiles are cut
        // at the plane's edges, and each tile is larger than one 64 × 64 piece of the copy
        // only in the first dimension.
        let (width, height) = (150, 70), (tileWidth, tileHeight) = (64, 32)
        let plane = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / width) }
        let buffer = PixelBuffer(width: width, height: height, channels: 1, pixels: plane)
        for orientation in 1...8 {
            let placement = UprightPlacement(codedWidth: width, codedHeight: height, orientation: orientation)
            var upright = [UInt8](repeating: 0, count: width * height)
            for top in stride(from: 0, to: height, by: tileHeight) {
                for left in stride(from: 0, to: width, by: tileWidth) {
                    // The decoder's tile: full size, its samples beyond the plane's edge are padding.
                    var tile = [UInt8](repeating: 0xEE, count: tileWidth * tileHeight)
                    for y in 0..<tileHeight where top + y < height {
                        for x in 0..<tileWidth where left + x < width { tile[y * tileWidth + x] = plane[(top + y) * width + left + x] }
                    }
                    tile.withUnsafeBufferPointer { source in
                        upright.withUnsafeMutableBufferPointer { target in
                            placement.place(source.baseAddress!, stride: tileWidth, width: tileWidth, height: tileHeight,
                                            at: (left, top), into: target.baseAddress!)
                        }
                    }
                }
            }
            let reference = buffer.oriented(orientation)
            #expect(placement.uprightWidth == reference.width && placement.uprightHeight == reference.height)
            #expect(upright == reference.pixels, "orientation \(orientation)")
        }
    }
}
