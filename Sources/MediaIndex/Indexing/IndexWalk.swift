/// Phase 1 of an index run: every regular file under the roots, one at a time, in
/// byte order of their paths (the order `IndexDiff` merges them with the recorded
/// rows in). No list of the files is held: each root's `FileWalker.Walk` holds the
/// listings from its root down to the folder it is in, and the roots' walks are merged.
///
/// What the walk met besides files is complete once `next()` has given nil.
struct IndexWalk {
    /// Files given so far.
    private(set) var count = 0
    /// Folders that could not be listed, with the reason: what was recorded under them is kept.
    private(set) var unreadableFolders: [(path: PathBytes, reason: String)] = []
    /// Special files (FIFOs, sockets, devices), never opened, each with its reason, sorted by path.
    private(set) var specialFiles: [SkippedFile] = []

    /// Each root's walk, with the file it gives next.
    private var walks: [(rootID: Int64, walk: FileWalker.Walk, next: FileWalker.Entry?)]
    private let progress: (Int) -> Void

    /// Starts a walk of each root; `progress` gets the number of files found so far now and then.
    /// The roots in `followingSymlinks` walk into symbolic links to folders.
    init(roots: [(id: Int64, path: PathBytes)], excluding excludedFolders: [PathBytes],
         followingSymlinks: Set<Int64> = [], progress: @escaping (Int) -> Void) {
        let walker = FileWalker(excluding: excludedFolders)
        walks = roots.map { root in
            var walk = walker.walk(root.path, followingSymlinks: followingSymlinks.contains(root.id))
            let first = walk.next()
            return (root.id, walk, first)
        }
        self.progress = progress
        if walks.allSatisfy({ $0.next == nil }) { finish() }
    }

    /// Seconds spent listing folders so far.
    var listingSeconds: Double { walks.reduce(0) { $0 + $1.walk.listingSeconds } }

    /// The next file in path order (of all roots), or nil at the end.
    mutating func next() -> Indexer.Work? {
        var chosen: Int?
        for index in walks.indices {
            guard let entry = walks[index].next else { continue }
            if let current = chosen, !(entry.path < walks[current].next!.path) { continue }
            chosen = index
        }
        guard let chosen, let entry = walks[chosen].next else { return nil }
        walks[chosen].next = walks[chosen].walk.next()
        count += 1
        if count % 2048 == 0 { progress(count) }
        if walks[chosen].next == nil && walks.allSatisfy({ $0.next == nil }) { finish() }
        return Indexer.Work(entry: entry, rootID: walks[chosen].rootID)
    }

    /// Collects what the roots' walks met besides files, once they are all done.
    private mutating func finish() {
        for (_, walk, _) in walks {
            unreadableFolders.append(contentsOf: walk.unreadableFolders)
            specialFiles += walk.specialFiles.map {
                SkippedFile(path: $0.path, reason: "\($0.kind), not a regular file: never opened")
            }
        }
        specialFiles.sort { $0.path < $1.path }
    }

    /// Whether `path` lies under a folder that could not be listed (or is one).
    func isUnderUnreadableFolder(_ path: PathBytes) -> Bool {
        unreadableFolders.contains { path.isInside($0.path) }
    }
}
