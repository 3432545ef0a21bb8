import Foundation
import MediaIndex
import MediaMetadata
#if canImport(Glibc)
import Glibc
#endif

/// A regular file opened for serving: never through a symlink in its last component
/// (`O_NOFOLLOW`), never a FIFO or device. The descriptor is closed in `deinit` unless
/// handed to the server with `takeDescriptor()`.
final class OpenedFile {
    private var descriptor: Int32
    /// Its size when opened.
    let size: UInt64

    /// Opens `path` read-only.
    ///
    /// - Throws: `APIError` (404) when it is missing, a symlink or not a regular file;
    ///   (500) when it cannot be read. Wraps `open(2)` and `fstat(2)`.
    convenience init(path: String) throws {
        try self.init(path: PathBytes(path))
    }

    convenience init(path: PathBytes) throws {
        var fd: Int32 = -1
        let bytes = path.bytes + [0]
        repeat {
            fd = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
            }
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Self.refusal(path, code: errno, reason: nil) }
        try self.init(descriptor: fd, path: path)
    }

    /// Opens a file of the library: inside the root it was indexed under, through no
    /// symbolic link below that root (`MediaLibrary.Blocking.openIndexedFile`).
    ///
    /// - Throws: `APIError` (404) when it is missing, reached through a symbolic link or
    ///   not a regular file; (500) when it cannot be read.
    convenience init(indexedPath path: PathBytes, of library: MediaLibrary) throws {
        let fd: Int32
        do { fd = try library.blocking.openIndexedFile(path) } catch let failure as BeneathRoot.Failure {
            throw Self.refusal(path, code: failure.code, reason: failure.description)
        }
        try self.init(descriptor: fd, path: path)
    }

    private static func refusal(_ path: PathBytes, code: Int32, reason: String?) -> APIError {
        switch code {
        case ENOENT, ENOTDIR: return APIError.notFound("the file \(path.displayString) is gone since it was indexed")
        case ELOOP: return APIError.notFound(reason ?? "the file \(path.displayString) has been replaced by a symbolic link since it was indexed; it is not followed")
        case EXDEV: return APIError.notFound(reason ?? "\(path.displayString) is not an indexed file")
        default: return APIError(status: 500, code: "unreadable", message: "cannot open \(path.displayString): \(String(cString: strerror(code)))")
        }
    }

    /// Takes `fd` when it is a regular file; closes it otherwise.
    private init(descriptor fd: Int32, path: PathBytes) throws {
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw APIError.notFound("\(path.displayString) is no longer a regular file")
        }
        descriptor = fd
        size = UInt64(status.st_size)
    }

    /// The descriptor, now owned by the caller.
    func takeDescriptor() -> Int32 {
        let fd = descriptor
        descriptor = -1
        return fd
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}

/// One byte range a `Range: bytes=…` header asks for, resolved against a length.
enum ByteRange {
    /// `bytes=A-B`, `bytes=A-` or `bytes=-N` within `length`; nil for a header this server
    /// answers with the whole file (several ranges, another unit, a malformed value).
    ///
    /// - Throws: `APIError` 416 when the one range asked for lies beyond the end.
    static func resolve(_ header: String, length: UInt64) throws -> ClosedRange<UInt64>? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return nil }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let unsatisfiable = APIError(status: 416, code: "rangeNotSatisfiable",
                                     message: "the range \(value) lies outside the file's \(length) bytes",
                                     headers: [("Content-Range", "bytes */\(length)")])
        if parts[0].isEmpty {
            guard let suffix = UInt64(parts[1]) else { return nil }
            guard suffix > 0, length > 0 else { throw unsatisfiable }
            return (length - min(suffix, length))...(length - 1)
        }
        guard let start = UInt64(parts[0]) else { return nil }
        let end = parts[1].isEmpty ? nil : UInt64(parts[1])
        if !parts[1].isEmpty && end == nil { return nil }
        if let end, end < start { return nil }
        guard start < length else { throw unsatisfiable }
        return start...min(end ?? (length - 1), length - 1)
    }
}

/// RFC 9110's preconditions on a file served with a strong entity tag: `If-Match`
/// (§13.1.1) decides whether the request is answered at all, `If-Range` (§13.1.5)
/// whether its `Range` is honoured.
enum FilePreconditions {
    /// Refuses the request when `If-Match` names no current representation: none of its
    /// entity tags matches `etag` by strong comparison (a weak tag never does), or it is
    /// `*` and there is no tag. nil passes.
    static func ifMatchRefusal(_ request: HTTPRequest, etag: String?) -> APIError? {
        guard let header = request.header("If-Match") else { return nil }
        let listed = entityTags(header)
        if listed == ["*"] ? etag != nil : listed.contains(where: { $0 == etag && !$0.hasPrefix("W/") }) { return nil }
        return APIError(status: 412, code: "preconditionFailed",
                        message: "If-Match names \(header), but the file's entity tag is now \(etag ?? "none"); read it again")
    }

    /// Whether a `Range` may be honoured: always without `If-Range`; with it, only when it
    /// is the current entity tag by strong comparison. A date, a weak or an old tag gives
    /// the whole file (200), so a client never joins bytes of two versions.
    static func rangeApplies(_ request: HTTPRequest, etag: String?) -> Bool {
        guard let header = request.header("If-Range")?.trimmingCharacters(in: .whitespaces) else { return true }
        guard let etag, header.hasPrefix("\"") else { return false }
        return header == etag
    }

    /// The entity tags of an `If-Match` or `If-None-Match` value, or `["*"]`.
    static func entityTags(_ header: String) -> [String] {
        header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
