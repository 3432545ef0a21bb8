#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch

/// Walks the folders under a root and gives every regular file with its `lstat`, one
/// at a time, in byte order of their paths (the order `files` is read in by its path
/// index), without ever holding a list of the files.
///
/// Symbolic links are not followed unless the walk is asked to follow links to folders
/// (a root's `follows_symlinks`, off by default); a link whose target lies outside the
/// root is then walked as that folder, listed under the link's path (a target inside the
/// root is walked under its own path, so the link is skipped). A folder that is one of
/// the folders above it (by device and inode: a bind mount or a followed link leading
/// back up) is skipped, so a walk never loops; a folder seen before elsewhere (a bind
/// mount of a sibling, two links to one folder) is a view of it and is walked again, so
/// its files' other paths are found (the index makes them other names of one file, not
/// new files), up to `maxViewFolders` such folders per walk. Hidden
/// entries (names starting with `.`) and the excluded folders (the library's own)
/// are skipped. What is held is the listing of each folder from the root down to the
/// current one, whatever the size of the tree.
public struct FileWalker: Sendable {
    /// One regular file found.
    public struct Entry: Sendable {
        public var path: PathBytes
        public var stat: FileStat
    }

    /// How many folders seen before (views through a bind mount or a second link) one walk
    /// enters again; past it they are skipped, as loops are.
    public static let maxViewFolders = 10_000

    /// Folders never entered (by device and inode).
    public var excludedFolders: [(device: UInt64, inode: UInt64)]

    public init(excluding folders: [PathBytes] = []) {
        excludedFolders = folders.compactMap { path in FileStat.of(path).map { ($0.device, $0.inode) } }
    }

    /// A walk of `root`: call `next()` until it gives nil.
    /// With `followingSymlinks`, a symbolic link to a folder is walked as the folder
    /// (links to files are still skipped).
    public func walk(_ root: PathBytes, followingSymlinks: Bool = false) -> Walk {
        Walk(root: root, excluding: excludedFolders, followingSymlinks: followingSymlinks)
    }

    /// A walk of one root in progress: depth first, each folder's files and sub-folders
    /// taken in path order.
    ///
    /// A folder's entries are ordered by their name, a sub-folder's name followed by
    /// `/`: so every path comes out in byte order of the whole path (`a-b` before
    /// `a/x`, as `-` sorts before `/`), and a sub-folder's files come out together.
    /// What the walk met besides files (unreadable folders, links, hidden and special
    /// files) is complete once `next()` has given nil.
    public struct Walk: IteratorProtocol {
        /// Folders that could not be read, with the reason. Their contents are unknown,
        /// so the indexer keeps what it had recorded under them.
        public private(set) var unreadableFolders: [(path: PathBytes, reason: String)] = []
        public private(set) var skippedSymlinks = 0
        public private(set) var skippedHidden = 0
        public private(set) var skippedSpecial = 0
        /// The special files (FIFOs, sockets, devices) found, with what each is; never opened.
        public private(set) var specialFiles: [(path: PathBytes, kind: String)] = []
        /// Seconds spent listing folders (opening, reading, `lstat` of each entry, sorting).
        public private(set) var listingSeconds = 0.0

        private let excludedFolders: [(device: UInt64, inode: UInt64)]
        /// The root, when links to folders outside it are followed.
        private let followingOutside: PathBytes?
        private var visited = Set<[UInt64]>()
        /// Folders entered again as views of a folder seen before.
        private var viewFolders = 0
        /// The listings of the folders from the root down to the one being walked.
        private var stack: [Frame] = []

        /// One listed folder: its files and sub-folders, each in order, and how far the walk is in each.
        private struct Frame {
            var files: [Entry]
            var folders: [(path: PathBytes, stat: FileStat)]
            /// The folder's device and inode.
            var identity: [UInt64]
            var nextFile = 0
            var nextFolder = 0
        }

        init(root: PathBytes, excluding excludedFolders: [(device: UInt64, inode: UInt64)], followingSymlinks: Bool) {
            self.excludedFolders = excludedFolders
            followingOutside = followingSymlinks ? root : nil
            guard let rootStat = FileStat.of(root) else {
                unreadableFolders.append((root, systemErrorMessage(errno)))
                return
            }
            enter((root, rootStat))
        }

        /// The next regular file in path order, or nil at the end of the walk.
        public mutating func next() -> Entry? {
            while !stack.isEmpty {
                let top = stack.count - 1
                let frame = stack[top]
                let hasFile = frame.nextFile < frame.files.count
                let hasFolder = frame.nextFolder < frame.folders.count
                if hasFile && (!hasFolder || Self.precedes(frame.files[frame.nextFile].path,
                                                           folder: frame.folders[frame.nextFolder].path)) {
                    stack[top].nextFile += 1
                    return frame.files[frame.nextFile]
                }
                guard hasFolder else {
                    stack.removeLast()
                    continue
                }
                stack[top].nextFolder += 1
                enter(frame.folders[frame.nextFolder])
            }
            return nil
        }

