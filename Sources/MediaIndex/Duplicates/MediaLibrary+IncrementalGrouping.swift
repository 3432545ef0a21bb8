import Foundation
import MediaMetadata

extension MediaLibrary {
    /// The assets whose groups can change after the assets `changed` (new or changed
    /// hashes) and the removals and hidings since the last grouping; nil when so much
    /// changed that regrouping everything is as cheap.
    ///
    /// The scope starts from `changed`, the members of every stored group that lost a
    /// member (its key no longer matches its visible members) and every asset of a
    /// same-file set. It adds the changed assets' neighbours: those within the duplicate
    /// radius (multi-index lookups of their whole and centre hashes among all whole
    /// hashes, and of their whole hashes among all centre hashes) and those taken within
    /// the series gap. It then closes over the stored groups: a member in scope brings
    /// every group it is in. An asset outside the scope keeps its groups: its links to
    /// other unchanged assets are as before, and those were grouped last time.
    func regroupScope(changed: Set<Int64>) throws -> Set<Int64>? {
        try read { db -> Set<Int64>? in
            let stored = try DuplicateStore(db: db).storedGroups()
            var seeds = changed
            for (key, group) in stored where group.isStale(key: key) { seeds.formUnion(group.rows) }
            let identities = try Self.fileIdentities(db: db)
            for set in identities.sameFile + identities.sharedFiles { seeds.formUnion(set) }
            let hashed = try DuplicateStore(db: db).compactHashes()
            guard changed.count * 4 <= max(hashed.rows.count, 64) else { return nil }
            seeds.formUnion(Self.hashNeighbours(of: changed, in: hashed))
            seeds.formUnion(try Self.timeNeighbours(of: changed, db: db))
            var groupsOf: [Int64: [String]] = [:]
            for (key, group) in stored { for row in group.rows { groupsOf[row, default: []].append(key) } }
            var scope = seeds, queue = Array(seeds)
            while let row = queue.popLast() {
                for key in groupsOf[row] ?? [] {
                    for member in stored[key]?.rows ?? [] where scope.insert(member).inserted { queue.append(member) }
                }
            }
            return scope
        }
    }

    /// The rows whose hashes lie within the duplicate radius of a changed asset's, as
    /// `DuplicateGrouper.duplicateLinks` compares them (whole to whole, centres to whole
    /// either way round).
    static func hashNeighbours(of changed: Set<Int64>, in hashed: DuplicateStore.CompactHashes) -> Set<Int64> {
        var wholes: [UInt64] = [], centres: [UInt64] = []
        for position in hashed.rows.indices where changed.contains(hashed.rows[position]) {
            wholes.append(hashed.whole[position])
            centres += [hashed.crop1[position], hashed.crop2[position]].compactMap { $0 }
        }
        guard !wholes.isEmpty else { return [] }
        let radius = DuplicateGate.duplicateRadius
        var found = Set<Int64>()
        for match in HammingIndex(hashed.whole).matches(of: wholes + centres, within: radius) {
            found.insert(hashed.rows[match.row])
        }
        let centreRows = hashed.rows.indices.flatMap { position in
            [hashed.crop1[position], hashed.crop2[position]].compactMap { $0.map { ($0, position) } }
        }
        for match in HammingIndex(centreRows.map(\.0)).matches(of: wholes, within: radius) {
            found.insert(hashed.rows[centreRows[match.row].1])
        }
        return found
    }

    /// The rows captured within the series gap of a changed asset (by the wall clock, as
    /// `similarLinks` walks them), read by day through `assets_by_day`.
    static func timeNeighbours(of changed: Set<Int64>, db: DatabaseConnection) throws -> Set<Int64> {
        let list = "[" + changed.sorted().map(String.init).joined(separator: ",") + "]"
        let captures = try db.rows("SELECT creation_date FROM assets WHERE id IN (SELECT value FROM json_each(?))", [list])
            .compactMap { $0[0].text.flatMap(CaptureInstant.init(recorded:)) }
        guard !captures.isEmpty else { return [] }
        let gap = Int64(DuplicateGate.seriesGap) + 1
        var days = Set<String>()
        for capture in captures {
            for seconds in [capture.localSeconds - gap, capture.localSeconds + gap] { days.insert(Self.day(of: seconds)) }
        }
        let dayList = "[" + days.sorted().map { "\"\($0)\"" }.joined(separator: ",") + "]"
        var found = Set<Int64>()
        for row in try db.rows("""
            SELECT id, creation_date FROM assets WHERE capture_day IN (SELECT value FROM json_each(?))
            """, [dayList]) {
            guard let id = row[0].int64, let capture = row[1].text.flatMap(CaptureInstant.init(recorded:)) else { continue }
            if captures.contains(where: { abs($0.localSeconds - capture.localSeconds) <= gap }) { found.insert(id) }
        }
        return found
    }

    /// `YYYY-MM-DD` of wall-clock seconds since 1970.
    static func day(of seconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(seconds))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

extension MediaLibrary.Blocking {
    /// After an index run: hashes the new and changed assets and regroups only what they
    /// (and the assets removed or hidden since) can touch, storing the memberships with
    /// change-feed entries; everything when too much changed (`regroupScope`).
    ///
    /// - Throws: `LibraryError.readOnly`, `.database`.
    func updateDuplicatesIncrementally() throws {
        let writer = try library.requireWriter()
        do {
            let changed = try library.updatePerceptualHashes(writer: writer)
            try library.updateContentHashes(writer: writer)
            guard let scope = try library.regroupScope(changed: changed) else {
                try updateDuplicates()
                return
            }
            guard !scope.isEmpty else { return }
            let computed = try library.computeGroups(scope: scope)
            try writer.write { db in
                try db.inTransaction {
                    try DuplicateStore(db: db).replaceMembers(
                        computed.groups, kinds: Set(DuplicateKind.allCases), rows: computed.rows,
                        identifiers: Dictionary(uniqueKeysWithValues: computed.rows.map { ($1, $0) }),
                        scope: scope, now: Date().timeIntervalSince1970)
                }
            }
        } catch let error as DatabaseError {
            throw LibraryError.database(error)
        }
    }
}
