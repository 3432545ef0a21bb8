// The HEIF item reader (Sources/MediaMetadata/ISOBMFF/HEIFItems.swift), which the
// thumbnailer's direct HEVC decoder trusts: it must reject or read any bytes, and every
// byte range it hands out for decoding must lie inside the file.

func fuzzHEIFItems(_ bytes: [UInt8]) {
    guard let items = try? HEIFItems.read(MemoryByteSource(bytes)) else { return }
    let size = UInt64(bytes.count)
    for id in items.items.keys {
        // Protected items, construction method 2 and bad extents throw here.
        guard let ranges = try? items.fileRanges(of: id, fileSize: size) else { continue }
        for range in ranges where range.upperBound > size {
            fatalError("item \(id): data range \(range) lies outside the \(size)-byte file")
        }
        _ = items.orientation(of: id)
        _ = items.spatialExtent(of: id)
        _ = items.grid(id, source: MemoryByteSource(bytes))
        _ = try? items.data(of: id, source: MemoryByteSource(bytes), limit: 1 << 20)
    }
}
