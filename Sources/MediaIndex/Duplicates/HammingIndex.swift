import Foundation

/// Every pair of 64-bit hashes within a Hamming radius, by multi-index hashing
/// (Norouzi, Punjani and Fleet): the hashes are split into four 16-bit chunks and
/// bucketed on each. If two hashes differ in at most `r` bits, then for any per-chunk
/// allowances `t₀…t₃` with `Σ (tᵢ + 1) > r` some chunk differs in at most its `tᵢ`
/// bits (pigeonhole), so comparing the buckets of each chunk whose values differ within
/// its allowance finds every pair: exact, not approximate, and far below n²
/// comparisons. The allowances are spread as evenly as that sum allows (radius 7: one
/// bit each; 8: 2, 1, 1, 1).
///
/// The work is a join of bucket tables rather than a probe per hash: per chunk, the
/// hashes are counting-sorted by chunk value into one flat array (hashes beside their
/// row numbers), and for each difference `mask` within the allowance every non-empty
/// bucket `v` is compared with bucket `v ^ mask`. For a fixed mask both walks go up
/// through memory, so a million hashes are compared from the cache, not by a miss per
/// probe. A pair close in several chunks is reported by the first chunk within its
/// allowance only; one chunk's tables are built at a time (12 bytes a hash).
public struct HammingIndex: Sendable {
    /// The hashes, as given.
    public let hashes: [UInt64]

    static let chunkCount = 4
    static let chunkBits = 16

    /// Indexes `hashes` (at most 2³² − 1 of them).
    public init(_ hashes: [UInt64]) {
        precondition(hashes.count < Int(UInt32.max), "a Hamming index holds fewer than 2^32 hashes")
        self.hashes = hashes
    }

    static func chunk(_ hash: UInt64, _ index: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: hash >> UInt64(index * chunkBits))
    }

    /// Every pair `(i, j)`, `i < j`, whose hashes differ in at most `radius` bits
    /// (0…`maximumRadius`), once each, in no particular order, with its distance. Runs
    /// on `threads` threads.
    public func pairs(within radius: Int, threads: Int = ProcessInfo.processInfo.activeProcessorCount)
        -> [(first: Int, second: Int, distance: Int)] {
        join(queries: nil, radius: radius, threads: threads) { (first: $0, second: $1, distance: $2) }
    }

    /// For each of `queries`, every indexed hash within `radius` bits of it, once:
    /// `(query, row, distance)`, in no particular order. Runs on `threads` threads.
    public func matches(of queries: [UInt64], within radius: Int,
                        threads: Int = ProcessInfo.processInfo.activeProcessorCount) -> [(query: Int, row: Int, distance: Int)] {
        join(queries: queries, radius: radius, threads: threads) { (query: $0, row: $1, distance: $2) }
    }

    /// Per-chunk allowances for `radius`: Σ (tᵢ + 1) = radius + 1, the larger ones first.
    static func allowances(for radius: Int) -> [Int] {
        let total = radius + 1 - chunkCount  // Σ tᵢ
        return (0..<chunkCount).map { chunk in max(0, total / chunkCount + (chunk < total % chunkCount ? 1 : 0)) }
    }

    /// The pairs of `queries` (or, when nil, of the hashes among themselves, left < right)
    /// with the hashes, chunk by chunk, the masks of a chunk striped over the threads;
    /// `make` shapes each `(left row, right row, distance)` as it is found.
    private func join<Found>(queries: [UInt64]?, radius: Int, threads: Int,
                             make: @escaping @Sendable (Int, Int, Int) -> Found) -> [Found] {
        precondition((0...Self.maximumRadius).contains(radius), "a Hamming index searches radii 0…\(Self.maximumRadius)")
        guard !hashes.isEmpty, queries?.isEmpty != true else { return [] }
        let allowed = Self.allowances(for: radius)
        var found: [Found] = []
        for chunk in 0..<Self.chunkCount {
            let right = BucketTable(hashes, chunk: chunk)
            let left = queries.map { BucketTable($0, chunk: chunk) } ?? right
            let masks = Self.masks(within: allowed[chunk])
            let workers = max(1, min(threads, masks.count, (hashes.count + (queries?.count ?? 0)) / 4096 + 1))
            let results = ConcurrentSlots<[Found]>(count: workers, initial: [])
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var mine: [Found] = []
                for m in stride(from: worker, to: masks.count, by: workers) {
                    left.compare(with: right, mask: masks[m], selfJoin: queries == nil, chunk: chunk,
                                 radius: radius, allowed: allowed) { mine.append(make($0, $1, $2)) }
                }
                results.set(worker, mine)
            }
            for list in results.values { found += list }
        }
        return found
    }

    /// The 16-bit values with at most `bits` (0…3) bits set, 0 first.
    static func masks(within bits: Int) -> [UInt16] {
        var masks: [UInt16] = [0]
        guard bits >= 1 else { return masks }
        for a in 0..<chunkBits {
            masks.append(1 << UInt16(a))
            guard bits >= 2 else { continue }
            for b in (a + 1)..<chunkBits {
                masks.append(1 << UInt16(a) | 1 << UInt16(b))
                guard bits >= 3 else { continue }
                for c in (b + 1)..<chunkBits { masks.append(1 << UInt16(a) | 1 << UInt16(b) | 1 << UInt16(c)) }
            }
        }
        return masks
    }

    /// The first chunk of `difference` within its allowance.
    static func firstCloseChunk(_ difference: UInt64, _ allowed: [Int]) -> Int {
        for chunk in 0..<chunkCount where Self.chunk(difference, chunk).nonzeroBitCount <= allowed[chunk] { return chunk }
        return chunkCount
    }

    /// The largest radius `pairs(within:)` takes: 15 (three bits per chunk).
    public static let maximumRadius = 15
}

