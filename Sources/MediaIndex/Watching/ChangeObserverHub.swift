import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One thread per library that learns of commits and hands the change feed's new
/// entries to every `changes()` stream.
///
/// How it learns of a commit without reading the tables: inotify on the library
/// folder wakes it when SQLite writes `library.sqlite-wal` or `user-state.sqlite-wal`
/// (no timer spinning while nothing happens). A WAL write is only a hint (pages also
/// spill before a commit, and checkpoints write), so `PRAGMA data_version` on a read
/// connection held open confirms that another connection committed (this process's
/// own writer is another connection too), and only then is the feed read, from the
/// last token on, through its primary key. A timer every `backupInterval` backs up
/// inotify, for a library folder where it raises nothing (NFS).
final class ChangeObserverHub: @unchecked Sendable {
    // @unchecked: `subscribers`, `running` and `nextID` are only touched under `lock`.

    /// Seconds between checks of `data_version` when inotify raised nothing.
    static let backupInterval = 2.0
    /// Changes per batch at most; a larger commit is delivered as several batches.
    static let batchLimit = 10_000

    private struct Subscriber {
        var continuation: AsyncStream<LibraryChangeBatch>.Continuation
        /// Changes after this token are owed to this subscriber alone, before the live ones.
        var catchUpFrom: ChangeToken?
        /// The newest token it has been given (or started after): nothing up to it is sent again.
        var deliveredThrough: ChangeToken
    }

