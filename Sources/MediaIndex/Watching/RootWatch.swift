#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// inotify watches on every folder of one root, and what their events mean.
///
/// Used by the watcher's event thread only. Folders are watched as the walker sees
/// them: hidden ones, symbolic links and the excluded folders (the library's own, the
/// thumbnail cache) are not, so the index's own writes never wake the watcher.
final class RootWatch {
    let root: PathBytes
    private(set) var instance: InotifyInstance?
    /// Watched folders by watch descriptor.
    private var folders: [Int32: PathBytes] = [:]
    private let excludedFolders: [PathBytes]
    private let excludedInodes: [(device: UInt64, inode: UInt64)]
    private var rootDevice: UInt64 = 0
    private let hooks: WatcherTestHooks
    /// The root follows symbolic links to folders outside it (`roots.follows_symlinks`):
    /// their targets are watched too, each folder once.
    private let followsLinks: Bool

    /// Why the root is polled instead, once inotify is not enough; nil while it is.
    private(set) var pollingReason: String?
    /// The reason given when the root folder itself disappears (unmounted, moved, removed):
    /// the watcher sets the root up again once the folder is back.
    static let vanishedReason = "the root folder was moved, removed or unmounted"
    var watchedFolderCount: Int { folders.count }

    init(root: PathBytes, excludedFolders: [PathBytes], hooks: WatcherTestHooks, followsLinks: Bool = false) {
        self.root = root
        self.followsLinks = followsLinks
        self.excludedFolders = excludedFolders
        excludedInodes = excludedFolders.compactMap { FileStat.of($0).map { ($0.device, $0.inode) } }
        self.hooks = hooks
    }

    /// Watches every folder of the root, or decides it must be polled (a network or
    /// FUSE file system, no inotify instance left, the watch limit reached).
    func setUp() {
        guard let stat = FileStat.of(root) else {
            fallBack(Self.vanishedReason)
            return
        }
        rootDevice = stat.device
        if let reason = fileSystemKind(root)?.pollingReason(root) {
            fallBack(reason)
            return
        }
        do {
            instance = try InotifyInstance()
        } catch let error as InotifyError {
            fallBack(error.reason)
            return
        } catch {
            fallBack("inotify is unavailable")
            return
        }
        watchTree(root)
    }

    private func fileSystemKind(_ path: PathBytes) -> FileSystemKind? {
        if let forced = hooks.fileSystemType?(path) { return FileSystemKind(type: forced) }
        return FileSystemKind.of(path)
    }

    /// Gives up on inotify for this root: its watches are released, the root is polled.
    private func fallBack(_ reason: String) {
        if pollingReason == nil { pollingReason = reason }
        instance = nil
        folders = [:]
    }

    /// Marks the root as polled while keeping its watches: after a lost event queue the
    /// watches still work, but what happened meanwhile is known only to a full run.
    private func degrade(_ reason: String) {
        if pollingReason == nil { pollingReason = reason }
    }

    private func isExcluded(_ path: PathBytes, _ stat: FileStat) -> Bool {
        excludedFolders.contains { path.isInside($0) }
            || excludedInodes.contains { $0.device == stat.device && $0.inode == stat.inode }
    }

    /// Watches `top` and every folder under it, breadth-first.
    private func watchTree(_ top: PathBytes) {
        guard let instance, let topStat = FileStat.of(top), !isExcluded(top, topStat) else { return }
        var level: [(path: PathBytes, stat: FileStat)] = [(top, topStat)]
        var seen: Set<[UInt64]> = [[topStat.device, topStat.inode]]
        while !level.isEmpty, self.instance != nil {
            var next: [(path: PathBytes, stat: FileStat)] = []
            for folder in level {
                if folder.stat.device != rootDevice, let reason = fileSystemKind(folder.path)?.pollingReason(folder.path) {
                    fallBack(reason)
                    return
                }
                do {
                    if let limit = hooks.watchLimit, folders.count >= limit { throw InotifyError.watchLimitReached }
                    let wd = try instance.addWatch(folder.path, followingLink: followsLinks)
                    folders[wd] = folder.path
                } catch InotifyError.watchLimitReached {
                    let limit = hooks.watchLimit.map { ($0, "fs.inotify.max_user_watches") } ?? InotifyLimits.watchLimit()
                    let folderCount = folders.count + countFolders(under: level.drop { $0.path != folder.path } + next)
                    fallBack(InotifyLimits.watchLimitReason(limit: limit, folders: folderCount))
                    return
                } catch {
                    // Gone or unreadable meanwhile: the index run records what it finds.
                    continue
                }
                for child in FileWalker.list(folder.path, followingLinksOutside: followsLinks ? root : nil).folders
                where !isExcluded(child.path, child.stat) && seen.insert([child.stat.device, child.stat.inode]).inserted {
                    next.append(child)
                }
            }
            level = next
        }
    }

