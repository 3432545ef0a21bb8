import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps a library's roots indexed as their files change (`mediaindex watch`, `serve`).
///
/// Every folder of every root is watched with inotify. Events are debounced (see
/// `Configuration`) and become incremental index runs through `MediaLibrary.index`,
/// each holding the index lock, so a cron `index` meanwhile waits (`--wait`) or exits
/// 75; when cron holds the lock, the watcher's run waits for it. A root where inotify
/// is not enough (the watch limit, a queue overflow, NFS, CIFS or FUSE) is polled
/// instead: re-indexed every `pollInterval`, said once through `events()`.
///
/// ```swift
/// let watcher = LibraryWatcher(library: library)
/// try watcher.start()
/// for await event in watcher.events() { print(event.logLine) }   // until stop()
/// ```
///
/// One watcher per library: `start()` takes `watch.lock` in the library folder.
public final class LibraryWatcher: @unchecked Sendable {
    // @unchecked: `state` is only touched under `condition`; `watchLock` only by
    // start() and stop() under `lifecycle`; the rest is immutable.

    /// How a watcher debounces, polls and indexes.
    public struct Configuration: Sendable {
        /// The roots to watch; empty for every registered root, including roots
        /// registered while it runs. Given roots not yet registered are registered
        /// (and indexed) at start, as `index ROOT` does.
        public var roots: [PathBytes] = []
        /// Seconds a root must be quiet, and a written file closed, before a run (1 s).
        public var quietPeriod: Double = 1.0
        /// Seconds a completed change waits at most, however busy its root (1.5 s): a
        /// long copy is indexed in runs this far apart, not once per file.
        public var maximumDelay: Double = 1.5
        /// Seconds after its last write that a file never closed is indexed anyway (30 s).
        public var abandonedWriteDelay: Double = 30
        /// Seconds between runs of a polled root (60 s).
        public var pollInterval: Double = 60
        /// Seconds between looks at the registered roots, to watch new ones (5 s).
        public var rootsRefreshInterval: Double = 5
        /// Folders never watched nor indexed besides the library's own (the thumbnail cache).
        public var excludedFolders: [PathBytes] = []
        /// Files committed per transaction, as `IndexOptions.batchSize`.
        public var batchSize = 1024
        var hooks = WatcherTestHooks()

        public init() {}

        var timing: PendingChanges.Timing {
            PendingChanges.Timing(quietPeriod: quietPeriod, maximumDelay: maximumDelay,
                                  abandonedWrite: abandonedWriteDelay)
        }
    }

    /// The library kept indexed.
    public let library: MediaLibrary
    public let configuration: Configuration

    private let condition = NSCondition()
    private var state = SharedState()
    private let subscribers = Subscribers()
    private let lifecycle = NSLock()
    private var watchLock: IndexLock?
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    private let finished = DispatchGroup()
    private let epoch = ContinuousClock.now

    private struct RootState {
        var mode = WatchMode.inotify
        var reason: String?
        var watchedFolders = 0
        var isSetUp = false
        var pending = PendingChanges()
        var lastRunAt: Double
    }

    private struct SharedState {
        var started = false
        var stopping = false
        var roots: [PathBytes: RootState] = [:]
        /// Work for the event thread.
        var watchRequests: [PathBytes] = []
        var unwatchRequests: [PathBytes] = []
        var overflowRequests: [PathBytes] = []
        var lastRun: WatchRun?
        var runCount = 0
    }

    /// A watcher of `library`, not started yet.
    public init(library: MediaLibrary, configuration: Configuration = Configuration()) {
        self.library = library
        self.configuration = configuration
    }

    deinit {
        if wakePipe.read >= 0 { close(wakePipe.read); close(wakePipe.write) }
    }

    // MARK: Public

