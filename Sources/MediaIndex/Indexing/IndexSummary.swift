/// What one index run did. Every file seen is counted in exactly one of
/// `added`, `updated`, `moved`, `unchanged`, `deferred`, `failed`, `skipped` or `otherNames`.
public struct IndexSummary: Sendable, Equatable, Codable {
    /// Regular files found under the roots.
    public var scanned = 0
    /// New media files: each got an asset of its own, or joined its original's (an edit).
    public var added = 0
    /// Known files whose content or metadata changed.
    public var updated = 0
    /// Known content found at a new path (renamed or moved); the asset is kept.
    public var moved = 0
    /// Files recorded before and gone now.
    public var removed = 0
    /// Files whose size, mtime and inode are as recorded: not opened.
    public var unchanged = 0
    /// Files that could not be read or parsed (see `mediaindex errors`).
    public var failed = 0
    /// Files that are not images or videos, and special files (FIFOs, sockets,
    /// devices), which are never opened.
    public var skipped = 0
    /// The special files among `skipped`, each with the reason it was skipped.
    public var specialFiles: [SkippedFile] = []
    /// New or changed files left for a later run because they were still being written
    /// (`IndexOptions.filesBeingWritten`, `settlingSeconds`).
    public var deferred = 0
    /// Files this run opened.
    public var opened = 0
    /// Folders that could not be listed.
    public var unreadableFolders = 0
    /// Files this run attached to a partner's asset (live-photo movie, RAW alternate).
    public var paired = 0
    /// Pairs this run split (a half deleted, replaced or moved away).
    public var unpaired = 0
    /// Paths that are other names of a file indexed under its first path (hard links, a
    /// folder seen again through a bind mount or a followed link), new or written through
    /// another name: each is another path of that file's asset, never read.
    public var otherNames = 0
    public var elapsedSeconds = 0.0
    /// Why places are off (no places data installed), with what to run; nil when they are on.
    public var placesOff: String?
    /// How long each phase took.
    public var timings = IndexTimings()

    public init() {}

    /// Reads a summary; a key missing (one recorded by an earlier build) keeps its default.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func read<T: Decodable>(_ key: CodingKeys, _ value: inout T) throws {
            if let decoded = try c.decodeIfPresent(T.self, forKey: key) { value = decoded }
        }
        try read(.scanned, &scanned); try read(.added, &added); try read(.updated, &updated)
        try read(.moved, &moved); try read(.removed, &removed); try read(.unchanged, &unchanged)
        try read(.failed, &failed); try read(.skipped, &skipped); try read(.specialFiles, &specialFiles)
        try read(.deferred, &deferred); try read(.opened, &opened); try read(.unreadableFolders, &unreadableFolders)
        try read(.paired, &paired); try read(.unpaired, &unpaired); try read(.otherNames, &otherNames)
        try read(.elapsedSeconds, &elapsedSeconds)
        try read(.timings, &timings)
        placesOff = try c.decodeIfPresent(String.self, forKey: .placesOff)
    }
}

/// How long each phase of an index run took, in seconds (see docs/architecture.md).
///
/// Reading and writing overlap (the next batch is read while one is committed), so
/// `read` counts only the time the run waited for reads, and the phases add up to
/// about `elapsedSeconds`.
public struct IndexTimings: Sendable, Equatable, Codable {
    /// Listing the roots' folders.
    public var walk = 0.0
    /// Comparing what the walk found with the recorded files.
    public var diff = 0.0
    /// Reading new and changed files (for the identity plan, and waiting for each batch).
    public var read = 0.0
    /// Committing the batches.
    public var write = 0.0
    /// Pairing live photos, RAW+JPEG and bursts, and attaching sidecars.
    public var pair = 0.0
    /// Removing vanished files and their assets, and closing the run.
    public var finish = 0.0

    public init() {}
}

/// A file an index run skipped without opening it, and why.
public struct SkippedFile: Sendable, Equatable, Codable {
    /// The file's path, as bytes.
    public var path: PathBytes
    /// One sentence: `a named pipe (FIFO), not a regular file: never opened`.
    public var reason: String

    /// A skipped file.
    public init(path: PathBytes, reason: String) {
        self.path = path
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey { case path, reason }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = PathBytes(try container.decode([UInt8].self, forKey: .path))
        reason = try container.decode(String.self, forKey: .reason)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path.bytes, forKey: .path)
        try container.encode(reason, forKey: .reason)
    }
}

/// A snapshot of an index run in progress, for a progress line.
public struct IndexProgress: Sendable {
    public enum Phase: String, Sendable { case walking, reading, finishing }
    public var phase: Phase
    /// Files found so far (walking) or in all (reading).
    public var scanned: Int
    /// Files to open this run.
    public var toRead: Int
    /// Of those, read so far.
    public var read: Int
    public var failed: Int
    public var elapsedSeconds: Double
}
