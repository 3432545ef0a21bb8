/// Phase 2 of an index run: what the walk finds against what `files` records.
///
/// A merge of two streams in the same byte order of paths, the walk's (one file at a
/// time) and the rows' (read in the order of the path index, one row at a time):
/// nothing is held per recorded or found file but the files to read (a bounded number
/// of them in memory, see `ToReadList`) and the rows of files that vanished.
struct IndexDiff {
    /// New files and files whose size, mtime or inode changed, in path order, each
    /// with its row when it had one.
    var toRead: ToReadList
    /// Files whose size, mtime and inode are as recorded.
    var unchanged = 0
    /// Rows of files not found (except under folders that could not be listed).
    var vanished: [PathBytes: FileRecord.Known] = [:]
    /// New or changed files left for a later run: still being written (`Settling`).
    var deferred = 0
    /// The file's other names (`FileLinkStore`), as the walk found them.
    var links = Links()
    private let settling: Settling?
    private let linkStore: FileLinkStore?
    /// The device and inode of each new file this run (a second path of one is another name).
    private var newIdentities: Set<FileIdentity> = []

    /// What the walk found of other names of files (hard links, views of one folder).
    struct Links {
        /// New paths of files already recorded or found earlier in this walk: recorded as
        /// names of that file after the commit, never read.
        var found: [(rootID: Int64, entry: FileWalker.Entry)] = []
        /// Recorded names that are gone (or are another file now).
        var vanished: [FileRecord.Known] = []
        /// Recorded names whose stat changed, still the same file (it was written).
        var refreshed: [FileWalker.Entry] = []
        /// Recorded files whose path is gone while another name remains: that name takes
        /// the row's place.
        var promotions: [(file: FileRecord.Known, rootID: Int64, entry: FileWalker.Entry)] = []
        /// Names seen, by their file's id (for promotions).
        fileprivate var seen: [Int64: [(rootID: Int64, entry: FileWalker.Entry)]] = [:]

        var isEmpty: Bool { found.isEmpty && vanished.isEmpty && refreshed.isEmpty && promotions.isEmpty }
    }

    /// Which files are still being written, so a run leaves them alone: not read, a
    /// known one's row kept as it was, for the run after their writer is done.
    struct Settling {
        /// Files a watcher saw opened for writing and not yet closed.
        var beingWritten: Set<PathBytes>
        /// Files modified after this moment (ns since 1970) and not after `until`: their
        /// size and mtime have not been stable for the settling window.
        var modifiedAfter: Int64?
        var until: Int64

        /// Nil when nothing is to be left (no file open, no settling window).
        init?(options: MediaLibrary.IndexOptions, now: Double) {
            guard !options.filesBeingWritten.isEmpty || options.settlingSeconds != nil else { return nil }
            beingWritten = options.filesBeingWritten
            modifiedAfter = options.settlingSeconds.map { Int64((now - $0) * 1e9) }
            // A modification time in the future (a skewed clock) is no write in progress.
            until = Int64((now + 1) * 1e9)
        }

        func isSettling(_ entry: FileWalker.Entry) -> Bool {
            if beingWritten.contains(entry.path) { return true }
            guard let modifiedAfter else { return false }
            let mtime = entry.stat.modificationNanoseconds
            return mtime > modifiedAfter && mtime <= until
        }
    }

