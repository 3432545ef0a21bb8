import CLinux

/// Which file systems inotify cannot be trusted on, by `statfs(2)`'s `f_type`.
///
/// inotify sees only changes made through this kernel. On a network or FUSE file
/// system, files written by another machine (or by the FUSE daemon's own backend)
/// raise no event, so a root there is re-indexed periodically instead.
enum FileSystemKind: Equatable, Sendable {
    /// A local file system: inotify sees every change.
    case local
    /// A file system where other machines' changes raise no events; the name is for the log.
    case remote(String)

    /// The magic numbers of `linux/magic.h` (and the file systems' own headers) that
    /// name remote or user-space file systems.
    static let remoteTypes: [UInt32: String] = [
        0x6969: "NFS",
        0x517B: "SMB",
        0xFF53_4D42: "CIFS",
        0xFE53_4D42: "SMB2",
        0x6573_5546: "FUSE",
        0x0102_1997: "9P",
        0x00C3_6400: "Ceph",
        0x5346_414F: "AFS",
        0x6B41_4653: "AFS",
        0x7375_7245: "Coda",
        0x0000_564C: "NCP",
        0x0116_1970: "GFS2",
        0x7461_636F: "OCFS2",
        0x0BD0_0BD0: "Lustre",
        0x786F_4256: "VirtualBox shared folder",
    ]

    /// Classifies a `statfs` `f_type`. It is a signed `long` holding a 32-bit magic,
    /// so only its low 32 bits are compared.
    init(type: Int64) {
        if let name = Self.remoteTypes[UInt32(truncatingIfNeeded: type)] { self = .remote(name) } else { self = .local }
    }

    /// The file system holding `path`, or nil when `statfs` fails. Wraps `statfs(2)`.
    static func of(_ path: PathBytes) -> FileSystemKind? {
        var type: Int64 = 0
        let result = path.withCString { mediaindex_filesystem_type($0, &type) }
        return result == 0 ? FileSystemKind(type: type) : nil
    }

    /// Why a root on this file system is polled, or nil for a local one.
    func pollingReason(_ folder: PathBytes) -> String? {
        guard case .remote(let name) = self else { return nil }
        return "\(folder.displayString) is on \(name), where changes made elsewhere raise no inotify events"
    }
}
