import Testing
@testable import MediaIndex

@Suite("RowIDSet: the pairer's sets of row ids")
struct RowIDSetTests {
    @Test("holds what a Set<Int64> holds, and gives it in ascending order")
    func agreesWithSet() {
        var generator = SystemRandomNumberGenerator()
        var reference = Set<Int64>()
        var set = RowIDSet()
        // Dense ids, ids across page boundaries, far-apart ids, zero and negatives.
        let samples: [Int64] = (0..<5_000).map { _ in Int64.random(in: 1...200_000, using: &generator) }
            + [0, 65_535, 65_536, 65_537, 131_071, 1 << 40, -1, -65_536, -65_537]
        for id in samples {
            let inserted = set.insert(id), wasNew = reference.insert(id).inserted
            #expect(inserted == wasNew)
        }
        for id in samples.prefix(1_000) {
            let removed = set.remove(id), wasThere = reference.remove(id) != nil
            #expect(removed == wasThere)
        }
        #expect(set.count == reference.count)
        #expect(Array(set) == reference.sorted())
        for id in samples { #expect(set.contains(id) == reference.contains(id)) }
    }

    @Test("an emptied page is dropped, and an empty set iterates nothing")
    func empties() {
        var set = RowIDSet([7, 70_000])
        let first = set.remove(70_000), second = set.remove(70_000)
        #expect(first && !second)
        #expect(Array(set) == [7])
        let last = set.remove(7)
        #expect(last)
        #expect(set.isEmpty)
        #expect(Array(set).isEmpty)
        #expect(set == RowIDSet())
    }

    @Test("a million dense ids iterate in order")
    func dense() {
        let set = RowIDSet(1...1_000_000)
        #expect(set.count == 1_000_000)
        var expected: Int64 = 1
        for id in set {
            guard id == expected else { Issue.record("got \(id), expected \(expected)"); return }
            expected += 1
        }
        #expect(expected == 1_000_001)
    }
}
