import Foundation

/// Changes committed together, as `MediaLibrary.changes()` delivers them
/// (PHPhotoLibraryChangeObserver's `PHChange`).
public struct LibraryChangeBatch: Sendable, Equatable {
    /// The change feed's entries of the batch, oldest first (empty when only user
    /// state changed, or on a reload).
    public var changes: [AssetChange]
    /// The token before the batch: pass it to `changeDetails(for:from:)`.
    public var previousToken: ChangeToken
    /// The token after the batch.
    public var token: ChangeToken
    /// Favorites, hidden assets or user albums changed (they are not in the feed).
    public var userStateChanged: Bool
    /// The history after `previousToken` is gone (trimmed, or the library was
    /// rebuilt): reload everything, then go on from `token`.
    public var requiresReload: Bool
}

/// The identifiers of a fetch's whole result at one change token, in its order
/// (PHFetchResult): the starting point for `changeDetails(for:from:)`.
public struct FetchResult: Sendable, Equatable {
    /// Asset identifiers in the fetch's sort order (`FetchOptions.limit` and `after` are ignored).
    public var identifiers: [Asset.ID]
    /// The change token the result was read at.
    public var token: ChangeToken
    /// How many assets the result holds.
    public var count: Int { identifiers.count }
}

/// What a grid needs to animate from one result of a fetch to the next
/// (PHFetchResultChangeDetails).
///
/// Apply it as `UICollectionView.performBatchUpdates` expects: delete
/// `removedIndexes` (positions before), insert `insertedIndexes` (positions after),
/// move `moves` (from a position before to a position after), then reload
/// `changedIndexes` (positions after).
public struct FetchResultChangeDetails: Sendable, Equatable {
    /// One asset that changed position (and stayed in the result).
    public struct Move: Sendable, Equatable, Hashable {
        /// Its position in the result before.
        public var from: Int
        /// Its position in the result after.
        public var to: Int
    }

    /// Whether the indexes below describe the change; when false, reload the whole
    /// result (`reason` says why).
    public var hasIncrementalChanges: Bool
    /// Why incremental changes are not available; nil when they are.
    public var reason: String?
    /// Positions, in the result before, of assets no longer in it.
    public var removedIndexes: IndexSet
    /// Positions, in the result after, of assets new to it.
    public var insertedIndexes: IndexSet
    /// Positions, in the result after, of assets still in it whose content, metadata,
    /// pairing or favorite flag changed.
    public var changedIndexes: IndexSet
    /// Assets that changed position relative to the others (the fewest such moves).
    public var moves: [Move]
    /// The result after the changes: pass its `token` as `from` next time.
    public var resultAfterChanges: FetchResult
    /// Whether any asset moved.
    public var hasMoves: Bool { !moves.isEmpty }
}

extension MediaLibrary {
    /// Results larger than this are not diffed: `changeDetails` then asks for a reload.
    public static let maximumDiffableResultCount = 100_000

    /// Every batch of changes as it is committed, by this process or another one
    /// (PHPhotoLibraryChangeObserver), from now on, or after `token` when given.
    ///
    /// A commit is noticed within a few milliseconds through inotify on the library
    /// folder, confirmed by `PRAGMA data_version` (see `ChangeObserverHub`); one
    /// thread serves every stream of this `MediaLibrary`. The stream ends when the
    /// library folder can no longer be read; cancel the iterating task to stop.
    public func changes(after token: ChangeToken? = nil) -> AsyncStream<LibraryChangeBatch> {
        observation.hub.subscribe(library: self, after: token)
    }

    /// The whole result of `options` at the current token, as identifiers (PHFetchResult),
    /// kept so that `changeDetails(for:from:)` can diff against it later; read its assets
    /// a page at a time with `assets(in:at:)`. See `Blocking.fetchResult(_:)`.
    ///
    /// - Throws: as `Blocking.fetchResult(_:)`.
    public func fetchResult(_ options: FetchOptions) async throws -> FetchResult {
        try await offExecutor { try $0.fetchResult(options) }
    }

