import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

@Suite("Hamming index: every pair within the radius, exactly")
struct HammingIndexTests {
    /// Hashes in clusters (a centre and copies a few bits off) among random ones, as a
    /// library holds duplicates among unrelated photos.
    static func hashes(count: Int, seed: UInt64) -> [UInt64] {
        var generator = SplitMix64(seed: seed)
        var hashes: [UInt64] = []
        while hashes.count < count {
            let centre = generator.next()
            hashes.append(centre)
            for _ in 0..<Int(generator.next() % 4) {
                var copy = centre
                for _ in 0..<Int(generator.next() % 16) { copy ^= 1 << (generator.next() % 64) }
                hashes.append(copy)
            }
        }
        return Array(hashes.prefix(count))
    }

    static func bruteForce(_ hashes: [UInt64], radius: Int) -> Set<[Int]> {
        var pairs = Set<[Int]>()
        for i in hashes.indices {
            for j in (i + 1)..<hashes.count where (hashes[i] ^ hashes[j]).nonzeroBitCount <= radius { pairs.insert([i, j]) }
        }
        return pairs
    }

    @Test("at every radius from 0 to 15 the pairs are those a brute-force pass finds, each once", arguments: [0, 3, 4, 7, 8, 10, 12, 15])
    func matchesBruteForce(radius: Int) {
        let hashes = Self.hashes(count: 1500, seed: UInt64(radius) + 7)
        let found = HammingIndex(hashes).pairs(within: radius, threads: 2)
        let asSets = found.map { [$0.first, $0.second] }
        #expect(asSets.count == Set(asSets).count, "a pair was reported twice")
        #expect(Set(asSets) == Self.bruteForce(hashes, radius: radius))
        #expect(found.allSatisfy { $0.distance == (hashes[$0.first] ^ hashes[$0.second]).nonzeroBitCount })
    }

    @Test("looking hashes up finds, for each, every indexed hash within the radius once", arguments: [5, 7, 8])
    func matchesOfQueries(radius: Int) {
        let indexed = Self.hashes(count: 1200, seed: 99)
        let queries = Self.hashes(count: 300, seed: 99).map { $0 ^ 0b1011 } + Self.hashes(count: 100, seed: 5)
        let found = HammingIndex(indexed).matches(of: queries, within: radius, threads: 2)
        var expected = Set<[Int]>()
        for (q, query) in queries.enumerated() {
            for (row, hash) in indexed.enumerated() where (query ^ hash).nonzeroBitCount <= radius { expected.insert([q, row]) }
        }
        #expect(found.count == expected.count)
        #expect(Set(found.map { [$0.query, $0.row] }) == expected)
    }

    @Test("duplicates' lookup finds every pair whose whole hashes are within 8 bits or a centre within 6 of the other's whole, once, with the smallest distance, as a brute-force pass does")
    func closePairsMatchBruteForce() {
        let whole = Self.hashes(count: 1200, seed: 41)
        // Centres: some a few bits off another picture's whole hash (a crop of it), some random.
        var generator = SplitMix64(seed: 42)
        let crop1 = whole.indices.map { i -> UInt64? in
            guard i % 3 == 0 else { return generator.next() }
            let first: UInt64 = 1 << (generator.next() % 64)
            let second: UInt64 = 1 << (generator.next() % 64)
            return whole[(i * 7) % whole.count] ^ first ^ second
        }
        let crop2 = whole.indices.map { i -> UInt64? in i % 5 == 0 ? nil : generator.next() }
        var expected: [[Int]: Int] = [:]
        for i in whole.indices {
            for j in (i + 1)..<whole.count {
                let wholes = (whole[i] ^ whole[j]).nonzeroBitCount
                var centres: [Int] = []
                for centre in [crop1[i], crop2[i]].compactMap({ $0 }) { centres.append((centre ^ whole[j]).nonzeroBitCount) }
                for centre in [crop1[j], crop2[j]].compactMap({ $0 }) { centres.append((centre ^ whole[i]).nonzeroBitCount) }
                let within = (wholes <= DuplicateGate.duplicateRadius ? [wholes] : [])
                    + centres.filter { $0 <= DuplicateGate.centreRadius }
                if let best = within.min() { expected[[i, j]] = best }
            }
        }
        let found = DuplicateLookup.closePairs(whole: whole, crop1: crop1, crop2: crop2, threads: 2)
        #expect(found.count == expected.count)
        #expect(Dictionary(uniqueKeysWithValues: found.map { ([$0.first, $0.second], $0.distance) }) == expected)
        #expect(expected.count > 100)
    }

