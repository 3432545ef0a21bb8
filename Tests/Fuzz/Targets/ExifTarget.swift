// libexif entry handling: ExifDecoder.apply on an arbitrary TIFF/EXIF block.

func fuzzExif(_ bytes: [UInt8]) {
    var metadata = MediaMetadata(format: .jpeg)
    ExifDecoder.apply(exif: bytes, to: &metadata)
}