    /// How the result of `options` changed since the result read at `token`. See
    /// `Blocking.changeDetails(for:from:)`.
    ///
    /// - Throws: as `Blocking.changeDetails(for:from:)`.
    public func changeDetails(for options: FetchOptions, from token: ChangeToken) async throws -> FetchResultChangeDetails {
        try await offExecutor { try $0.changeDetails(for: options, from: token) }
    }

    static func snapshotKey(_ options: FetchOptions) -> FetchOptions {
        var key = options
        key.limit = nil
        key.after = nil
        return key
    }

    /// The ordered identifiers (and favorite flags) of the whole result, with the
    /// token, in one read transaction.
    func readSnapshot(_ options: FetchOptions) throws -> StoredSnapshot {
        let query = try AssetQuery(Self.snapshotKey(options))
        let column = AssetQuery.sortColumn(query.sort.key)
        let direction = query.sort.ascending ? "ASC" : "DESC"
        let (whereSQL, whereValues) = query.whereClause(includingCursor: false)
        let sql = """
            SELECT a.identifier, coalesce(s.favorite, 0) AS favorite
            FROM \(query.from) LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier\(whereSQL)
            ORDER BY \(column) \(direction), a.id \(direction)
            """
        return try read { db in
            try query.checkSearch(db: db)
            let token = ChangeToken(rawValue: Int64(try db.scalarInt("SELECT max(token) FROM changes") ?? 0))
            var identifiers: [Asset.ID] = []
            var favorites: [Asset.ID: Bool] = [:]
            let statement = try db.cachedStatement(sql)
            try statement.forEachRow(query.fromValues + whereValues) { row in
                let identifier = Asset.ID(stored: row[0].text ?? "")
                identifiers.append(identifier)
                if row[1].int64 == 1 { favorites[identifier] = true }
            }
            return StoredSnapshot(result: FetchResult(identifiers: identifiers, token: token), favorites: favorites)
        }
    }
}

extension MediaLibrary.Blocking {
    /// The whole result of `options` at the current token, kept so that
    /// `changeDetails(for:from:)` can diff against it later.
    ///
    /// - Throws: `AssetQueryError` for a bad option, `LibraryError` when the database fails.
    public func fetchResult(_ options: FetchOptions) throws -> FetchResult {
        let snapshot = try library.readSnapshot(options)
        library.observation.snapshots.store(snapshot, for: MediaLibrary.snapshotKey(options))
        return snapshot.result
    }

    /// How the result of `options` changed since the result read at `token` (by
    /// `fetchResult`, or as the `resultAfterChanges` of an earlier call).
    ///
    /// Incremental changes are not available (`hasIncrementalChanges` false, with the
    /// reason) when the result at `token` was not read by this `MediaLibrary` (the
    /// last 16 results are kept), when either result has more than
    /// `maximumDiffableResultCount` assets, or when the token has expired.
    ///
    /// - Throws: `AssetQueryError` for a bad option, `LibraryError` when the database fails.
    public func changeDetails(for options: FetchOptions, from token: ChangeToken) throws -> FetchResultChangeDetails {
        let key = MediaLibrary.snapshotKey(options)
        let after = try library.readSnapshot(options)
        library.observation.snapshots.store(after, for: key)
        func reload(_ reason: String) -> FetchResultChangeDetails {
            FetchResultChangeDetails(hasIncrementalChanges: false, reason: reason, removedIndexes: [],
                                     insertedIndexes: [], changedIndexes: [], moves: [],
                                     resultAfterChanges: after.result)
        }
        do {
            _ = try library.hasChanges(since: token, of: [])
        } catch let error as LibraryError {
            switch error {
            case .changeTokenExpired, .changeTokenFromTheFuture: return reload(error.description)
            default: throw error
            }
        }
        guard let before = library.observation.snapshots.snapshot(for: key, token: token) else {
            return reload("the result at token \(token) was not read by this library object; fetch it with fetchResult")
        }
        guard before.result.count <= MediaLibrary.maximumDiffableResultCount,
              after.result.count <= MediaLibrary.maximumDiffableResultCount else {
            return reload("the result has more than \(MediaLibrary.maximumDiffableResultCount) assets")
        }
        var changed = Set(try changes(since: token).changes
            .filter { $0.kind != .inserted && $0.kind != .deleted }.map(\.id))
        for (identifier, favorite) in after.favorites where before.favorites[identifier] != favorite {
            changed.insert(identifier)
        }
        var details = ResultDiff(before: before.result.identifiers, after: after.result.identifiers, changed: changed)
            .details(after: after.result)
        details.reason = nil
        return details
    }
}

