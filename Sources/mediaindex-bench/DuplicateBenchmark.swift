import ChildProcesses
import Foundation
import MediaIndex
import MediaThumbnails

/// Issue 33's targets: grouping a million perceptual hashes (all pairs within the
/// duplicate radius) against a brute-force pass, its peak memory, and what the hash
/// adds to a thumbnail.
enum DuplicateBenchmark {
    /// Runs the grouping in a child process (`--duplicates-child N`), so its time and
    /// peak memory are the grouping's alone.
    static func run(executable: String, media: String, hashes: Int, runs: Int) throws -> [Row] {
        let measured = try children(executable, "--duplicates-child", hashes: hashes, runs: runs)
        let seconds = measured.printed.map { $0[0] }
        let pairs = Int(measured.printed.last?[1] ?? 0), brute = measured.printed.last?[2] ?? 0, peak = measured.peak
        let figure = Figure(values: seconds)
        var rows = [
            Row(measurement: "group \(hashes) hashes, radius \(DuplicateGate.duplicateRadius) (\(pairs) pairs)",
                ours: String(format: "%.2f s (%.2f–%.2f)", figure.median, figure.min, figure.max),
                reference: String(format: "brute force: %.1f s (timed on 20,000, × (n/20,000)²)", brute),
                ratio: String(format: "%.0f× faster", brute / figure.median), target: "≤ 5 s",
                json: ["seconds": seconds, "pairs": pairs, "brute_force_seconds": brute, "hashes": hashes]),
            Row(measurement: "peak memory, grouping \(hashes) hashes", ours: mebibytes(peak), reference: "-", ratio: "-",
                target: "≤ 200 MB", json: ["peak_bytes": peak]),
        ]
        rows.append(try lookup(executable: executable, hashes: hashes, runs: runs))
        rows.append(try hashCost(media: media))
        return rows
    }

    /// Runs `executable child hashes` `runs` times: the three numbers each run printed,
    /// and the largest peak memory of a run.
    static func children(_ executable: String, _ child: String, hashes: Int, runs: Int) throws
        -> (printed: [[Double]], peak: Int) {
        var printed: [[Double]] = [], peak = 0
        for _ in 0..<runs {
            let output = NSTemporaryDirectory() + "mediaindex-bench-dup-\(getpid()).txt"
            let m = try ProcessRunner.measure([executable, child, String(hashes)], outputPath: output)
            guard m.exitCode == 0, let text = try? String(contentsOfFile: output, encoding: .utf8) else {
                throw BenchmarkError("\(child) failed with \(m.exitCode)")
            }
            try? FileManager.default.removeItem(atPath: output)
            let fields = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard fields.count == 3 else { throw BenchmarkError("\(child) printed '\(text)'") }
            printed.append(fields)
            peak = max(peak, m.peakResidentBytes)
        }
        return (printed, peak)
    }

    /// What `duplicates` does beyond the self-join, in a child (`--duplicates-lookup-child N`):
    /// `DuplicateLookup.closePairs` over `hashes` pictures, each with two centre hashes.
    static func lookup(executable: String, hashes: Int, runs: Int) throws -> Row {
        let measured = try children(executable, "--duplicates-lookup-child", hashes: hashes, runs: runs)
        let cpu = measured.printed.map { $0[0] }, wall = measured.printed.map { $0[1] }
        let pairs = Int(measured.printed.last?[2] ?? 0), peak = measured.peak
        let figure = Figure(values: cpu)
        return Row(measurement: "duplicates' lookup: \(hashes) pictures, whole and two centre hashes (\(pairs) pairs)",
                   ours: String(format: "%.2f s of CPU, %.2f s wall; peak ", figure.median, Figure(values: wall).median)
                       + mebibytes(peak),
                   reference: "before: 22 s of CPU, 265 MB (3 M lookups among the whole hashes)", ratio: "-",
                   target: "≤ 5 s wall, ≤ 200 MB",
                   json: ["cpu_seconds": cpu, "wall_seconds": wall, "pairs": pairs, "peak_bytes": peak, "hashes": hashes])
    }