    /// How many folders `pending` and the folders under them are (as `watchTree` would
    /// watch them), for the message when the watch limit stops the watching.
    private func countFolders(under pending: [(path: PathBytes, stat: FileStat)]) -> Int {
        var count = 0
        var level = pending
        while !level.isEmpty {
            count += level.count
            level = level.flatMap { folder in
                FileWalker.list(folder.path).folders.filter { !isExcluded($0.path, $0.stat) }
            }
        }
        return count
    }

    /// Stops watching `top` and everything under it (moved out of the root, or gone).
    private func unwatchTree(_ top: PathBytes) {
        for (wd, path) in folders where path.isInside(top) {
            instance?.removeWatch(wd)
            folders[wd] = nil
        }
    }

    /// Reads the queued events: what they mean for the pending work. Check
    /// `pollingReason` after: an overflow, a full watch table or a vanished root
    /// turns the root to polling.
    func readEvents() -> [PendingChanges.Effect] {
        guard let instance else { return [] }
        return effects(of: instance.readEvents())
    }

    /// What an inotify queue overflow does, for the test hook that simulates one.
    func simulateOverflow() -> [PendingChanges.Effect] {
        effects(of: [InotifyEvent(wd: -1, mask: UInt32(IN_Q_OVERFLOW), cookie: 0, name: [])])
    }

    func effects(of events: [InotifyEvent]) -> [PendingChanges.Effect] {
        var effects: [PendingChanges.Effect] = []
        for event in events {
            if event.has(IN_Q_OVERFLOW) {
                degrade("the inotify event queue overflowed (IN_Q_OVERFLOW; fs.inotify.max_queued_events = "
                        + "\(InotifyLimits.value("max_queued_events"))), so events may have been lost")
                effects.append(.requireRun)
                continue
            }
            guard let folder = folders[event.wd] else { continue }
            if event.has(IN_IGNORED) {
                folders[event.wd] = nil
                if folder == root { fallBack(Self.vanishedReason); effects.append(.settled(nil)) }
                continue
            }
            if event.name.isEmpty {
                // The folder itself: deleted or moved (its parent reports the entry too).
                if folder == root, event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) || event.has(IN_UNMOUNT) {
                    fallBack(Self.vanishedReason)
                    effects.append(.settled(nil))
                }
                continue
            }
            // Hidden entries are never indexed (the walker skips them).
            if event.name.first == UInt8(ascii: ".") { continue }
            let path = folder.appending(event.name)
            if event.isFolder {
                if event.has(IN_CREATE) || event.has(IN_MOVED_TO) {
                    watchTree(path)
                } else if event.has(IN_MOVED_FROM) || event.has(IN_DELETE) {
                    unwatchTree(path)
                }
                effects.append(.settled(path))
            } else if event.has(IN_CREATE) {
                // A hard link or a symbolic link is complete when it appears; a new file
                // is being written until its IN_CLOSE_WRITE.
                let info = FileStat.linkCount(path)
                effects.append(info.map { $0.isLink || $0.links > 1 } == true ? .settled(path) : .wrote(path))
            } else if event.has(IN_MODIFY) {
                effects.append(.wrote(path))
            } else if event.has(IN_CLOSE_WRITE) || event.has(IN_MOVED_TO) || event.has(IN_MOVED_FROM)
                        || event.has(IN_DELETE) || event.has(IN_ATTRIB) {
                effects.append(.settled(path))
            }
        }
        return effects
    }
}

extension FileStat {
    /// Whether `path` is a symbolic link, and its hard-link count (`lstat(2)`), or nil when gone.
    static func linkCount(_ path: PathBytes) -> (isLink: Bool, links: UInt64)? {
        var info = stat()
        guard path.withCString({ lstat($0, &info) }) == 0 else { return nil }
        return ((info.st_mode & S_IFMT) == S_IFLNK, UInt64(info.st_nlink))
    }
}

/// Ways for tests to reach the paths that a real machine rarely takes.
struct WatcherTestHooks: Sendable {
    /// Replaces `statfs`'s `f_type` for a folder (nil: ask the kernel).
    var fileSystemType: (@Sendable (PathBytes) -> Int64?)?
    /// Behaves as if `fs.inotify.max_user_watches` allowed this many watches per root.
    var watchLimit: Int?
    /// Called with the watcher's index runs' progress (on the run's thread).
    var progress: (@Sendable (IndexProgress) -> Void)?
    /// Called with each event as it is published (on the watcher's thread), without
    /// waiting for a task to read `events()`.
    var events: (@Sendable (WatcherEvent) -> Void)?
}
