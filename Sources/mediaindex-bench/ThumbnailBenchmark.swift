import Foundation

/// 256-px thumbnails: `mediaindex thumbnails` (all cores, thumbnail cache cold) against one
/// `vipsthumbnail` process given all the files, on the same JPEGs, then the same HEICs,
/// TIFFs, PNGs, WebPs and AVIFs. Page caches are dropped before each timed command when
/// the process may (root), so both sides read the files cold.
enum ThumbnailBenchmark {
    /// The formats measured: name, file extensions, the share of `filesPerKind`, the target ratio.
    static let kinds: [(name: String, extensions: [String], divisor: Int, target: String)] = [
        ("JPEG", ["jpg", "jpeg"], 1, "≥ 8×"),
        // HEVC and AV1 decoding are slow for both sides: fewer files keep the run short.
        ("HEIC", ["heic", "heif", "hif"], 5, "≥ 6×"),
        ("TIFF", ["tif", "tiff"], 2, "–"),
        ("PNG", ["png"], 2, "–"),
        ("WebP", ["webp"], 2, "–"),
        ("AVIF", ["avif"], 10, "–"),
    ]

    /// Empties the kernel's page cache (needs root); false when it may not.
    @discardableResult
    static func dropPageCache() -> Bool {
        sync()
        guard let handle = fopen("/proc/sys/vm/drop_caches", "w") else { return false }
        defer { fclose(handle) }
        return fputs("3\n", handle) >= 0
    }

    static func run(mediaindex: String, media: String, work: String, runs: Int, filesPerKind: Int) throws -> [Row] {
        guard ProcessRunner.exists("vipsthumbnail") else {
            return [Row(measurement: "thumbnails", ours: "-", reference: "vipsthumbnail not installed", ratio: "-",
                        target: "≥ 3×", json: [:])]
        }
        var rows: [Row] = []
        for (kind, extensions, divisor, target) in kinds {
            let count = max(1, filesPerKind / divisor)
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
                dropPageCache()
                let m = try ProcessRunner.measure([mediaindex, "thumbnails", "--library", library, "--cache", cache,
                                                   "--size", "256"])
                ours.append(m.seconds)
                peak = max(peak, m.peakResidentBytes)
                try? FileManager.default.removeItem(atPath: cache)
                let output = work + "/vips-\(kind)-\(run)"
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                dropPageCache()
                vips.append(try ProcessRunner.measure(["vipsthumbnail", "-s", "256", "-o", output + "/%s.jpg"] + files).seconds)
                try? FileManager.default.removeItem(atPath: output)
            }
            let o = Figure(values: ours), v = Figure(values: vips)
            rows.append(Row(
                measurement: "thumbnails 256 px, \(files.count) \(kind) files",
                ours: formatRate(files.count, o),
                reference: "vipsthumbnail: " + formatRate(files.count, v),
                ratio: String(format: "%.2f×", v.median / o.median),
                target: target,
                json: ["ours_seconds": ours, "vipsthumbnail_seconds": vips, "files": files.count]))
            rows.append(Row(
                measurement: "peak memory, thumbnails of \(kind)", ours: mebibytes(peak), reference: "-", ratio: "-",
                target: "≤ 300 MB", json: ["peak_bytes": peak]))
        }
        return rows
    }
}
