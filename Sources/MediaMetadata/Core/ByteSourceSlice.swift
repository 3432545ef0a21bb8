/// A window onto part of another byte source, seen as a source of its own: an MP4
/// embedded in a motion photo is parsed in place by the ordinary readers.
public struct ByteSourceSlice: ByteSource {
    public let base: ByteSource
    /// Where the window starts in `base`.
    public let offset: UInt64
    /// The window's length, clamped to what `base` holds.
    public let size: UInt64

    /// A window of `length` bytes at `offset`; shorter when `base` ends first.
    public init(_ base: ByteSource, offset: UInt64, length: UInt64) {
        self.base = base
        self.offset = min(offset, base.size)
        self.size = min(length, base.size - self.offset)
    }

    public func read(at position: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, position < size else { return [] }
        let wanted = Int(min(UInt64(count), size - position))
        return try base.read(at: offset + position, count: wanted)
    }
}