    @Test("the per-chunk allowances add up so that the pigeonhole holds: Σ (t + 1) > radius")
    func allowances() {
        for radius in 0...HammingIndex.maximumRadius {
            let allowed = HammingIndex.allowances(for: radius)
            #expect(allowed.reduce(0) { $0 + $1 + 1 } > radius && allowed.allSatisfy { (0...3).contains($0) })
        }
        #expect(HammingIndex.allowances(for: 7) == [1, 1, 1, 1])
        #expect(HammingIndex.allowances(for: 8) == [2, 1, 1, 1])
    }

    @Test("equal hashes are pairs at distance 0; fewer than two hashes make none")
    func edges() {
        #expect(HammingIndex([]).pairs(within: 10).isEmpty)
        #expect(HammingIndex([42]).pairs(within: 10).isEmpty)
        let pairs = HammingIndex([7, 7, 7]).pairs(within: 0)
        #expect(pairs.count == 3 && pairs.allSatisfy { $0.distance == 0 })
    }
}

@Suite("Capture instants as duplicates compare them")
struct CaptureInstantTests {
    @Test("reads the recorded text: wall clock, sub-seconds and offset when present")
    func parses() throws {
        let full = try #require(CaptureInstant(recorded: "2021-05-01T10:00:10.25+02:00"))
        #expect(full.nanoseconds == 250_000_000 && full.offsetSeconds == 7200)
        let bare = try #require(CaptureInstant(recorded: "2021-05-01T10:00:10"))
        #expect(bare.nanoseconds == nil && bare.offsetSeconds == nil)
        #expect(bare.localSeconds == full.localSeconds)
        #expect(CaptureInstant(recorded: "2021-05-01T10:00:10Z")?.offsetSeconds == 0)
        #expect(CaptureInstant(recorded: "May 1st") == nil)
    }

    @Test("sub-seconds on either side count (absent ones as zero, as ISO text drops .000); offsets only when both have them")
    func sameInstant() throws {
        let a = try #require(CaptureInstant(recorded: "2021-05-01T10:00:10.25+02:00"))
        let b = try #require(CaptureInstant(recorded: "2021-05-01T10:00:10.50+02:00"))
        let noSubseconds = try #require(CaptureInstant(recorded: "2021-05-01T10:00:10+02:00"))
        let noOffset = try #require(CaptureInstant(recorded: "2021-05-01T10:00:10.25"))
        let otherZone = try #require(CaptureInstant(recorded: "2021-05-01T09:00:10.25+01:00"))
        #expect(!a.isSameInstant(as: b))
        #expect(!a.isSameInstant(as: noSubseconds))
        #expect(noSubseconds.isSameInstant(as: try #require(CaptureInstant(recorded: "2021-05-01T10:00:10+02:00"))))
        #expect(a.isSameInstant(as: noOffset))
        #expect(a.isSameInstant(as: otherZone))
        #expect(abs(a.seconds(to: b) - 0.25) < 1e-9)
    }
}

@Suite("The duplicate gate's decision table (docs/duplicates.md), row by row")
struct DuplicateGateTests {
    static func facts(_ time: String?, _ camera: String? = "canon\u{1F}eos 6d", burst: String? = nil) -> DuplicateGate.Facts {
        DuplicateGate.Facts(capture: time.flatMap(CaptureInstant.init(recorded:)), camera: camera, burst: burst)
    }
    static let near = DuplicateGate.duplicateRadius
    static let far = DuplicateGate.similarRadius

