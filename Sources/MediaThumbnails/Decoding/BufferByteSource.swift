import MediaMetadata

/// A `ByteSource` over a file already held in memory, so the metadata layer's readers
/// can be asked about it without copying it. Valid only while the buffer is.
struct BufferByteSource: ByteSource {
    let buffer: UnsafeBufferPointer<UInt8>

    init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    var size: UInt64 { UInt64(buffer.count) }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, offset < UInt64(buffer.count) else { return [] }
        let start = Int(offset)
        return Array(buffer[start..<(start + min(count, buffer.count - start))])
    }
}
