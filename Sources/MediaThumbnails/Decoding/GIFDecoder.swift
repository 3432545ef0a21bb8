/// Decodes the first frame of a GIF (placeholder until the LZW decoder lands).
enum GIFDecoder {
    static func decodeFirstFrame(_ data: UnsafeBufferPointer<UInt8>, pixelLimit: Int) throws -> PixelBuffer {
        throw ThumbnailError.unsupportedFormat("GIF images (not decoded yet)")
    }
}
