#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// How a child process ended, what it wrote to collected streams, and what it cost.
    public struct Outcome: Sendable, Equatable {
        /// How a process ends: it exits with a status, or a signal kills it.
        public enum Termination: Sendable, Equatable {
            /// It called `exit` with this status (0 to 255).
            case exited(Int32)
            /// This signal killed it (`SIGKILL` when the timeout or the output limit stopped it).
            case signalled(Int32)
        }

        /// How it ended.
        public var termination: Termination
        /// Whether the timeout stopped it (with `SIGKILL`).
        public var timedOut = false
        /// Whether it wrote more than a `collect` limit and was stopped (with `SIGKILL`).
        public var outputTooLarge = false
        /// Its collected standard output (empty when not collected).
        public var standardOutput: [UInt8] = []
        /// Its collected standard error (empty when not collected).
        public var standardError: [UInt8] = []
        /// Its user and system CPU time, in seconds (all its threads; not its own children's).
        public var cpuSeconds: Double = 0
        /// Its peak resident memory, in bytes.
        public var peakResidentBytes = 0

        public init(termination: Termination) { self.termination = termination }

        /// Its exit status; nil when a signal killed it, or it was stopped for the timeout
        /// or its output.
        public var exitStatus: Int32? {
            guard !timedOut, !outputTooLarge, case .exited(let status) = termination else { return nil }
            return status
        }

        /// Whether it exited with status 0.
        public var succeeded: Bool { exitStatus == 0 }

        /// The status a shell reports: the exit status, or 128 + the signal's number.
        public var shellStatus: Int32 {
            switch termination {
            case .exited(let status): return status
            case .signalled(let signal): return 128 + signal
            }
        }

        /// The collected standard output read as UTF-8 (invalid bytes replaced).
        public var standardOutputText: String { String(decoding: standardOutput, as: UTF8.self) }
        /// The collected standard error read as UTF-8 (invalid bytes replaced).
        public var standardErrorText: String { String(decoding: standardError, as: UTF8.self) }

        /// The outcome of a `wait4(2)` status and resource usage.
        init(status: Int32, usage: rusage) {
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
            termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
            cpuSeconds = CPUTime.seconds(usage)
            peakResidentBytes = Int(usage.ru_maxrss) * 1024
        }
    }
}
