import Foundation

/// Runs a program with arguments given as bytes, so a file name that is not UTF-8
/// reaches it exactly (Foundation's `Process` takes `String` arguments, which would turn
/// such a name into one that does not exist).
///
/// Standard input is `/dev/null` or a given file; standard output is `/dev/null` or, with
/// `standardOutputLimit`, collected through a pipe (so a frame never touches a file);
/// standard error is collected (its last 64 KiB); the child is killed when it outlives
/// the timeout or writes more than the limit.
struct ChildProcess {
    /// How the child ended.
    struct Outcome {
        /// The exit status, or nil when the child was killed by a signal or the timeout.
        var exitStatus: Int32?
        /// Whether the timeout stopped it.
        var timedOut: Bool
        /// What it wrote to standard error (at most the last 64 KiB).
        var standardError: [UInt8]
        /// What it wrote to standard output, when collected.
        var standardOutput: [UInt8] = []
        /// Whether it wrote more than `standardOutputLimit` and was stopped.
        var outputTooLarge = false
    }

    /// The program's path.
    let executable: String
    /// The arguments after the program name, as bytes.
    let arguments: [[UInt8]]
    /// Collect standard output, at most this many bytes; nil sends it to `/dev/null`.
    var standardOutputLimit: Int? = nil
    /// A file descriptor the child reads as standard input; nil gives it `/dev/null`.
    var standardInput: Int32? = nil

    /// Spawns the program, waits at most `timeoutSeconds`, and reports how it ended.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` when it cannot be started.
    /// Wraps `posix_spawn(3)` and `waitpid(2)`.
    func run(timeoutSeconds: Double) throws -> Outcome {
        let errorPipe = try Self.makePipe(executable)
        defer { close(errorPipe.read) }
        let outputPipe = standardOutputLimit == nil ? nil : try Self.makePipe(executable)
        defer { if let outputPipe { close(outputPipe.read) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let outputPipe {
            posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)

        // argv as C strings with their exact bytes, NUL-terminated, then a NULL.
        let words = [Array(executable.utf8)] + arguments
        let storage = words.map { word -> UnsafeMutablePointer<CChar> in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: word.count + 1)
            for (index, byte) in word.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[word.count] = 0
            return pointer
        }
        defer { storage.forEach { $0.deallocate() } }
        var argv: [UnsafeMutablePointer<CChar>?] = storage + [nil]
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        close(errorPipe.write)
        if let outputPipe { close(outputPipe.write) }
        guard code == 0 else {
            throw ThumbnailError.decodeFailed("\(executable) could not be started: \(String(cString: strerror(code)))")
        }
        return wait(for: pid, errorFD: errorPipe.read, outputFD: outputPipe?.read, timeoutSeconds: timeoutSeconds)
    }

    /// A pipe whose ends are closed on exec, so no other child inherits them (dup2 onto
    /// the child's 1 or 2 clears the flag there). Wraps `pipe(2)`.
    private static func makePipe(_ executable: String) throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw ThumbnailError.decodeFailed("\(executable) could not be started: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        return (ends[0], ends[1])
    }

    /// Reads the child's output as it comes (so it never blocks on a full pipe) until it
    /// exits, outlives the timeout or writes too much. Wraps `poll(2)` and `waitpid(2)`.
    private func wait(for pid: pid_t, errorFD: Int32, outputFD: Int32?, timeoutSeconds: Double) -> Outcome {
        var outcome = Outcome(exitStatus: nil, timedOut: false, standardError: [])
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var status: Int32 = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func drain() {
            while true {
                let count = read(errorFD, &buffer, buffer.count)
                guard count > 0 else { break }
                outcome.standardError += buffer[0..<count]
                if outcome.standardError.count > 65_536 { outcome.standardError.removeFirst(outcome.standardError.count - 65_536) }
            }
            guard let outputFD, let limit = standardOutputLimit else { return }
            while !outcome.outputTooLarge {
                let count = read(outputFD, &buffer, buffer.count)
                guard count > 0 else { break }
                outcome.standardOutput += buffer[0..<count]
                outcome.outputTooLarge = outcome.standardOutput.count > limit
            }
        }
        var waiting = [pollfd(fd: errorFD, events: Int16(POLLIN), revents: 0)]
        if let outputFD { waiting.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
        while true {
            drain()
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0 && errno != EINTR { break }
            if Date() > deadline || outcome.outputTooLarge {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                outcome.timedOut = !outcome.outputTooLarge
                break
            }
            _ = poll(&waiting, nfds_t(waiting.count), 5)
        }
        drain()
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        let exited = status & 0x7F == 0
        if !outcome.timedOut && !outcome.outputTooLarge && exited { outcome.exitStatus = (status >> 8) & 0xFF }
        return outcome
    }
}
