#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One inotify instance (`inotify_init1`), owning its descriptor.
///
/// The watcher keeps one per root, so an overflowing queue or a full watch table
/// concerns that root alone.
final class InotifyInstance {
    let descriptor: Int32

    /// The events a folder is watched for: every change that can add, alter or remove
    /// a file under it, and the folder's own disappearance.
    static let folderMask: UInt32 = UInt32(IN_CREATE) | UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE)
        | UInt32(IN_ATTRIB) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE)
        | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW)
        | UInt32(IN_EXCL_UNLINK)

    /// Creates an instance whose reads never block.
    ///
    /// - Throws: `InotifyError.cannotCreate` (`EMFILE` when `fs.inotify.max_user_instances`
    ///   is reached). Wraps `inotify_init1(2)`.
    init() throws {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw InotifyError.cannotCreate(errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Watches one folder; gives the watch descriptor (the same one again for a folder
    /// already watched).
    ///
    /// - Throws: `InotifyError.watchLimitReached` on `ENOSPC`, else `InotifyError.cannotWatch`.
    ///   Wraps `inotify_add_watch(2)`.
    /// With `followingLink`, `folder` may be a symbolic link to a folder (a root that
    /// follows them): its target is watched.
    func addWatch(_ folder: PathBytes, followingLink: Bool = false) throws -> Int32 {
        let mask = followingLink ? Self.folderMask & ~UInt32(IN_DONT_FOLLOW) : Self.folderMask
        let wd = folder.withCString { inotify_add_watch(descriptor, $0, mask) }
        if wd >= 0 { return wd }
        let code = errno
        if code == ENOSPC { throw InotifyError.watchLimitReached }
        throw InotifyError.cannotWatch(folder, code)
    }

    /// Stops watching; the kernel then queues `IN_IGNORED` for it. Wraps `inotify_rm_watch(2)`.
    func removeWatch(_ wd: Int32) {
        _ = inotify_rm_watch(descriptor, wd)
    }

    /// Every event queued now (none when the queue is empty). Wraps `read(2)`.
    func readEvents() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        // Room for many events at once; one event is at most 16 + NAME_MAX + 1 bytes.
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            events += Self.parse(buffer[0..<count])
        }
        return events
    }

    /// Decodes the `struct inotify_event` records of one read.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = bytes.startIndex
        let header = 16  // int wd; uint32 mask, cookie, len
        while offset + header <= bytes.endIndex {
            func word(_ at: Int) -> UInt32 {
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            }
            let wd = Int32(bitPattern: word(offset)), mask = word(offset + 4), cookie = word(offset + 8)
            let length = Int(word(offset + 12))
            let nameStart = offset + header
            guard nameStart + length <= bytes.endIndex else { break }
            let nameBytes = bytes[nameStart..<(nameStart + length)]
            let name = Array(nameBytes.prefix { $0 != 0 })
            events.append(InotifyEvent(wd: wd, mask: mask, cookie: cookie, name: name))
            offset = nameStart + length
        }
        return events
    }
}

/// One inotify event: the watch it came from, what happened, and the entry's name.
struct InotifyEvent: Sendable, Equatable {
    var wd: Int32
    var mask: UInt32
    var cookie: UInt32
    /// The entry's name inside the watched folder; empty for events on the folder itself.
    var name: [UInt8]

    func has(_ flag: Int32) -> Bool { mask & UInt32(flag) != 0 }
    var isFolder: Bool { has(IN_ISDIR) }
}

/// Why inotify could not be used.
enum InotifyError: Error, Equatable {
    case cannotCreate(Int32)
    case watchLimitReached
    case cannotWatch(PathBytes, Int32)

    /// Why the root falls back to polling, as one clause.
    var reason: String {
        switch self {
        case .cannotCreate(let code):
            return code == EMFILE
                ? "the inotify instance limit (fs.inotify.max_user_instances = \(InotifyLimits.value("max_user_instances"))) is reached"
                : "inotify is unavailable: \(systemErrorMessage(code))"
        case .watchLimitReached:
            return InotifyLimits.watchLimitReason(limit: InotifyLimits.watchLimit(), folders: 0)
        case .cannotWatch(let folder, let code):
            return "cannot watch \(folder.displayString): \(systemErrorMessage(code))"
        }
    }
}

/// The kernel's inotify limits, for messages.
enum InotifyLimits {
    /// The watch limit in force: `fs.inotify.max_user_watches`, or the user namespace's
    /// `user.max_inotify_watches` when that is lower (a container's), with its sysctl name.
    static func watchLimit() -> (value: Int, name: String)? {
        let global = Int(value("max_user_watches")).map { ($0, "fs.inotify.max_user_watches") }
        let namespace = Int(read("/proc/sys/user/max_inotify_watches")).map { ($0, "user.max_inotify_watches") }
        switch (global, namespace) {
        case let (g?, n?): return n.0 < g.0 ? n : g
        case let (g, n): return g ?? n
        }
    }

    /// Why a root is polled once the watch limit is reached: the limit in force, the
    /// folders the root has, and the value that would let it be watched: what the limit
    /// allows now (other programs' watches count against it too) plus this root's folders,
    /// rounded up to a multiple of 1024.
    static func watchLimitReason(limit: (value: Int, name: String)?, folders: Int) -> String {
        guard let limit else {
            return "the inotify watch limit (fs.inotify.max_user_watches, unreadable here) is reached with \(folders) folders under this root"
        }
        let wanted = (limit.value + folders + 1023) / 1024 * 1024
        return "the inotify watch limit is reached: \(limit.name) is \(limit.value) and this root has \(folders) folders; "
            + "raise it to \(wanted) or more (sudo sysctl \(limit.name)=\(wanted), and a line in /etc/sysctl.d/ to keep it)"
    }

    static func value(_ name: String) -> String {
        let text = read("/proc/sys/fs/inotify/" + name)
        return text.isEmpty ? "unknown" : text
    }

    /// The digits of a one-number `/proc/sys` file; empty when it cannot be read.
    private static func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 32)
        guard fgets(&buffer, 32, file) != nil else { return "" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.filter { $0.isNumber }
    }
}
