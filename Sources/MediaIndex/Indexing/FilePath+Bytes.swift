#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file system path as raw bytes, exactly as the kernel gives it.
///
/// Linux file names are bytes, not text: storing and comparing bytes is what lets a
/// non-UTF-8 name round-trip. `displayString` is for people only.
public struct PathBytes: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// The path for display: invalid UTF-8 sequences shown as U+FFFD.
    public var displayString: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { displayString }

    /// Whether the bytes are valid UTF-8 (so `displayString` is exact).
    public var isValidUTF8: Bool { String(validating: bytes, as: UTF8.self) != nil }

    /// Byte order, as `memcmp` compares (which is also UTF-8 code point order).
    public static func < (a: PathBytes, b: PathBytes) -> Bool {
        a.bytes.withUnsafeBufferPointer { x in
            b.bytes.withUnsafeBufferPointer { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
    }

    // Hashing the bytes as one block, not byte by byte: the indexer hashes every path.
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// `self/name`.
    public func appending(_ name: [UInt8]) -> PathBytes {
        var result = bytes
        if result.last != UInt8(ascii: "/") { result.append(UInt8(ascii: "/")) }
        result.append(contentsOf: name)
        return PathBytes(result)
    }

    /// The last component.
    public var lastComponent: [UInt8] {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return bytes }
        return Array(bytes[(slash + 1)...])
    }

    /// The parent folder's path.
    public var parent: PathBytes {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return PathBytes(".") }
        return slash == 0 ? PathBytes("/") : PathBytes(Array(bytes[..<slash]))
    }

    /// Whether `self` is `other` or lies inside it.
    public func isInside(_ other: PathBytes) -> Bool {
        guard bytes.count >= other.bytes.count, bytes.starts(with: other.bytes) else { return false }
        return bytes.count == other.bytes.count || other.bytes.last == UInt8(ascii: "/")
            || bytes[other.bytes.count] == UInt8(ascii: "/")
    }

    /// The lowercased extension after the last dot of the last component, if any.
    public var lowercasedExtension: String? {
        let name = lastComponent
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return nil }
        return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    }

    /// The path with every symbolic link, `.` and `..` resolved (`realpath(3)`); nil
    /// with `errno` set when it cannot be resolved.
    func resolved() -> PathBytes? {
        withCString { pointer in
            guard let real = realpath(pointer, nil) else { return nil }
            defer { free(real) }
            return PathBytes(Array(UnsafeBufferPointer(start: real, count: strlen(real)).map { UInt8(bitPattern: $0) }))
        }
    }

    /// Calls `body` with a NUL-terminated C string of the path.
    func withCString<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        var cString = bytes.map { CChar(bitPattern: $0) }
        cString.append(0)
        return try cString.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}

/// What `lstat` says of a file that the indexer compares between runs.
public struct FileStat: Sendable, Equatable {
    public var size: Int64
    public var modificationNanoseconds: Int64
    public var inode: UInt64
    public var device: UInt64

    public init(size: Int64, modificationNanoseconds: Int64, inode: UInt64, device: UInt64) {
        self.size = size
        self.modificationNanoseconds = modificationNanoseconds
        self.inode = inode
        self.device = device
    }

    init(_ info: stat) {
        size = Int64(info.st_size)
        modificationNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
        device = UInt64(info.st_dev)
    }

    /// `lstat(2)` of a path; nil with `errno` set on failure.
    static func of(_ path: PathBytes) -> FileStat? {
        var info = stat()
        let result = path.withCString { lstat($0, &info) }
        return result == 0 ? FileStat(info) : nil
    }
}

/// The system's message for an `errno` value.
func systemErrorMessage(_ code: Int32) -> String { String(cString: strerror(code)) }
