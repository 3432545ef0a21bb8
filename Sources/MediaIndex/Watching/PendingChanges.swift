/// The events of one root not yet indexed, and when they are due.
///
/// A file being written (created or modified, not yet closed) holds its root back
/// until it is closed and the root has been quiet for `quietPeriod`. Settled events
/// (a close, a rename, a deletion, a new folder) are indexed once the root is quiet,
/// or at the latest `maximumDelay` after the first of them, so a long copy becomes a
/// run every `maximumDelay` instead of one per file or one at the very end.
struct PendingChanges {
    struct Timing: Sendable {
        /// Seconds without events before a run.
        var quietPeriod: Double
        /// Seconds a settled event waits at most, however busy the root.
        var maximumDelay: Double
        /// Seconds after its last write that a file never closed counts as written.
        var abandonedWrite: Double
    }

    /// When the oldest settled event not yet indexed came.
    private(set) var firstSettledAt: Double?
    /// When the last event of any kind came.
    private(set) var lastEventAt: Double?
    /// Files open for writing: name → time of their last write.
    private(set) var writing: [PathBytes: Double] = [:]
    /// Events since the last run, for the log.
    private(set) var eventCount = 0
    /// Files in `writing` at most; past that, a write counts as settled (a run reads
    /// the finished ones; the others are read again on their close).
    static let writingLimit = 10_000

    var isEmpty: Bool { firstSettledAt == nil && writing.isEmpty }
    /// Whether settled events wait for a run.
    var hasSettledEvents: Bool { firstSettledAt != nil }

    /// What one event means for the pending work.
    enum Effect: Equatable {
        case wrote(PathBytes)
        case settled(PathBytes?)
        /// Events were lost: the root needs a run now.
        case requireRun
    }

    mutating func apply(_ effects: [Effect], at now: Double, timing: Timing) {
        for effect in effects {
            switch effect {
            case .wrote(let path): wrote(path, at: now)
            case .settled(let path): settled(path, at: now)
            case .requireRun: requireRun(at: now, timing: timing)
            }
        }
    }

    /// A file was created or written to, and is not closed yet.
    mutating func wrote(_ path: PathBytes, at now: Double) {
        lastEventAt = now
        eventCount += 1
        if writing[path] == nil && writing.count >= Self.writingLimit { settle(at: now); return }
        writing[path] = now
    }

    /// A change that is complete: a file closed after writing, renamed, deleted, its
    /// attributes changed; a folder created or removed.
    mutating func settled(_ path: PathBytes?, at now: Double) {
        if let path { writing[path] = nil }
        settle(at: now)
    }

    private mutating func settle(at now: Double) {
        lastEventAt = now
        eventCount += 1
        if firstSettledAt == nil { firstSettledAt = now }
    }

    /// Forces a run as soon as possible (after a lost event queue).
    mutating func requireRun(at now: Double, timing: Timing) {
        let past = now - timing.maximumDelay
        firstSettledAt = min(firstSettledAt ?? past, past)
        lastEventAt = lastEventAt ?? past
    }

    /// Whether the root should be indexed now. A file written to long ago and never
    /// closed (a program holding it open) counts as written.
    func isDue(at now: Double, timing: Timing) -> Bool {
        var settledAt = firstSettledAt
        var stillWriting = false
        for wroteAt in writing.values {
            if now - wroteAt >= timing.abandonedWrite { settledAt = min(settledAt ?? wroteAt, wroteAt) } else { stillWriting = true }
        }
        guard let settledAt else { return false }
        if now - settledAt >= timing.maximumDelay { return true }
        return !stillWriting && now - (lastEventAt ?? settledAt) >= timing.quietPeriod
    }

    /// The earliest moment `isDue` can become true without further events, or nil.
    func nextDeadline(timing: Timing) -> Double? {
        var candidates: [Double] = []
        if let firstSettledAt {
            candidates.append(firstSettledAt + timing.maximumDelay)
            if writing.isEmpty { candidates.append((lastEventAt ?? firstSettledAt) + timing.quietPeriod) }
        }
        if let oldestWrite = writing.values.min() { candidates.append(oldestWrite + timing.abandonedWrite) }
        return candidates.min()
    }

    /// A run starts: what is settled (and writes abandoned by `now`) is now its work;
    /// files still open stay pending. Gives the number of events the run answers.
    mutating func runStarted(at now: Double, timing: Timing) -> Int {
        writing = writing.filter { now - $0.value < timing.abandonedWrite }
        let count = eventCount
        firstSettledAt = nil
        eventCount = 0
        return count
    }
}
