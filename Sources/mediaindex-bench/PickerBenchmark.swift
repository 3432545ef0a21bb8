import Foundation
@_spi(Benchmarks) import MediaIndex
import MediaIndexTestSupport

/// The web picker in headless Chromium on a seeded library: the first paint (navigation
/// to the first screen of tiles holding their assets) and a jump to every year on the
/// scrubber (to every tile on screen holding its asset). Driven by scripts/bench-picker.py
/// with the Selenium that scripts/test-browser installs; every connection goes to 127.0.0.1.
enum PickerBenchmark {
    static func run(mediaindex: String, work: String, assets: Int, runs: Int) throws -> [Row] {
        guard assets > 0 else { return [] }
        let python = FileManager.default.currentDirectoryPath + "/.build/browser-venv/bin/python"
        let script = FileManager.default.currentDirectoryPath + "/scripts/bench-picker.py"
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script) else {
            print("Skipping the picker benchmark: run scripts/test-browser once to install Selenium")
            return []
        }
        let location = LibraryLocation(directory: work + "/picker-library")
        let library = try MediaLibrary(location: location)
        print("Seeding a library of \(assets) assets for the picker…")
        try library.seedSyntheticAssets(count: assets, batchSize: 10_000, deferIndexes: true)
        let (server, port) = try ServeBenchmark.startServer(mediaindex, library: location.directory, cache: work + "/picker-cache")
        defer { server.terminate() }
        let outputPath = work + "/picker-bench.json"
        let measured = try ProcessRunner.measure([python, script, String(port), String(max(3, runs))], outputPath: outputPath)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard measured.exitCode == 0 else { throw BenchmarkError("bench-picker.py exited with \(measured.exitCode)") }
        guard let data = output.split(separator: "\n").last.map({ Data($0.utf8) }),
              let result = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let paints = result["first_paint_ms"] as? [Double], let jumps = result["jump_ms"] as? [Double] else {
            throw BenchmarkError("bench-picker.py printed no result: \(output.suffix(500))")
        }
        let paint = Figure(values: paints), jump = Figure(values: jumps)
        let nodes = result["dom_nodes"] as? Int ?? 0
        return [
            Row(measurement: "picker: first paint, \(assets / 1000)k assets, Chromium 1280×900",
                ours: String(format: "median %.0f ms (%.0f–%.0f ms)", paint.median, paint.min, paint.max),
                reference: "-", ratio: "-", target: "≤ 300 ms",
                json: ["median_ms": paint.median, "min_ms": paint.min, "max_ms": paint.max, "runs": paints]),
            Row(measurement: "picker: scrubber jump to a year, \(assets / 1000)k assets (\(jumps.count) years, \(nodes) grid nodes)",
                ours: String(format: "median %.0f ms, max %.0f ms", jump.median, jump.max),
                reference: "-", ratio: "-", target: "≤ 200 ms",
                json: ["median_ms": jump.median, "max_ms": jump.max, "jumps": jumps, "grid_nodes": nodes]),
        ]
    }
}
