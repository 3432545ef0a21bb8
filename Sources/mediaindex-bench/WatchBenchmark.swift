import ChildProcesses
import Foundation
import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// The watcher, end to end: `mediaindex watch` in its own process, files written into
/// its root one by one, and each file's latency from its `close(2)` to its entry in the
/// change feed, as a `library.changes()` observer in this process receives it (an upper
/// bound on the commit's own latency). Then a burst of files written as fast as
/// possible: how many runs it became, and when the last one was in the feed.
enum WatchBenchmark {
    static func run(mediaindex: String, media: String, work: String, files: Int, interval: Double,
                    burst: Int) throws -> [Row] {
        guard files > 0 || burst > 0 else { return [] }
        let root = work + "/watch-root", libraryPath = work + "/watch-library", log = work + "/watch.log"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // Small real JPEGs, each written with a distinct trailer (distinct content, like real photos).
        let sources = try TreeBuilder.build(from: media, into: work + "/watch-sources", count: 40, extensions: ["jpg"])
            .compactMap { FileManager.default.contents(atPath: $0) }.filter { $0.count < 64_000 }
        guard !sources.isEmpty else { throw BenchmarkError("no small JPEG in \(media)") }
        func write(_ index: Int, to path: String) -> Date {
            var bytes = [UInt8](sources[index % sources.count])
            bytes += Array("mediaindex-bench \(index)".utf8)
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            return Date()
        }
        _ = write(0, to: root + "/seed.jpg")
        guard try ProcessRunner.measure([mediaindex, "index", "--quiet", "--library", libraryPath, root]).exitCode == 0 else {
            throw BenchmarkError("mediaindex index failed on the watch root")
        }

        let logDescriptor = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard logDescriptor >= 0 else { throw BenchmarkError("cannot write \(log)") }
        defer { close(logDescriptor) }
        var watching = ChildProcess(executable: mediaindex, arguments: ["watch", "--library", libraryPath,
                                                                         "--cache", work + "/watch-cache"])
        watching.standardError = .fileDescriptor(logDescriptor)
        let watcher: RunningChildProcess
        do { watcher = try watching.start() } catch { throw BenchmarkError("\(error)") }
        defer { watcher.terminate() }
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        func eventRuns() -> Int { logText().split(separator: "\n").filter { $0.contains(" events):") || $0.contains(" event):") }.count }
        guard wait(seconds: 30, until: { logText().contains("(startup)") }) else {
            throw BenchmarkError("mediaindex watch did not start: \(logText())")
        }

        let library = try MediaLibrary(location: LibraryLocation(directory: libraryPath), mode: .readOnly)
        let arrivals = Arrivals()
        let observer = Task.detached {
            for await batch in library.changes() {
                let now = Date()
                for change in batch.changes where change.kind == .inserted { arrivals.record(change.id.rawValue, at: now) }
            }
        }
        defer { observer.cancel() }

        var rows: [Row] = []
        if files > 0 {
            var closed: [String: Date] = [:]
            let runsBefore = eventRuns()
            for index in 1...files {
                let name = "one-\(index).jpg"
                closed[name] = write(index, to: root + "/" + name)
                usleep(UInt32(interval * 1_000_000))
            }
            _ = wait(seconds: 30) { arrivals.count >= files }
            var latencies: [Double] = []
            for (identifier, arrival) in arrivals.all {
                guard let id = Asset.ID(identifier), let asset = try library.blocking.asset(id: id),
                      let name = asset.primaryResource.map({ String(decoding: $0.path.lastComponent, as: UTF8.self) }),
                      let close = closed[name] else { continue }
                latencies.append(arrival.timeIntervalSince(close))
            }
            latencies.sort()
            func percentile(_ p: Double) -> Double {
                latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)]
            }
            let runs = eventRuns() - runsBefore
            rows.append(Row(
                measurement: "watch: close → change feed, \(files) files one by one (every \(Int(interval * 1000)) ms)",
                ours: String(format: "p50 %.2f s, p99 %.2f s, max %.2f s; %d of %d seen; %d runs",
                             percentile(0.5), percentile(0.99), latencies.last ?? .nan, latencies.count, files, runs),
                reference: "-", ratio: "-", target: "p99 ≤ 3 s",
                json: ["latencies_seconds": latencies, "files": files, "seen": latencies.count, "runs": runs,
                       "interval_seconds": interval]))
        }
        if burst > 0 {
            arrivals.reset()
            let runsBefore = eventRuns()
            let folder = root + "/burst"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let start = Date()
            var last = start
            for index in 0..<burst {
                if index % 500 == 0 { try FileManager.default.createDirectory(atPath: folder + "/\(index / 500)", withIntermediateDirectories: true) }
                last = write(files + 1 + index, to: folder + "/\(index / 500)/b-\(index).jpg")
            }
            _ = wait(seconds: 120) { arrivals.count >= burst }
            let done = arrivals.all.map(\.1).max() ?? Date()
            let runs = eventRuns() - runsBefore
            rows.append(Row(
                measurement: "watch: burst of \(burst) files written at once",
                ours: String(format: "written in %.2f s; %d of %d in the feed %.2f s after the last close; %d runs",
                             last.timeIntervalSince(start), arrivals.count, burst, done.timeIntervalSince(last), runs),
                reference: "-", ratio: "-", target: "a few runs, not one per file",
                json: ["files": burst, "write_seconds": last.timeIntervalSince(start), "seen": arrivals.count,
                       "after_last_close_seconds": done.timeIntervalSince(last), "runs": runs]))
        }
        let ending = watcher.terminate()
        if !ending.succeeded { throw BenchmarkError("mediaindex watch ended with \(ending.termination)") }
        return rows
    }

    private static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}

/// When each inserted identifier reached the observer.
private final class Arrivals: @unchecked Sendable {
    // @unchecked: `times` is only touched under `lock`.
    private let lock = NSLock()
    private var times: [String: Date] = [:]

    func record(_ identifier: String, at date: Date) {
        lock.lock()
        if times[identifier] == nil { times[identifier] = date }
        lock.unlock()
    }

    func reset() { lock.lock(); times = [:]; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return times.count }
    var all: [(String, Date)] { lock.lock(); defer { lock.unlock() }; return times.map { ($0.key, $0.value) } }
}
