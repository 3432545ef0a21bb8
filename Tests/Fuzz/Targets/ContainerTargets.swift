// Container readers over arbitrary bytes: they may throw MetadataError, never crash.

func fuzzJPEG(_ bytes: [UInt8]) { _ = try? JPEGReader.read(MemoryByteSource(bytes)) }
func fuzzISOBMFF(_ bytes: [UInt8]) {
    // The brand decides still versus movie handling: fuzz both paths.
    let format: MediaFormat = bytes.first.map { $0 & 1 == 0 } ?? true ? .heic : .quickTime
    _ = try? ISOBMFFReader.read(MemoryByteSource(bytes), format: format)
}
func fuzzMatroska(_ bytes: [UInt8]) { _ = try? MatroskaReader.read(MemoryByteSource(bytes)) }
func fuzzAVI(_ bytes: [UInt8]) { _ = try? RIFFReader.readAVI(MemoryByteSource(bytes)) }
func fuzzWebP(_ bytes: [UInt8]) { _ = try? RIFFReader.readWebP(MemoryByteSource(bytes)) }
func fuzzPNG(_ bytes: [UInt8]) { _ = try? PNGReader.read(MemoryByteSource(bytes)) }
func fuzzGIF(_ bytes: [UInt8]) { _ = try? GIFReader.read(MemoryByteSource(bytes)) }
func fuzzBMP(_ bytes: [UInt8]) { _ = try? BMPReader.read(MemoryByteSource(bytes)) }
