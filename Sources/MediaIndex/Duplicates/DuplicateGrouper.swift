import Foundation

/// One asset as grouping sees it.
struct DuplicateCandidate: Sendable {
    var facts: KeeperFacts
    var gate: DuplicateGate.Facts
    /// The DCT hash; nil when the asset could not be hashed.
    var hash: UInt64?
    /// The DCT hashes of its centre without 2.5 % and 5 % per side.
    var croppedHashes: [UInt64] = []
    var isVideo: Bool
}

/// Groups candidates: same-file sets as given, duplicates by multi-index hashing within
/// `DuplicateGate.duplicateRadius` then the gate, similar shots by a walk in capture
/// order over each camera's successive shots. Groups are connected components of their
/// kind's links, so a series chains through its neighbours.
struct DuplicateGrouper {
    var candidates: [DuplicateCandidate]
    /// Sets of candidates (indices) with the same bytes, by content hash or by inode.
    var sameFile: [[Int]]
    /// Sets of candidates that are one file under several paths (same device and inode).
    var sharedFiles: [[Int]]

    /// The members of `sharedFiles` but the first of each: one file has one place in
    /// duplicate and similar groups, so a hard link is never its own duplicate.
    var otherPaths: Set<Int> { Set(sharedFiles.flatMap { $0.sorted().dropFirst() }) }

    func groups(kinds: Set<DuplicateKind> = Set(DuplicateKind.allCases)) -> [DuplicateGroup] {
        var groups: [DuplicateGroup] = []
        if kinds.contains(.sameFile) {
            groups += sameFile.filter { $0.count > 1 }.map { make(.sameFile, members: $0, distance: 0) }
        }
        let sameFileSet = Dictionary(sameFile.enumerated().flatMap { set in set.element.map { ($0, set.offset) } },
                                     uniquingKeysWith: { first, _ in first })
        if kinds.contains(.duplicate) { groups += components(.duplicate, links: duplicateLinks(sameFileSet)) }
        if kinds.contains(.similar) { groups += components(.similar, links: similarLinks()) }
        return groups
    }

    /// Pairs within reach of a duplicate link (`DuplicateLookup.closePairs`: whole hashes
    /// within the duplicate radius, or a centre within the centre radius of the other's
    /// whole, so a cropped copy meets its original's centre) that the gate calls
    /// duplicates; never two of the same file. A pair's distance is the smallest found.
    func duplicateLinks(_ sameFileSet: [Int: Int]) -> [(Int, Int, Int)] {
        let others = otherPaths
        let hashed = candidates.indices.filter { candidates[$0].hash != nil && !others.contains($0) }
        let pairs = DuplicateLookup.closePairs(whole: hashed.map { candidates[$0].hash ?? 0 },
                                               crop1: hashed.map { candidates[$0].croppedHashes.first },
                                               crop2: hashed.map { candidates[$0].croppedHashes.dropFirst().first })
        return pairs.compactMap { pair in
            let a = hashed[pair.first], b = hashed[pair.second], distance = pair.distance
            if let x = sameFileSet[a], x == sameFileSet[b] { return nil }
            guard candidates[a].isVideo == candidates[b].isVideo,
                  DuplicateGate.verdict(candidates[a].gate, candidates[b].gate, distance: distance) == .duplicate
            else { return nil }
            return (a, b, distance)
        }
    }

    /// Successive shots within the series gap that the gate calls similar.
    func similarLinks() -> [(Int, Int, Int)] {
        let others = otherPaths
        let timed = candidates.indices.filter {
            candidates[$0].hash != nil && candidates[$0].gate.capture != nil && !others.contains($0)
        }
        let seconds = timed.map { i -> Double in
            // Wall clock: one camera's series is written with one offset (or none).
            let capture = candidates[i].gate.capture!
            return Double(capture.localSeconds) + Double(capture.nanoseconds ?? 0) / 1e9
        }
        let order = timed.indices.sorted { seconds[$0] < seconds[$1] }
        var links: [(Int, Int, Int)] = []
        for (position, k) in order.enumerated() {
            let a = timed[k]
            var next = position + 1
            while next < order.count, seconds[order[next]] - seconds[k] <= DuplicateGate.seriesGap {
                let b = timed[order[next]]
                next += 1
                guard candidates[a].isVideo == candidates[b].isVideo,
                      let distance = PerceptualDistance.closestShots(candidates[a], candidates[b]) else { continue }
                if DuplicateGate.verdict(candidates[a].gate, candidates[b].gate, distance: distance) == .similar {
                    links.append((a, b, distance))
                }
            }
        }
        return links
    }

