import Foundation

/// The threads MediaIndex's async methods do their SQLite work on, so a query never
/// blocks a thread of Swift's cooperative pool (which has one per core, and stalls
/// every task when they all wait on disk).
///
/// Four threads serve every library of the process: SQLite readers run in parallel
/// under WAL, and more would only queue on the disk. Threads start on first use and
/// then wait for work. A long job (an index run) gets a thread of its own.
final class DatabaseThreads: @unchecked Sendable {
    // @unchecked: `jobs` and `started` are only touched while holding `condition`.
    static let shared = DatabaseThreads(count: 4, name: "MediaIndex database")
    /// The threads thumbnails are delivered on, one per core: decoding a picture must
    /// neither start a thread per request nor wait behind (or hold up) the queries.
    static let thumbnails = DatabaseThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount),
                                            name: "MediaIndex thumbnails")

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var started = false
    private let count: Int
    private let name: String

    private init(count: Int, name: String) {
        self.count = count
        self.name = name
    }

    /// Runs `body` on one of the pool's threads and returns its result to the caller.
    ///
    /// - Throws: what `body` throws.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body` on a new thread of its own (for work that takes minutes).
    ///
    /// - Throws: what `body` throws.
    static func runOnOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "MediaIndex long job"
            thread.start()
        }
    }

    /// Runs `job` on one of the pool's threads, without waiting for it.
    func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if !started {
            started = true
            for index in 0..<count {
                let thread = Thread { [self] in work() }
                thread.name = "\(name) \(index + 1)"
                thread.start()
            }
        }
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
