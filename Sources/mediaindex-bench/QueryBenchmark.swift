import Foundation
import MediaIndex
import MediaIndexTestSupport

/// Query latency on a large library while a writer commits batches beside it.
enum QueryBenchmark {
    /// - Parameters:
    ///   - folders: folder albums of the seeded library (in 1/100 as many parents).
    ///   - libraryPath: where the library goes (`work/query-library` by default). A library
    ///     seeded there before with the same sizes is used as it is, so a 10,000,000-asset
    ///     library is seeded once (`--query-library DIR`).
    ///   - sizeRows: also report the database's bytes per asset and the seeding time.
    static func run(work: String, runs: Int, assets: Int, folders: Int = 10_000, libraryPath: String? = nil,
                    sizeRows: Bool = false) throws -> [Row] {
        guard assets > 0 else { return [] }
        let directory = libraryPath ?? work + "/query-library"
        let location = LibraryLocation(directory: directory)
        let seedRecord = directory + "/bench-seed.json"
        let seeded = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: seedRecord))))
            as? [String: Double]
        let library: MediaLibrary
        let seedSeconds: Double
        if let seeded, seeded["assets"] == Double(assets), seeded["folders"] == Double(folders),
           let seconds = seeded["seconds"] {
            library = try MediaLibrary(location: location)
            seedSeconds = seconds
            print("Using the library of \(assets) assets seeded before at \(directory) (in \(Int(seconds)) s)")
        } else {
            try? FileManager.default.removeItem(atPath: directory)
            library = try MediaLibrary(location: location)
            print("Seeding a library of \(assets) assets in \(folders) folders through the library's write path…")
            let seedStart = Date()
            try library.seedSyntheticAssets(count: assets, folderCount: folders, batchSize: 10_000, deferIndexes: true)
            seedSeconds = Date().timeIntervalSince(seedStart)
            print(String(format: "  seeded in %.1f s (%.0f assets/s)", seedSeconds, Double(assets) / seedSeconds))
            let record = ["assets": Double(assets), "folders": Double(folders), "seconds": seedSeconds]
            try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: seedRecord))
        }
        // Measured before the writer adds its batches: the seeded library, checkpointed.
        let databaseBytes = ["library.sqlite", "library.sqlite-wal"].reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? NSNumber)?
                .intValue ?? 0)
        }

        // A deep cursor: the page after the middle of the capture order.
        var middle = FetchOptions()
        middle.capturedBefore = Date(timeIntervalSince1970: 1_400_000_000 + 157_500_000)
        middle.limit = 100
        let deepCursor = try library.blocking.fetchAssets(middle).nextCursor
        var filtered = FetchOptions()
        filtered.filter = try MediaFilter(parsing: "images & !screenshots")

        let writer = BusyWriter(library, seedingFrom: assets)
        defer {
            writer.stop()
            // As an index run ends: the first paint after is then a command's start beside
            // the library, not a read of the writer's whole WAL.
            try? library.emptyWAL()
        }

        // Up to 100 × runs iterations of each query, within 20 s (at least 20).
        let iterations = max(50, 100 * runs)
        func time(_ body: () throws -> Void) rethrows -> Figure { try Figure.timing(iterations: iterations, body) }
        var firstPageOptions = FetchOptions()
        firstPageOptions.limit = 100
        let firstPage = try time { _ = try library.blocking.fetchAssets(firstPageOptions) }
        var deepOptions = FetchOptions()
        deepOptions.limit = 100
        deepOptions.after = deepCursor
        let deepPage = try time { _ = try library.blocking.fetchAssets(deepOptions) }
        let count = try time { _ = try library.blocking.countAssets(filtered) }
        let albums = try time { _ = try library.blocking.fetchAlbums() }

        func row(_ name: String, _ figure: Figure, target: Double) -> Row {
            let p50 = figure.percentile(0.5), p99 = figure.percentile(0.99)
            return Row(measurement: "\(name), \(assets / 1000)k assets, writer busy",
                       ours: String(format: "p50 %.2f ms, p99 %.2f ms", p50, p99),
                       reference: "-", ratio: "-", target: String(format: "p99 ≤ %.0f ms", target),
                       json: ["p50_ms": p50, "p99_ms": p99, "max_ms": figure.max, "iterations": figure.values.count])
        }
        var rows = [
            row("first page of 100", firstPage, target: 10),
            row("deep page by cursor", deepPage, target: 10),
            row("filtered count (images & !screenshots)", count, target: 100),
            row("album list (smart + \(folders.formatted()) folders)", albums, target: 100),
        ]
        if sizeRows {
            rows.append(Row(measurement: "database size, \(assets.formatted()) assets with their files",
                            ours: String(format: "%.2f GB, %.0f bytes per asset", Double(databaseBytes) / 1e9,
                                         Double(databaseBytes) / Double(assets)),
                            reference: "-", ratio: "-", target: "≤ 1,536 bytes per asset",
                            json: ["bytes": databaseBytes, "bytes_per_asset": Double(databaseBytes) / Double(assets)]))
            rows.append(Row(measurement: "seeding \(assets.formatted()) assets (bulk, indexes built at the end)",
                            ours: String(format: "%.0f s (%.0f assets/s)", seedSeconds, Double(assets) / seedSeconds),
                            reference: "-", ratio: "-", target: "reported",
                            json: ["seconds": seedSeconds]))
        }
        return rows
    }
}

/// A writer committing batches of 256 synthetic assets back to back, numbered from
/// `seedingFrom`, until `stop()`: the "writer busy" beside which queries are measured.
final class BusyWriter: Sendable {
    private let stopFlag = StopFlag()
    private let done = DispatchSemaphore(value: 0)

    init(_ library: MediaLibrary, seedingFrom first: Int) {
        let stopFlag = stopFlag, done = done
        Thread.detachNewThread {
            var next = first
            while !stopFlag.isSet {
                try? library.seedSyntheticAssets(count: 256, batchSize: 256, startingAt: next)
                next += 256
            }
            done.signal()
        }
    }

    /// Stops the writer and waits for its last batch.
    func stop() { stopFlag.set(); done.wait() }
}

/// A flag one thread sets and another reads.
final class StopFlag: @unchecked Sendable {
    // @unchecked: the value is only read and written under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

extension Figure {
    /// Up to `iterations` timings of `body` in milliseconds, within 20 s (at least 20).
    static func timing(iterations: Int, _ body: () throws -> Void) rethrows -> Figure {
        var values: [Double] = []
        let deadline = Date().addingTimeInterval(20)
        for iteration in 0..<iterations {
            if iteration >= 20 && Date() > deadline { break }
            let start = DispatchTime.now()
            try body()
            values.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
        }
        return Figure(values: values)
    }

    func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}
