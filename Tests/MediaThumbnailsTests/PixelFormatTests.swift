import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaThumbnails

@Suite("Thumbnail pixel formats")
struct PixelFormatTests {
    /// Corpus files per pixel format, chosen by exiftool's reading.
    static let cases: [(name: String, predicate: @Sendable ([String: JSONValue]) -> Bool)] = [
        ("grayscale JPEG", { $0["File:FileType"]?.string == "JPEG" && $0["File:ColorComponents"]?.number == 1 }),
        ("CMYK JPEG", { $0["File:FileType"]?.string == "JPEG" && $0["File:ColorComponents"]?.number == 4 }),
        ("progressive JPEG", { $0["File:FileType"]?.string == "JPEG" && [2, 6, 10].contains($0["File:EncodingProcess"]?.number ?? 0) }),
        ("16-bit PNG", { $0["PNG:BitDepth"]?.number == 16 }),
        ("palette PNG", { $0["PNG:ColorType"]?.number == 3 }),
        ("interlaced PNG", { $0["PNG:Interlace"]?.number == 1 }),
        ("PNG with alpha", { [4, 6].contains($0["PNG:ColorType"]?.number ?? -1) }),
    ]

    @Test("each pixel format decodes with the colours ImageMagick sees",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"), arguments: 0..<7)
    func meanColourAgreesWithImageMagick(caseIndex: Int) throws {
        let (name, predicate) = Self.cases[caseIndex]
        let files = ThumbnailTestSupport.corpusFiles { predicate($0) && $0["ExifTool:Error"] == nil }
        #expect(!files.isEmpty, "the corpus has no \(name)")
        var decoded = 0, compared = 0, agreed = 0
        var imageMagickMissing = false
        for file in files.prefix(8) {
            guard let path = ThumbnailTestSupport.path(file) else { continue }
            let thumbnail: EncodedThumbnail
            do { thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 64)) } catch {
                print("\(name): \(file) not decoded: \(error)")
                continue
            }
            decoded += 1
            let ours = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
            // Below 16 px, 4:2:0 chroma blocks dominate the mean; the colour check needs a real picture.
            guard thumbnail.width >= 16, thumbnail.height >= 16 else { continue }
            guard let reference = ThumbnailTestSupport.imageMagickMeanColour(path) else { imageMagickMissing = true; continue }
            compared += 1
            let worst = zip(ours, reference).map { abs($0 - $1) }.max() ?? 0
            // CMYK has no single right answer without its ICC profile; ImageMagick and we both use
            // the naive complement formula but round differently, so allow a little more there.
            let tolerance = name.hasPrefix("CMYK") ? 16.0 : 12.0
            if worst <= tolerance { agreed += 1 } else {
                print("\(name): \(file) mean colour \(ours.map { Int($0) }) vs ImageMagick \(reference.map { Int($0) })")
            }
        }
        print("\(name): \(decoded) of \(min(8, files.count)) decoded; \(agreed) of \(compared) within tolerance of ImageMagick's mean colour")
        if imageMagickMissing { print("ImageMagick's convert is not installed: colour comparison skipped") }
        #expect(decoded >= 1)
        #expect(agreed == compared, "\(name): \(compared - agreed) files differ from ImageMagick")
    }

    @Test("a 16-bit PNG without gAMA, sRGB or iCCP holds sRGB-encoded samples, as exporters write it and vips reads it; a gAMA chunk is applied")
    func sixteenBitPNGIsSRGBEncoded() throws {
        // 16×16 of one colour: R, G, B = 0x4040, 0x8080, 0xC0C0 (64, 128, 192 in 8 bits).
        let row: [UInt8] = [0] + (0..<16).flatMap { _ in [0x40, 0x40, 0x80, 0x80, 0xC0, 0xC0] as [UInt8] }
        let idat = ThumbnailTestSupport.zlibStored((0..<16).flatMap { _ in row })
        let untagged = ThumbnailTestSupport.pngFile(width: 16, height: 16, bitDepth: 16, colourType: 2, chunks: [("IDAT", idat)])
        let thumbnail = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(untagged), format: .png, orientation: 1,
                                                         request: ThumbnailRequest(maxPixelSize: 16))
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        // Read as linear light, 64 would come out near 137.
        #expect(zip(mean, [64.0, 128, 192]).allSatisfy { abs($0 - $1) <= 2 }, "mean \(mean)")
        // gAMA 1.0 declares linear samples: encoded for display, they come out brighter.
        let linear = ThumbnailTestSupport.pngFile(width: 16, height: 16, bitDepth: 16, colourType: 2,
                                                  chunks: [("gAMA", [0, 1, 0x86, 0xA0]), ("IDAT", idat)])
        let brighter = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(linear), format: .png, orientation: 1,
                                                        request: ThumbnailRequest(maxPixelSize: 16))
        let linearMean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: brighter.data))
        #expect(linearMean[0] > 120, "gAMA 1.0: mean \(linearMean)")
    }

    @Test("alpha is composited on white for JPEG and kept for WebP")
    func alphaHandling() throws {
        // Given a fully transparent black 8×8 picture in a WebP
        let transparent = PixelBuffer(width: 8, height: 8, channels: 4)
        let webp = try ThumbnailEncoder.encodeWebP(transparent, quality: 90)
        let request = ThumbnailRequest(maxPixelSize: 8)
        // When made a JPEG thumbnail, it is white
        let jpeg = try webp.withUnsafeBufferPointer {
            try ThumbnailGenerator.thumbnail(ofData: $0, format: .webp, orientation: 1, request: request, pixelLimit: 1 << 20)
        }
        let pixels = try ThumbnailTestSupport.pixels(ofJPEG: jpeg.data)
        #expect(ThumbnailTestSupport.meanColour(pixels).allSatisfy { $0 > 250 })
        // When made a WebP thumbnail, it keeps its alpha
        let webpThumbnail = try webp.withUnsafeBufferPointer {
            try ThumbnailGenerator.thumbnail(ofData: $0, format: .webp, orientation: 1,
                                             request: ThumbnailRequest(maxPixelSize: 8, format: .webp()), pixelLimit: 1 << 20)
        }
        let decoded = try webpThumbnail.data.withUnsafeBufferPointer {
            try WebPDecoder.decode($0, request: request, pixelLimit: 1 << 20).image
        }
        #expect(decoded.channels == 4 && decoded.hasTransparency)
    }

    @Test("fill mode makes a centred square")
    func fillMode() throws {
        var image = PixelBuffer(width: 300, height: 100, channels: 3)
        for y in 0..<100 { for x in 100..<200 { image.pixels[(y * 300 + x) * 3] = 255 } }  // red centre
        let jpeg = try ThumbnailEncoder.encodeJPEG(image, quality: 95)
        let thumbnail = try jpeg.withUnsafeBufferPointer {
            try ThumbnailGenerator.thumbnail(ofData: $0, format: .jpeg, orientation: 1,
                                             request: ThumbnailRequest(maxPixelSize: 50, mode: .fill), pixelLimit: 1 << 20)
        }
        #expect(thumbnail.width == 50 && thumbnail.height == 50)
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        #expect(mean[0] > 200 && mean[1] < 60, "the square should be the red centre, got \(mean)")
    }
}
