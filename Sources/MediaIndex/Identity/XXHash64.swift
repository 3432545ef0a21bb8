/// XXH64, the 64-bit xxHash of Yann Collet: fast, well distributed, not cryptographic.
///
/// Identity needs protection against accidents, not attackers, and must not slow the
/// indexer, so this is the fingerprint's hash. Checked against the published vectors.
public struct XXHash64: Sendable {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var v1, v2, v3, v4: UInt64
    private let seed: UInt64
    private var buffer: [UInt8] = []
    private var totalLength: UInt64 = 0

    /// Starts a hash with the given seed.
    public init(seed: UInt64 = 0) {
        self.seed = seed
        v1 = seed &+ Self.prime1 &+ Self.prime2
        v2 = seed &+ Self.prime2
        v3 = seed
        v4 = seed &- Self.prime1
        buffer.reserveCapacity(32)
    }

    /// The hash of `bytes` in one call.
    public static func hash<Bytes: Collection>(_ bytes: Bytes, seed: UInt64 = 0) -> UInt64 where Bytes.Element == UInt8 {
        var hasher = XXHash64(seed: seed)
        hasher.update(bytes)
        return hasher.finalize()
    }

    @inline(__always)
    private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        var acc = acc &+ input &* prime2
        acc = (acc << 31) | (acc >> 33)
        return acc &* prime1
    }

    @inline(__always)
    private static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        let acc = acc ^ round(0, value)
        return acc &* prime1 &+ prime4
    }

    @inline(__always)
    private static func readLE64(_ p: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Adds bytes to the hash.
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(raw: UnsafeRawBufferPointer($0)) }) {
            return done
        }
        let copy = Array(bytes)
        copy.withUnsafeBytes { update(raw: $0) }
    }

    private mutating func update(raw input: UnsafeRawBufferPointer) {
        totalLength &+= UInt64(input.count)
        var offset = 0
        if !buffer.isEmpty {
            let take = min(32 - buffer.count, input.count)
            buffer.append(contentsOf: input[0..<take])
            offset = take
            if buffer.count < 32 { return }
            buffer.withUnsafeBytes { stripe in consumeStripes(stripe, count: 32) }
            buffer.removeAll(keepingCapacity: true)
        }
        let remaining = input.count - offset
        let whole = remaining - remaining % 32
        if whole > 0 {
            consumeStripes(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + whole)]), count: whole)
            offset += whole
        }
        if offset < input.count { buffer.append(contentsOf: input[offset...]) }
    }

    private mutating func consumeStripes(_ p: UnsafeRawBufferPointer, count: Int) {
        var a = v1, b = v2, c = v3, d = v4
        var i = 0
        while i + 32 <= count {
            a = Self.round(a, Self.readLE64(p, i))
            b = Self.round(b, Self.readLE64(p, i + 8))
            c = Self.round(c, Self.readLE64(p, i + 16))
            d = Self.round(d, Self.readLE64(p, i + 24))
            i += 32
        }
        v1 = a; v2 = b; v3 = c; v4 = d
    }

    /// The 64-bit digest of everything added so far.
    public func finalize() -> UInt64 {
        var h: UInt64
        if totalLength >= 32 {
            h = ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57))
                &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
            h = Self.merge(h, v1)
            h = Self.merge(h, v2)
            h = Self.merge(h, v3)
            h = Self.merge(h, v4)
        } else {
            h = seed &+ Self.prime5
        }
        h &+= totalLength
        buffer.withUnsafeBytes { p in
            var i = 0
            while i + 8 <= p.count {
                let k = Self.round(0, Self.readLE64(p, i))
                h ^= k
                h = ((h << 27) | (h >> 37)) &* Self.prime1 &+ Self.prime4
                i += 8
            }
            if i + 4 <= p.count {
                h ^= UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt32.self))) &* Self.prime1
                h = ((h << 23) | (h >> 41)) &* Self.prime2 &+ Self.prime3
                i += 4
            }
            while i < p.count {
                h ^= UInt64(p[i]) &* Self.prime5
                h = ((h << 11) | (h >> 53)) &* Self.prime1
                i += 1
            }
        }
        h ^= h >> 33
        h &*= Self.prime2
        h ^= h >> 29
        h &*= Self.prime3
        h ^= h >> 32
        return h
    }
}
