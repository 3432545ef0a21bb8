import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
@testable import MediaIndexCLI
@testable import MediaIndexServer
#if canImport(Glibc)
import Glibc
#endif

/// What the tests read from a JSON response's body.
extension LoopbackResponse {
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body)) }
    var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
    var errorMessage: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["message"] as? String }
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
         allowedOrigin: String? = nil, readOnly: Bool = false, pickerOrigin: String? = nil,
         pickSession: PickSession? = nil) throws {
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
        var configuration = MediaIndexAPI.Configuration(library: library, policy: policy, isReadOnly: readOnly,
                                                        watcherState: { [] })
        configuration.pickerOrigin = pickerOrigin
        configuration.pickSession = pickSession
        server = try MediaIndexServer(configuration: configuration)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func get(_ path: String, headers: [String: String] = [:], host: String? = nil) throws -> LoopbackResponse {
        try LoopbackClient.send(port: port, path: path, headers: headers, host: host)
    }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String = "") throws -> LoopbackResponse {
        try LoopbackClient.send(port: port, method: method, path: path, headers: headers, body: Array(body.utf8))
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

/// `value`, or an error saying `message` when it is nil.
func require<T>(_ value: T?, _ message: String = "missing value") throws -> T {
    guard let value else { throw MissingValue(description: message) }
    return value
}

/// What `require` throws: the value a test needed, as one sentence.
struct MissingValue: Error, CustomStringConvertible {
    var description: String
}

/// Runs blocking client code on a thread of its own, so a test waiting for a commit never
/// holds one of the few threads of Swift's pool that the rest of the test needs.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
