/// Reads bits least-significant first from bytes in memory, as DEFLATE (RFC 1951
/// §3.1.1) and GIF's LZW codes (GIF89a appendix F) pack them.
///
/// Reading past the end yields zero bits and sets `ranPastEnd`; it never traps.
public struct LSBFirstBitReader: Sendable {
    let bytes: [UInt8]
    /// The next whole byte not yet taken into the bit buffer.
    public private(set) var position: Int
    var bitBuffer = 0
    var bitCount = 0
    /// Whether a read ran past the end of the bytes.
    public private(set) var ranPastEnd = false

    /// A reader over `bytes` starting at byte `position`.
    public init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = max(0, position)
    }

    /// The next `count` bits (at most 24) as an integer, the first read bit lowest.
    public mutating func bits(_ count: Int) -> Int {
        while bitCount < count {
            guard position < bytes.count else { ranPastEnd = true; return 0 }
            bitBuffer |= Int(bytes[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << count) - 1)
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    /// Drops the bits left of the current byte, so the next read starts on a byte.
    public mutating func alignToByte() {
        bitBuffer = 0
        bitCount = 0
    }

    /// The next `count` whole bytes (after `alignToByte`), or nil when fewer are left.
    public mutating func takeBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count - position else { return nil }
        defer { position += count }
        return bytes[position..<(position + count)]
    }
}
