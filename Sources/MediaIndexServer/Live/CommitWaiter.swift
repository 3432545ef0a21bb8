import Foundation
import MediaIndex

/// Lets request threads wait for the next commit to the change feed: long polls and
/// event streams block here, bounded by a deadline, and wake at once on a commit or
/// when the server stops.
public final class CommitWaiter: @unchecked Sendable {
    // @unchecked: `latest` and `stopped` are only touched under `condition`.
    private let condition = NSCondition()
    private var latest: Int64
    private var stopped = false

    /// A waiter that starts from `token`.
    public init(currentToken token: Int64) {
        latest = token
    }

    /// The newest token seen.
    public var currentToken: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return latest
    }

    /// Whether `stop()` was called.
    public var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Records a committed token and wakes every waiter.
    public func publish(_ token: Int64) {
        condition.lock()
        if token != latest {
            latest = token
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Blocks until the token differs from `token`, `seconds` pass or the waiter stops;
    /// returns the newest token either way.
    public func wait(whileTokenIs token: Int64, seconds: Double) -> Int64 {
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        condition.lock()
        defer { condition.unlock() }
        while latest == token && !stopped {
            if !condition.wait(until: deadline) { break }
        }
        return latest
    }

    /// Wakes every waiter for good.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Watches the library for commits and publishes them to a `CommitWaiter`, whichever
/// process made them (the watcher, a cron `index`, the CLI's favourites).
///
/// It reads the newest change token a few times a second: an indexed lookup of one row,
/// not a scan.
public final class CommitMonitor: @unchecked Sendable {
    // @unchecked: `thread` is started once in start() and `running` is only touched under `lock`.
    private let library: MediaLibrary
    private let waiter: CommitWaiter
    private let interval: Double
    private let lock = NSLock()
    private var running = false
    private let finished = DispatchSemaphore(value: 0)

    /// A monitor that checks `library` every `interval` seconds.
    public init(library: MediaLibrary, waiter: CommitWaiter, interval: Double = 0.2) {
        self.library = library
        self.waiter = waiter
        self.interval = interval
    }

    /// Starts checking, on a thread of its own.
    public func start() {
        lock.lock()
        guard !running else { lock.unlock(); return }
        running = true
        lock.unlock()
        let thread = Thread { [self] in
            while !waiter.isStopped {
                if let token = try? library.currentChangeToken() { waiter.publish(token) }
                // Only this thread publishes, so this sleeps `interval` unless the server stops.
                _ = waiter.wait(whileTokenIs: waiter.currentToken, seconds: interval)
            }
            finished.signal()
        }
        thread.name = "mediaindex-commits"
        thread.start()
    }

    /// Stops the waiter and the thread.
    public func stop() {
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        waiter.stop()
        if wasRunning { finished.wait() }
    }
}
