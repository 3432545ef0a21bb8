import Foundation

/// The hash comparisons that can link two pictures, on bare hash columns: what grouping
/// and the scan before it (`MediaLibrary.groupingScope`) share.
public enum DuplicateLookup {
    /// Every pair of positions `(first < second)` whose pictures are within reach of a
    /// duplicate link, with the smallest distance found: whole hashes within
    /// `DuplicateGate.duplicateRadius` of each other (a self-join), or a centre hash
    /// (`crop1`, `crop2`: the centre without 2.5 % and 5 % a side) within
    /// `DuplicateGate.centreRadius` of another's whole hash, so that a cropped copy meets
    /// its original's centre.
    public static func closePairs(whole: [UInt64], crop1: [UInt64?], crop2: [UInt64?],
                                  threads: Int = ProcessInfo.processInfo.activeProcessorCount)
        -> [(first: Int, second: Int, distance: Int)] {
        let index = HammingIndex(whole)
        var closest: [Int64: Int] = [:]
        for pair in index.pairs(within: DuplicateGate.duplicateRadius, threads: threads) {
            closest[Int64(pair.first) << 32 | Int64(pair.second)] = pair.distance
        }
        var queries: [UInt64] = [], owners: [UInt32] = []
        queries.reserveCapacity(whole.count * 2)
        owners.reserveCapacity(whole.count * 2)
        for position in whole.indices {
            for centre in [crop1[position], crop2[position]] {
                guard let centre else { continue }
                queries.append(centre)
                owners.append(UInt32(position))
            }
        }
        for match in index.matches(of: queries, within: DuplicateGate.centreRadius, threads: threads)
        where Int(owners[match.query]) != match.row {
            let owner = Int(owners[match.query])
            let key = Int64(min(owner, match.row)) << 32 | Int64(max(owner, match.row))
            closest[key] = min(closest[key] ?? match.distance, match.distance)
        }
        return closest.map { key, distance in (Int(key >> 32), Int(key & 0xFFFF_FFFF), distance) }
    }

    /// At most the distance `PerceptualDistance.closestShots` measures for similar shots,
    /// on bare hashes: whole to whole, each centre to the other's whole, and each centre
    /// to each of the other's centres.
    static func shotDistance(_ a: (UInt64, UInt64?, UInt64?), _ b: (UInt64, UInt64?, UInt64?)) -> Int {
        var best = (a.0 ^ b.0).nonzeroBitCount
        func consider(_ x: UInt64?, _ y: UInt64?) {
            if let x, let y { best = min(best, (x ^ y).nonzeroBitCount) }
        }
        for (x, y) in [(a.1, b.0), (a.2, b.0), (b.1, a.0), (b.2, a.0), (a.1, b.1), (a.2, b.2), (a.1, b.2), (a.2, b.1)] {
            consider(x, y)
        }
        return best
    }
}

extension MediaLibrary {
    /// The assets that can be in a group at all, found on bare columns (each a few bytes an
    /// asset) before whole records are read for them alone: members of same-file sets,
    /// ends of a pair `DuplicateLookup.closePairs` finds, and timed shots within the series
    /// gap and the similar radius of another. Every link grouping makes joins two of
    /// these, so grouping them alone gives the groups of the whole library.
    func groupingScope() throws -> Set<Int64> {
        var rows: [Int64] = [], whole: [UInt64] = [], crop1: [UInt64?] = [], crop2: [UInt64?] = [], seconds: [Double] = []
        let identities = try read { db in
            try db.cachedStatement("""
                SELECT a.id, p.dct_hash, p.dct_crop1, p.dct_crop2, a.creation_date
                FROM assets a JOIN perceptual_hashes p ON p.asset_id = a.id AND p.revision = a.revision
                LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier
                WHERE p.dct_hash IS NOT NULL AND coalesce(s.hidden, 0) = 0
                """).forEachRow { row in
                guard let id = row[0].int64, let hash = row[1].int64 else { return }
                rows.append(id)
                whole.append(UInt64(bitPattern: hash))
                crop1.append(row[2].int64.map { UInt64(bitPattern: $0) })
                crop2.append(row[3].int64.map { UInt64(bitPattern: $0) })
                let capture = row[4].text.flatMap(CaptureInstant.init(recorded:))
                seconds.append(capture.map { Double($0.localSeconds) + Double($0.nanoseconds ?? 0) / 1e9 } ?? .nan)
            }
            return try Self.fileIdentities(db: db)
        }
        var scope = Set((identities.sameFile + identities.sharedFiles).joined())
        for pair in DuplicateLookup.closePairs(whole: whole, crop1: crop1, crop2: crop2) {
            scope.insert(rows[pair.first])
            scope.insert(rows[pair.second])
        }
        let order = seconds.indices.filter { !seconds[$0].isNaN }.sorted { seconds[$0] < seconds[$1] }
        for (position, a) in order.enumerated() {
            var next = position + 1
            while next < order.count, seconds[order[next]] - seconds[a] <= DuplicateGate.seriesGap {
                let b = order[next]
                next += 1
                if DuplicateLookup.shotDistance((whole[a], crop1[a], crop2[a]), (whole[b], crop1[b], crop2[b]))
                    <= DuplicateGate.similarRadius {
                    scope.insert(rows[a])
                    scope.insert(rows[b])
                }
            }
        }
        return scope
    }
}
