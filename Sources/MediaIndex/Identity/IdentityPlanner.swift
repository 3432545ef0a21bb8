/// Decides, before any row is written, which asset each new or changed file belongs to,
/// so identifiers follow content rather than names.
///
/// Every asset whose content left its path (the file vanished, or its path now holds
/// other content) becomes a *donor*. Content that shows up at another path takes the
/// donor's asset: a rename, a move, or two files whose names were swapped. A path whose
/// content changed and went nowhere keeps its asset: an edit in place. What is left
/// gets a fresh identifier (a tombstone's, if the content was seen before).
struct IdentityPlanner {
    /// An asset whose content left the path it was recorded at.
    struct Donor: Equatable {
        var path: PathBytes
        var assetID: Int64
        var role: FileRole
        var fingerprint: String
        /// Whether the path is gone (else it now holds other content).
        var vanished: Bool
    }

    /// What a path's file becomes.
    enum Decision: Equatable {
        /// The path keeps its own asset (content unchanged, or edited in place).
        case keep(assetID: Int64, role: FileRole, edited: Bool)
        /// The content came from another path: it takes that asset.
        case take(Donor)
        /// New content: a new asset.
        case fresh
    }

    /// A known path whose size, mtime or inode changed.
    struct ChangedFile {
        var path: PathBytes
        var assetID: Int64
        var role: FileRole
        var oldFingerprint: String
        /// nil when the file could not be fingerprinted (it will fail to read).
        var newFingerprint: String?
    }

    private(set) var decisions: [PathBytes: Decision] = [:]
    /// Vanished paths whose content was found elsewhere: moved, not removed.
    var takenVanishedPaths = Set<PathBytes>()
    private var pool: [String: [Donor]] = [:]
    /// The pool key of each changed path's own asset.
    private var donorFingerprints: [Int64: String] = [:]

    /// - Parameters:
    ///   - vanished: media files recorded before and not seen now, with their assets.
    ///   - changed: known media files whose stat changed, freshly fingerprinted.
    ///   - newFiles: unknown paths already fingerprinted (may be empty: then they are
    ///     matched one by one as they are read, with `claim`).
    init(vanished: [Donor], changed: [ChangedFile], newFiles: [(path: PathBytes, fingerprint: String)]) {
        for donor in vanished { pool[donor.fingerprint, default: []].append(donor) }
        var moved: [ChangedFile] = []
        for file in changed {
            if file.newFingerprint == file.oldFingerprint {
                decisions[file.path] = .keep(assetID: file.assetID, role: file.role, edited: false)
            } else {
                moved.append(file)
                donorFingerprints[file.assetID] = file.oldFingerprint
                pool[file.oldFingerprint, default: []].append(
                    Donor(path: file.path, assetID: file.assetID, role: file.role,
                          fingerprint: file.oldFingerprint, vanished: false))
            }
        }
        for key in pool.keys { pool[key]?.sort { $0.path < $1.path } }

        // Content that arrived somewhere takes the asset it came from.
        var arrivals: [(path: PathBytes, fingerprint: String)] = newFiles
        arrivals += moved.compactMap { file in file.newFingerprint.map { (file.path, $0) } }
        arrivals.sort { $0.path < $1.path }
        for arrival in arrivals {
            if let donor = claim(fingerprint: arrival.fingerprint, for: arrival.path) {
                decisions[arrival.path] = .take(donor)
            }
        }
        // A changed path whose content went nowhere keeps its asset if still free.
        for file in moved where decisions[file.path] == nil {
            guard file.newFingerprint != nil else { continue }
            if removeDonor(assetID: file.assetID) {
                decisions[file.path] = .keep(assetID: file.assetID, role: file.role, edited: true)
            } else {
                decisions[file.path] = .fresh
            }
        }
    }

    /// Takes a donor with this content for `path`, preferring one from the same folder.
    mutating func claim(fingerprint: String, for path: PathBytes) -> Donor? {
        guard var donors = pool[fingerprint], !donors.isEmpty else { return nil }
        let folder = path.parent
        let index = donors.firstIndex { $0.path.parent == folder } ?? 0
        let donor = donors.remove(at: index)
        pool[fingerprint] = donors
        return donor
    }

    private mutating func removeDonor(assetID: Int64) -> Bool {
        guard let key = donorFingerprints[assetID],
              let index = pool[key]?.firstIndex(where: { $0.assetID == assetID }) else { return false }
        pool[key]?.remove(at: index)
        return true
    }

    /// Donors nobody took: their assets lose this file.
    var unclaimedDonors: [Donor] { pool.values.flatMap { $0 } }
}
