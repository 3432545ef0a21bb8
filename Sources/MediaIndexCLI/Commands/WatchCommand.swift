import Dispatch
import Foundation
import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// `mediaindex watch [ROOT...]`: keeps the roots indexed as files change, until stopped.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "watch",
        abstract: "Keep the roots indexed as their files change.",
        discussion: """
            Watches every folder of every registered root (or of the given ones, registered first) \
            with inotify and indexes what changed: a file once it is closed and its folder quiet for \
            --quiet-period seconds, a long copy in runs --max-delay seconds apart. A root where \
            inotify is not enough (the fs.inotify.max_user_watches limit, a queue overflow, NFS, CIFS \
            or FUSE) is re-indexed every --poll-interval seconds instead, as the log says once. \
            Each run holds the index lock: a cron 'index' meanwhile waits (--wait) or exits 75. \
            One line per run goes to stderr. SIGINT or SIGTERM lets the run in progress commit, \
            then exits 0; a second signal exits at once (nothing committed is lost).
            Exit codes: 0 stopped by a signal, 1 failed, 64 bad command line, 75 the library is \
            already being watched (by 'watch' or 'serve').
            """
    )

    static let roots = Argument.positionals(
        "roots", as: RawArgument.self, help: "Folders to register and watch (default: every registered root)."
    )
    static let quietPeriod = Argument.option(
        "quiet-period", valueName: "seconds", default: 1.0,
        help: "Seconds a folder must be quiet, and a written file closed, before indexing."
    )
    static let maximumDelay = Argument.option(
        "max-delay", valueName: "seconds", default: 1.5, help: "Seconds a change waits at most while its folder stays busy."
    )
    static let pollInterval = Argument.option(
        "poll-interval", valueName: "seconds", default: 60.0, help: "Seconds between re-indexes of a root inotify cannot watch."
    )
    static let thumbnails = Argument.flag("thumbnails", help: "Make thumbnails of the new and changed assets after each run.")
    static let arguments = LibraryOptions.arguments + CacheOptions.arguments
        + declared(roots, quietPeriod, maximumDelay, pollInterval)
        + IndexRunOptions.arguments(thumbnails: thumbnails)

    static let alreadyWatchedExitCode: Int32 = 75

    var library: LibraryOptions
    var cacheOptions: CacheOptions
    var roots: [RawArgument]
    var quietPeriod: Double
    var maximumDelay: Double
    var pollInterval: Double
    var batchSize: Int
    var thumbnailSizes: [Int]?

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        cacheOptions = try CacheOptions(parsed: parsed)
        roots = try parsed[Self.roots]
        quietPeriod = try parsed[Self.quietPeriod]
        maximumDelay = try parsed[Self.maximumDelay]
        pollInterval = try parsed[Self.pollInterval]
        let run = try IndexRunOptions(parsed: parsed, thumbnails: Self.thumbnails)
        batchSize = run.batchSize
        thumbnailSizes = run.thumbnailSizes
    }

    func validate() throws {
        guard quietPeriod >= 0.05 && quietPeriod <= 3600 else {
            throw ValidationError("--quiet-period must be between 0.05 and 3600 seconds")
        }
        guard maximumDelay >= quietPeriod && maximumDelay <= 3600 else {
            throw ValidationError("--max-delay must be at least --quiet-period and at most 3600 seconds")
        }
        guard pollInterval >= 1 && pollInterval <= 86_400 else {
            throw ValidationError("--poll-interval must be between 1 and 86400 seconds")
        }
        guard batchSize >= 1 && batchSize <= 100_000 else {
            throw ValidationError("--batch-size must be between 1 and 100000")
        }
    }

    /// The watcher's configuration for these options.
    func watcherConfiguration(cache: ThumbnailCache) -> LibraryWatcher.Configuration {
        var configuration = LibraryWatcher.Configuration()
        configuration.roots = roots.map { PathBytes($0.bytes) }
        configuration.quietPeriod = quietPeriod
        configuration.maximumDelay = maximumDelay
        configuration.pollInterval = pollInterval
        configuration.batchSize = batchSize
        configuration.excludedFolders = [PathBytes(cache.directory.path)]
        return configuration
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.create, cache: cacheOptions, in: context)
        let cache = mediaLibrary.thumbnailCache
        let watcher = LibraryWatcher(library: mediaLibrary, configuration: watcherConfiguration(cache: cache))
        let events = watcher.events()
        let signals = StopSignals { name in
            context.standardError.writeLine("watch: \(name): stopping once the run in progress has committed")
            watcher.stop()
        }
        defer { withExtendedLifetime(signals) {} }
        do {
            try watcher.start()
        } catch let error as WatcherError {
            if case .alreadyWatching = error {
                context.standardError.writeLine("Error: \(error.description)")
                throw ExitCode(Self.alreadyWatchedExitCode)
            }
            throw ValidationError(error.description)
        }
        var token = try await mediaLibrary.currentChangeToken()
        for await event in events {
            context.standardError.writeLine(event.logLine)
            guard case .run(let run) = event, run.summary != nil else { continue }
            do {
                // The library decides what to collect and rebuild after the run.
                let built = try await mediaLibrary.updateThumbnails(since: token, sizes: thumbnailSizes ?? [])
                if built.total > 0 {
                    context.standardError.writeLine("watch: thumbnails: " + ThumbnailArguments.summaryText(built))
                }
            } catch {
                context.standardError.writeLine("watch: thumbnails failed: \(error)")
            }
            token = run.changeToken
        }
        context.standardError.writeLine("watch: stopped")
    }
}

/// SIGINT and SIGTERM handled as requests to stop: the first calls `stop` on its own
/// thread; a second one exits at once.
final class StopSignals {
    private let sources: [any DispatchSourceSignal]

    init(stop: @escaping @Sendable (String) -> Void) {
        let queue = DispatchQueue(label: "mediaindex.stop-signals")
        let count = SignalCount()
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if count.increment() > 1 { _exit(0) }
                Thread { stop(name) }.start()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

/// Signals received so far; touched only on the signal sources' serial queue.
private final class SignalCount: @unchecked Sendable {
    // @unchecked: only the one serial queue of `StopSignals` calls `increment`.
    private var value = 0
    func increment() -> Int { value += 1; return value }
}
