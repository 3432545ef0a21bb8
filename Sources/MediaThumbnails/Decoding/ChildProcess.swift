import Foundation

/// Runs a program with arguments given as bytes, so a file name that is not UTF-8
/// reaches it exactly (Foundation's `Process` takes `String` arguments, which would turn
/// such a name into one that does not exist).
///
/// Standard input and output are `/dev/null`; standard error is collected (its last
/// 64 KiB); the child is killed when it outlives the timeout.
struct ChildProcess {
    /// How the child ended.
    struct Outcome {
        /// The exit status, or nil when the child was killed by a signal or the timeout.
        var exitStatus: Int32?
        /// Whether the timeout stopped it.
        var timedOut: Bool
        /// What it wrote to standard error (at most the last 64 KiB).
        var standardError: [UInt8]
    }

    /// The program's path.
    let executable: String
    /// The arguments after the program name, as bytes.
    let arguments: [[UInt8]]

    /// Spawns the program, waits at most `timeoutSeconds`, and reports how it ended.
    ///
    /// - Throws: `ThumbnailError.decodeFailed` when it cannot be started.
    /// Wraps `posix_spawn(3)` and `waitpid(2)`.
    func run(timeoutSeconds: Double) throws -> Outcome {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw ThumbnailError.decodeFailed("\(executable) could not be started: \(String(cString: strerror(errno)))")
        }
        defer { close(pipeEnds[0]) }
        // Close-on-exec, so no other child inherits them; dup2 onto fd 2 clears the flag there.
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)

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
        close(pipeEnds[1])
        guard code == 0 else {
            throw ThumbnailError.decodeFailed("\(executable) could not be started: \(String(cString: strerror(code)))")
        }

        // Read stderr as it comes, so a chatty child never blocks on a full pipe.
        var collected: [UInt8] = []
        _ = fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK)
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var status: Int32 = 0
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        func drain() {
            while true {
                let count = read(pipeEnds[0], &buffer, buffer.count)
                guard count > 0 else { return }
                collected += buffer[0..<count]
                if collected.count > 65_536 { collected.removeFirst(collected.count - 65_536) }
            }
        }
        while true {
            drain()
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0 && errno != EINTR { break }
            if Date() > deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                timedOut = true
                break
            }
            usleep(5_000)
        }
        drain()
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        let exited = status & 0x7F == 0
        return Outcome(exitStatus: !timedOut && exited ? (status >> 8) & 0xFF : nil, timedOut: timedOut,
                       standardError: collected)
    }
}
