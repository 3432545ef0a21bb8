// The thumbnail layer's BMP decoder (Sources/MediaThumbnails/Decoding/BMPDecoder.swift and
// the shrinking it feeds, compiled into this binary by scripts/fuzz): any bytes give a
// picture of the requested size or a ThumbnailError, never a crash, a hang or a huge allocation.

func fuzzBMPDecoder(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { data in
        guard let decoded = try? BMPDecoder.decode(data, request: ThumbnailRequest(maxPixelSize: 64), pixelLimit: 4_000_000)
        else { return }
        let image = decoded.image
        if image.width < 1 || image.height < 1 || image.width > 64 || image.height > 64
            || image.pixels.count != image.width * image.height * image.channels {
            fatalError("a \(decoded.size) BMP gave a \(image.width)×\(image.height)×\(image.channels) thumbnail")
        }
    }
}
