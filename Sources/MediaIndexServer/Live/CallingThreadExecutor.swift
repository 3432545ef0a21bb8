import Foundation

/// Runs async code on the thread that waits for it, never on Swift's shared pool.
///
/// The routes call `library.blocking` on libmicrohttpd's threads; what is only async
/// (following `library.changes(after:)`) runs here. As an ordinary task it would need a
/// thread of the pool, which has one thread per core and may be busy with other blocking
/// work: under load the request threads would wait for a pool thread that waits for them.
/// Here the task prefers this executor, whose jobs the waiting thread runs itself until
/// the task ends.
final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `finished` are only touched under `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` to completion on the calling thread and returns its result.
    ///
    /// - Throws: what `body` throws.
    ///   `handle`, when given, can cancel the task from another thread.
    static func run<T: Sendable>(cancellable handle: CancellationHandle? = nil,
                                 _ body: @escaping @Sendable () async throws -> T) throws -> T {
        let executor = CallingThreadExecutor()
        let box = ResultBox<T>()
        let task = Task(executorPreference: executor) {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            executor.finish()
        }
        handle?.attach(task)
        executor.drain()
        return try box.result!.get()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs enqueued jobs until the task has finished.
    private func drain() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty && finished { condition.unlock(); return }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A result handed from a task to the thread waiting for it.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: written once by the task before it finishes, read once after.
    var result: Result<T, any Error>?
}

/// Cancels a task that `CallingThreadExecutor.run` is running, from any thread.
final class CancellationHandle: @unchecked Sendable {
    // @unchecked: `cancel` and `task` are only touched under `lock`.
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var cancelled = false

    func attach(_ task: Task<Void, Never>) {
        lock.lock()
        self.task = task
        let cancelNow = cancelled
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let running = task
        lock.unlock()
        running?.cancel()
    }
}
