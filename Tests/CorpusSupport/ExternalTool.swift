import ChildProcesses
import Foundation

/// The programs the tests run (exiftool, ffmpeg, ffprobe, ImageMagick, shells, the built
/// `mediaindex`), all through `ChildProcess` (posix_spawn), never Foundation's `Process`,
/// whose `run()` crashes now and then on Linux (swift-corelibs-foundation PR #5472).
public enum ExternalTool {
    public static let exiftool = "/usr/bin/exiftool"
    public static let ffmpeg = "/usr/bin/ffmpeg"

    /// Whether both exiftool and ffmpeg are installed.
    public static var hasExiftoolAndFFmpeg: Bool {
        FileManager.default.isExecutableFile(atPath: exiftool) && FileManager.default.isExecutableFile(atPath: ffmpeg)
    }

    /// A tool that ended with a status other than 0.
    public struct Failure: Error, CustomStringConvertible {
        public let tool: String
        public let arguments: [String]
        /// The exit status, or 128 + the signal that killed it.
        public let status: Int32
        /// The end of what it wrote to standard error.
        public let standardError: String
        public var description: String {
            "\(tool) \(arguments.joined(separator: " ")) exited with status \(status)"
                + (standardError.isEmpty ? "" : ": \(standardError.suffix(2000))")
        }
    }

    /// Runs `tool` with `arguments` (and `input` as its standard input) and waits; its
    /// standard output.
    ///
    /// - Throws: `Failure` when the tool exits with a status other than 0;
    ///   `ChildProcessError` when it cannot be started.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], input: [UInt8]? = nil) throws -> Data {
        let ended = try outcome(tool, arguments, input: input)
        guard ended.succeeded else {
            throw Failure(tool: tool, arguments: arguments, status: ended.shellStatus, standardError: ended.standardErrorText)
        }
        return Data(ended.standardOutput)
    }

    /// Runs a program to completion (a name without a slash is searched on PATH) and
    /// returns how it ended, its standard output and error collected (up to 1 GB each). A
    /// failure is in the outcome, not thrown; a timeout kills it. `environment` replaces this
    /// process's when given; `input` is its standard input (`/dev/null` when nil).
    ///
    /// - Throws: `ChildProcessError` when it cannot be started.
    public static func outcome(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                               directory: String? = nil, input: [UInt8]? = nil,
                               timeoutSeconds: Double = 1800) throws -> ChildProcess.Outcome {
        var child = ChildProcess(executable: executable, arguments: arguments)
        child.environment = environment.map { .replace($0) } ?? .inherit
        child.workingDirectory = directory
        child.standardInput = input.map { .bytes($0) } ?? .null
        child.standardOutput = .collect(limit: 1 << 30)
        child.standardError = .collect(limit: 1 << 30)
        return try child.run(timeoutSeconds: timeoutSeconds)
    }

    /// Starts a long-running program (a server, a watcher, a shell loop) and returns at once,
    /// its standard output and error written to the file `log` (created or emptied), or
    /// discarded when `log` is nil. The caller signals, terminates or waits for it.
    ///
    /// - Throws: `ChildProcessError` when it cannot be started or `log` cannot be written.
    public static func start(_ executable: String, _ arguments: [String], log: String? = nil) throws -> RunningChildProcess {
        let child = ChildProcess(executable: executable, arguments: arguments)
        guard let log else { return try child.start() }
        let descriptor = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ChildProcessError(executable: executable, reason: "cannot write its log \(log): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var logged = child
        logged.standardOutput = .fileDescriptor(descriptor)
        logged.standardError = .fileDescriptor(descriptor)
        return try logged.start()
    }

    /// The path of an installed program found on PATH, or nil.
    public static func path(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
