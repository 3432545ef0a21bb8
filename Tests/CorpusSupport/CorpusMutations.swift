import Foundation

/// Deterministic corruptions of a file's bytes, for the corruption tests: truncations,
/// flipped header bytes, and the first size fields set to 0, all ones and past the end.
///
/// Format-agnostic on purpose (this target knows nothing of the readers): the size
/// fields are found from the magic bytes of the common containers.
public enum CorpusMutations {
    /// One corrupted copy and what was done to it.
    public struct Mutation: Sendable {
        public var name: String
        public var bytes: [UInt8]
    }

    /// Every mutation of `bytes`; `seed` (e.g. a hash of the path) picks the flipped bytes.
    public static func mutations(of bytes: [UInt8], seed: UInt64) -> [Mutation] {
        var result: [Mutation] = []
        let count = bytes.count
        // Truncations.
        var cuts = Set([8, 32, 256, 4096, count / 2, count - 1].filter { $0 > 0 && $0 < count })
        if count > 16 { cuts.insert(count - 16) }
        for cut in cuts.sorted() {
            result.append(Mutation(name: "truncated at \(cut)", bytes: Array(bytes[0..<cut])))
        }
        // Flipped bytes in the header (the first 512 bytes), skipping the first 4 so
        // most mutants stay recognisable and reach the container reader.
        var random = SplitMix64(seed: seed)
        let headerEnd = min(count, 512)
        if headerEnd > 8 {
            for round in 0..<3 {
                var mutant = bytes
                var flipped: [Int] = []
                for _ in 0..<(2 + round * 3) {
                    let at = 4 + Int(random.next() % UInt64(headerEnd - 4))
                    mutant[at] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                    flipped.append(at)
                }
                result.append(Mutation(name: "flipped bytes \(flipped.sorted())", bytes: mutant))
            }
        }
        // Size fields.
        for field in sizeFields(bytes) {
            let maximum: UInt64 = field.width == 2 ? 0xFFFF : 0xFFFF_FFFF
            let pastEnd = min(maximum, UInt64(count) + 1000)
            for (label, value) in [("0", UInt64(0)), ("all ones", maximum), ("past the end", pastEnd)] {
                var mutant = bytes
                write(value, into: &mutant, at: field.offset, width: field.width, bigEndian: field.bigEndian)
                result.append(Mutation(name: "size field at \(field.offset) set to \(label)", bytes: mutant))
            }
        }
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]), count > 12 {
            // EBML sizes are variable-length: an 8-byte "unknown" size and a zero size.
            var unknown = Array(bytes[0..<4]) + [0x01] + Array(repeating: 0xFF, count: 7)
            unknown += bytes[min(count, 5 + Self.vintLength(bytes[4]))...]
            result.append(Mutation(name: "EBML header size unknown", bytes: unknown))
            var zero = bytes
            zero[4] = 0x80
            result.append(Mutation(name: "EBML header size 0", bytes: zero))
        }
        return result
    }

    /// Where the first length fields of the header are, by container.
    public static func sizeFields(_ b: [UInt8]) -> [(offset: Int, width: Int, bigEndian: Bool)] {
        let count = b.count
        func be32(_ at: Int) -> Int { at + 4 <= count ? Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) : -1 }
        func be16(_ at: Int) -> Int { at + 2 <= count ? Int(b[at]) << 8 | Int(b[at + 1]) : -1 }
        func le32(_ at: Int) -> Int { at + 4 <= count ? Int(b[at + 3]) << 24 | Int(b[at + 2]) << 16 | Int(b[at + 1]) << 8 | Int(b[at]) : -1 }
        var fields: [(Int, Int, Bool)] = []
        if count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) {
            fields.append((0, 4, true))  // ftyp
            let next = be32(0)
            if next >= 8, next + 4 <= count { fields.append((next, 4, true)) }  // the box after it
        } else if b.starts(with: Array("RIFF".utf8)) {
            fields.append((4, 4, false))
            if count >= 20 { fields.append((16, 4, false)) }  // the first chunk
        } else if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            fields.append((8, 4, true))  // IHDR
            if count >= 37 { fields.append((33, 4, true)) }  // the chunk after it
        } else if b.starts(with: [0xFF, 0xD8]) {
            fields.append((4, 2, true))  // the first segment
            let next = 4 + be16(4)
            if be16(4) >= 2, next + 4 <= count { fields.append((next + 2, 2, true)) }
        } else if b.starts(with: Array("II".utf8)) || b.starts(with: Array("MM".utf8)) {
            let big = b[0] == 0x4D
            fields.append((4, 4, big))  // the first directory's offset
            let ifd = big ? be32(4) : le32(4)
            if ifd > 0, ifd + 2 <= count { fields.append((ifd, 2, big)) }  // its entry count
        } else if b.starts(with: Array("BM".utf8)) {
            fields.append((2, 4, false))
            if count >= 18 { fields.append((14, 4, false)) }
        } else if b.starts(with: Array("GIF".utf8)) {
            if count >= 10 { fields.append((6, 2, false)) }  // the logical screen
        } else if count >= 8 {
            fields.append((0, 4, true))
            fields.append((4, 4, false))
        }
        return fields.filter { $0.0 >= 0 && $0.0 + $0.1 <= count }.map { (offset: $0.0, width: $0.1, bigEndian: $0.2) }
    }

    private static func write(_ value: UInt64, into bytes: inout [UInt8], at offset: Int, width: Int, bigEndian: Bool) {
        for i in 0..<width {
            let shift = bigEndian ? (width - 1 - i) * 8 : i * 8
            bytes[offset + i] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
        }
    }

    private static func vintLength(_ first: UInt8) -> Int {
        var mask: UInt8 = 0x80
        var length = 1
        while length <= 8 && first & mask == 0 { mask >>= 1; length += 1 }
        return length
    }

    /// A stable seed for a path (FNV-1a), so runs are reproducible.
    public static func seed(for path: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

/// A tiny deterministic generator (SplitMix64, Steele, Lea and Flood): the same numbers on
/// every run, for mutations and made-up data.
public struct SplitMix64: Sendable, RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Corpus {
    /// Paths (relative to `media/`) of every corpus file, sorted.
    public static var allMediaPaths: [String] {
        manifest.compactMap { $0["path"]?.string }.sorted()
    }
}