    private let lock = NSLock()
    private var subscribers: [Int: Subscriber] = [:]
    private var running = false
    private var nextID = 0
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)

    init() {}

    deinit {
        if wakePipe.read >= 0 { close(wakePipe.read); close(wakePipe.write) }
    }

    /// A stream of the batches committed from now on (or after `token`).
    func subscribe(library: MediaLibrary, after token: ChangeToken?) -> AsyncStream<LibraryChangeBatch> {
        let (stream, continuation) = AsyncStream<LibraryChangeBatch>.makeStream(bufferingPolicy: .unbounded)
        // Read now, so that a commit right after this call is never missed.
        let from = token ?? (try? library.blocking.currentChangeToken()) ?? .initial
        lock.lock()
        let id = nextID
        nextID += 1
        subscribers[id] = Subscriber(continuation: continuation, catchUpFrom: from, deliveredThrough: from)
        let start = !running
        if start {
            running = true
            if wakePipe.read < 0 {
                var fds: [Int32] = [-1, -1]
                if pipe(&fds) == 0 {
                    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                    wakePipe = (fds[0], fds[1])
                }
            }
        }
        lock.unlock()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.subscribers[id] = nil
            self.lock.unlock()
            self.wake()
        }
        if start {
            // The connection and its data versions are read here, before this call returns:
            // a user-state write made right after it is a change from this baseline.
            let baseline = Self.openBaseline(library.location)
            let thread = Thread { [self] in observe(library, baseline: baseline) }
            thread.name = "mediaindex-change-observer"
            thread.start()
        } else {
            wake()
        }
        return stream
    }

    private func wake() {
        lock.lock()
        let fd = wakePipe.write
        lock.unlock()
        var byte: UInt8 = 1
        if fd >= 0 { _ = write(fd, &byte, 1) }
    }

    /// The read connection handed from `subscribe` to the observer thread, which alone uses it after.
    private struct ObservationBaseline: @unchecked Sendable {
        var connection: DatabaseConnection
        var versions: [Int]
    }

    /// The observer's read connection, with the library and user state attached, and the
    /// data versions it reads now; nil when the library cannot be opened.
    private static func openBaseline(_ location: LibraryLocation) -> ObservationBaseline? {
        guard let connection = try? DatabaseConnection(path: location.databasePath, readOnly: true),
              (try? connection.execute("ATTACH DATABASE ? AS \(UserStateStore.schema)", [location.userStatePath])) != nil
        else { return nil }
        return ObservationBaseline(connection: connection, versions: dataVersions(connection))
    }

    /// `PRAGMA data_version` of the library and of user state: each changes when another
    /// connection commits to that database.
    private static func dataVersions(_ connection: DatabaseConnection) -> [Int] {
        [(try? connection.scalarInt("PRAGMA main.data_version")) ?? -1,
         (try? connection.scalarInt("PRAGMA \(UserStateStore.schema).data_version")) ?? -1]
    }

    /// The observer thread: runs while anyone subscribes.
    private func observe(_ library: MediaLibrary, baseline: ObservationBaseline?) {
        let location = library.location
        guard let connection = baseline?.connection, let baselineVersions = baseline?.versions else {
            finishAll()
            return
        }
        let instance = try? InotifyInstance()
        if let instance {
            let mask = UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
                | UInt32(IN_DELETE) | UInt32(IN_ONLYDIR)
            _ = PathBytes(location.directory).withCString { inotify_add_watch(instance.descriptor, $0, mask) }
        }
        func versions() -> [Int] { Self.dataVersions(connection) }
        var token = (try? library.blocking.currentChangeToken()) ?? .initial
        var seen = baselineVersions
        while true {
            lock.lock()
            if subscribers.isEmpty {
                running = false
                lock.unlock()
                return
            }
            var catchUps: [(Int, ChangeToken)] = []
            for (id, subscriber) in subscribers {
                if let from = subscriber.catchUpFrom {
                    catchUps.append((id, from))
                    subscribers[id]?.catchUpFrom = nil
                }
            }
            let pipeFD = wakePipe.read
            lock.unlock()
            for (id, from) in catchUps where from < token {
                for batch in batches(library, from: from, to: token, userStateChanged: false) { send(batch, to: id) }
            }

            var descriptors = [pollfd(fd: pipeFD, events: Int16(POLLIN), revents: 0)]
            if let instance { descriptors.append(pollfd(fd: instance.descriptor, events: Int16(POLLIN), revents: 0)) }
            let timeout = Int32(instance == nil ? 250 : Self.backupInterval * 1000)
            _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(pipeFD, &buffer, buffer.count) > 0 {}
            _ = instance?.readEvents()

            let now = versions()
            guard now != seen else { continue }
            let userStateChanged = now[1] != seen[1]
            seen = now
            let current: ChangeToken
            do {
                current = try library.blocking.currentChangeToken()
            } catch {
                continue
            }
            if current == token && !userStateChanged { continue }
            for batch in batches(library, from: token, to: current, userStateChanged: userStateChanged) { send(batch, to: nil) }
            token = current
        }
    }

    /// The feed's changes in (from, to], cut into batches of `batchLimit` at most; a
    /// batch asking for a reload when `from` cannot be answered any more.
    private func batches(_ library: MediaLibrary, from: ChangeToken, to: ChangeToken, userStateChanged: Bool) -> [LibraryChangeBatch] {
        guard to != from else {
            return [LibraryChangeBatch(changes: [], previousToken: from, token: to, userStateChanged: userStateChanged,
                                       requiresReload: false)]
        }
        let changes: [AssetChange]
        do {
            changes = try library.blocking.changes(since: from).changes.filter { $0.token <= to }
        } catch {
            return [LibraryChangeBatch(changes: [], previousToken: from, token: to, userStateChanged: userStateChanged,
                                       requiresReload: true)]
        }
        var result: [LibraryChangeBatch] = []
        var start = 0, previous = from
        repeat {
            let slice = Array(changes[start..<min(start + Self.batchLimit, changes.count)])
            let last = start + slice.count >= changes.count
            let end = last ? to : (slice.last?.token ?? to)
            result.append(LibraryChangeBatch(changes: slice, previousToken: previous, token: end,
                                             userStateChanged: userStateChanged && last, requiresReload: false))
            previous = end
            start += slice.count
        } while start < changes.count
        return result
    }

    /// Sends a batch to one subscriber or all, leaving out what each has already had.
    private func send(_ batch: LibraryChangeBatch, to id: Int?) {
        var deliveries: [(AsyncStream<LibraryChangeBatch>.Continuation, LibraryChangeBatch)] = []
        lock.lock()
        for (key, subscriber) in subscribers where id == nil || key == id {
            var copy = batch
            let delivered = subscriber.deliveredThrough
            if !batch.requiresReload {
                if batch.token <= delivered {
                    guard batch.userStateChanged else { continue }
                    copy.changes = []
                    copy.previousToken = delivered
                    copy.token = delivered
                } else if batch.previousToken < delivered {
                    copy.changes.removeAll { $0.token <= delivered }
                    copy.previousToken = delivered
                }
            }
            subscribers[key]?.deliveredThrough = batch.requiresReload ? batch.token : max(delivered, batch.token)
            deliveries.append((subscriber.continuation, copy))
        }
        lock.unlock()
        for (continuation, batch) in deliveries { continuation.yield(batch) }
    }

    private func finishAll() {
        lock.lock()
        let all = subscribers.values.map(\.continuation)
        subscribers = [:]
        running = false
        lock.unlock()
        for continuation in all { continuation.finish() }
    }
}
