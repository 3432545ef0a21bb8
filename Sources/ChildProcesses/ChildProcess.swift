#if canImport(Glibc)
import Glibc
#endif

/// A program to run as a child process: its path, its arguments as bytes, its environment,
/// working directory and standard streams. `run(timeoutSeconds:)` runs it to completion;
/// `start()` starts it and hands back a `RunningChildProcess` to signal or wait for.
///
/// Built on `posix_spawn(3)` rather than Foundation's `Process`, whose `run()` crashes now
/// and then on Linux (an over-read in `findMaximumOpenFromProcSelfFD`,
/// swift-corelibs-foundation PR #5472) and whose arguments are `String`s, which would turn a
/// file name that is not UTF-8 into one that does not exist.
///
/// The child inherits no descriptor but its three standard streams (every other one is
/// closed in the child), starts with no blocked signal and every signal at its default
/// action, and its output pipes are read while it runs, so it never blocks on a full pipe.
public struct ChildProcess: Sendable {
    /// The child's environment.
    public enum Environment: Sendable, Equatable {
        /// This process's environment as it is.
        case inherit
        /// This process's environment with these variables set (replacing any of the same name).
        case inheritAdding([String: String])
        /// Exactly these variables.
        case replace([String: String])
    }

    /// Where the child's standard input comes from.
    public enum Input: Sendable, Equatable {
        /// `/dev/null`: the child reads end-of-file at once.
        case null
        /// This process's own standard input.
        case inherit
        /// A file descriptor of this process (a file, a pipe), read by the child from its position.
        case fileDescriptor(Int32)
        /// These bytes, written while the child runs, then end-of-file. Only with `run`.
        case bytes([UInt8])
    }

    /// Where the child's standard output or standard error goes.
    public enum Output: Sendable, Equatable {
        /// `/dev/null`.
        case null
        /// This process's own stream of the same number.
        case inherit
        /// A file descriptor of this process (a file opened for writing, a pipe).
        case fileDescriptor(Int32)
        /// Collected in memory; the child is killed when it writes more than `limit` bytes
        /// (`Outcome.outputTooLarge`). Only with `run`.
        case collect(limit: Int)
        /// Collected in memory, keeping only the last `bytes` bytes (for error messages,
        /// whose end says why). Only with `run`.
        case collectLast(bytes: Int)
    }

    /// The program: a path, or a name without a slash searched on this process's `PATH`.
    public var executable: String
    /// The arguments after the program's name, as bytes, passed exactly as they are.
    public var arguments: [[UInt8]]
    /// The child's environment; this process's by default.
    public var environment: Environment = .inherit
    /// The directory the child starts in; this process's current directory when nil.
    public var workingDirectory: String? = nil
    /// The child's standard input; `/dev/null` by default.
    public var standardInput: Input = .null
    /// The child's standard output; `/dev/null` by default.
    public var standardOutput: Output = .null
    /// The child's standard error; `/dev/null` by default.
    public var standardError: Output = .null

    /// A program with arguments given as bytes (a file name that is not UTF-8 stays exact).
    public init(executable: String, argumentBytes: [[UInt8]]) {
        self.executable = executable
        self.arguments = argumentBytes
    }

    /// A program with arguments given as text (each passed as its UTF-8 bytes).
    public init(executable: String, arguments: [String]) {
        self.init(executable: executable, argumentBytes: arguments.map { Array($0.utf8) })
    }

    /// Runs the program to completion, reading its collected output and writing its input
    /// bytes as it goes; kills it (`SIGKILL`) when it outlives `timeoutSeconds` or writes
    /// more than a `collect` limit.
    ///
    /// - Throws: `ChildProcessError` when it cannot be started (no such program, not
    ///   executable, no such working directory). How it ended, even by a signal, is the outcome.
    public func run(timeoutSeconds: Double? = nil) throws -> Outcome {
        let spawned = try spawn()
        let deadline = timeoutSeconds.map { monotonicSeconds() + $0 }
        return OutcomeCollector(spawned: spawned, standardOutput: standardOutput, standardError: standardError)
            .collect(input: standardInput, deadline: deadline)
    }

    /// Runs the program to completion as `run(timeoutSeconds:)` does, but hands its standard
    /// output to `consumeOutput` in pieces as they are read, instead of collecting it
    /// (`Outcome.standardOutput` stays empty). `standardOutput` must be `.collect(limit:)`:
    /// the limit still applies to the bytes consumed.
    ///
    /// - Throws: `ChildProcessError` when it cannot be started, or when standard output is not
    ///   `.collect(limit:)`.
    public func run(timeoutSeconds: Double? = nil,
                    consumingOutput consumeOutput: (UnsafeBufferPointer<UInt8>) -> Void) throws -> Outcome {
        guard case .collect = standardOutput else {
            throw ChildProcessError(executable: executable,
                                    reason: "its standard output is consumed, so it must be .collect(limit:)")
        }
        let spawned = try spawn()
        let deadline = timeoutSeconds.map { monotonicSeconds() + $0 }
        return withoutActuallyEscaping(consumeOutput) { consumer in
            var collector = OutcomeCollector(spawned: spawned, standardOutput: standardOutput, standardError: standardError)
            collector.outputConsumer = consumer
            return collector.collect(input: standardInput, deadline: deadline)
        }
    }

    /// Starts the program and returns at once; the caller signals it or waits for it.
    /// Its streams must not be collected or written from bytes (nothing would read or write
    /// them while it runs): use `.null`, `.inherit` or a file descriptor (a log file).
    ///
    /// - Throws: `ChildProcessError` when it cannot be started or a stream is collected.
    public func start() throws -> RunningChildProcess {
        for (name, collected) in [("standard output", standardOutput.isCollected), ("standard error", standardError.isCollected),
                                  ("standard input", standardInput.isBytes)] where collected {
            throw ChildProcessError(executable: executable,
                                    reason: "its \(name) is collected or written by run(), which start() cannot do")
        }
        return RunningChildProcess(executable: executable, processID: try spawn().processID)
    }
}

extension ChildProcess.Output {
    var isCollected: Bool {
        switch self {
        case .collect, .collectLast: return true
        case .null, .inherit, .fileDescriptor: return false
        }
    }
}

extension ChildProcess.Input {
    var isBytes: Bool { if case .bytes = self { return true } else { return false } }
}

/// Why a child process could not be started.
public struct ChildProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The program that was to run.
    public var executable: String
    /// Why, in a few words (`strerror`'s text).
    public var reason: String

    public init(executable: String, reason: String) {
        self.executable = executable
        self.reason = reason
    }

    public var description: String { "cannot start \(executable): \(reason)" }
}

/// Seconds on the monotonic clock. Wraps `clock_gettime(2)`.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
