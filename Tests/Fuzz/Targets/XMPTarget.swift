// The XMP packet scanner, as applied to metadata and as a sidecar.

func fuzzXMP(_ bytes: [UInt8]) {
    var metadata = MediaMetadata(format: .jpeg)
    XMPReader.apply(bytes, to: &metadata)
    _ = try? XMPReader.readSidecar(MemoryByteSource(bytes))
}
