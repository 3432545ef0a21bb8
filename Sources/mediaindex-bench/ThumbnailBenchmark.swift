import Foundation

/// 256-px thumbnails: `mediaindex thumbnails` (all cores, cache cold) against one
/// `vipsthumbnail` process given all the files, on the same JPEGs, then the same HEICs.
enum ThumbnailBenchmark {
    static func run(mediaindex: String, media: String, work: String, runs: Int, filesPerKind: Int) throws -> [Row] {
        guard ProcessRunner.exists("vipsthumbnail") else {
            return [Row(measurement: "thumbnails", ours: "-", reference: "vipsthumbnail not installed", ratio: "-",
                        target: "≥ 3×", json: [:])]
        }
        var rows: [Row] = []
        // HEVC decoding is slow for both sides: a fifth as many HEICs keeps the run short.
        for (kind, extensions, count) in [("JPEG", ["jpg", "jpeg"], filesPerKind),
                                          ("HEIC", ["heic", "heif", "hif"], max(1, filesPerKind / 5))] {
            let tree = work + "/thumbs-\(kind)"
            let files = try TreeBuilder.build(from: media, into: tree, count: count,
                                              extensions: Set(extensions))
            guard !files.isEmpty else { continue }
            let library = work + "/thumbs-library-\(kind)"
            let indexed = try ProcessRunner.measure([mediaindex, "index", "--quiet", "--library", library, tree])
            guard indexed.exitCode == 0 else { throw BenchmarkError("indexing the \(kind) tree failed") }
            var ours: [Double] = [], vips: [Double] = [], peak = 0
            for run in 0..<runs {
                let cache = work + "/cache-\(kind)-\(run)"
                let m = try ProcessRunner.measure([mediaindex, "thumbnails", "--library", library, "--cache", cache,
                                                   "--size", "256"])
                ours.append(m.seconds)
                peak = max(peak, m.peakResidentBytes)
                try? FileManager.default.removeItem(atPath: cache)
                let output = work + "/vips-\(kind)-\(run)"
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                vips.append(try ProcessRunner.measure(["vipsthumbnail", "-s", "256", "-o", output + "/%s.jpg"] + files).seconds)
                try? FileManager.default.removeItem(atPath: output)
            }
            let o = Figure(values: ours), v = Figure(values: vips)
            rows.append(Row(
                measurement: "thumbnails 256 px, \(files.count) \(kind) files",
                ours: formatRate(files.count, o),
                reference: "vipsthumbnail: " + formatRate(files.count, v),
                ratio: String(format: "%.2f×", v.median / o.median),
                target: "≥ 3×",
                json: ["ours_seconds": ours, "vipsthumbnail_seconds": vips, "files": files.count]))
            rows.append(Row(
                measurement: "peak memory, thumbnails of \(kind)", ours: mebibytes(peak), reference: "-", ratio: "-",
                target: "≤ 300 MB", json: ["peak_bytes": peak]))
        }
        return rows
    }
}
