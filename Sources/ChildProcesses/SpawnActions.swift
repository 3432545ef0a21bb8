#if canImport(Glibc)
import Glibc
#endif

/// The descriptors and file actions a spawn needs, each C call checked here.
enum SpawnActions {
    /// A pipe whose ends are closed on exec (made so atomically: no child spawned meanwhile
    /// by another thread inherits them); the read end, this process's, is non-blocking.
    /// Wraps `pipe2(2)`, which Swift's Glibc module does not declare.
    static func pipe(executable: String) throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        let made = ends.withUnsafeMutableBufferPointer { pipeClosedOnExec($0.baseAddress!, O_CLOEXEC) }
        guard made == 0 else { throw failure(executable, "cannot make a pipe") }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        return (ends[0], ends[1])
    }

    /// A connected pair of Unix sockets closed on exec, for a standard input written from
    /// bytes: `send` with `MSG_NOSIGNAL` gives `EPIPE` when the child stops reading, where a
    /// pipe would raise `SIGPIPE` in this process. The parent's end is non-blocking.
    /// Wraps `socketpair(2)`.
    static func socketPair(executable: String) throws -> (parent: Int32, child: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw failure(executable, "cannot make a socket pair")
        }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        shutdown(ends[0], Int32(SHUT_RD))
        return (ends[0], ends[1])
    }

    /// Closes every descriptor from `lowest` up in the child, so it inherits none that other
    /// code opened without `O_CLOEXEC`. Wraps `posix_spawn_file_actions_addclosefrom_np`
    /// (glibc 2.34), which Swift's Glibc module does not declare.
    static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t, executable: String) throws {
        guard let addClosefrom = addClosefrom else { return }
        let code = addClosefrom(&actions, lowest)
        guard code == 0 else { throw ChildProcessError(executable: executable, reason: String(cString: strerror(code))) }
    }

    /// Makes the child start in `directory`. Wraps `posix_spawn_file_actions_addchdir_np`
    /// (glibc 2.29), which Swift's Glibc module does not declare.
    static func changeDirectory(_ directory: String, in actions: inout posix_spawn_file_actions_t,
                                executable: String) throws {
        guard let addChdir = addChdir else {
            throw ChildProcessError(executable: executable, reason: "this C library cannot set a child's working directory "
                                    + "(posix_spawn_file_actions_addchdir_np needs glibc 2.29)")
        }
        let code = addChdir(&actions, directory)
        guard code == 0 else { throw ChildProcessError(executable: executable, reason: String(cString: strerror(code))) }
    }

    private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                                 UnsafePointer<CChar>) -> Int32

    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    /// glibc has had `pipe2` since 2.9: its absence is not planned for.
    private static let pipeClosedOnExec: Pipe2 = symbol("pipe2")!
    private static let addClosefrom: AddClosefrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    /// A C library function by name, nil when this glibc lacks it. Wraps `dlsym(3)`.
    private static func symbol<Function>(_ name: String) -> Function? {
        // RTLD_DEFAULT is the null handle: search the process's global symbols.
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }

    private static func failure(_ executable: String, _ what: String) -> ChildProcessError {
        ChildProcessError(executable: executable, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}
