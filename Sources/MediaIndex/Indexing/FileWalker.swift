#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Walks the folders under a root and lists every regular file with its `lstat`.
///
/// Symbolic links are never followed, so a walk cannot leave its root or loop;
/// folders already seen (by device and inode: bind mounts) are skipped too. Hidden
/// entries (names starting with `.`) and the excluded folders (the library's own)
/// are skipped. At most one folder is open at a time, whatever the tree.
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
    }

    /// Folders never entered (by device and inode).
    public var excludedFolders: [(device: UInt64, inode: UInt64)]

    public init(excluding folders: [PathBytes] = []) {
        excludedFolders = folders.compactMap { path in FileStat.of(path).map { ($0.device, $0.inode) } }
    }

    /// Walks `root` breadth-first.
    public func walk(_ root: PathBytes, onFile: ((Int) -> Void)? = nil) -> Result {
        var result = Result()
        var visited = Set<[UInt64]>()
        guard let rootStat = FileStat.of(root) else {
            result.unreadableFolders.append((root, systemErrorMessage(errno)))
            return result
        }
        // Folders to list, with the stat their parent's listing already gave.
        var pending: [(path: PathBytes, stat: FileStat)] = [(root, rootStat)]
        var cursor = 0
        while cursor < pending.count {
            let (folder, folderStat) = pending[cursor]
            cursor += 1
            if excludedFolders.contains(where: { $0.device == folderStat.device && $0.inode == folderStat.inode }) {
                continue
            }
            guard visited.insert([folderStat.device, folderStat.inode]).inserted else { continue }
            guard let directory = folder.withCString({ opendir($0) }) else {
                result.unreadableFolders.append((folder, systemErrorMessage(errno)))
                continue
            }
            let descriptor = dirfd(directory)
            var children: [(path: PathBytes, stat: FileStat)] = []
            while true {
                errno = 0
                guard let entry = readdir(directory) else {
                    if errno != 0 {
                        result.unreadableFolders.append((folder, "listing stopped: " + systemErrorMessage(errno)))
                    }
                    break
                }
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [UInt8] in
                    let bytes = raw.bindMemory(to: UInt8.self)
                    let length = bytes.firstIndex(of: 0) ?? bytes.count
                    return Array(bytes[0..<length])
                }
                if name == [46] || name == [46, 46] { continue }  // "." and ".."
                if name.first == 46 { result.skippedHidden += 1; continue }
                var info = stat()
                let statResult = name.withUnsafeBufferPointer { buffer -> Int32 in
                    var cName = buffer.map { CChar(bitPattern: $0) }
                    cName.append(0)
                    return fstatat(descriptor, cName, &info, AT_SYMLINK_NOFOLLOW)
                }
                let path = folder.appending(name)
                if statResult != 0 {
                    // Vanished between readdir and stat: nothing to index.
                    continue
                }
                switch info.st_mode & S_IFMT {
                case S_IFREG:
                    result.files.append(Entry(path: path, stat: FileStat(info)))
                    onFile?(result.files.count)
                case S_IFDIR:
                    children.append((path, FileStat(info)))
                case S_IFLNK:
                    result.skippedSymlinks += 1
                default:
                    result.skippedSpecial += 1
                }
            }
            closedir(directory)
            // Sorted, so a walk lists files in a stable order whatever readdir gives.
            pending.append(contentsOf: children.sorted { $0.path < $1.path })
        }
        return result
    }
}
