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
        // A raw write: stdio would buffer it, and the kernel's refusal would be lost at fclose.
        let fd = open("/proc/sys/vm/drop_caches", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "3\n", 2) == 2
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
            // Where the page cache cannot be dropped (not root, or a VM that refuses it even
            // to root), both sides read warm files, and the row says so.
            var cold = true
            for run in 0..<runs {
                let cache = work + "/cache-\(kind)-\(run)"
                cold = dropPageCache() && cold
                let m = try ProcessRunner.measure([mediaindex, "thumbnails", "--library", library, "--cache", cache,
                                                   "--size", "256"])
                ours.append(m.seconds)
                peak = max(peak, m.peakResidentBytes)
                try? FileManager.default.removeItem(atPath: cache)
                let output = work + "/vips-\(kind)-\(run)"
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                cold = dropPageCache() && cold
                vips.append(try ProcessRunner.measure(["vipsthumbnail", "-s", "256", "-o", output + "/%s.jpg"] + files).seconds)
                try? FileManager.default.removeItem(atPath: output)
            }
            let o = Figure(values: ours), v = Figure(values: vips)
            rows.append(Row(
                measurement: "thumbnails 256 px, \(files.count) \(kind) files" + (cold ? "" : " (page cache warm: not droppable here)"),
                ours: formatRate(files.count, o),
                reference: "vipsthumbnail: " + formatRate(files.count, v),
                ratio: String(format: "%.2f×", v.median / o.median),
                target: target,
                json: ["ours_seconds": ours, "vipsthumbnail_seconds": vips, "files": files.count,
                       "page_cache_dropped": cold]))
            rows.append(Row(
                measurement: "peak memory, thumbnails of \(kind)", ours: mebibytes(peak), reference: "-", ratio: "-",
                target: "≤ 300 MB", json: ["peak_bytes": peak]))
        }
        return rows
    }
}
