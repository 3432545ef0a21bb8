import Foundation
import MediaIndex

/// Answers kept for as long as the library has not changed: the server's reads are
/// pure functions of the request and the library's `LibraryDataVersion`, so an answer
/// computed under a version is right until anything commits (an index run, the watcher,
/// a favorite, another process). A picker's grid asks for the same first page and the
/// same thumbnails again and again; between commits they cost a dictionary lookup.
///
/// Bounded by entries and by bytes; the least recently used go first, and answers of a
/// version that is no longer current are dropped as soon as one of the current version
/// is stored. An answer that also depends on the clock (Recently Added's 30 days) is
/// kept for at most `lifetime`.
final class AnswerCache<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `entries`, `totalCost` and `uses` are only touched under `lock`.
    private struct Entry {
        var version: LibraryDataVersion
        var expiry: ContinuousClock.Instant?
        var value: Value
        var cost: Int
        var lastUse: UInt64
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var totalCost = 0
    private var uses: UInt64 = 0
    /// At most this many answers are kept.
    let maximumEntries: Int
    /// At most this many bytes (the sum of the stored costs) are kept.
    let maximumCost: Int

    init(maximumEntries: Int, maximumCost: Int) {
        self.maximumEntries = maximumEntries
        self.maximumCost = maximumCost
    }

    /// The answer stored for `key` under `version`, when it has not expired.
    func value(for key: String, version: LibraryDataVersion) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key], entry.version == version else { return nil }
        if let expiry = entry.expiry, expiry <= .now { return nil }
        uses += 1
        entries[key]?.lastUse = uses
        return entry.value
    }

    /// Keeps `value` as the answer for `key` under `version` (the version read before the
    /// answer was computed, so a commit in between only makes it miss). `cost` is its size
    /// in bytes; an answer bigger than a quarter of `maximumCost` is not kept.
    func store(_ value: Value, for key: String, version: LibraryDataVersion, cost: Int, lifetime: Duration? = nil) {
        guard cost <= maximumCost / 4 else { return }
        lock.lock()
        defer { lock.unlock() }
        if entries.values.contains(where: { $0.version != version }) {
            entries = entries.filter { $0.value.version == version }
            totalCost = entries.values.reduce(0) { $0 + $1.cost }
        }
        if let old = entries.removeValue(forKey: key) { totalCost -= old.cost }
        while !entries.isEmpty && (entries.count >= maximumEntries || totalCost + cost > maximumCost) {
            guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
            entries.removeValue(forKey: oldest.key)
            totalCost -= oldest.value.cost
        }
        uses += 1
        entries[key] = Entry(version: version, expiry: lifetime.map { ContinuousClock.now + $0 }, value: value,
                             cost: cost, lastUse: uses)
        totalCost += cost
    }

    /// The number of answers kept (tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    /// The key of a request: its path and its query items in order (the same URL asks
    /// the same question; a different order merely misses).
    static func key(_ request: HTTPRequest) -> String {
        var key = request.path
        for item in request.query {
            key += "\u{1}" + item.name + "\u{2}" + item.value
        }
        return key
    }
}
