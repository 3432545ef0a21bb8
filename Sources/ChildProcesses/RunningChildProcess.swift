#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A child process started with `ChildProcess.start()` and not yet waited for: a server, a
/// watcher, a shell loop a test stops later. It is killed and reaped when dropped unwaited,
/// so it never outlives its owner nor stays a zombie.
public final class RunningChildProcess: Sendable {
    /// The program it runs.
    public let executable: String
    /// Its process id (valid until it has been waited for).
    public let processID: pid_t
    /// How it ended, once reaped; the lock also keeps a signal from reaching a reused id.
    private let ending = Mutex<ChildProcess.Outcome?>(nil)

    init(executable: String, processID: pid_t) {
        self.executable = executable
        self.processID = processID
    }

    deinit {
        if ending.withLock({ $0 == nil }) {
            kill(processID, SIGKILL)
            _ = wait()
        }
    }

    /// Sends `signal` (`SIGTERM`, `SIGINT`, …); nothing once it has been waited for.
    /// Wraps `kill(2)`.
    public func send(_ signal: Int32) {
        ending.withLock { ended in
            if ended == nil { kill(processID, signal) }
        }
    }

    /// Whether it is still running (it is reaped here when it has ended).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for it to end and returns how; with `timeoutSeconds`, kills it (`SIGKILL`)
    /// when it is still running then (`Outcome.timedOut`). Wraps `wait4(2)`.
    @discardableResult
    public func wait(timeoutSeconds: Double? = nil) -> ChildProcess.Outcome {
        guard let timeoutSeconds else { return reap(blocking: true)! }
        let deadline = monotonicSeconds() + timeoutSeconds
        var nap = 0.000_5
        while monotonicSeconds() < deadline {
            if let outcome = reap(blocking: false) { return outcome }
            usleep(UInt32(nap * 1e6))
            nap = min(nap * 2, 0.02)
        }
        send(SIGKILL)
        var outcome = reap(blocking: true)!
        outcome.timedOut = true
        return outcome
    }

    /// Sends `SIGTERM` and waits, then `SIGKILL` if it has not ended after `graceSeconds`.
    @discardableResult
    public func terminate(graceSeconds: Double = 10) -> ChildProcess.Outcome {
        send(SIGTERM)
        return wait(timeoutSeconds: graceSeconds)
    }

    /// Its outcome once it has ended, reaping it then; nil while it runs (when not blocking).
    /// Wraps `waitid(2)` and `wait4(2)`.
    private func reap(blocking: Bool) -> ChildProcess.Outcome? {
        if blocking {
            // Waits for the end without reaping (WNOWAIT) and without the lock, so `send`
            // from another thread is not held up; the reap below then finds it ended.
            var information = siginfo_t()
            while waitid(P_PID, id_t(processID), &information, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        }
        return ending.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            var usage = rusage()
            while true {
                let waited = wait4(processID, &status, WNOHANG, &usage)
                if waited < 0 && errno == EINTR { continue }
                if waited == 0 { return nil }
                // waited < 0 (ECHILD): reaped elsewhere; nothing more can be known.
                ended = ChildProcess.Outcome(status: waited == processID ? status : 0, usage: usage)
                return ended
            }
        }
    }
}