    @Test("both instants known and the same, same camera, within the duplicate radius: duplicate")
    func sameInstant() {
        #expect(DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10.25"), Self.facts("2021-05-01T10:00:10.25"), distance: Self.near) == .duplicate)
        #expect(DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10.25"), Self.facts("2021-05-01T10:00:10.25"), distance: Self.near + 1) == nil)
    }

    @Test("one or both instants unknown, within the duplicate radius: duplicate; beyond it: nothing")
    func unknownInstant() {
        #expect(DuplicateGate.verdict(Self.facts(nil), Self.facts("2021-05-01T10:00:10"), distance: 0) == .duplicate)
        #expect(DuplicateGate.verdict(Self.facts(nil, nil), Self.facts(nil), distance: Self.near) == .duplicate)
        #expect(DuplicateGate.verdict(Self.facts(nil), Self.facts("2021-05-01T10:00:10"), distance: Self.near + 1) == nil)
    }

    @Test("instants differing by a quarter second, even at distance 0: similar at most")
    func subsecondsDiffer() {
        let verdict = DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10.25"), Self.facts("2021-05-01T10:00:10.50"), distance: 0)
        #expect(verdict == .similar)
    }

    @Test("instants under 60 s apart, within the similar radius: similar; beyond it: nothing")
    func series() {
        #expect(DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10"), Self.facts("2021-05-01T10:01:10"), distance: Self.far) == .similar)
        #expect(DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10"), Self.facts("2021-05-01T10:00:40"), distance: Self.far + 1) == nil)
    }

    @Test("instants more than 60 s apart: nothing, however close the pictures")
    func apart() {
        #expect(DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10"), Self.facts("2021-05-01T10:01:11"), distance: 0) == nil)
    }

    @Test("different camera bodies: nothing, even at the same instant and distance 0; one unknown camera does not separate")
    func cameras() {
        let other = Self.facts("2021-05-01T10:00:10", "nikon\u{1F}d750")
        #expect(DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10"), other, distance: 0) == nil)
        #expect(DuplicateGate.verdict(Self.facts("2021-05-01T10:00:10"), Self.facts("2021-05-01T10:00:10", nil), distance: 0) == .duplicate)
    }

    @Test("two frames of one camera burst are never duplicates, even recorded at the same second")
    func burst() {
        let a = Self.facts("2021-05-01T10:00:10", burst: "B1"), b = Self.facts("2021-05-01T10:00:10", burst: "B1")
        #expect(DuplicateGate.verdict(a, b, distance: 0) == .similar)
        #expect(DuplicateGate.verdict(Self.facts(nil, burst: "B1"), Self.facts(nil, burst: "B1"), distance: 0) == .similar)
    }
}

@Suite("Keeper rules and grouping")
struct DuplicateGrouperTests {
    static func keeper(_ id: String, camera: Bool = true, pixels: Int = 1000, gps: Bool = false, date: Bool = true,
                       format: String = "jpeg", modified: Int64 = 100, album: Bool = false) -> KeeperFacts {
        KeeperFacts(identifier: id, hasCamera: camera, pixels: pixels, hasGPS: gps, hasCaptureDate: date, hasKeywords: false,
                    format: format, modified: modified, inAlbum: album, isFavorite: false)
    }

    @Test("each rule decides only when the ones before it tie: original, pixels, metadata, lossless, older, identifier")
    func rulesInOrder() throws {
        let cases: [([KeeperFacts], String, KeeperRule)] = [
            ([Self.keeper("a", camera: false, pixels: 5000), Self.keeper("b")], "b", .original),
            ([Self.keeper("a", pixels: 500, gps: true), Self.keeper("b")], "b", .largerPixelSize),
            ([Self.keeper("a"), Self.keeper("b", gps: true, format: "png")], "b", .moreMetadata),
            ([Self.keeper("a", modified: 1), Self.keeper("b", format: "png")], "b", .losslessFormat),
            ([Self.keeper("a", modified: 50), Self.keeper("b", modified: 10)], "b", .olderFile),
            ([Self.keeper("b"), Self.keeper("a")], "a", .identifier),
        ]
        for (members, expected, rule) in cases {
            let (chosen, why) = try #require(KeeperFacts.keeper(of: members))
            #expect(chosen.identifier == expected && why == rule, "expected \(expected) by \(rule)")
        }
    }

