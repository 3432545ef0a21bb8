#if canImport(Glibc)
import Glibc
#endif

/// Opens files that lie under an indexed root so that the path resolves inside that
/// root: no symbolic link is followed in any folder below the root nor in the file's own
/// name, and no `..` climbs out. The root itself is taken as the user gave it.
///
/// `O_NOFOLLOW` alone checks only the last component: a root holding `photos -> /etc`
/// would serve `/etc/hosts` as `photos/hosts`. Here the path is walked from the root
/// one folder at a time, each opened with `openat(…, O_NOFOLLOW | O_DIRECTORY)` from the
/// one before, so a link anywhere below the root refuses the open.
public enum BeneathRoot {
    /// Why a file under a root could not be opened.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The path is not below the root at all (or climbs out with `..`).
        case outsideRoot(path: String, root: String)
        /// A folder below the root, or the file itself, is a symbolic link.
        case symbolicLink(path: String, component: String)
        /// The system refused the open (missing, not permitted…): `errno` and its text.
        case system(path: String, code: Int32)
        /// Reached through a followed symbolic link to a folder, the file resolves to a
        /// path beneath no indexed folder: it is listed, never opened for serving.
        case resolvesOutsideRoots(path: String, resolved: String)

        public var description: String {
            switch self {
            case .outsideRoot(let path, let root): return "\(path) is not inside the indexed folder \(root)"
            case .symbolicLink(let path, let component):
                return "\(path) is reached through the symbolic link \(component), which is not followed"
            case .system(let path, let code): return "cannot open \(path): \(String(cString: strerror(code)))"
            case .resolvesOutsideRoots(let path, let resolved):
                return "\(path) is reached through a followed symbolic link and resolves to \(resolved), "
                    + "which is inside no indexed folder; it is not served"
            }
        }

        /// The `errno` the failure stands for (`ELOOP` for a link, `EXDEV` for outside).
        public var code: Int32 {
            switch self {
            case .outsideRoot, .resolvesOutsideRoots: return EXDEV
            case .symbolicLink: return ELOOP
            case .system(_, let code): return code
            }
        }
    }

    /// Opens `path`, which must lie below `root`, with `flags` (`O_NOFOLLOW` and
    /// `O_CLOEXEC` are always added). Both are raw path bytes. The caller owns the
    /// descriptor.
    ///
    /// - Throws: `Failure`. Wraps `open(2)` and `openat(2)`, retrying `EINTR`.
    public static func open(_ path: [UInt8], beneath root: [UInt8], flags: Int32) throws(Failure) -> Int32 {
        let display = String(decoding: path, as: UTF8.self)
        let components = try relativeComponents(of: path, beneath: root)
        var folder = try openFolder(root, display: display)
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            let fd = retryingOnInterrupt {
                openat(folder, cString(component), isLast ? flags | O_NOFOLLOW | O_CLOEXEC
                       : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let code = errno
            if fd < 0 && (code == ELOOP || code == ENOTDIR) && isSymbolicLink(component, in: folder) {
                close(folder)
                let walked = components[0...index].map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
                throw .symbolicLink(path: display, component: walked)
            }
            close(folder)
            guard fd >= 0 else { throw .system(path: display, code: code) }
            folder = fd
        }
        return folder
    }

    /// The components of `path` after `root`; refuses a path outside it, `..`, or the root itself.
    static func relativeComponents(of path: [UInt8], beneath root: [UInt8]) throws(Failure) -> [[UInt8]] {
        let slash = UInt8(ascii: "/")
        var trimmedRoot = root
        while trimmedRoot.count > 1 && trimmedRoot.last == slash { trimmedRoot.removeLast() }
        let outside = Failure.outsideRoot(path: String(decoding: path, as: UTF8.self),
                                          root: String(decoding: root, as: UTF8.self))
        guard path.count > trimmedRoot.count, path.starts(with: trimmedRoot),
              trimmedRoot == [slash] || path[trimmedRoot.count] == slash else { throw outside }
        let components = path[trimmedRoot.count...].split(separator: slash).map(Array.init)
            .filter { $0 != [UInt8(ascii: ".")] }
        guard !components.isEmpty, !components.contains([UInt8(ascii: "."), UInt8(ascii: ".")]) else { throw outside }
        return components
    }

    private static func openFolder(_ root: [UInt8], display: String) throws(Failure) -> Int32 {
        let fd = retryingOnInterrupt { Glibc.open(cString(root), O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw .system(path: display, code: errno) }
        return fd
    }

    private static func isSymbolicLink(_ name: [UInt8], in folder: Int32) -> Bool {
        var info = stat()
        return fstatat(folder, cString(name), &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    private static func cString(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }
}