    /// The lookup child: the grouping child's hashes, each with two random centre hashes,
    /// through `DuplicateLookup.closePairs`; prints its CPU seconds, wall seconds and pairs.
    static func lookupChild(hashes count: Int) {
        let whole = generatedHashes(count)
        var state: UInt64 = 34
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            return z ^ (z >> 27)
        }
        let crop1 = whole.map { _ in Optional(next()) }, crop2 = whole.map { _ in Optional(next()) }
        let (cpuStart, start) = (CPUTime.ownSeconds, DispatchTime.now())
        let pairs = DuplicateLookup.closePairs(whole: whole, crop1: crop1, crop2: crop2)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        print(String(format: "%.3f %.3f %d", CPUTime.ownSeconds - cpuStart, wall, pairs.count))
    }

    /// The child: `hashes` hashes (`generatedHashes`), grouped; prints the seconds, the
    /// pairs found and the brute-force estimate.
    static func child(hashes count: Int) {
        let hashes = generatedHashes(count)
        let start = DispatchTime.now()
        let pairs = HammingIndex(hashes).pairs(within: DuplicateGate.duplicateRadius)
        var parent = Array(0..<count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        for pair in pairs { parent[find(pair.first)] = find(pair.second) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        print(String(format: "%.3f %d %.1f", seconds, pairs.count, bruteForceEstimate(hashes, to: count)))
    }

    /// `count` hashes: nine in ten random, one in ten a copy of an earlier one with up to
    /// 8 bits changed, as re-encodes are.
    static func generatedHashes(_ count: Int) -> [UInt64] {
        var state: UInt64 = 33
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var hashes: [UInt64] = []
        hashes.reserveCapacity(count)
        for i in 0..<count {
            if i > 0 && next() % 10 == 0 {
                var copy = hashes[Int(next() % UInt64(i))]
                for _ in 0..<Int(next() % 9) { copy ^= 1 << (next() % 64) }
                hashes.append(copy)
            } else {
                hashes.append(next())
            }
        }
        return hashes
    }

    /// A brute-force pass over the first 20,000 hashes, scaled by the square of the count.
    static func bruteForceEstimate(_ hashes: [UInt64], to count: Int) -> Double {
        let sample = Array(hashes.prefix(20_000))
        let start = DispatchTime.now()
        var found = 0
        for i in sample.indices {
            for j in (i + 1)..<sample.count where (sample[i] ^ sample[j]).nonzeroBitCount <= DuplicateGate.duplicateRadius {
                found += 1
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let scale = Double(count) / Double(sample.count)
        // `found` is used (x × 0.0 is not folded in floating point), so the loop is kept.
        return seconds * scale * scale + Double(found) * 0.0
    }

    /// What the hash adds to a cold thumbnail: 256-px thumbnails of the corpus's JPEGs
    /// made from the file with the hash and without it (`makesHashes` off), in the same
    /// run, alternating which goes first; each file is read once before, so both find it
    /// in the page cache alike, and each time is the least of three.
    static func hashCost(media: String) throws -> Row {
        let jpegs = (FileManager.default.enumerator(atPath: media)?.compactMap { $0 as? String } ?? [])
            .filter { $0.lowercased().hasSuffix(".jpg") }.sorted().prefix(200)
        let hashed = ThumbnailRequest(maxPixelSize: 256)
        var plain = hashed
        plain.makesHashes = false
        var with = 0.0, without = 0.0, made = 0
        for (n, name) in jpegs.enumerated() {
            let path = media + "/" + name
            guard (try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: plain)) != nil else { continue }
            var best = [Double](repeating: .infinity, count: 2)
            for round in 0..<6 {
                let hashing = (round + n) % 2 == 0
                let start = DispatchTime.now()
                _ = try? ThumbnailGenerator.thumbnail(ofFileAt: path, request: hashing ? hashed : plain)
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
                best[hashing ? 0 : 1] = min(best[hashing ? 0 : 1], seconds)
            }
            with += best[0]
            without += best[1]
            made += 1
        }
        let count = Double(max(1, made))
        let added = (with - without) / count
        return Row(measurement: "perceptual hash added to a cold 256-px JPEG thumbnail (same run, with and without)",
                   ours: String(format: "+%.3f ms (%.2f ms with, %.2f ms without)", added * 1000, with / count * 1000,
                                without / count * 1000),
                   reference: String(format: "%d corpus JPEGs, least of 3 each", made),
                   ratio: String(format: "%+.1f%%", without > 0 ? (with - without) / without * 100 : 0),
                   target: "≤ 2 ms, ≤ +10%",
                   json: ["hash_ms": added * 1000, "with_ms": with / count * 1000, "without_ms": without / count * 1000,
                          "jpegs": made])
    }
}
