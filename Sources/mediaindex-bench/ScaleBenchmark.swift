import Foundation

/// Memory and speed as the library grows (`--scale`): for each size, a tree of hard
/// links is indexed cold, then re-indexed unchanged, each run a separate
/// `mediaindex index` process whose peak RSS `wait4` gives; `find` walks and stats the
/// same tree as the floor; a picker's first paint (`mediaindex assets --limit 50
/// --json`, process start included) is timed on the library just made.
enum ScaleBenchmark {
    /// What one size measured.
    struct Size {
        var files: Int
        var cold: ChildMeasurement
        var coldTimings: [String: Double]
        var reindex: [Double]
        var reindexPeak: Int
        var reindexTimings: [String: Double]
        var find: [Double]
        var firstPaint: Figure
    }

    /// - Parameter keepLast: leave the largest size's tree and library in `work` (`--keep`),
    ///   to measure them again by hand.
    static func run(mediaindex: String, media: String, work: String, sizes: [Int], runs: Int,
                    keepLast: Bool = false) throws -> [Row] {
        var measured: [Size] = []
        for files in sizes {
            let tree = work + "/scale-tree", library = work + "/scale-library"
            try? FileManager.default.removeItem(atPath: tree)
            try? FileManager.default.removeItem(atPath: library)
            print("Building a tree of \(files) hard links from \(media)…")
            let building = Date()
            let made = try TreeBuilder.build(from: media, into: tree, count: files)
            print(String(format: "  built in %.0f s", Date().timeIntervalSince(building)))

            print("Indexing it cold, then unchanged ×\(runs), then find ×\(runs), then first paint…")
            let coldJSON = work + "/scale-cold.json"
            let cold = try ProcessRunner.measure([mediaindex, "index", "--json", "--library", library, tree],
                                                 outputPath: coldJSON)
            guard cold.exitCode == 0 else { throw BenchmarkError("mediaindex index failed with \(cold.exitCode)") }
            print(String(format: "  cold: %.1f s, peak ", cold.seconds) + mebibytes(cold.peakResidentBytes))

            var reindex: [Double] = [], reindexPeak = 0
            let reindexJSON = work + "/scale-reindex.json"
            for _ in 0..<runs {
                let m = try ProcessRunner.measure([mediaindex, "index", "--json", "--library", library],
                                                  outputPath: reindexJSON)
                guard m.exitCode == 0 else { throw BenchmarkError("mediaindex re-index failed with \(m.exitCode)") }
                reindex.append(m.seconds)
                reindexPeak = max(reindexPeak, m.peakResidentBytes)
            }
            var find: [Double] = []
            for _ in 0..<runs {
                find.append(try ProcessRunner.measure(["find", tree, "-type", "f", "-printf", "%s %T@ %i\\n"]).seconds)
            }
            let firstPaint = try FirstPaint.measure(mediaindex: mediaindex, library: library)
            measured.append(Size(files: made, cold: cold, coldTimings: timings(coldJSON), reindex: reindex,
                                 reindexPeak: reindexPeak, reindexTimings: timings(reindexJSON), find: find,
                                 firstPaint: firstPaint))
            if keepLast && files == sizes.last { break }
            try? FileManager.default.removeItem(atPath: library)
            try? FileManager.default.removeItem(atPath: tree)
        }
        return rows(measured)
    }

    /// `timings` of an `index --json` output, by phase.
    static func timings(_ path: String) -> [String: Double] {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let timings = object["timings"] as? [String: Any] else { return [:] }
        return timings.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    static func describe(_ timings: [String: Double]) -> String {
        ["walk", "diff", "read", "write", "pair", "finish"].compactMap { phase in
            timings[phase].map { phase + String(format: " %.2f", $0) }
        }.joined(separator: ", ")
    }

    static func rows(_ sizes: [Size]) -> [Row] {
        var rows: [Row] = []
        for size in sizes {
            let n = size.files.formatted()
            rows.append(Row(
                measurement: "cold index, \(n) files", ours: String(format: "%.0f files/s (%.1f s)",
                                                                    Double(size.files) / size.cold.seconds, size.cold.seconds),
                reference: "phases (s): " + describe(size.coldTimings), ratio: "-", target: "-",
                json: ["files": size.files, "seconds": size.cold.seconds, "timings": size.coldTimings]))
            let re = Figure(values: size.reindex), find = Figure(values: size.find)
            rows.append(Row(
                measurement: "unchanged re-index, \(n) files",
                ours: String(format: "%.2f s (%.2f–%.2f); ", re.median, re.min, re.max) + describe(size.reindexTimings),
                reference: String(format: "find -printf: %.2f s", find.median),
                ratio: String(format: "%.2f× find's time", re.median / find.median), target: "≤ 1.5×",
                json: ["ours_seconds": size.reindex, "find_seconds": size.find, "timings": size.reindexTimings]))
            rows.append(Row(
                measurement: "peak RSS, \(n) files", ours: "cold " + mebibytes(size.cold.peakResidentBytes),
                reference: "unchanged re-index: " + mebibytes(size.reindexPeak), ratio: "-", target: "≤ 250 MB",
                json: ["cold_peak_bytes": size.cold.peakResidentBytes, "reindex_peak_bytes": size.reindexPeak]))
            rows.append(FirstPaint.row(size.firstPaint, assets: size.files))
        }
        // Growth from the smallest size to the largest.
        if sizes.count > 1, let small = sizes.first, let large = sizes.last {
            let cold = Double(large.cold.peakResidentBytes) / Double(small.cold.peakResidentBytes)
            let reindex = Double(large.reindexPeak) / Double(small.reindexPeak)
            rows.append(Row(
                measurement: "peak RSS growth, \(large.files.formatted()) vs \(small.files.formatted()) files",
                ours: String(format: "cold %.2f×", cold), reference: String(format: "unchanged re-index %.2f×", reindex),
                ratio: "-", target: "≤ 1.3×", json: ["cold_ratio": cold, "reindex_ratio": reindex]))
        }
        return rows
    }
}

/// A picker's first screen from a cold process: `mediaindex assets --limit 50 --json`.
enum FirstPaint {
    /// Wall time of 20 runs (after one run not counted), process start included.
    static func measure(mediaindex: String, library: String, runs: Int = 20) throws -> Figure {
        var values: [Double] = []
        for run in 0...runs {
            let m = try ProcessRunner.measure([mediaindex, "assets", "--limit", "50", "--json", "--library", library])
            guard m.exitCode == 0 else { throw BenchmarkError("mediaindex assets failed with \(m.exitCode)") }
            if run > 0 { values.append(m.seconds * 1000) }
        }
        return Figure(values: values)
    }

    static func row(_ figure: Figure, assets: Int) -> Row {
        let sorted = figure.values.sorted()
        let p90 = sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))]
        return Row(
            measurement: "first paint, assets --limit 50 --json, \(assets.formatted()) assets",
            ours: String(format: "median %.1f ms, p90 %.1f ms (%.1f–%.1f)", figure.median, p90, figure.min, figure.max),
            reference: "-", ratio: "-", target: "≤ 30 ms at 1,000,000",
            json: ["milliseconds": figure.values])
    }
}
