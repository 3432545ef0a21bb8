/// What one index run did. Every file seen is counted in exactly one of
/// `added`, `updated`, `moved`, `unchanged`, `failed` or `skipped`.
public struct IndexSummary: Sendable, Equatable, Codable {
    /// Regular files found under the roots.
    public var scanned = 0
    /// New assets.
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
    /// Files that are not images or videos.
    public var skipped = 0
    /// Files this run opened.
    public var opened = 0
    /// Folders that could not be listed.
    public var unreadableFolders = 0
    /// Files this run attached to a partner's asset (live-photo movie, RAW alternate).
    public var paired = 0
    /// Pairs this run split (a half deleted, replaced or moved away).
    public var unpaired = 0
    public var elapsedSeconds = 0.0
    /// How long each phase took.
    public var timings = IndexTimings()

    public init() {}
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
