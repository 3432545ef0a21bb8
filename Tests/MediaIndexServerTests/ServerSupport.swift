import CorpusSupport
import Foundation
import MediaIndex
@testable import MediaIndexCLI
@testable import MediaIndexServer
#if canImport(Glibc)
import Glibc
#endif

/// A response as a test reads it off the socket.
struct RawResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    func headers(_ name: String) -> [String] { headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1) }
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body)) }
    var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
    var errorMessage: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["message"] as? String }
}

/// A minimal HTTP/1.1 client for tests, so they control every header (Host included)
/// and see exactly what the server sends. Only ever connects to 127.0.0.1.
enum TestClient {
    static func send(port: UInt16, method: String = "GET", path: String, headers: [String: String] = [:],
                     body: [UInt8] = [], host: String? = nil, timeout: Int = 30) throws -> RawResponse {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        for (name, value) in headers { lines.append("\(name): \(value)") }
        if !body.isEmpty || ["POST", "PUT"].contains(method) { lines.append("Content-Length: \(body.count)") }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
        let raw = try exchange(port: port, request: request, timeout: timeout)
        return try parse(raw)
    }

    /// Sends bytes and reads until the server closes, or until `until` is satisfied.
    static func exchange(port: UInt16, request: [UInt8], timeout: Int, until: (([UInt8]) -> Bool)? = nil) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError("socket failed") }
        defer { close(fd) }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestClientError("cannot connect to 127.0.0.1:\(port)") }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may answer (413) and close before reading everything
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
            if let until, until(received) { break }
        }
        return received
    }

    static func parse(_ raw: [UInt8]) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, raw.count - 3)).first(where: { Array(raw[$0..<$0 + 4]) == separator }) else {
            throw TestClientError("no complete response: \(String(decoding: raw.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: raw[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestClientError("bad status line \(head[0])") }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(raw[(end + 4)...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            body = dechunk(body)
        }
        return RawResponse(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [], index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                    .split(separator: ";")[0], radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            output += bytes[start..<min(bytes.count, start + size)]
            index = start + size + 2
        }
        return output
    }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A library indexed from a few corpus files copied into a temporary root, served on
/// 127.0.0.1 (port chosen by the kernel) or on another address.
final class ServedLibrary: @unchecked Sendable {
    let directory: String
    let root: String
    let libraryPath: String
    let cachePath: String
    let library: MediaLibrary
    let token = ServeToken.random()
    let server: MediaIndexServer
    var port: UInt16 { server.address.port }

    /// The corpus JPEGs the fixture copies.
    static let sourceFiles = ["ianare-exif-samples/jpg/Canon_40D.jpg", "ianare-exif-samples/jpg/Nikon_D70.jpg",
                              "ianare-exif-samples/jpg/Fujifilm_FinePix6900ZOOM.jpg",
                              "ianare-exif-samples/jpg/Kodak_CX7530.jpg"]

    init(listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 0, isIPv6: false),
         allowedOrigin: String? = nil, readOnly: Bool = false) throws {
        directory = NSTemporaryDirectory() + "mediaindex-serve-" + UUID().uuidString
        root = directory + "/Pictures"
        libraryPath = directory + "/library"
        cachePath = directory + "/cache"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for file in Self.sourceFiles {
            try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + file,
                                             toPath: root + "/" + URL(fileURLWithPath: file).lastPathComponent)
        }
        library = try MediaLibrary(location: LibraryLocation(directory: libraryPath),
                                   cache: ThumbnailCache(directory: URL(fileURLWithPath: cachePath)))
        _ = try library.blocking.index(roots: [PathBytes(root)])
        let policy = AccessPolicy(address: listen, token: token, allowedOrigin: allowedOrigin)
        server = try MediaIndexServer(configuration: MediaIndexAPI.Configuration(
            library: library, policy: policy, isReadOnly: readOnly,
            watcherState: { [] }))
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func get(_ path: String, headers: [String: String] = [:], host: String? = nil) throws -> RawResponse {
        try TestClient.send(port: port, path: path, headers: headers, host: host)
    }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String = "") throws -> RawResponse {
        try TestClient.send(port: port, method: method, path: path, headers: headers, body: Array(body.utf8))
    }

    var bearer: [String: String] { ["Authorization": "Bearer \(token.value)"] }

    /// What `mediaindex ARGS` prints on stdout for this library.
    func cli(_ arguments: [String]) async -> String {
        let context = CommandContext.capturing(environment: ["MEDIAINDEX_LIBRARY": libraryPath, "HOME": "/nonexistent",
                                                             "MEDIAINDEX_CACHE": cachePath])
        _ = await CommandRunner.run(root: MediaIndexCommand.self, arguments: arguments.map { RawArgument($0) },
                                    context: context)
        return context.standardOutput.capturedText
    }

    /// The first asset of the fixture.
    func anyAsset() throws -> Asset {
        var options = FetchOptions.everyAsset
        options.limit = 1
        return try require(library.blocking.fetchAssets(options).assets.first, "the fixture has no asset")
    }

    /// The first asset's identifier, as the routes take it.
    func anyAssetID() throws -> String {
        try anyAsset().id.rawValue
    }

    /// The asset whose identifier is `id`, as the library has it now.
    func asset(_ id: String) throws -> Asset? {
        try library.blocking.asset(id: require(Asset.ID(id), "\(id) is not an asset identifier"))
    }
}

func require<T>(_ value: T?, _ message: String = "missing value") throws -> T {
    guard let value else { throw TestClientError(message) }
    return value
}

/// Runs blocking client code on a thread of its own, so a test waiting for a commit never
/// holds one of the few threads of Swift's pool that the rest of the test needs.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
