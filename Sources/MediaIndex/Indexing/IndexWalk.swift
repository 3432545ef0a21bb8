/// Phase 1 of an index run: every regular file under the roots, in byte order of
/// their paths (the order `IndexDiff` merges them with the recorded rows in).
struct IndexWalk {
    /// The files found, sorted by path.
    var files: [Indexer.Work] = []
    /// Folders that could not be listed, with the reason: what was recorded under them is kept.
    var unreadableFolders: [(path: PathBytes, reason: String)] = []

    /// Walks each root; `progress` gets the number of files found so far now and then.
    init(roots: [(id: Int64, path: PathBytes)], excluding excludedFolders: [PathBytes],
         progress: @escaping (Int) -> Void) {
        let walker = FileWalker(excluding: excludedFolders)
        for root in roots {
            let before = files.count
            let result = walker.walk(root.path) { count in
                if count % 2048 == 0 { progress(before + count) }
            }
            files.append(contentsOf: result.files.map { Indexer.Work(entry: $0, rootID: root.id) })
            unreadableFolders.append(contentsOf: result.unreadableFolders)
        }
        files.sort { $0.entry.path < $1.entry.path }
    }

    /// Whether `path` lies under a folder that could not be listed (or is one).
    func isUnderUnreadableFolder(_ path: PathBytes) -> Bool {
        unreadableFolders.contains { path.isInside($0.path) }
    }
}
