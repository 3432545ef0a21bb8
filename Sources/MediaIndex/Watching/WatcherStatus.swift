import Foundation

/// How a watched root learns of changes.
public enum WatchMode: String, Sendable, Codable {
    /// inotify on every folder: changes are indexed within seconds.
    case inotify
    /// A periodic incremental re-index (inotify is not enough here; `WatchedRoot.reason` says why).
    case polling
}

/// One root as the watcher sees it.
public struct WatchedRoot: Sendable, Equatable {
    /// The registered root folder.
    public var path: PathBytes
    public var mode: WatchMode
    /// Why the root is polled; nil while inotify watches it.
    public var reason: String?
    /// Folders under inotify watches (0 when polled).
    public var watchedFolders: Int
}

/// What started a watcher's index run.
public enum WatchRunTrigger: String, Sendable, Codable {
    /// The catch-up run when the watcher starts (changes made while nothing watched).
    case startup
    /// inotify events under the roots.
    case events
    /// The periodic re-index of polled roots.
    case poll
}

/// One index run the watcher made.
public struct WatchRun: Sendable {
    /// The roots it indexed.
    public var roots: [PathBytes]
    public var trigger: WatchRunTrigger
    /// File and folder events that led to it (0 for startup and poll runs).
    public var eventCount: Int
    public var startedAt: Date
    public var finishedAt: Date
    /// What the run did; nil when it failed.
    public var summary: IndexSummary?
    /// Why the run failed, as one sentence; nil when it succeeded.
    public var error: String?
    /// The change feed's token after the run: its changes are those after the previous run's.
    public var changeToken: ChangeToken

    /// The run as one log line (no terminal control, for the journal).
    public var logLine: String {
        let where_ = roots.count == 1 ? roots[0].displayString : "\(roots.count) roots"
        let cause: String
        switch trigger {
        case .startup: cause = "startup"
        case .poll: cause = "poll"
        case .events: cause = "\(eventCount) event\(eventCount == 1 ? "" : "s")"
        }
        let seconds = String(format: "%.2f s", finishedAt.timeIntervalSince(startedAt))
        guard let s = summary else { return "watch: \(where_) (\(cause)): failed: \(error ?? "unknown error")" }
        var parts = ["added \(s.added)", "updated \(s.updated)"]
        if s.moved > 0 { parts.append("moved \(s.moved)") }
        parts += ["removed \(s.removed)", "failed \(s.failed)", "opened \(s.opened)"]
        return "watch: \(where_) (\(cause)): " + parts.joined(separator: ", ") + ", \(seconds), token \(changeToken)"
    }
}

/// A snapshot of a watcher: its roots and its last run.
public struct WatcherStatus: Sendable {
    /// Whether it is between `start()` and `stop()`.
    public var isWatching: Bool
    /// Every watched root, in path order.
    public var roots: [WatchedRoot]
    /// The most recent run, nil before the first one ends.
    public var lastRun: WatchRun?
    /// Runs made since `start()`.
    public var runCount: Int
}

/// Something the watcher did or learned, as it happens (one log line each).
public enum WatcherEvent: Sendable {
    /// An index run ended (its changes are committed).
    case run(WatchRun)
    /// A root started being watched, or changed mode (inotify to polling, with the reason).
    case mode(WatchedRoot)
    /// A run waits: another process holds the index lock.
    case waitingForLock(holder: String)
    /// A root stopped being watched (unregistered).
    case unwatched(PathBytes)

    /// The event as one log line.
    public var logLine: String {
        switch self {
        case .run(let run): return run.logLine
        case .mode(let root):
            switch root.mode {
            case .inotify: return "watch: \(root.path.displayString): inotify on \(root.watchedFolders) folders"
            case .polling: return "watch: \(root.path.displayString): polling instead of inotify: \(root.reason ?? "unknown reason")"
            }
        case .waitingForLock(let holder):
            return "watch: waiting for another index run (\(holder)) to finish"
        case .unwatched(let path): return "watch: \(path.displayString): no longer a registered root; not watched"
        }
    }
}

/// Why a watcher could not start.
public enum WatcherError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Another watcher (a `watch` or `serve`) already watches this library.
    case alreadyWatching(library: String, holder: String)
    /// No root to watch.
    case noRoots
    /// The library was opened read-only.
    case readOnly(library: String)

    public var description: String {
        switch self {
        case .alreadyWatching(let library, let holder):
            return "the library \(library) is already being watched (\(holder)); stop that watcher first"
        case .noRoots:
            return "no roots are registered yet; give a folder: mediaindex watch ~/Pictures"
        case .readOnly(let library):
            return "the library \(library) was opened read-only; a watcher writes the index"
        }
    }
}
