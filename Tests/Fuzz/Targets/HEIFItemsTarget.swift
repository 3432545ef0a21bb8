// The thumbnail layer's own HEIF item reader (Sources/MediaThumbnails/Decoding/HEIFItems.swift,
// compiled into this binary by scripts/fuzz): it must reject or read any bytes, and every
// byte range it hands out for decoding must lie inside the file.

func fuzzHEIFItems(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { file in
        guard let items = try? HEIFItems(file) else { return }
        for id in items.items.keys {
            // Protected items (construction method 2) and bad idat references throw here.
            guard let ranges = try? items.dataRanges(of: id) else { continue }
            for range in ranges where range.lowerBound < 0 || range.upperBound > file.count {
                fatalError("item \(id): data range \(range) lies outside the \(file.count)-byte file")
            }
        }
        for property in items.properties where property.payload.upperBound > file.count {
            fatalError("a property payload \(property.payload) lies outside the file")
        }
    }
}
