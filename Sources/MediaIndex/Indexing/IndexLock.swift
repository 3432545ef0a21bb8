#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The exclusive lock one index run holds on a library (`flock` on `index.lock`).
///
/// The kernel releases it when the process dies, so a killed run never leaves a
/// stale lock behind.
final class IndexLock {
    private let descriptor: Int32

    /// Takes the lock, waiting for it when `wait` is true.
    ///
    /// - Throws: `LibraryError.indexRunInProgress` naming the holder's pid when the
    ///   lock is held and `wait` is false. Wraps `open(2)` and `flock(2)`.
    init(path: String, wait: Bool) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw LibraryError.io("cannot open the index lock \(path): \(systemErrorMessage(errno))")
        }
        var result = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))
        while result != 0 && errno == EINTR { result = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) }
        if result != 0 {
            let code = errno
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, 32, 0)
            close(fd)
            if code == EWOULDBLOCK {
                let pid = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                throw LibraryError.indexRunInProgress(path: path, holder: pid.isEmpty ? "unknown process" : "pid \(pid)")
            }
            throw LibraryError.io("cannot lock \(path): \(systemErrorMessage(code))")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        descriptor = fd
    }

    deinit {
        _ = ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

private extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
private extension Set where Element == Character {
    static var whitespacesAndNewlines: Set<Character> { [" ", "\n", "\t", "\r"] }
}
