// The TIFF family: the container reader (raw formats share it) and the IFD walker alone.

func fuzzTIFF(_ bytes: [UInt8]) {
    let source = MemoryByteSource(bytes)
    _ = try? TIFFReader.read(source, format: .dng)
    _ = try? TIFFReader.readRAF(source)
}

func fuzzTIFFWalker(_ bytes: [UInt8]) {
    guard let walker = try? TIFFDirectoryWalker(source: MemoryByteSource(bytes)) else { return }
    _ = try? walker.exifDirectories()
}
