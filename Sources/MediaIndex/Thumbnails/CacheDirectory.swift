import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One open folder of the thumbnail cache, reached from the cache's own folder through
/// `openat(2)` with `O_NOFOLLOW` at every step: a symbolic link planted anywhere inside
/// the cache is never followed, so it can neither redirect a write nor make a sweep
/// delete a file elsewhere. The descriptor is closed when the value is released.
final class CacheDirectory {
    let descriptor: Int32
    /// The folder's path, for messages.
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Whether an errno means the disk (or the user's quota) is full.
    static func isDiskFull(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    /// Opens the cache folder itself, creating it owner-only (0700) when missing.
    ///
    /// - Throws: `LibraryError.unsafeCacheFolder` when it is a symbolic link, not a
    ///   folder, owned by another user, or writable by group or others;
    ///   `LibraryError.cacheDiskFull`; `LibraryError.io`.
    static func openRoot(_ directory: String, create: Bool) throws -> CacheDirectory? {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        // Opened first: the folder usually exists, and every thumbnail written opens it.
        var fd = open(directory, flags)
        if fd < 0, errno == ENOENT, create {
            let parent = (directory as NSString).deletingLastPathComponent
            if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
                try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])
            }
            if mkdir(directory, 0o700) != 0, errno != EEXIST {
                let code = errno
                if isDiskFull(code) { throw LibraryError.cacheDiskFull(path: directory) }
                throw LibraryError.io("cannot create the thumbnail cache folder \(directory): \(systemErrorMessage(code))")
            }
            fd = open(directory, flags)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT && !create { return nil }
            if code == ELOOP || code == ENOTDIR {
                throw LibraryError.unsafeCacheFolder(path: directory, reason: "it is a symbolic link or not a folder")
            }
            throw LibraryError.io("cannot open the thumbnail cache folder \(directory): \(systemErrorMessage(code))")
        }
        let folder = CacheDirectory(descriptor: fd, path: directory)
        try folder.checkOwnership()
        return folder
    }

    /// Refuses a folder another user owns, or that group or others may write to: they
    /// could plant links or files in it.
    private func checkOwnership() throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw LibraryError.io("cannot inspect the thumbnail cache folder \(path): \(systemErrorMessage(errno))")
        }
        if info.st_uid != geteuid() {
            throw LibraryError.unsafeCacheFolder(path: path, reason: "it belongs to user \(info.st_uid), not to you (\(geteuid()))")
        }
        if info.st_mode & 0o022 != 0 {
            throw LibraryError.unsafeCacheFolder(
                path: path, reason: "group or others may write to it (mode \(String(info.st_mode & 0o777, radix: 8)))")
        }
    }

    /// The subfolder `name`, created owner-only when `create` and missing; nil when it
    /// does not exist. A symbolic link or anything not a folder is refused.
    ///
    /// - Throws: `LibraryError.unsafeCacheFolder`, `.cacheDiskFull`, `.io`.
    func subfolder(_ name: String, create: Bool) throws -> CacheDirectory? {
        let childPath = path + "/" + name
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        // Opened first: the folder usually exists, and a mkdir that fails costs a lookup too.
        var fd = openat(descriptor, name, flags)
        if fd < 0, errno == ENOENT, create {
            if mkdirat(descriptor, name, 0o700) != 0, errno != EEXIST {
                let code = errno
                if Self.isDiskFull(code) { throw LibraryError.cacheDiskFull(path: childPath) }
                throw LibraryError.io("cannot create the thumbnail folder \(childPath): \(systemErrorMessage(code))")
            }
            fd = openat(descriptor, name, flags)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP || code == ENOTDIR {
                throw LibraryError.unsafeCacheFolder(path: childPath, reason: "it is a symbolic link or not a folder")
            }
            throw LibraryError.io("cannot open the thumbnail folder \(childPath): \(systemErrorMessage(code))")
        }
        return CacheDirectory(descriptor: fd, path: childPath)
    }

    /// The folder holding `path` (which must lie inside `directory`) and the file's
    /// name, walked from `directory` one component at a time; nil when a folder on the
    /// way is missing and `create` is false.
    ///
    /// - Throws: as `subfolder(_:create:)`; `LibraryError.io` for a path outside the cache.
    static func parent(of path: String, in directory: String, create: Bool) throws -> (CacheDirectory, String)? {
        guard path.hasPrefix(directory + "/") else {
            throw LibraryError.io("\(path) is not inside the thumbnail cache \(directory)")
        }
        var components = path.dropFirst(directory.count + 1).split(separator: "/").map(String.init)
        guard let name = components.popLast(), !components.contains(".."), name != ".." else {
            throw LibraryError.io("\(path) is not a thumbnail cache path")
        }
        guard var folder = try openRoot(directory, create: create) else { return nil }
        for component in components where component != "." {
            guard let next = try folder.subfolder(component, create: create) else { return nil }
            folder = next
        }
        return (folder, name)
    }

    /// The names in this folder with their `lstat` facts (symbolic links are reported as
    /// links, never followed).
    func entries() -> [(name: String, info: stat)] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        var result: [(name: String, info: stat)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            result.append((name, info))
        }
        return result
    }
}
