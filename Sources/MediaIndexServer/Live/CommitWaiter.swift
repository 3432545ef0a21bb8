import Foundation
import MediaIndex

/// Lets request threads wait for the next commit to the change feed: long polls and
/// event streams block here, bounded by a deadline, and wake at once on a commit or
/// when the server stops.
public final class CommitWaiter: @unchecked Sendable {
    // @unchecked: `latest` and `stopped` are only touched under `condition`.
    private let condition = NSCondition()
    private var latest: ChangeToken
    private var stopped = false

    /// A waiter that starts from `token`.
    public init(currentToken token: ChangeToken) {
        latest = token
    }

    /// The newest token seen.
    public var currentToken: ChangeToken {
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
    public func publish(_ token: ChangeToken) {
        condition.lock()
        if token != latest {
            latest = token
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Blocks until the token differs from `token`, `seconds` pass or the waiter stops;
    /// returns the newest token either way.
    public func wait(whileTokenIs token: ChangeToken, seconds: Double) -> ChangeToken {
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

/// Publishes the library's commits to a `CommitWaiter`, whichever process made them
/// (the watcher, a cron `index`, the CLI), from `library.changes()`: inotify on the
/// library folder confirmed by `PRAGMA data_version`, so nothing is polled.
public final class CommitMonitor: @unchecked Sendable {
    // @unchecked: `thread` is only touched under `lock`; the handle is thread-safe.
    private let library: MediaLibrary
    private let waiter: CommitWaiter
    private let lock = NSLock()
    private var thread: Thread?
    private let cancellation = CancellationHandle()
    private let finished = DispatchSemaphore(value: 0)

    /// A monitor of `library` for `waiter`.
    public init(library: MediaLibrary, waiter: CommitWaiter) {
        self.library = library
        self.waiter = waiter
    }

    /// Starts following the library's change batches, on a thread of its own (not Swift's
    /// shared pool, which request threads must never wait for).
    public func start() {
        lock.lock()
        defer { lock.unlock() }
        guard thread == nil else { return }
        let library = self.library, waiter = self.waiter, cancellation = self.cancellation, finished = self.finished
        let batches = library.changes(after: waiter.currentToken)
        let started = Thread {
            _ = try? CallingThreadExecutor.run(cancellable: cancellation) {
                for await batch in batches { waiter.publish(batch.token) }
            }
            finished.signal()
        }
        started.name = "mediaindex-commits"
        thread = started
        started.start()
    }

    /// Stops the waiter (waking every long poll and stream) and the following.
    public func stop() {
        lock.lock()
        let running = thread
        thread = nil
        lock.unlock()
        waiter.stop()
        guard running != nil else { return }
        cancellation.cancel()
        finished.wait()
    }
}