    /// Runs `walk` to its end, merging it with the rows.
    ///
    /// - Parameters:
    ///   - walk: the walk, started; at the end, the finished walk (for what it met besides files).
    ///   - makeWalk: starts the walk again, when the rows turn out not to be in byte order
    ///     (a path stored as text by an old build).
    ///   - rootIDs: the roots walked; rows of other roots are not compared.
    ///   - spillFolder: where files to read past the held ones are written out.
    ///   - heldLimit: how many files to read are held in memory.
    /// - Throws: `DatabaseError`.
    init(_ walk: inout IndexWalk, restart makeWalk: () -> IndexWalk, rootIDs: Set<Int64>, files: FileStore,
         settling: Settling? = nil, spillFolder: String, heldLimit: Int = ToReadList.defaultHeldLimit) throws {
        self.settling = settling
        // A library with no file recorded (a first index) has no name to look a new path up
        // among: only the walk's own files can be its other names.
        linkStore = try files.db.scalarInt("SELECT 1 FROM files LIMIT 1") == nil ? nil : FileLinkStore(db: files.db)
        toRead = ToReadList(spillFolder: spillFolder, heldLimit: heldLimit)
        var unseen: [FileRecord.Known]
        do {
            unseen = try merge(&walk) { try files.forEachKnownFile(inRoots: rootIDs, $0) }
        } catch is OutOfOrder {
            // Rows SQLite does not order as bytes (a path stored as text by an old
            // build): merged from a sorted copy instead, with the walk started again.
            var rows: [FileRecord.Known] = []
            try files.forEachKnownFile(inRoots: rootIDs) { rows.append($0) }
            rows.sort { $0.path < $1.path }
            toRead = ToReadList(spillFolder: spillFolder, heldLimit: heldLimit)
            unchanged = 0
            deferred = 0
            links = Links()
            newIdentities = []
            vanished = [:]
            walk = makeWalk()
            unseen = try merge(&walk) { body in try rows.forEach(body) }
        }
        // Files recorded but not seen: gone, unless under a folder we could not list.
        for row in unseen {
            if row.isLink {
                links.vanished.append(row)
                continue
            }
            if walk.isUnderUnreadableFolder(row.path) && row.status != .error { continue }
            if row.stat.size == 0 && row.status == .error && walk.unreadableFolders.contains(where: { $0.path == row.path }) {
                continue
            }
            vanished[row.path] = row
        }
        promoteOtherNames()
    }

    /// A recorded file whose path is gone but another of whose names was found keeps its
    /// row under that name (the first in path order), so its asset stays as it was.
    private mutating func promoteOtherNames() {
        for (path, row) in vanished {
            guard let names = links.seen[row.id], let first = names.min(by: { $0.entry.path < $1.entry.path }) else {
                continue
            }
            links.promotions.append((row, first.rootID, first.entry))
            vanished[path] = nil
        }
        links.seen = [:]
    }

    private struct OutOfOrder: Error {}

    /// Merges the walk with the rows `forEachRow` gives in path order, to the walk's end;
    /// returns the rows not found.
    private mutating func merge(_ walk: inout IndexWalk,
                                _ forEachRow: (_ body: (FileRecord.Known) throws -> Void) throws -> Void) throws
        -> [FileRecord.Known] {
        var found = walk.next()
        var unseen: [FileRecord.Known] = []
        var previous: PathBytes?
        try forEachRow { row in
            if let previous, !(previous < row.path) { throw OutOfOrder() }
            previous = row.path
            while let work = found, work.entry.path < row.path {
                try read(work)  // new
                found = walk.next()
            }
            guard var work = found, work.entry.path == row.path else {
                unseen.append(row)
                return
            }
            found = walk.next()
            if row.isLink {
                try compareName(row, work)
            } else if row.isUnchanged(work.entry, rootID: work.rootID) {
                unchanged += 1
            } else {
                work.known = row
                try read(work)
            }
        }
        while let work = found {
            try read(work)
            found = walk.next()
        }
        return unseen
    }

    /// A recorded other name found again: unchanged, written through (same file), or
    /// now another file (its name row goes, and the file is new).
    private mutating func compareName(_ row: FileRecord.Known, _ work: Indexer.Work) throws {
        if row.rootID == work.rootID && row.stat.inode == work.entry.stat.inode {
            if row.isUnchanged(work.entry, rootID: work.rootID) {
                unchanged += 1
            } else {
                links.refreshed.append(work.entry)
            }
            links.seen[row.id, default: []].append((work.rootID, work.entry))
        } else {
            links.vanished.append(row)
            try read(work)
        }
    }

    /// A new or changed file: to read, unless it is still being written or is a new
    /// name of a file already recorded or found (then it is that file's other name). A
    /// recorded path that now is another name of a recorded file (a copy replaced by a
    /// hard link, as deduplicating tools do) leaves its row, as a removed file does.
    private mutating func read(_ work: Indexer.Work) throws {
        if let settling, settling.isSettling(work.entry) {
            deferred += 1
        } else if work.known.map({ $0.stat.inode != work.entry.stat.inode }) ?? true, try isOtherName(work.entry) {
            if let known = work.known { vanished[known.path] = known }
            links.found.append((work.rootID, work.entry))
        } else {
            toRead.append(work)
        }
    }

    /// Whether a new path is another name of a file found earlier in this walk or recorded.
    private mutating func isOtherName(_ entry: FileWalker.Entry) throws -> Bool {
        let identity = FileIdentity(entry.stat)
        if newIdentities.contains(identity) { return true }
        if try linkStore?.recordedFile(of: identity) != nil { return true }
        newIdentities.insert(identity)
        return false
    }
}
