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
        var seconds: [Double] = [], peak = 0, pairs = 0, brute = 0.0
        for _ in 0..<runs {
            let output = NSTemporaryDirectory() + "mediaindex-bench-dup-\(getpid()).txt"
            let m = try ProcessRunner.measure([executable, "--duplicates-child", String(hashes)], outputPath: output)
            guard m.exitCode == 0, let text = try? String(contentsOfFile: output, encoding: .utf8) else {
                throw BenchmarkError("the grouping child failed with \(m.exitCode)")
            }
            try? FileManager.default.removeItem(atPath: output)
            let fields = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard fields.count == 3 else { throw BenchmarkError("the grouping child printed '\(text)'") }
            seconds.append(fields[0])
            pairs = Int(fields[1])
            brute = fields[2]
            peak = max(peak, m.peakResidentBytes)
        }
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
        rows.append(try hashCost(media: media))
        return rows
    }

    /// The child: `hashes` hashes (nine in ten random, one in ten a copy of an earlier one
    /// with up to 8 bits changed, as re-encodes are), grouped; prints the seconds, the
    /// pairs found and the brute-force estimate.
    static func child(hashes count: Int) {
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

    /// Cold thumbnails (256 px) of the corpus's JPEGs against the hash of a 256-pixel
    /// picture alone: what hashing adds to each.
    static func hashCost(media: String) throws -> Row {
        let jpegs = (FileManager.default.enumerator(atPath: media)?.compactMap { $0 as? String } ?? [])
            .filter { $0.lowercased().hasSuffix(".jpg") }.sorted().prefix(200)
        var made = 0
        let start = DispatchTime.now()
        for path in jpegs where (try? ThumbnailGenerator.thumbnail(ofFileAt: media + "/" + path,
                                                                   request: ThumbnailRequest(maxPixelSize: 256))) != nil {
            made += 1
        }
        let perThumbnail = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 / Double(max(1, made))
        let pixels = (0..<(256 * 171 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let rounds = 2_000
        let hashStart = DispatchTime.now()
        var sink: UInt64 = 0
        for _ in 0..<rounds { sink ^= PerceptualHashes(rgb: pixels, width: 256, height: 171).dct }
        let perHash = Double(DispatchTime.now().uptimeNanoseconds - hashStart.uptimeNanoseconds) / 1e9 / Double(rounds)
        return Row(measurement: "perceptual hash per JPEG (of its 256-px thumbnail's decode)",
                   ours: String(format: "%.3f ms", perHash * 1000 + Double(sink & 0) ),
                   reference: String(format: "256-px thumbnail, cold: %.2f ms (%d JPEGs)", perThumbnail * 1000, made),
                   ratio: String(format: "+%.1f%%", perHash / perThumbnail * 100), target: "≤ 2 ms, ≤ +10%",
                   json: ["hash_ms": perHash * 1000, "thumbnail_ms": perThumbnail * 1000, "jpegs": made])
    }
}
