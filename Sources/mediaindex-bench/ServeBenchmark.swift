import ChildProcesses
import Foundation
import LoopbackHTTPClient
import MediaIndex
import MediaIndexTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `mediaindex serve` under 16 concurrent clients on a large library: the first page of
/// `/v1/assets` and a cached thumbnail, each measured twice: on kept-alive connections,
/// as a browser loads a grid's images (HTTP/1.1 keeps its connections to a host open),
/// and on a new connection per request, as a first visit does. Every connection goes to
/// 127.0.0.1.
enum ServeBenchmark {
    static let clients = 16

    static func run(mediaindex: String, media: String, work: String, assets: Int, requestsPerClient: Int) throws -> [Row] {
        guard assets > 0 else { return [] }
        let location = LibraryLocation(directory: work + "/serve-library")
        let library = try MediaLibrary(location: location)
        print("Seeding a library of \(assets) assets for the server…")
        try library.seedSyntheticAssets(count: assets, batchSize: 10_000, deferIndexes: true)
        // A few real photos, for thumbnails (seeded assets have no files).
        let photos = work + "/serve-photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for name in ["Canon_40D.jpg", "Nikon_D70.jpg", "Kodak_CX7530.jpg"] {
            try? FileManager.default.copyItem(atPath: media + "/ianare-exif-samples/jpg/" + name, toPath: photos + "/" + name)
        }
        _ = try library.blocking.index(roots: [PathBytes(photos)])
        guard let photo = try library.blocking.asset(path: PathBytes(photos + "/Canon_40D.jpg")) else {
            throw BenchmarkError("the photos copied for the serve benchmark were not indexed")
        }

        let (server, port) = try startServer(mediaindex, library: location.directory, cache: work + "/serve-cache")
        defer { server.terminate() }

        let thumbnail = "/v1/assets/\(photo.id)/thumbnail?size=256&mode=fill&rev=\(photo.revision)"
        guard try request(port: port, path: thumbnail).status == 200 else {
            throw BenchmarkError("the benchmark's thumbnail could not be made")
        }
        let firstPage = "/v1/assets?limit=100"
        let keptFirstPage = try load(port: port, path: firstPage, requestsPerClient: requestsPerClient, keepAlive: true)
        let keptCached = try load(port: port, path: thumbnail, requestsPerClient: requestsPerClient, keepAlive: true)
        let newFirstPage = try load(port: port, path: firstPage, requestsPerClient: requestsPerClient, keepAlive: false)
        let newCached = try load(port: port, path: thumbnail, requestsPerClient: requestsPerClient, keepAlive: false)
        func row(_ name: String, _ figure: Figure, keepAlive: Bool, target: Double) -> Row {
            let p50 = figure.percentile(0.5), p99 = figure.percentile(0.99)
            let connections = keepAlive ? "kept-alive connections" : "a new connection per request"
            return Row(measurement: "serve: \(name), \(assets / 1000)k assets, \(clients) clients, \(connections)",
                       ours: String(format: "p50 %.2f ms, p99 %.2f ms", p50, p99),
                       reference: "-", ratio: "-", target: String(format: "p99 ≤ %.0f ms", target),
                       json: ["p50_ms": p50, "p99_ms": p99, "max_ms": figure.max, "requests": figure.values.count,
                              "clients": clients, "keep_alive": keepAlive])
        }
        return [row("first page of /v1/assets", keptFirstPage, keepAlive: true, target: 20),
                row("cached thumbnail", keptCached, keepAlive: true, target: 5),
                row("first page of /v1/assets", newFirstPage, keepAlive: false, target: 20),
                row("cached thumbnail", newCached, keepAlive: false, target: 5)]
    }

    /// `clients` threads, each making `requestsPerClient` requests one after another, on
    /// one connection kept alive (`keepAlive`) or on a new connection each; every latency
    /// in ms, from sending the request to the last byte of the response.
    static func load(port: UInt16, path: String, requestsPerClient: Int, keepAlive: Bool) throws -> Figure {
        let results = LoadResults()
        let group = DispatchGroup()
        for _ in 0..<clients {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var mine: [Double] = []
                var connection: LoopbackConnection?
                for _ in 0..<requestsPerClient {
                    if keepAlive && (connection == nil || connection!.isClosed) {
                        connection = try? LoopbackConnection(port: port)
                    }
                    let start = DispatchTime.now()
                    let status: Int?
                    if keepAlive {
                        status = (try? connection?.send(path: path))?.status
                    } else {
                        status = (try? request(port: port, path: path))?.status
                    }
                    guard status == 200 else {
                        results.fail("a request for \(path) failed")
                        return
                    }
                    mine.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
                }
                results.add(mine)
            }
        }
        group.wait()
        if let failure = results.failure { throw BenchmarkError(failure) }
        return Figure(values: results.latencies)
    }

    /// What the client threads measured.
    final class LoadResults: @unchecked Sendable {
        // @unchecked: both values are only touched under `lock`.
        private let lock = NSLock()
        private var values: [Double] = []
        private var firstFailure: String?
        var latencies: [Double] { lock.lock(); defer { lock.unlock() }; return values }
        var failure: String? { lock.lock(); defer { lock.unlock() }; return firstFailure }
        func add(_ more: [Double]) { lock.lock(); values += more; lock.unlock() }
        func fail(_ reason: String) { lock.lock(); if firstFailure == nil { firstFailure = reason }; lock.unlock() }
    }

    /// Starts `mediaindex serve --no-watch` on a free loopback port and waits until
    /// `/v1/status` answers; the caller terminates the process.
    static func startServer(_ mediaindex: String, library: String, cache: String) throws -> (RunningChildProcess, UInt16) {
        let port = try freePort()
        let server = try ChildProcess(executable: mediaindex, arguments: [
            "serve", "--library", library, "--cache", cache, "--listen", "127.0.0.1:\(port)", "--no-watch",
        ]).start()
        var ready = false
        for _ in 0..<200 where !ready {
            ready = (try? request(port: port, path: "/v1/status"))?.status == 200
            if !ready { usleep(50_000) }
        }
        guard ready else {
            server.terminate()
            throw BenchmarkError("mediaindex serve did not answer on 127.0.0.1:\(port)")
        }
        return (server, port)
    }

    /// One GET over a new connection (as a browser's first request); the status.
    static func request(port: UInt16, path: String) throws -> (status: Int, bytes: Int) {
        let response = try LoopbackClient.send(port: port, path: path, timeout: 30)
        return (response.status, response.body.count)
    }

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchmarkError("cannot find a free port on 127.0.0.1") }
        return UInt16(bigEndian: address.sin_port)
    }
}