/// A result kept for a later diff, with what else a change can be seen in.
struct StoredSnapshot: Sendable {
    var result: FetchResult
    /// Identifiers of the favorites in the result.
    var favorites: [Asset.ID: Bool]
}

/// The observation state of one `MediaLibrary`: the change observer thread and the
/// kept fetch results.
final class LibraryObservation: Sendable {
    let hub = ChangeObserverHub()
    let snapshots = SnapshotStore()
}

/// The last fetch results read, by (options, token), for `changeDetails`.
final class SnapshotStore: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`.
    static let capacity = 16
    private let lock = NSLock()
    private var entries: [(key: FetchOptions, snapshot: StoredSnapshot)] = []

    func store(_ snapshot: StoredSnapshot, for key: FetchOptions) {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll { $0.key == key && $0.snapshot.result.token == snapshot.result.token }
        entries.append((key, snapshot))
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    func snapshot(for key: FetchOptions, token: ChangeToken) -> StoredSnapshot? {
        lock.lock()
        defer { lock.unlock() }
        return entries.last { $0.key == key && $0.snapshot.result.token == token }?.snapshot
    }
}

/// The difference between two orderings of identifiers.
struct ResultDiff {
    var before: [Asset.ID]
    var after: [Asset.ID]
    /// Identifiers whose asset changed in place.
    var changed: Set<Asset.ID>

    func details(after result: FetchResult) -> FetchResultChangeDetails {
        var beforeIndex: [Asset.ID: Int] = [:]
        beforeIndex.reserveCapacity(before.count)
        for (index, identifier) in before.enumerated() { beforeIndex[identifier] = index }
        var afterIndex: [Asset.ID: Int] = [:]
        afterIndex.reserveCapacity(after.count)
        for (index, identifier) in after.enumerated() { afterIndex[identifier] = index }

        var removed = IndexSet(), inserted = IndexSet(), changedIndexes = IndexSet()
        for (index, identifier) in before.enumerated() where afterIndex[identifier] == nil { removed.insert(index) }
        // The assets in both, in the order after, with their positions before.
        var common: [(from: Int, to: Int)] = []
        for (index, identifier) in after.enumerated() {
            if let from = beforeIndex[identifier] {
                common.append((from, index))
                if changed.contains(identifier) { changedIndexes.insert(index) }
            } else {
                inserted.insert(index)
            }
        }
        // Those on a longest increasing run of old positions kept their order; the others moved.
        let staying = Self.longestIncreasingSubsequence(common.map(\.from))
        var moves: [FetchResultChangeDetails.Move] = []
        for (position, pair) in common.enumerated() where !staying.contains(position) {
            moves.append(FetchResultChangeDetails.Move(from: pair.from, to: pair.to))
        }
        return FetchResultChangeDetails(hasIncrementalChanges: true, reason: nil, removedIndexes: removed,
                                        insertedIndexes: inserted, changedIndexes: changedIndexes, moves: moves,
                                        resultAfterChanges: result)
    }

    /// Positions in `values` of one longest strictly increasing subsequence
    /// (patience sorting, O(n log n)).
    static func longestIncreasingSubsequence(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions in `values` ending the best run of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result = Set<Int>()
        var position = tails.last ?? -1
        while position >= 0 {
            result.insert(position)
            position = previous[position]
        }
        return result
    }
}