        /// Lists `folder` and makes it the one walked, unless it is excluded or was seen.
        private mutating func enter(_ folder: (path: PathBytes, stat: FileStat)) {
            if excludedFolders.contains(where: { $0.device == folder.stat.device && $0.inode == folder.stat.inode }) {
                return
            }
            let identity = [folder.stat.device, folder.stat.inode]
            // A folder above this one: a loop.
            if stack.contains(where: { $0.identity == identity }) { return }
            if !visited.insert(identity).inserted {
                guard viewFolders < FileWalker.maxViewFolders else { return }
                viewFolders += 1
            }
            let started = ContinuousClock.now
            var listing = FileWalker.list(folder.path, followingLinksOutside: followingOutside)
            listing.files.sort { $0.path < $1.path }
            let elapsed = ContinuousClock.now - started
            listingSeconds += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if let failure = listing.failure { unreadableFolders.append((folder.path, failure)) }
            skippedHidden += listing.skippedHidden
            skippedSymlinks += listing.skippedSymlinks
            skippedSpecial += listing.skippedSpecial
            specialFiles += listing.specialFiles
            if !listing.files.isEmpty || !listing.folders.isEmpty {
                stack.append(Frame(files: listing.files, folders: listing.folders, identity: identity))
            }
        }

        /// Whether the file at `file` comes before everything inside the sibling folder
        /// `folder` in byte order, that is whether `file` < `folder` + `/`.
        static func precedes(_ file: PathBytes, folder: PathBytes) -> Bool {
            file.bytes.withUnsafeBufferPointer { a in
                folder.bytes.withUnsafeBufferPointer { b in
                    let common = min(a.count, b.count)
                    let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                    if order != 0 { return order < 0 }
                    // `file` is a prefix of `folder` (or equal to it): shorter sorts first.
                    if a.count <= b.count { return true }
                    return a[b.count] < UInt8(ascii: "/")
                }
            }
        }

        /// Whether the contents of folder `a` come before those of its sibling `b`: `a/` < `b/`.
        static func sortsBefore(folder a: PathBytes, _ b: PathBytes) -> Bool {
            a.bytes.withUnsafeBufferPointer { x in
                b.bytes.withUnsafeBufferPointer { y in
                    let common = min(x.count, y.count)
                    let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                    if order != 0 { return order < 0 }
                    if x.count == y.count { return false }
                    return x.count < y.count ? UInt8(ascii: "/") < y[x.count] : x[y.count] < UInt8(ascii: "/")
                }
            }
        }
    }

    /// What one folder holds.
    struct FolderListing: Sendable {
        var files: [Entry] = []
        /// Sub-folders, with their `lstat`, in byte order of their paths followed by `/`
        /// (the order their contents come in a walk).
        var folders: [(path: PathBytes, stat: FileStat)] = []
        /// Why the folder could not be listed (wholly or partly).
        var failure: String?
        var skippedHidden = 0
        var skippedSymlinks = 0
        var skippedSpecial = 0
        var specialFiles: [(path: PathBytes, kind: String)] = []
    }

    /// The `stat` of the folder the link at `path` leads to, when it resolves outside
    /// `root` (a folder inside is walked under its own path); nil otherwise.
    static func linkedFolder(_ path: PathBytes, outside root: PathBytes) -> FileStat? {
        var target = stat()
        guard path.withCString({ stat($0, &target) }) == 0, target.st_mode & S_IFMT == S_IFDIR else { return nil }
        guard let resolved = path.resolved(), !resolved.isInside(root), !root.isInside(resolved) else { return nil }
        return FileStat(target)
    }

    /// What a file that is neither regular, a folder nor a link is, as a noun phrase.
    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "a special file"
        }
    }

    /// Lists one folder: `lstat` of every entry, relative to the open folder. With
    /// `root`, a link to a folder outside it is listed as a sub-folder with the `stat`
    /// of its target (whose device and inode the walk checks against the folders seen).
    static func list(_ folder: PathBytes, followingLinksOutside root: PathBytes? = nil) -> FolderListing {
        var listing = FolderListing()
        guard let directory = folder.withCString({ opendir($0) }) else {
            listing.failure = systemErrorMessage(errno)
            return listing
        }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { listing.failure = "listing stopped: " + systemErrorMessage(errno) }
                break
            }
            // The name, and its `lstat` through the entry's own NUL-terminated bytes.
            var info = stat()
            let (name, statResult) = withUnsafeBytes(of: &entry.pointee.d_name) { raw -> ([UInt8], Int32) in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                let name = Array(bytes[0..<length])
                if name.first == 46 || length == bytes.count { return (name, -1) }  // hidden, ".", ".."
                let cName = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                return (name, fstatat(descriptor, cName, &info, AT_SYMLINK_NOFOLLOW))
            }
            if name == [46] || name == [46, 46] { continue }  // "." and ".."
            if name.first == 46 { listing.skippedHidden += 1; continue }
            // Vanished between readdir and stat: nothing to index.
            guard statResult == 0 else { continue }
            let path = folder.appending(name)
            switch info.st_mode & S_IFMT {
            case S_IFREG: listing.files.append(Entry(path: path, stat: FileStat(info)))
            case S_IFDIR: listing.folders.append((path, FileStat(info)))
            case S_IFLNK:
                if let root, let target = Self.linkedFolder(path, outside: root) {
                    listing.folders.append((path, target))
                } else {
                    listing.skippedSymlinks += 1
                }
            default:
                listing.skippedSpecial += 1
                listing.specialFiles.append((path, Self.kind(of: info.st_mode)))
            }
        }
        // Sorted, so a walk lists folders in a stable order whatever readdir gives: by
        // the path with a `/` after it, the order of the paths inside.
        listing.folders.sort { Walk.sortsBefore(folder: $0.path, $1.path) }
        return listing
    }
}