    /// Connected components of `links`, as groups of `kind`.
    func components(_ kind: DuplicateKind, links: [(Int, Int, Int)]) -> [DuplicateGroup] {
        var sets = UnionFind(count: candidates.count)
        var widest: [Int: Int] = [:]
        for (a, b, _) in links { sets.union(a, b) }
        for (a, _, distance) in links { widest[sets.find(a), default: 0] = max(widest[sets.find(a)] ?? 0, distance) }
        var members: [Int: [Int]] = [:]
        for (a, b, _) in links {
            members[sets.find(a), default: []].append(a)
            members[sets.find(b), default: []].append(b)
        }
        return members.map { root, list in
            make(kind, members: Array(Set(list)), distance: widest[root] ?? 0)
        }
    }

    func make(_ kind: DuplicateKind, members: [Int], distance: Int) -> DuplicateGroup {
        let facts = members.map { candidates[$0].facts }
        let identifiers = facts.map(\.identifier)
        var group = DuplicateGroup(id: DuplicateGroup.identifier(kind: kind, members: identifiers), kind: kind,
                                   assets: identifiers.sorted().map(Asset.ID.init(stored:)), keeper: nil,
                                   keeperReason: nil, extras: [:], distance: distance, sharedFiles: [])
        let memberSet = Set(members)
        group.sharedFiles = sharedFiles.compactMap { set in
            let inGroup = set.filter(memberSet.contains)
            return inGroup.count > 1 ? inGroup.map { Asset.ID(stored: candidates[$0].facts.identifier) }.sorted() : nil
        }
        guard kind != .similar, let (keeper, rule) = KeeperFacts.keeper(of: facts) else { return group }
        group.keeper = Asset.ID(stored: keeper.identifier)
        group.keeperReason = rule
        group.assets = [group.keeper!] + group.assets.filter { $0 != group.keeper }
        for member in facts where member.identifier != keeper.identifier {
            let extras = member.extras(over: keeper)
            if !extras.isEmpty { group.extras[Asset.ID(stored: member.identifier)] = extras }
        }
        return group
    }
}

/// The Hamming distance of two 64-bit hashes.
enum PerceptualDistance {
    static func bits(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// The smallest distance of one's whole hash to the other's whole or centre hashes,
    /// either way round, as `duplicateLinks` measures it; nil without hashes.
    static func closest(_ a: DuplicateCandidate, _ b: DuplicateCandidate) -> Int? {
        guard let x = a.hash, let y = b.hash else { return nil }
        return ([x] + a.croppedHashes).map { bits($0, y) }.min().map { min($0, b.croppedHashes.map { bits($0, x) }.min() ?? 64) }
    }

    /// As `closest`, and also each centre to the other's centre of the same margin: two
    /// successive shots framed a little apart differ most at their edges, which the
    /// centres leave out. For similar shots only.
    static func closestShots(_ a: DuplicateCandidate, _ b: DuplicateCandidate) -> Int? {
        guard let whole = closest(a, b) else { return nil }
        return min(whole, zip(a.croppedHashes, b.croppedHashes).map { bits($0, $1) }.min() ?? 64)
    }
}

/// Disjoint sets over `0..<count`, by path halving and union by size.
struct UnionFind {
    private var parent: [Int]
    private var size: [Int]

    init(count: Int) {
        parent = Array(0..<count)
        size = [Int](repeating: 1, count: count)
    }

    mutating func find(_ x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    mutating func union(_ a: Int, _ b: Int) {
        var ra = find(a), rb = find(b)
        guard ra != rb else { return }
        if size[ra] < size[rb] { swap(&ra, &rb) }
        parent[rb] = ra
        size[ra] += size[rb]
    }
}