/// Hashes counting-sorted by one 16-bit chunk: `offsets[v]..<offsets[v + 1]` are the
/// positions of the hashes whose chunk is `v`, in `values` beside their `rows`;
/// `occupied` lists the non-empty `v` in ascending order.
private struct BucketTable: Sendable {
    let offsets: [UInt32]
    let values: [UInt64]
    let rows: [UInt32]
    let occupied: [UInt16]

    init(_ hashes: [UInt64], chunk: Int) {
        let size = 1 << HammingIndex.chunkBits
        var counts = [UInt32](repeating: 0, count: size + 1)
        for hash in hashes { counts[Int(HammingIndex.chunk(hash, chunk)) + 1] += 1 }
        var occupied: [UInt16] = []
        for v in 0..<size {
            if counts[v + 1] > 0 { occupied.append(UInt16(v)) }
            counts[v + 1] += counts[v]
        }
        var next = counts
        var values = [UInt64](repeating: 0, count: hashes.count)
        var rows = [UInt32](repeating: 0, count: hashes.count)
        for (row, hash) in hashes.enumerated() {
            let v = Int(HammingIndex.chunk(hash, chunk))
            values[Int(next[v])] = hash
            rows[Int(next[v])] = UInt32(row)
            next[v] += 1
        }
        self.offsets = counts
        self.values = values
        self.rows = rows
        self.occupied = occupied
    }

    /// Compares every bucket `v` of this table with bucket `v ^ mask` of `other`,
    /// calling `found(row here, row there, distance)` for hashes within `radius` whose first
    /// chunk within its allowance is `chunk`. In a self-join a bucket pair is visited once
    /// (`v < v ^ mask`, or `i < j` inside one bucket) and pairs come out as (smaller, larger).
    func compare(with other: BucketTable, mask: UInt16, selfJoin: Bool, chunk: Int, radius: Int,
                 allowed: [Int], _ found: (Int, Int, Int) -> Void) {
        offsets.withUnsafeBufferPointer { leftOffsets in
        values.withUnsafeBufferPointer { leftValues in
        other.offsets.withUnsafeBufferPointer { rightOffsets in
        other.values.withUnsafeBufferPointer { rightValues in
            for v in occupied {
                let u = v ^ mask
                if selfJoin && mask != 0 && u < v { continue }
                let rightStart = Int(rightOffsets[Int(u)]), rightEnd = Int(rightOffsets[Int(u) + 1])
                guard rightStart < rightEnd else { continue }
                for i in Int(leftOffsets[Int(v)])..<Int(leftOffsets[Int(v) + 1]) {
                    let hash = leftValues[i]
                    let from = selfJoin && mask == 0 ? i + 1 : rightStart
                    for j in from..<max(from, rightEnd) {
                        let difference = hash ^ rightValues[j]
                        let distance = difference.nonzeroBitCount
                        guard distance <= radius, HammingIndex.firstCloseChunk(difference, allowed) == chunk else { continue }
                        let a = Int(rows[i]), b = Int(other.rows[j])
                        if selfJoin { found(min(a, b), max(a, b), distance) } else { found(a, b, distance) }
                    }
                }
            }
        }
        }
        }
        }
    }
}