    /// Starts watching: returns once the threads run; the catch-up run of the roots
    /// (changes made while nothing watched) is the first one reported.
    ///
    /// - Throws: `WatcherError.alreadyWatching` when another watcher holds the library,
    ///   `WatcherError.noRoots` when there is nothing to watch, `WatcherError.readOnly`,
    ///   or `LibraryError.invalidRoot` for a given root that is not a readable folder.
    public func start() throws {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        condition.lock()
        let started = state.started
        condition.unlock()
        guard !started else { return }
        guard library.writer != nil else { throw WatcherError.readOnly(library: library.location.directory) }
        let given = try configuration.roots.map(MediaLibrary.resolveRoot)
        if given.isEmpty, try library.blocking.roots().isEmpty { throw WatcherError.noRoots }
        do {
            watchLock = try IndexLock(path: library.location.directory + "/watch.lock", wait: false)
        } catch LibraryError.indexRunInProgress(_, let holder) {
            throw WatcherError.alreadyWatching(library: library.location.directory, holder: holder)
        }
        if wakePipe.read >= 0 { close(wakePipe.read); close(wakePipe.write) }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            watchLock = nil
            throw LibraryError.io("cannot start the watcher: pipe failed: \(systemErrorMessage(errno))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakePipe = (fds[0], fds[1])
        condition.lock()
        state = SharedState()
        state.started = true
        condition.unlock()
        subscribers.reopen()
        finished.enter()
        finished.enter()
        let eventThread = Thread { [self] in eventLoop(); finished.leave() }
        eventThread.name = "mediaindex-watch-events"
        let runThread = Thread { [self] in runLoop(given: given); finished.leave() }
        runThread.name = "mediaindex-watch-runs"
        eventThread.start()
        runThread.start()
    }

    /// Stops watching. A run in progress finishes first, so everything it read is
    /// committed; changes not yet indexed are found by the next start's catch-up run.
    /// Returns once both threads have ended; safe to call more than once.
    public func stop() {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        condition.lock()
        guard state.started else { condition.unlock(); return }
        state.stopping = true
        condition.broadcast()
        condition.unlock()
        wakeEventThread()
        finished.wait()
        condition.lock()
        state.started = false
        condition.unlock()
        watchLock = nil
        subscribers.finishAll()
    }

    /// The watched roots (mode and reason) and the last run.
    public var status: WatcherStatus {
        condition.lock()
        defer { condition.unlock() }
        return WatcherStatus(
            isWatching: state.started && !state.stopping,
            roots: state.roots.keys.sorted().map { path in
                let root = state.roots[path]!
                return WatchedRoot(path: path, mode: root.mode, reason: root.reason, watchedFolders: root.watchedFolders)
            },
            lastRun: state.lastRun, runCount: state.runCount)
    }

    /// Everything the watcher does from now on: each run once committed, each root's
    /// mode as it is set up or falls back to polling, waits for the index lock. Ends
    /// when the watcher stops.
    public func events() -> AsyncStream<WatcherEvent> {
        subscribers.subscribe()
    }

    /// Hands `event` to every `events()` stream, and to the test hook at once.
    private func publish(_ event: WatcherEvent) {
        configuration.hooks.events?(event)
        subscribers.send(event)
    }

    // MARK: Test hooks

    /// Behaves as if the root's inotify queue had overflowed (`IN_Q_OVERFLOW`).
    func simulateQueueOverflow(root: PathBytes) {
        condition.lock()
        state.overflowRequests.append(root)
        condition.unlock()
        wakeEventThread()
    }

    // MARK: Clock

    private func now() -> Double {
        let elapsed = ContinuousClock.now - epoch
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: Event thread

    private func wakeEventThread() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    /// Reads inotify events of every root into the pending work; sets up and releases
    /// watches on request. Owns the `RootWatch`es.
    private func eventLoop() {
        var watches: [PathBytes: RootWatch] = [:]
        let timing = configuration.timing
        let excluded = [PathBytes(library.location.directory)] + configuration.excludedFolders
        while true {
            condition.lock()
            if state.stopping { condition.unlock(); break }
            let requests = state.watchRequests, removals = state.unwatchRequests, overflows = state.overflowRequests
            state.watchRequests = []
            state.unwatchRequests = []
            state.overflowRequests = []
            condition.unlock()

            for root in removals { watches[root] = nil }
            for root in requests {
                let follows = (try? library.read { db in try RootStore(db: db).followsSymlinks(path: root) }) ?? false
                let watch = RootWatch(root: root, excludedFolders: excluded, hooks: configuration.hooks, followsLinks: follows)
                watch.setUp()
                watches[root] = watch
                update(root, with: watch, effects: [], timing: timing, announce: true)
            }
            for root in overflows {
                if let watch = watches[root] { update(root, with: watch, effects: watch.simulateOverflow(), timing: timing) }
            }

            var descriptors = [pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
            var polled: [RootWatch] = []
            for watch in watches.values {
                guard let instance = watch.instance else { continue }
                descriptors.append(pollfd(fd: instance.descriptor, events: Int16(POLLIN), revents: 0))
                polled.append(watch)
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 { continue }  // EINTR
            if descriptors[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(wakePipe.read, &buffer, buffer.count) > 0 {}
            }
            for (index, watch) in polled.enumerated() where descriptors[index + 1].revents != 0 {
                update(watch.root, with: watch, effects: watch.readEvents(), timing: timing)
            }
        }
    }

    /// Applies a root's new effects and mode to the shared state, telling the run thread.
    private func update(_ root: PathBytes, with watch: RootWatch, effects: [PendingChanges.Effect],
                        timing: PendingChanges.Timing, announce: Bool = false) {
        condition.lock()
        guard var rootState = state.roots[root] else { condition.unlock(); return }
        rootState.pending.apply(effects, at: now(), timing: timing)
        let mode: WatchMode = watch.pollingReason == nil ? .inotify : .polling
        let changed = mode != rootState.mode
        rootState.mode = mode
        rootState.reason = watch.pollingReason
        rootState.watchedFolders = watch.watchedFolderCount
        rootState.isSetUp = true
        state.roots[root] = rootState
        condition.broadcast()
        condition.unlock()
        if changed || announce {
            publish(.mode(WatchedRoot(path: root, mode: mode, reason: watch.pollingReason,
                                               watchedFolders: watch.watchedFolderCount)))
        }
    }

    // MARK: Run thread

    /// What one run is to index.
    private struct RunPlan {
        var roots: [PathBytes]
        var trigger: WatchRunTrigger
        var eventCount: Int
        /// Files still open for writing when the run starts: the run leaves them alone.
        var filesBeingWritten: Set<PathBytes> = []
    }

    private func runLoop(given: [PathBytes]) {
        // Given roots not yet registered are registered by a first run; then every
        // root is watched, then a catch-up run finds what changed before the watches.
        if !given.isEmpty, !given.allSatisfy({ root in registeredRoots().contains { root.isInside($0) } }) {
            perform(RunPlan(roots: given, trigger: .startup, eventCount: 0))
        }
        refreshRoots(given: given, catchUp: false)
        condition.lock()
        while !state.stopping && !state.roots.values.allSatisfy(\.isSetUp) { condition.wait() }
        let stopping = state.stopping
        let all = state.roots.keys.sorted()
        for path in all { state.roots[path]?.lastRunAt = now() }
        condition.unlock()
        if stopping { return }
        if !all.isEmpty { perform(RunPlan(roots: all, trigger: .startup, eventCount: 0)) }

        var nextRefresh = now() + configuration.rootsRefreshInterval
        while true {
            condition.lock()
            var plan: RunPlan?
            while !state.stopping {
                let moment = now()
                if moment >= nextRefresh { break }
                plan = duePlan(at: moment)
                if plan != nil { break }
                let deadline = min(nextDeadline() ?? nextRefresh, nextRefresh)
                _ = condition.wait(until: Date(timeIntervalSinceNow: max(0.005, deadline - moment)))
            }
            if state.stopping { condition.unlock(); return }
            condition.unlock()
            if let plan {
                perform(plan)
            } else {
                refreshRoots(given: given)
                nextRefresh = now() + configuration.rootsRefreshInterval
            }
        }
    }

    /// The roots due for a run now, and why; marks their pending work as taken.
    /// Called under `condition`.
    private func duePlan(at moment: Double) -> RunPlan? {
        let timing = configuration.timing
        var dueByEvents: [PathBytes] = [], dueByPoll: [PathBytes] = []
        for path in state.roots.keys {
            guard let root = state.roots[path], root.isSetUp else { continue }
            if root.pending.isDue(at: moment, timing: timing) {
                dueByEvents.append(path)
            } else if root.mode == .polling && moment - root.lastRunAt >= configuration.pollInterval {
                dueByPoll.append(path)
            }
        }
        guard !dueByEvents.isEmpty || !dueByPoll.isEmpty else { return nil }
        // Roots with settled changes go along, so a move between two roots is one run
        // (and keeps its identifier).
        var chosen = Set(dueByEvents + dueByPoll)
        for (path, root) in state.roots where root.pending.hasSettledEvents { chosen.insert(path) }
        var eventCount = 0
        var beingWritten = Set<PathBytes>()
        for path in chosen {
            eventCount += state.roots[path]?.pending.runStarted(at: moment, timing: timing) ?? 0
            state.roots[path]?.lastRunAt = moment
            if let writing = state.roots[path]?.pending.writing { beingWritten.formUnion(writing.keys) }
        }
        return RunPlan(roots: chosen.sorted(), trigger: dueByEvents.isEmpty ? .poll : .events, eventCount: eventCount,
                       filesBeingWritten: beingWritten)
    }

    /// The earliest moment a root can become due. Called under `condition`.
    private func nextDeadline() -> Double? {
        let timing = configuration.timing
        var deadlines: [Double] = []
        for root in state.roots.values where root.isSetUp {
            if let deadline = root.pending.nextDeadline(timing: timing) { deadlines.append(deadline) }
            if root.mode == .polling { deadlines.append(root.lastRunAt + configuration.pollInterval) }
        }
        return deadlines.min()
    }

    private func registeredRoots() -> [PathBytes] {
        (try? library.read { db in
            try db.rows("SELECT path FROM roots ORDER BY path").map { PathBytes($0.blob("path") ?? []) }
        }) ?? []
    }

    /// Watches roots registered since the last look (and only the configured ones),
    /// and lets go of roots no longer registered.
    /// New roots (and roots back from a vanished folder) get a catch-up run once watched,
    /// unless `catchUp` is false (the startup run covers them).
    private func refreshRoots(given: [PathBytes], catchUp: Bool = true) {
        let registered = registeredRoots().filter { root in
            given.isEmpty || given.contains { $0.isInside(root) || root.isInside($0) }
        }
        var gone: [PathBytes] = []
        condition.lock()
        let moment = now()
        let timing = configuration.timing
        for root in registered where state.roots[root] == nil {
            state.roots[root] = RootState(lastRunAt: moment)
            if catchUp { state.roots[root]?.pending.requireRun(at: moment, timing: timing) }
            state.watchRequests.append(root)
        }
        for root in state.roots.keys where !registered.contains(root) {
            state.roots[root] = nil
            state.unwatchRequests.append(root)
            gone.append(root)
        }
        // A root folder that vanished (an unmounted disk) and is back is watched afresh.
        for (root, rootState) in state.roots
        where rootState.isSetUp && rootState.reason == RootWatch.vanishedReason && FileStat.of(root) != nil {
            state.roots[root] = RootState(lastRunAt: moment)
            state.roots[root]?.pending.requireRun(at: moment, timing: timing)
            state.unwatchRequests.append(root)
            state.watchRequests.append(root)
        }
        let changed = !state.watchRequests.isEmpty || !state.unwatchRequests.isEmpty
        condition.unlock()
        if changed { wakeEventThread() }
        for root in gone { publish(.unwatched(root)) }
    }

    /// Runs the index over `plan.roots`, waiting while another process holds the lock.
    private func perform(_ plan: RunPlan) {
        let roots = plan.roots.filter { FileStat.of($0) != nil }
        guard !roots.isEmpty else { return }
        var options = MediaLibrary.IndexOptions()
        options.waitForLock = false
        options.batchSize = configuration.batchSize
        options.excludedFolders = configuration.excludedFolders
        // A file is read once its writer is done: closed (inotify), and unchanged for a
        // quiet period (a copy that closes and reopens it for each chunk).
        options.filesBeingWritten = plan.filesBeingWritten
        options.settlingSeconds = configuration.timing.quietPeriod
        let startedAt = Date()
        var summary: IndexSummary?
        var failure: String?
        var announcedWait = false
        while summary == nil && failure == nil {
            do {
                summary = try library.blocking.index(roots: roots, options: options, progress: configuration.hooks.progress)
            } catch LibraryError.indexRunInProgress(_, let holder) {
                if !announcedWait { publish(.waitingForLock(holder: holder)); announcedWait = true }
                condition.lock()
                if !state.stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.25)) }
                let stopping = state.stopping
                condition.unlock()
                if stopping { return }
            } catch {
                failure = "\(error)"
            }
        }
        let run = WatchRun(roots: roots, trigger: plan.trigger, eventCount: plan.eventCount, startedAt: startedAt,
                           finishedAt: Date(), summary: summary, error: failure,
                           changeToken: (try? library.blocking.currentChangeToken()) ?? .initial)
        condition.lock()
        state.lastRun = run
        state.runCount += 1
        // Files left because they were still being written get a run of their own once quiet.
        if (summary?.deferred ?? 0) > 0 {
            let moment = now()
            for root in roots { state.roots[root]?.pending.settled(nil, at: moment) }
        }
        condition.unlock()
        publish(.run(run))
    }
}

/// The continuations of `events()` streams.
private final class Subscribers: @unchecked Sendable {
    // @unchecked: `continuations` is only touched under `lock`; continuations are
    // yielded to and finished outside it, since finishing calls `onTermination`.
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<WatcherEvent>.Continuation] = [:]
    private var next = 0
    /// Set once the watcher has stopped: new streams end at once.
    private var closed = false

    func subscribe() -> AsyncStream<WatcherEvent> {
        let (stream, continuation) = AsyncStream<WatcherEvent>.makeStream(bufferingPolicy: .unbounded)
        lock.lock()
        if closed {
            lock.unlock()
            continuation.finish()
            return stream
        }
        let id = next
        next += 1
        continuations[id] = continuation
        lock.unlock()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.continuations[id] = nil
            self.lock.unlock()
        }
        return stream
    }

    func send(_ event: WatcherEvent) {
        lock.lock()
        let all = Array(continuations.values)
        lock.unlock()
        for continuation in all { continuation.yield(event) }
    }

    func reopen() {
        lock.lock()
        closed = false
        lock.unlock()
    }

    func finishAll() {
        lock.lock()
        closed = true
        let all = Array(continuations.values)
        continuations = [:]
        lock.unlock()
        for continuation in all { continuation.finish() }
    }
}
