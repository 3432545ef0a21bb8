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

    /// - Parameters:
    ///   - toRead: the files to read; those read here get their fingerprint.
    ///   - roots: each root's path by id: a file is opened only inside its root.
    init(toRead: ToReadList, vanished: [PathBytes: FileRecord.Known], roots: [Int64: PathBytes]) {
        let donors = vanished.values.compactMap { row -> IdentityPlanner.Donor? in
            guard row.status == .media, let assetID = row.assetID, let fingerprint = row.fingerprint else { return nil }
            return IdentityPlanner.Donor(path: row.path, assetID: assetID, role: row.role ?? .photo,
                                         fingerprint: fingerprint, vanished: true)
        }
        var held: [Int: FileOutcome] = [:]
        var changed: [IdentityPlanner.ChangedFile] = []
        Self.read(toRead, roots: roots, where: { $0.known?.isTrackedMedia == true }, holdingInto: &held) { work in
            guard let row = work.known, let assetID = row.assetID, let old = row.fingerprint else { return }
            changed.append(IdentityPlanner.ChangedFile(
                path: work.entry.path, assetID: assetID, role: row.role ?? .photo, oldFingerprint: old,
                newFingerprint: work.fingerprint?.description))
        }
        var newFiles: [(path: PathBytes, fingerprint: String)] = []
        if changed.contains(where: { $0.newFingerprint != $0.oldFingerprint }) {
            Self.read(toRead, roots: roots, where: { $0.known?.assetID == nil }, holdingInto: &held) { work in
                if let fingerprint = work.fingerprint { newFiles.append((work.entry.path, fingerprint.description)) }
            }
        }
        planner = IdentityPlanner(vanished: donors, changed: changed, newFiles: newFiles)
        self.held = held
    }

    /// The outcome read for the plan of `toRead[index]`, handed over once.
    mutating func takeOutcome(_ index: Int) -> FileOutcome? { held.removeValue(forKey: index) }

    /// Reads the files of `toRead` that `isChosen` picks on all cores, a chunk at a time
    /// (so at most a chunk of outcomes beyond the held ones is in memory), and gives
    /// each to `body` in order, its fingerprint set.
    private static func read(_ toRead: ToReadList, roots: [Int64: PathBytes], where isChosen: (Indexer.Work) -> Bool,
                             holdingInto held: inout [Int: FileOutcome], _ body: (Indexer.Work) -> Void) {
        var chunk: [(index: Int, work: Indexer.Work)] = []
        func readChunk() {
            let entries = chunk.map { (entry: $0.work.entry, root: roots[$0.work.rootID]) }
            let results = ConcurrentSlots<(FileOutcome, ContentFingerprint?)>(count: chunk.count, initial: (.ignored, nil))
            DispatchQueue.concurrentPerform(iterations: chunk.count) { i in
                results.set(i, FileReader.readFingerprinting(entries[i].entry, beneath: entries[i].root))
            }
            for ((index, work), (outcome, fingerprint)) in zip(chunk, results.values) {
                toRead.setFingerprint(fingerprint, at: index)
                if held.count < maxHeldOutcomes { held[index] = outcome }
                var read = work
                read.fingerprint = fingerprint
                body(read)
            }
            chunk.removeAll(keepingCapacity: true)
        }
        toRead.forEachChunk { start, works in
            for (offset, work) in works.enumerated() where isChosen(work) {
                chunk.append((start + offset, work))
                if chunk.count == 1024 { readChunk() }
            }
        }
        if !chunk.isEmpty { readChunk() }
    }
}
