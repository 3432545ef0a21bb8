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

    static let listen = Argument.option(
        "listen", valueName: "address:port", default: "127.0.0.1:8423",
        help: "Where to listen; anything but loopback requires the token for every request."
    )
    static let tokenFile = Argument.option(
        "token-file", valueName: "file", help: "The token's file (default: serve.token in the library folder)."
    )
    static let allowedOrigin = Argument.option(
        "allow-origin", valueName: "origin", help: "Send CORS headers to this origin (e.g. https://app.example.com); none by default."
    )
    static let pickerOrigin = Argument.option(
        "picker-origin", valueName: "origin",
        help: "The origin that may embed the web picker and receives its selection (e.g. https://app.example.com); none but this server by default."
    )
    static let noWatch = Argument.flag("no-watch", help: "Do not watch the roots; serve read-only (writes are refused).")
    static let arguments = LibraryOptions.arguments + CacheOptions.arguments
        + declared(listen, tokenFile, allowedOrigin, pickerOrigin, noWatch)

    static let watchedElsewhereExitCode: Int32 = 75

    var library: LibraryOptions
    var cacheOptions: CacheOptions
    var listen: ListenAddress
    var tokenFile: String?
    var allowedOrigin: String?
    var pickerOrigin: String?
    var noWatch: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        cacheOptions = try CacheOptions(parsed: parsed)
        do { listen = try ListenAddress(parsing: parsed[Self.listen]) } catch let error as ListenAddressError {
            throw ValidationError("--listen: \(error.description)")
        }
        tokenFile = try parsed[Self.tokenFile]
        allowedOrigin = try parsed[Self.allowedOrigin]
        if let origin = allowedOrigin, origin != "*",
           !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) || origin.dropFirst(8).contains("/") {
            throw ValidationError("--allow-origin takes an origin such as https://app.example.com (scheme, host and port, no path), not '\(origin)'")
        }
        pickerOrigin = try parsed[Self.pickerOrigin]
        if let origin = pickerOrigin, !Self.isOrigin(origin) {
            throw ValidationError("--picker-origin takes one origin such as https://app.example.com (scheme, host and port, no path), not '\(origin)'")
        }
        noWatch = try parsed[Self.noWatch]
    }

    /// Whether `text` is an http(s) origin: scheme, host and optional port, nothing else.
    static func isOrigin(_ text: String) -> Bool {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), let host = url.host, !host.isEmpty,
              url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && !"\"'<>\\*".unicodeScalars.contains($0) }
    }

    func run(in context: CommandContext) async throws {
        let location = library.location(in: context)
        guard FileManager.default.fileExists(atPath: location.databasePath) else {
            throw LibraryError.noLibrary(path: location.directory)
        }
        let mediaLibrary = try library.open(noWatch ? .readOnly : .create, cache: cacheOptions, in: context)
        let tokenPath = tokenFile ?? location.directory + "/serve.token"
        let (token, created) = try ServeToken.loadOrCreate(at: tokenPath)
        context.standardError.writeLine(created ? "serve: created the token file \(tokenPath) (mode 0600)"
                                                : "serve: token from \(tokenPath)")

        let cache = mediaLibrary.thumbnailCache
        var watcher: LibraryWatcher?
        if !noWatch {
            var configuration = LibraryWatcher.Configuration()
            configuration.excludedFolders = [PathBytes(cache.directory.path)]
            let started = LibraryWatcher(library: mediaLibrary, configuration: configuration)
            let events = started.events()
            do {
                try started.start()
            } catch let error as WatcherError {
                if case .alreadyWatching = error {
                    context.standardError.writeLine("Error: \(error.description); 'serve --no-watch' serves it read-only")
                    throw ExitCode(Self.watchedElsewhereExitCode)
                }
                throw ValidationError(error.description)
            }
            watcher = started
            Task.detached { await Self.log(events, library: mediaLibrary, to: context.standardError) }
        }
        defer { watcher?.stop() }

        let policy = AccessPolicy(address: listen, token: token, allowedOrigin: allowedOrigin)
        var configuration = MediaIndexAPI.Configuration(
            library: mediaLibrary, policy: policy, isReadOnly: noWatch,
            watcherState: { [watcher] in watcher.map(Self.rootStates) ?? [] })
        configuration.pickerOrigin = pickerOrigin
        let server = try MediaIndexServer(configuration: configuration)
        defer { server.stop() }
        server.api.warmPickerFirstScreen()
        let scope = listen.isLoopback ? "loopback only" : "every request needs the token"
        context.standardOutput.writeLine("Serving \(location.directory) at http://\(server.address)/ (\(scope)\(noWatch ? ", read-only" : ""))")
        if !listen.isLoopback {
            context.standardOutput.writeLine("Open http://\(server.address)/?token=TOKEN with the token in \(tokenPath)")
        }
        context.standardOutput.flush()
        let stopRequests = StopRequests()
        let signals = StopSignals { name in
            context.standardError.writeLine("serve: \(name): stopping once the run in progress has committed")
            stopRequests.stop()
        }
        await stopRequests.wait()
        withExtendedLifetime(signals) {}
    }

    /// Writes the watcher's events to the log, one line each, and collects the thumbnails of
    /// deleted and changed assets after each run, as `watch` does.
    static func log(_ events: AsyncStream<WatcherEvent>, library: MediaLibrary, to log: TextOutput) async {
        var token = (try? await library.currentChangeToken()) ?? .initial
        for await event in events {
            log.writeLine(event.logLine)
            log.flush()
            guard case .run(let run) = event, run.summary != nil else { continue }
            // The library decides what to collect after the run (no sizes: nothing is made).
            _ = try? await library.updateThumbnails(since: token)
            token = run.changeToken
        }
    }

    /// The watcher's roots as `/v1/status` reports them.
    static func rootStates(_ watcher: LibraryWatcher) -> [RootWatchState] {
        watcher.status.roots.map { RootWatchState(path: $0.path, watcher: $0.mode.rawValue, reason: $0.reason) }
    }
}

/// Lets `run` wait until a signal asks it to stop.
private final class StopRequests: @unchecked Sendable {
    // @unchecked: `continuation` and `stopped` are only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var stopped = false

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if stopped { lock.unlock(); continuation.resume(); return }
            self.continuation = continuation
            lock.unlock()
        }
    }

    func stop() {
        lock.lock()
        stopped = true
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume()
    }
}
