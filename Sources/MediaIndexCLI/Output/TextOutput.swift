#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where a command writes text: a file descriptor (stdout, stderr) or, in tests, memory.
///
/// Standard output is buffered (a listing of 100 000 assets must not cost 100 000
/// system calls) and flushed by `flush()`, which `CommandRunner` calls before it writes
/// an error and before the process exits; standard error is written at once. Use this
/// rather than `print`, whose separate buffer would reorder output.
public final class TextOutput: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var captured: [UInt8] = []
    }

    private let fileDescriptor: Int32?
    private let bufferLimit: Int
    private let state = Mutex(State())
    /// Whether the destination is a terminal (a person reads it, tables may truncate).
    public let isTerminal: Bool

    /// Output to a file descriptor; `buffered` holds text until `flush()` or 64 KiB.
    public init(fileDescriptor: Int32, buffered: Bool) {
        self.fileDescriptor = fileDescriptor
        self.bufferLimit = buffered ? 64 * 1024 : 0
        self.isTerminal = Terminal.isTerminal(fileDescriptor)
    }

    private init(capturingAsTerminal isTerminal: Bool) {
        self.fileDescriptor = nil
        self.bufferLimit = 0
        self.isTerminal = isTerminal
    }

    /// Output kept in memory, read back with `capturedText`; for tests.
    public static func capturing(asTerminal isTerminal: Bool = false) -> TextOutput {
        TextOutput(capturingAsTerminal: isTerminal)
    }

    /// The process's standard output, buffered.
    public static let standardOutput = TextOutput(fileDescriptor: 1, buffered: true)
    /// The process's standard error, unbuffered.
    public static let standardError = TextOutput(fileDescriptor: 2, buffered: false)

    /// Writes text as is.
    public func write(_ text: String) {
        write(bytes: Array(text.utf8))
    }

    /// Writes text and a newline.
    public func writeLine(_ text: String = "") {
        write(bytes: Array(text.utf8) + [UInt8(ascii: "\n")])
    }

    /// Writes bytes as is (a file name that is not UTF-8, say).
    public func write(bytes: [UInt8]) {
        state.withLock { state in
            guard let fileDescriptor else {
                state.captured.append(contentsOf: bytes)
                return
            }
            state.pending.append(contentsOf: bytes)
            if state.pending.count > bufferLimit {
                Self.writeAll(state.pending, to: fileDescriptor)
                state.pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Writes out buffered text.
    public func flush() {
        state.withLock { state in
            guard let fileDescriptor, !state.pending.isEmpty else { return }
            Self.writeAll(state.pending, to: fileDescriptor)
            state.pending.removeAll(keepingCapacity: true)
        }
    }

    /// Everything written to a capturing output (invalid UTF-8 as U+FFFD).
    public var capturedText: String {
        state.withLock { String(decoding: $0.captured, as: UTF8.self) }
    }

    /// Writes every byte, retrying on EINTR and after partial writes; gives up silently
    /// on other errors (a closed pipe: the reader has gone, nothing to tell).
    /// Wraps `write(2)`.
    private static func writeAll(_ bytes: [UInt8], to fileDescriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
