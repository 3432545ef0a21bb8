/// Phase 2 of an index run: what the walk found against what `files` records.
///
/// A merge of two lists in the same byte order of paths, the walk's and the rows'
/// (read in the order of the path index, one row at a time): nothing is held per
/// recorded file but the rows of files that changed or vanished.
struct IndexDiff {
    /// New files and files whose size, mtime or inode changed, in path order, each
    /// with its row when it had one.
    var toRead: [Indexer.Work] = []
    /// Files whose size, mtime and inode are as recorded.
    var unchanged = 0
    /// Rows of files not found (except under folders that could not be listed).
    var vanished: [PathBytes: FileRecord.Known] = [:]

    /// - Parameters:
    ///   - walk: the files found, sorted by path.
    ///   - rootIDs: the roots walked; rows of other roots are not compared.
    init(_ walk: IndexWalk, rootIDs: Set<Int64>, files: FileStore) throws {
        var unseen: [FileRecord.Known]
        do {
            unseen = try merge(walk.files) { try files.forEachKnownFile(inRoots: rootIDs, $0) }
        } catch is OutOfOrder {
            // Rows SQLite does not order as bytes (a path stored as text by an old
            // build): merged from a sorted copy instead.
            var rows: [FileRecord.Known] = []
            try files.forEachKnownFile(inRoots: rootIDs) { rows.append($0) }
            rows.sort { $0.path < $1.path }
            self = IndexDiff()
            unseen = try merge(walk.files) { body in try rows.forEach(body) }
        }
        // Files recorded but not seen: gone, unless under a folder we could not list.
        for row in unseen {
            if walk.isUnderUnreadableFolder(row.path) && row.status != .error { continue }
            if row.stat.size == 0 && row.status == .error && walk.unreadableFolders.contains(where: { $0.path == row.path }) {
                continue
            }
            vanished[row.path] = row
        }
    }

    private init() {}

    private struct OutOfOrder: Error {}

    /// Merges the sorted walk with the rows `forEachRow` gives in path order; returns the rows not found.
    private mutating func merge(_ found: [Indexer.Work],
                                _ forEachRow: (_ body: (FileRecord.Known) throws -> Void) throws -> Void) throws
        -> [FileRecord.Known] {
        var next = 0
        var unseen: [FileRecord.Known] = []
        var previous: PathBytes?
        try forEachRow { row in
            if let previous, !(previous < row.path) { throw OutOfOrder() }
            previous = row.path
            while next < found.count, found[next].entry.path < row.path {
                toRead.append(found[next])  // new
                next += 1
            }
            guard next < found.count, found[next].entry.path == row.path else {
                unseen.append(row)
                return
            }
            var work = found[next]
            next += 1
            if row.isUnchanged(work.entry, rootID: work.rootID) {
                unchanged += 1
            } else {
                work.known = row
                toRead.append(work)
            }
        }
        toRead.append(contentsOf: found[next...])
        return unseen
    }
}
