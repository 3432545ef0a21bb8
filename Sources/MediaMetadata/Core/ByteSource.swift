#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to the bytes of one file or buffer, read in bounded pieces.
///
/// Readers never load a whole file: they ask for the few ranges they need.
public protocol ByteSource {
    /// The total number of bytes.
    var size: UInt64 { get }

    /// Reads up to `count` bytes starting at `offset`.
    ///
    /// Returns fewer bytes than asked at the end of the source, and none past it.
    /// - Throws: `MetadataError.io` when the underlying read fails.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
}

extension ByteSource {
    /// Reads exactly `count` bytes at `offset`, or throws `MetadataError.truncated`.
    public func readExactly(at offset: UInt64, count: Int) throws -> [UInt8] {
        let bytes = try read(at: offset, count: count)
        guard bytes.count == count else {
            throw MetadataError.truncated("wanted \(count) bytes at offset \(offset), the file has \(size)")
        }
        return bytes
    }
}

/// A byte source over bytes held in memory; used for embedded data and in tests.
public struct MemoryByteSource: ByteSource, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: UInt64 { UInt64(bytes.count) }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, offset < UInt64(bytes.count) else { return [] }
        let start = Int(offset)
        let end = start + min(count, bytes.count - start)
        return Array(bytes[start..<end])
    }
}

/// A read-only open file, read with `pread`; closed when the value is released.
///
/// The file is opened with `O_RDONLY | O_CLOEXEC | O_NOFOLLOW`: originals are never
/// written, and a symbolic link is never followed here.
public final class FileByteSource: ByteSource {
    private let descriptor: Int32
    public let size: UInt64
    /// The path as given, for error messages.
    public let path: String
    /// The path's exact bytes, to hand the same file to another program.
    public let pathBytes: [UInt8]

    /// Opens the file at `path` (raw bytes, no encoding assumed) for reading.
    ///
    /// - Throws: `MetadataError.io` naming the path and the system's reason.
    /// Wraps `open(2)` and `fstat(2)`.
    public convenience init(pathBytes: [UInt8]) throws {
        try self.init(pathBytes: pathBytes, beneath: nil)
    }

    /// Opens the file at `path` for reading; with `root`, the path must resolve inside
    /// that folder without following any symbolic link below it (`BeneathRoot`): every
    /// read of a file under an indexed root goes this way.
    ///
    /// - Throws: `MetadataError.io` naming the path and the reason (a link below the
    ///   root, a path outside it, the system's reason). Wraps `open(2)` and `fstat(2)`.
    public init(pathBytes: [UInt8], beneath root: [UInt8]?) throws {
        let display = String(decoding: pathBytes, as: UTF8.self)
        self.path = display
        self.pathBytes = pathBytes
        // O_NONBLOCK: a FIFO swapped in after the walk would otherwise block open() forever.
        let flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        let fd: Int32
        if let root {
            do { fd = try BeneathRoot.open(pathBytes, beneath: root, flags: flags) } catch {
                throw MetadataError.io(error.description)
            }
        } else {
            let cString = pathBytes.map { CChar(bitPattern: $0) } + [0]
            fd = retryingOnInterrupt { open(cString, flags) }
            guard fd >= 0 else {
                throw MetadataError.io("cannot open \(display): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw MetadataError.io("cannot stat \(display): \(reason)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw MetadataError.io("cannot read \(display): it is not a regular file")
        }
        self.descriptor = fd
        self.size = UInt64(max(0, info.st_size))
    }

    /// Opens the file at a path string.
    public convenience init(path: String) throws {
        try self.init(pathBytes: Array(path.utf8))
    }

    deinit { close(descriptor) }

    /// Bytes read ahead at the last small read, served to the reads that follow inside
    /// them: a reader walks a header with many small reads (a JPEG's segment headers,
    /// a box tree), and one system call per read cost more than the parsing.
    private var window: [UInt8] = []
    private var windowOffset: UInt64 = 0
    /// Reads shorter than this load this much ahead.
    static let windowSize = 32 * 1024

    /// Reads up to `count` bytes at `offset` (fewer at the end of the file).
    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let wanted = Int(min(UInt64(count), size - offset))
        if offset >= windowOffset, offset - windowOffset + UInt64(wanted) <= UInt64(window.count) {
            let start = Int(offset - windowOffset)
            return Array(window[start..<(start + wanted)])
        }
        guard wanted < Self.windowSize else { return try readFromFile(at: offset, count: wanted) }
        window = try readFromFile(at: offset, count: Int(min(UInt64(Self.windowSize), size - offset)))
        windowOffset = offset
        // The file may have shrunk under us: give what there is.
        return Array(window.prefix(wanted))
    }

    /// Wraps `pread(2)`, retrying on `EINTR` and short reads.
    private func readFromFile(at offset: UInt64, count wanted: Int) throws -> [UInt8] {
        var failure: Int32 = 0
        // Uninitialised storage: the bytes are about to be overwritten by the read.
        let buffer = [UInt8](unsafeUninitializedCapacity: wanted) { storage, initialized in
            var filled = 0
            while filled < wanted {
                let got = retryingOnInterrupt {
                    pread(descriptor, storage.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
                }
                if got < 0 { failure = errno; break }
                if got == 0 { break }  // the file shrank under us
                filled += got
            }
            initialized = filled
        }
        if failure != 0 {
            throw MetadataError.io("cannot read \(path) at offset \(offset): \(String(cString: strerror(failure)))")
        }
        return buffer
    }
}

@inline(__always)
func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
