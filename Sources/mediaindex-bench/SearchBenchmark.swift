import Foundation
import MediaIndex
import MediaIndexTestSupport

/// Search on a large library while a writer commits batches beside it, against the
/// same words as `LIKE` scans; and what keeping the text index costs the writer.
enum SearchBenchmark {
    static func run(work: String, runs: Int, assets: Int) throws -> [Row] {
        guard assets > 0 else { return [] }
        // The same assets seeded twice: without the text index, then with it; each with
        // ten keywords and a caption.
        func seed(_ name: String, textIndex: Bool) throws -> (library: MediaLibrary, seconds: Double, bytes: Int) {
            let directory = work + "/" + name
            try? FileManager.default.removeItem(atPath: directory)
            let library = try MediaLibrary(location: LibraryLocation(directory: directory))
            if !textIndex { try library.dropSearchTextUpkeep() }
            let start = Date()
            try library.seedSyntheticAssets(count: assets, batchSize: 10_000, deferIndexes: true, describe: true)
            let seconds = Date().timeIntervalSince(start)
            let bytes = ["library.sqlite", "library.sqlite-wal"].reduce(0) { total, file in
                total + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.size] as? NSNumber)?
                    .intValue ?? 0)
            }
            return (library, seconds, bytes)
        }
        print("Seeding \(assets) assets without, then with, the text index…")
        let without = try seed("search-library-plain", textIndex: false)
        let with = try seed("search-library", textIndex: true)
        let library = with.library
        print(String(format: "Seeded: %.1f s and %d bytes with the text index, %.1f s and %d bytes without",
                     with.seconds, with.bytes, without.seconds, without.bytes))
        var rows = [
            Row(measurement: "text index upkeep, seeding \(assets / 1000)k assets",
                ours: String(format: "%.1f s with, %.1f s without", with.seconds, without.seconds),
                reference: "-", ratio: String(format: "+%.1f%%", (with.seconds / without.seconds - 1) * 100),
                target: "≤ +10%", json: ["with_seconds": with.seconds, "without_seconds": without.seconds]),
            Row(measurement: "text index size, \(assets / 1000)k assets",
                ours: String(format: "%.0f MB with, %.0f MB without", Double(with.bytes) / 1e6, Double(without.bytes) / 1e6),
                reference: "-", ratio: String(format: "+%.1f%%", (Double(with.bytes) / Double(without.bytes) - 1) * 100),
                target: "≤ +30%", json: ["with_bytes": with.bytes, "without_bytes": without.bytes]),
        ]
        let writer = BusyWriter(library, seedingFrom: assets)
        defer { writer.stop() }
        let iterations = max(50, 100 * runs)
        func time(_ body: () throws -> Void) rethrows -> Figure { try Figure.timing(iterations: iterations, body) }
        func search(_ text: String) throws -> Figure {
            var options = FetchOptions()
            options.search = try SearchQuery(parsing: text)
            options.limit = 100
            return try time {
                _ = try library.blocking.fetchAssets(options)
                _ = try library.blocking.countAssets(options)
            }
        }
        let queries: [(String, [String]?)] = [
            ("screenshot", ["screenshot"]), ("canon screenshot", ["canon", "screenshot"]),
            ("camera:sony type:video duration:<10", nil),
            ("sunset", ["sunset"]), ("sunset forest", ["sunset", "forest"]),
            ("keyword:mountain3 type:video", nil), ("keyword:places camera:canon", nil),
        ]
        for (query, words) in queries {
            let ours = try search(query)
            let like = try words.map { words in try time { _ = try library.likeScan(words: words, limit: 100) } }
            let p99 = ours.percentile(0.99)
            rows.append(Row(
                measurement: "search '\(query)', first page + count, \(assets / 1000)k assets, writer busy",
                ours: String(format: "p50 %.2f ms, p99 %.2f ms", ours.percentile(0.5), p99),
                reference: like.map { String(format: "LIKE p99 %.1f ms", $0.percentile(0.99)) } ?? "-",
                ratio: like.map { String(format: "%.1f×", $0.percentile(0.99) / p99) } ?? "-",
                target: "p99 ≤ 30 ms",
                json: ["p50_ms": ours.percentile(0.5), "p99_ms": p99, "like_p99_ms": like?.percentile(0.99) ?? -1]))
        }
        let typed = ["c", "ca", "can", "so", "2", "20", "201", "camera:s", "sun", "keyword:mo", "person:a"]
        var index = 0
        let suggestions = try time {
            _ = try library.blocking.searchSuggestions(for: typed[index % typed.count])
            index += 1
        }
        rows.append(Row(
            measurement: "search suggestions while typing, \(assets / 1000)k assets, writer busy",
            ours: String(format: "p50 %.2f ms, p99 %.2f ms", suggestions.percentile(0.5), suggestions.percentile(0.99)),
            reference: "-", ratio: "-", target: "p99 ≤ 30 ms",
            json: ["p50_ms": suggestions.percentile(0.5), "p99_ms": suggestions.percentile(0.99)]))
        return rows
    }
}