    @Test("the others list what they have that the keeper lacks")
    func extras() {
        let keeper = Self.keeper("k", date: false)
        #expect(Self.keeper("o", gps: true, album: true).extras(over: keeper) == ["gps", "captureDate", "album"])
        #expect(Self.keeper("o", date: false).extras(over: keeper).isEmpty)
    }

    static func candidate(_ id: String, hash: UInt64, time: String?, camera: String? = "x") -> DuplicateCandidate {
        DuplicateCandidate(facts: Self.keeper(id), gate: DuplicateGate.Facts(capture: time.flatMap(CaptureInstant.init(recorded:)),
                                                                             camera: camera), hash: hash, isVideo: false)
    }

    @Test("a series chains through its neighbours: shots 40 s apart make one similar group over two minutes")
    func seriesChains() {
        let base: UInt64 = 0xF0F0_1234_ABCD_0F0F
        let shots = (0..<4).map { k in
            Self.candidate("s\(k)", hash: base ^ (UInt64(0b111) << UInt64(k * 3)), time: "2021-05-01T10:0\(k * 40 / 60):\(String(format: "%02d", k * 40 % 60))")
        }
        let groups = DuplicateGrouper(candidates: shots, sameFile: [], sharedFiles: []).groups()
        #expect(groups.count == 1)
        #expect(groups.first?.kind == .similar && groups.first?.assets.count == 4 && groups.first?.keeper == nil)
    }

    @Test("two shots framed a little apart are similar when their centres are close, though their whole pictures are not")
    func shotsCompareCentres() {
        let base: UInt64 = 0x0F0F_5555_AAAA_3C3C
        var first = Self.candidate("a", hash: base, time: "2021-05-01T10:00:10")
        var second = Self.candidate("b", hash: base ^ 0xFFFF_F, time: "2021-05-01T10:00:11")  // 20 bits apart
        first.croppedHashes = [base ^ 0xFFFF_0000_0000_0000, base ^ 0xFF00_0000_0000]
        second.croppedHashes = [base ^ 0xFFFF_0000_0000_03FF, base ^ 0xFFFF_FFFF_0000_0000]  // the 2.5 % centres: 10 bits apart
        #expect(PerceptualDistance.closest(first, second) ?? 0 > DuplicateGate.similarRadius)
        #expect(PerceptualDistance.closestShots(first, second) == 10)
        let groups = DuplicateGrouper(candidates: [first, second], sameFile: [], sharedFiles: []).groups()
        #expect(groups.map(\.kind) == [.similar])
    }

    @Test("a hard link is one file: in its same-file group, never in a duplicate group beside its other path")
    func hardLinks() {
        let h: UInt64 = 0x1234_5678_9ABC_DEF0
        let members = [Self.candidate("a", hash: h, time: nil), Self.candidate("b", hash: h, time: nil),
                       Self.candidate("c", hash: h ^ 0b11, time: nil)]
        let groups = DuplicateGrouper(candidates: members, sameFile: [[0, 1]], sharedFiles: [[0, 1]]).groups()
        let sameFile = groups.filter { $0.kind == .sameFile }
        let duplicates = groups.filter { $0.kind == .duplicate }
        #expect(sameFile.count == 1 && sameFile[0].sharedFiles == [["a", "b"]])
        #expect(duplicates.count == 1 && Set(duplicates[0].assets) == ["a", "c"])
    }

    @Test("a group's identifier stays while its members do, and changes when one joins")
    func stableIdentifiers() {
        let one = DuplicateGroup.identifier(kind: .duplicate, members: ["b", "a"])
        #expect(one == DuplicateGroup.identifier(kind: .duplicate, members: ["a", "b"]))
        #expect(one != DuplicateGroup.identifier(kind: .duplicate, members: ["a", "b", "c"]))
        #expect(one != DuplicateGroup.identifier(kind: .similar, members: ["a", "b"]))
    }
}
