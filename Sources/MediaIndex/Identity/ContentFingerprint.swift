import MediaMetadata

/// A cheap fingerprint of a file's content: its size and the XXH64 of its head,
/// middle and tail blocks (the whole file when it is small).
///
/// Cheap enough to compute for every new or changed file during indexing; two files
/// that differ only outside the sampled blocks get the same fingerprint, which the
/// identity layer tolerates (identical fingerprints become distinct assets).
public struct ContentFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Bytes sampled at each of the three places.
    public static let blockSize = 64 * 1024

    /// The file size in bytes.
    public let size: UInt64
    /// XXH64 over the size and the sampled blocks.
    public let hash: UInt64

    public init(size: UInt64, hash: UInt64) {
        self.size = size
        self.hash = hash
    }

    /// Reads the sampled blocks of `source` and hashes them.
    ///
    /// - Throws: `MetadataError.io` when a read fails.
    public init(of source: ByteSource) throws {
        let size = source.size
        var hasher = XXHash64()
        withUnsafeBytes(of: size.littleEndian) { hasher.update($0) }
        let block = UInt64(Self.blockSize)
        if size <= 3 * block {
            hasher.update(try source.read(at: 0, count: Int(size)))
        } else {
            hasher.update(try source.read(at: 0, count: Self.blockSize))
            hasher.update(try source.read(at: size / 2 - block / 2, count: Self.blockSize))
            hasher.update(try source.read(at: size - block, count: Self.blockSize))
        }
        self.size = size
        self.hash = hasher.finalize()
    }

    /// 16 lowercase hex digits of the hash.
    public var description: String {
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Parses the 16-hex-digit form.
    public init?(hex: String, size: UInt64 = 0) {
        guard hex.count == 16, let value = UInt64(hex, radix: 16) else { return nil }
        self.init(size: size, hash: value)
    }
}

/// Makes asset identifiers from content fingerprints.
///
/// An identifier is 13 characters of Crockford base 32 (lowercase, URL-safe). It is a
/// function of the content first seen and of the copy's ordinal among identical
/// contents, never of a counter, so a rebuilt database gives the same identifiers.
public enum AssetIdentifierFactory {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// The identifier of the `ordinal`-th copy (0 for the first) of content with this fingerprint.
    public static func identifier(for fingerprint: ContentFingerprint, ordinal: Int = 0) -> String {
        var value = fingerprint.hash
        if ordinal > 0 {
            var hasher = XXHash64(seed: UInt64(ordinal))
            withUnsafeBytes(of: fingerprint.hash.littleEndian) { hasher.update($0) }
            value = hasher.finalize()
        }
        var characters = [UInt8](repeating: 0, count: 13)
        // 13 × 5 = 65 bits: the top character carries the top 4 bits.
        for index in stride(from: 12, through: 0, by: -1) {
            characters[index] = alphabet[Int(value & 31)]
            value >>= 5
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether a string has the shape of an identifier (13 base-32 characters).
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 13 && text.utf8.allSatisfy { alphabet.contains($0) }
    }
}
