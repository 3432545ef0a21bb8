#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch

/// Walks the folders under a root and lists every regular file with its `lstat`.
///
/// Symbolic links are never followed, so a walk cannot leave its root or loop;
/// folders already seen (by device and inode: bind mounts) are skipped too. Hidden
/// entries (names starting with `.`) and the excluded folders (the library's own)
/// are skipped. At most one folder per core is open at a time, whatever the tree.
public struct FileWalker: Sendable {
    /// One regular file found.
    public struct Entry: Sendable {
        public var path: PathBytes
        public var stat: FileStat
    }

    /// What the walk found.
    public struct Result: Sendable {
        public var files: [Entry] = []
        /// Folders that could not be read, with the reason. Their contents are unknown,
        /// so the indexer keeps what it had recorded under them.
        public var unreadableFolders: [(path: PathBytes, reason: String)] = []
        public var skippedSymlinks = 0
        public var skippedHidden = 0
        public var skippedSpecial = 0
        /// The special files (FIFOs, sockets, devices) found, with what each is; never opened.
        public var specialFiles: [(path: PathBytes, kind: String)] = []
    }

    /// Folders never entered (by device and inode).
    public var excludedFolders: [(device: UInt64, inode: UInt64)]

    public init(excluding folders: [PathBytes] = []) {
        excludedFolders = folders.compactMap { path in FileStat.of(path).map { ($0.device, $0.inode) } }
    }

    /// Walks `root` breadth-first, listing the folders of each level on all cores.
    ///
    /// The result is the same whatever the number of cores: a level's listings are
    /// merged in path order, and only then are the next level's folders chosen
    /// (skipping excluded and already-visited ones), on one thread.
    public func walk(_ root: PathBytes, onFile: ((Int) -> Void)? = nil) -> Result {
        var result = Result()
        var visited = Set<[UInt64]>()
        guard let rootStat = FileStat.of(root) else {
            result.unreadableFolders.append((root, systemErrorMessage(errno)))
            return result
        }
        // Folders to list, with the stat their parent's listing already gave.
        var level: [(path: PathBytes, stat: FileStat)] = []
        func enqueue(_ folder: (path: PathBytes, stat: FileStat), into next: inout [(path: PathBytes, stat: FileStat)]) {
            if excludedFolders.contains(where: { $0.device == folder.stat.device && $0.inode == folder.stat.inode }) {
                return
            }
            guard visited.insert([folder.stat.device, folder.stat.inode]).inserted else { return }
            next.append(folder)
        }
        enqueue((root, rootStat), into: &level)
        while !level.isEmpty {
            let listings: [FolderListing]
            if level.count == 1 {
                listings = [Self.list(level[0].path)]
            } else {
                let slots = ConcurrentSlots<FolderListing?>(count: level.count, initial: nil)
                let folders = level.map(\.path)
                DispatchQueue.concurrentPerform(iterations: folders.count) { index in
                    slots.set(index, Self.list(folders[index]))
                }
                listings = slots.values.map { $0 ?? FolderListing() }
            }
            var next: [(path: PathBytes, stat: FileStat)] = []
            for (folder, listing) in zip(level, listings) {
                if let failure = listing.failure { result.unreadableFolders.append((folder.path, failure)) }
                result.skippedHidden += listing.skippedHidden
                result.skippedSymlinks += listing.skippedSymlinks
                result.skippedSpecial += listing.skippedSpecial
                result.specialFiles += listing.specialFiles
                if !listing.files.isEmpty {
                    result.files.append(contentsOf: listing.files)
                    onFile?(result.files.count)
                }
                for child in listing.folders { enqueue(child, into: &next) }
            }
            level = next
        }
        return result
    }

    /// What one folder holds.
    struct FolderListing: Sendable {
        var files: [Entry] = []
        /// Sub-folders in path order, with their `lstat`.
        var folders: [(path: PathBytes, stat: FileStat)] = []
        /// Why the folder could not be listed (wholly or partly).
        var failure: String?
        var skippedHidden = 0
        var skippedSymlinks = 0
        var skippedSpecial = 0
        var specialFiles: [(path: PathBytes, kind: String)] = []
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

    /// Lists one folder: `lstat` of every entry, relative to the open folder.
    static func list(_ folder: PathBytes) -> FolderListing {
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
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [UInt8] in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                return Array(bytes[0..<length])
            }
            if name == [46] || name == [46, 46] { continue }  // "." and ".."
            if name.first == 46 { listing.skippedHidden += 1; continue }
            var info = stat()
            let statResult = name.withUnsafeBufferPointer { buffer -> Int32 in
                var cName = buffer.map { CChar(bitPattern: $0) }
                cName.append(0)
                return fstatat(descriptor, cName, &info, AT_SYMLINK_NOFOLLOW)
            }
            // Vanished between readdir and stat: nothing to index.
            guard statResult == 0 else { continue }
            let path = folder.appending(name)
            switch info.st_mode & S_IFMT {
            case S_IFREG: listing.files.append(Entry(path: path, stat: FileStat(info)))
            case S_IFDIR: listing.folders.append((path, FileStat(info)))
            case S_IFLNK: listing.skippedSymlinks += 1
            default:
                listing.skippedSpecial += 1
                listing.specialFiles.append((path, Self.kind(of: info.st_mode)))
            }
        }
        // Sorted, so a walk lists folders in a stable order whatever readdir gives.
        listing.folders.sort { $0.path < $1.path }
        return listing
    }
}
