import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Deadlines for the parts of a request libmicrohttpd only times out when the socket is
/// fully idle: a client that sends its head or its body a byte every few seconds would
/// otherwise hold its connection (and, thread per connection, a thread) for ever.
///
/// A connection must finish its request head within `headSeconds` of connecting, its
/// body within `bodySeconds` of the head, and its next head within `idleSeconds` of the
/// previous response. One thread watches; a connection past its deadline has its socket
/// shut down, which libmicrohttpd's thread sees as the client leaving and closes.
final class ConnectionDeadlines: @unchecked Sendable {
    // @unchecked: `tracked` and `stopped` are only touched under `condition`.

    /// A tracked connection: its socket and, while one runs, its deadline.
    private struct Tracked {
        var descriptor: Int32
        var deadline: Double?
    }

    let headSeconds: Double
    let bodySeconds: Double
    let idleSeconds: Double
    private let condition = NSCondition()
    private var tracked: [UInt: Tracked] = [:]
    private var stopped = false
    private var watcher: Thread?
    private var cuts = 0
    /// The most connections open at once since the heap was last trimmed.
    private var peak = 0
    /// Set when the last of a burst of connections closed: the watcher trims the heap.
    private var trimDue = false
    /// A burst at least this large is followed by a trim of the heap once it is over.
    static let trimAfterConnections = 8
    /// Called on the watcher's thread when a burst is over, before the heap is trimmed
    /// (the handler frees its caches there).
    var burstEnded: @Sendable () -> Void = {}
    /// How many connections have been cut for missing a deadline (for tests and logs).
    var cutCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return cuts
    }

    init(headSeconds: Double, bodySeconds: Double, idleSeconds: Double) {
        self.headSeconds = headSeconds
        self.bodySeconds = bodySeconds
        self.idleSeconds = idleSeconds
    }

    /// Starts the watching thread (not Swift's shared pool, which must never wait here).
    func start() {
        let thread = Thread { [self] in watch() }
        thread.name = "mediaindex-http-deadlines"
        condition.lock()
        watcher = thread
        condition.unlock()
        thread.start()
    }

    /// Stops the watching thread; connections are left to libmicrohttpd.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// A connection opened: its head is due within `headSeconds`.
    func opened(_ connection: OpaquePointer, descriptor: Int32) {
        set(connection, descriptor: descriptor, deadline: now() + headSeconds)
    }

    /// The head arrived: the body (when there is one) is due within `bodySeconds`; without
    /// one, nothing is due until the response is sent.
    func headReceived(_ connection: OpaquePointer, expectsBody: Bool) {
        set(connection, deadline: expectsBody ? now() + bodySeconds : nil)
    }

    /// The whole request arrived: the response is libmicrohttpd's to time out.
    func requestReceived(_ connection: OpaquePointer) { set(connection, deadline: nil) }

    /// A response was sent: the next head is due within `idleSeconds`.
    func responseSent(_ connection: OpaquePointer) { set(connection, deadline: now() + idleSeconds) }

    /// The connection closed.
    func closed(_ connection: OpaquePointer) {
        condition.lock()
        tracked[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))] = nil
        if tracked.isEmpty && peak >= Self.trimAfterConnections {
            peak = 0
            trimDue = true
            condition.signal()
        }
        condition.unlock()
    }

    private func set(_ connection: OpaquePointer, descriptor: Int32? = nil, deadline: Double?) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        condition.lock()
        if let descriptor {
            tracked[key] = Tracked(descriptor: descriptor, deadline: deadline)
            peak = max(peak, tracked.count)
        } else {
            tracked[key]?.deadline = deadline
        }
        condition.signal()
        condition.unlock()
    }

    /// Sleeps until the earliest deadline, then shuts down every socket past its own.
    /// libmicrohttpd closes a socket only after reporting the close, under which the
    /// entry is removed, so a descriptor shut down here is never one reused since.
    private func watch() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if trimDue {
                trimDue = false
                let release = burstEnded
                condition.unlock()
                release()
                Self.trimHeap()
                condition.lock()
            }
            let current = now()
            for (key, connection) in tracked {
                guard let deadline = connection.deadline, deadline <= current else { continue }
                cuts += 1
                tracked[key]?.deadline = nil
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
            }
            let earliest = tracked.values.compactMap(\.deadline).min() ?? current + 60
            _ = condition.wait(until: Date(timeIntervalSinceNow: max(0.01, earliest - current)))
        }
    }

    /// Gives the heap that a burst's threads freed back to the system: glibc keeps it in
    /// per-thread arenas otherwise (115 MB after 300 long polls, never released). Wraps
    /// `malloc_trim(3)`, which Glibc's module map leaves out.
    static func trimHeap() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    private func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
