import Testing
@testable import MediaIndex

@Suite("XXHash64")
struct XXHash64Tests {
    // Published test vectors of the reference implementation (xxHash's own sanity
    // checks and the python-xxhash documentation).
    @Test("matches the published vectors", arguments: [
        ("", UInt64(0), UInt64(0xEF46_DB37_51D8_E999)),
        ("a", 0, 0xD24E_C4F1_A98C_6E5B),
        ("abc", 0, 0x44BC_2CF5_AD77_0999),
        ("Nobody inspects the spammish repetition", 0, 0xFBCE_A83C_8A37_8BF1),
        ("xxhash", 20_141_025, 0xB559_B98D_844E_0635),
    ])
    func publishedVectors(input: String, seed: UInt64, expected: UInt64) {
        #expect(XXHash64.hash(Array(input.utf8), seed: seed) == expected)
    }

    @Test("gives the same digest however the input is split")
    func streamingEqualsOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let oneShot = XXHash64.hash(bytes)
        for split in [0, 1, 7, 31, 32, 33, 64, 500, 999] {
            var hasher = XXHash64()
            hasher.update(bytes[0..<split])
            hasher.update(bytes[split...])
            #expect(hasher.finalize() == oneShot, "split at \(split)")
        }
    }
}

@Suite("Asset identifiers")
struct AssetIdentifierTests {
    @Test("are 13 URL-safe characters, deterministic, and distinct per copy")
    func identifierShape() {
        let fingerprint = ContentFingerprint(size: 10, hash: 0x0123_4567_89AB_CDEF)
        let first = AssetIdentifierFactory.identifier(for: fingerprint)
        let again = AssetIdentifierFactory.identifier(for: fingerprint)
        let second = AssetIdentifierFactory.identifier(for: fingerprint, ordinal: 1)
        #expect(first == again)
        #expect(first != second)
        #expect(AssetIdentifierFactory.isWellFormed(first))
        #expect(AssetIdentifierFactory.isWellFormed(second))
        #expect(first.allSatisfy { $0.isLowercase || $0.isNumber })
    }
}
