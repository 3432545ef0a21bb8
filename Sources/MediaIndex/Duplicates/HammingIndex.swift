import Foundation

/// Every pair of 64-bit hashes within a Hamming radius, by multi-index hashing
/// (Norouzi, Punjani and Fleet): the hashes are split into four 16-bit chunks and
/// bucketed on each. If two hashes differ in at most `r` bits, then for any per-chunk
/// allowances `t₀…t₃` with `Σ (tᵢ + 1) > r` some chunk differs in at most its `tᵢ`
/// bits (pigeonhole), so probing each chunk's buckets within its allowance finds every
/// pair: exact, not approximate, and far below n² comparisons. The allowances are
/// spread as evenly as that sum allows (radius 7: one bit each; 8: 2, 1, 1, 1).
///
/// Each bucket table is a counting sort of the hashes by chunk value, holding the
/// hashes themselves beside their row numbers so a probe reads one run of memory
/// (4 × n × 12 bytes plus 4 × 256 KB of offsets: about 50 MB for a million).
public struct HammingIndex: Sendable {
    /// The hashes, as given.
    public let hashes: [UInt64]
    /// Per chunk: `offsets[v]..<offsets[v + 1]` are the rows (in `rows`, with their
    /// hashes in `sortedHashes`) whose chunk is `v`.
    private let offsets: [[UInt32]]
    private let rows: [[UInt32]]
    private let sortedHashes: [[UInt64]]

    static let chunkCount = 4
    static let chunkBits = 16

    /// Buckets `hashes` (at most 2³² − 1 of them).
    public init(_ hashes: [UInt64]) {
        precondition(hashes.count < Int(UInt32.max), "a Hamming index holds fewer than 2^32 hashes")
        self.hashes = hashes
        var offsets: [[UInt32]] = []
        var rows: [[UInt32]] = []
        var sortedHashes: [[UInt64]] = []
        for chunk in 0..<Self.chunkCount {
            var counts = [UInt32](repeating: 0, count: (1 << Self.chunkBits) + 1)
            for hash in hashes { counts[Int(Self.chunk(hash, chunk)) + 1] += 1 }
            for v in 0..<(1 << Self.chunkBits) { counts[v + 1] += counts[v] }
            var next = counts
            var sorted = [UInt32](repeating: 0, count: hashes.count)
            var values = [UInt64](repeating: 0, count: hashes.count)
            for (row, hash) in hashes.enumerated() {
                let v = Int(Self.chunk(hash, chunk))
                sorted[Int(next[v])] = UInt32(row)
                values[Int(next[v])] = hash
                next[v] += 1
            }
            offsets.append(counts)
            rows.append(sorted)
            sortedHashes.append(values)
        }
        self.offsets = offsets
        self.rows = rows
        self.sortedHashes = sortedHashes
    }

    static func chunk(_ hash: UInt64, _ index: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: hash >> UInt64(index * chunkBits))
    }

    /// Every pair `(i, j)`, `i < j`, whose hashes differ in at most `radius` bits
    /// (0…`maximumRadius`), once each, in no particular order, with its distance. Runs
    /// on `threads` threads.
    public func pairs(within radius: Int, threads: Int = ProcessInfo.processInfo.activeProcessorCount)
        -> [(first: Int, second: Int, distance: Int)] {
        inParallel(count: hashes.count, threads: threads) { i, found in
            scan(hashes[i], radius: radius) { j, distance in
                if j > i { found.append((i, j, distance)) }
            }
        }
    }

    /// For each of `queries`, every indexed hash within `radius` bits of it, once:
    /// `(query, row, distance)`, in no particular order. Runs on `threads` threads.
    public func matches(of queries: [UInt64], within radius: Int,
                        threads: Int = ProcessInfo.processInfo.activeProcessorCount) -> [(query: Int, row: Int, distance: Int)] {
        inParallel(count: queries.count, threads: threads) { q, found in
            scan(queries[q], radius: radius) { row, distance in found.append((q, row, distance)) }
        }
    }

    /// Runs `body` for `0..<count` striped over `threads` threads, concatenating what each found.
    private func inParallel<Found>(count: Int, threads: Int, _ body: @escaping @Sendable (Int, inout [Found]) -> Void) -> [Found] {
        guard count > 0, hashes.count > 0 else { return [] }
        let workers = max(1, min(threads, count / 1024 + 1))
        let results = ConcurrentSlots<[Found]>(count: workers, initial: [])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var found: [Found] = []
            var i = worker
            while i < count {
                body(i, &found)
                i += workers
            }
            results.set(worker, found)
        }
        return results.values.flatMap { $0 }
    }

    /// Per-chunk allowances for `radius`: Σ (tᵢ + 1) = radius + 1, the larger ones first.
    static func allowances(for radius: Int) -> [Int] {
        let total = radius + 1 - chunkCount  // Σ tᵢ
        return (0..<chunkCount).map { chunk in max(0, total / chunkCount + (chunk < total % chunkCount ? 1 : 0)) }
    }

    /// Calls `body` with every indexed row within `radius` bits of `hash`, once: a row
    /// close in several chunks is reported by the first chunk within its allowance.
    private func scan(_ hash: UInt64, radius: Int, _ body: (Int, Int) -> Void) {
        precondition((0...Self.maximumRadius).contains(radius), "a Hamming index searches radii 0…\(Self.maximumRadius)")
        let allowed = Self.allowances(for: radius)
        for chunk in 0..<Self.chunkCount {
            let value = Self.chunk(hash, chunk)
            offsets[chunk].withUnsafeBufferPointer { offsets in
                rows[chunk].withUnsafeBufferPointer { bucket in
                    sortedHashes[chunk].withUnsafeBufferPointer { values in
                        Self.forEachValue(near: value, within: allowed[chunk]) { probe in
                            for k in Int(offsets[Int(probe)])..<Int(offsets[Int(probe) + 1]) {
                                let difference = hash ^ values[k]
                                let distance = difference.nonzeroBitCount
                                guard distance <= radius, Self.firstCloseChunk(difference, allowed) == chunk else { continue }
                                body(Int(bucket[k]), distance)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The first chunk of `difference` within its allowance.
    static func firstCloseChunk(_ difference: UInt64, _ allowed: [Int]) -> Int {
        for chunk in 0..<chunkCount where Self.chunk(difference, chunk).nonzeroBitCount <= allowed[chunk] { return chunk }
        return chunkCount
    }

    /// Calls `body` with every 16-bit value within `bits` (0…3) bits of `value`.
    static func forEachValue(near value: UInt16, within bits: Int, _ body: (UInt16) -> Void) {
        body(value)
        guard bits >= 1 else { return }
        for a in 0..<chunkBits {
            let one = value ^ (1 << UInt16(a))
            body(one)
            guard bits >= 2 else { continue }
            for b in (a + 1)..<chunkBits {
                let two = one ^ (1 << UInt16(b))
                body(two)
                guard bits >= 3 else { continue }
                for c in (b + 1)..<chunkBits { body(two ^ (1 << UInt16(c))) }
            }
        }
    }

    /// The largest radius `pairs(within:)` takes: 15 (three bits per chunk).
    public static let maximumRadius = 15
}
