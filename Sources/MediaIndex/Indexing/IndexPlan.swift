import Dispatch

/// Phase 3 of an index run: which asset each new or changed file belongs to, decided
/// before any row is written (see `IdentityPlanner`).
///
/// The plan needs the new content's fingerprint of every known file whose stat
/// changed (and, when some content changed, of the new files too, to tell a
/// rename-and-rewrite from an edit). Those files are read whole here, on all cores,
/// and their outcomes are kept for the commit, so each file is opened and
/// fingerprinted once per run. Past `maxHeldOutcomes` only the fingerprint is kept
/// (a few bytes a file): the file is opened again in its batch, not fingerprinted.
struct IndexPlan {
    /// Outcomes read for the plan, at most this many kept for the commit.
    static let maxHeldOutcomes = 4096

    var planner: IdentityPlanner
    /// Outcomes read for the plan, by index in the run's `toRead`.
    private(set) var held: [Int: FileOutcome] = [:]

    /// - Parameter toRead: the files to read; those read here get their fingerprint.
    init(toRead: inout [Indexer.Work], vanished: [PathBytes: FileRecord.Known]) {
        let donors = vanished.values.compactMap { row -> IdentityPlanner.Donor? in
            guard row.status == .media, let assetID = row.assetID, let fingerprint = row.fingerprint else { return nil }
            return IdentityPlanner.Donor(path: row.path, assetID: assetID, role: row.role ?? .photo,
                                         fingerprint: fingerprint, vanished: true)
        }
        var held: [Int: FileOutcome] = [:]
        let changedKnown = toRead.indices.filter { toRead[$0].known?.isTrackedMedia == true }
        Self.read(changedKnown, of: &toRead, holdingInto: &held)
        var changed: [IdentityPlanner.ChangedFile] = []
        for index in changedKnown {
            let work = toRead[index]
            guard let row = work.known, let assetID = row.assetID, let old = row.fingerprint else { continue }
            changed.append(IdentityPlanner.ChangedFile(
                path: work.entry.path, assetID: assetID, role: row.role ?? .photo, oldFingerprint: old,
                newFingerprint: work.fingerprint?.description))
        }
        var newFiles: [(path: PathBytes, fingerprint: String)] = []
        if changed.contains(where: { $0.newFingerprint != $0.oldFingerprint }) {
            let fresh = toRead.indices.filter { toRead[$0].known?.assetID == nil }
            Self.read(fresh, of: &toRead, holdingInto: &held)
            for index in fresh {
                if let fingerprint = toRead[index].fingerprint { newFiles.append((toRead[index].entry.path, fingerprint.description)) }
            }
        }
        planner = IdentityPlanner(vanished: donors, changed: changed, newFiles: newFiles)
        self.held = held
    }

    /// The outcome read for the plan of `toRead[index]`, handed over once.
    mutating func takeOutcome(_ index: Int) -> FileOutcome? { held.removeValue(forKey: index) }

    /// Reads the files at `indices` on all cores, a chunk at a time (so at most a
    /// chunk of outcomes beyond the held ones is in memory).
    private static func read(_ indices: [Int], of toRead: inout [Indexer.Work], holdingInto held: inout [Int: FileOutcome]) {
        let chunkSize = 1024
        var start = 0
        while start < indices.count {
            let chunk = Array(indices[start..<min(start + chunkSize, indices.count)])
            start += chunk.count
            let entries = chunk.map { toRead[$0].entry }
            let results = ConcurrentSlots<(FileOutcome, ContentFingerprint?)>(count: chunk.count, initial: (.ignored, nil))
            DispatchQueue.concurrentPerform(iterations: chunk.count) { i in
                results.set(i, FileReader.readFingerprinting(entries[i]))
            }
            for (index, (outcome, fingerprint)) in zip(chunk, results.values) {
                toRead[index].fingerprint = fingerprint
                if held.count < maxHeldOutcomes { held[index] = outcome }
            }
        }
    }
}
