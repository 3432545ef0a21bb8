import Testing
@testable import MediaThumbnails

@Suite("Area-averaging resampler")
struct ResamplingTests {
    /// A 1-px black/white line pattern, which nearest-neighbour sampling turns into one colour.
    static func stripes(width: Int, height: Int, vertical: Bool) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let white = (vertical ? x : y) % 2 == 0
                for c in 0..<3 { image.pixels[(y * width + x) * 3 + c] = white ? 255 : 0 }
            }
        }
        return image
    }

    @Test("1-px stripes downscaled 4× come out uniform mid-grey", arguments: [true, false])
    func stripesAverageToGrey(vertical: Bool) {
        let result = AreaResampler.resize(Self.stripes(width: 256, height: 256, vertical: vertical), width: 64, height: 64)
        #expect(result.width == 64 && result.height == 64)
        let outliers = result.pixels.filter { abs(Int($0) - 128) > 10 }
        #expect(outliers.isEmpty, "\(outliers.count) samples are not mid-grey")
    }

    @Test("non-integer factors keep the mean and stay uniform")
    func fractionalFactor() {
        let result = AreaResampler.resize(Self.stripes(width: 300, height: 200, vertical: true), width: 97, height: 61)
        #expect(result.width == 97 && result.height == 61)
        // Fractional footprints cover 3.09 stripes: a pixel may lean one way by at most one stripe's share.
        #expect(result.pixels.allSatisfy { abs(Int($0) - 128) <= 45 })
        let mean = Double(result.pixels.reduce(0) { $0 + Int($1) }) / Double(result.pixels.count)
        #expect(abs(mean - 127.5) < 3)
    }

    @Test("through the whole pipeline a striped JPEG becomes grey, not black or white")
    func stripedJPEGThroughGenerator() throws {
        let stripes = Self.stripes(width: 512, height: 512, vertical: true)
        let jpeg = try ThumbnailEncoder.encodeJPEG(stripes, quality: 100)
        let thumbnail = try jpeg.withUnsafeBufferPointer {
            try ThumbnailGenerator.thumbnail(ofData: $0, format: .jpeg, orientation: 1,
                                             request: ThumbnailRequest(maxPixelSize: 128), pixelLimit: 1 << 30)
        }
        let pixels = try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data)
        let mean = ThumbnailTestSupport.meanColour(pixels)
        #expect(mean.allSatisfy { abs($0 - 128) < 12 }, "mean \(mean)")
    }
}
