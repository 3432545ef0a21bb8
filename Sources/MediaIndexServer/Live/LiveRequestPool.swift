import Foundation

/// The bounded pool long polls and event streams run in: each holds a connection and
/// its thread for as long as it waits, so they get slots of their own, fewer than the
/// server's connections in all and fewer again per client address. Ordinary requests
/// are never queued behind them.
final class LiveRequestPool: @unchecked Sendable {
    // @unchecked: `inUse` and `byClient` are only touched under `lock`.

    /// A slot held; given back once with `release()` (or when the holder is freed).
    final class Slot: @unchecked Sendable {
        // @unchecked: `released` is only touched under the pool's lock.
        private let pool: LiveRequestPool
        let client: String
        fileprivate var released = false

        fileprivate init(pool: LiveRequestPool, client: String) {
            self.pool = pool
            self.client = client
        }

        /// Gives the slot back; later calls do nothing.
        func release() { pool.give(self) }

        deinit { pool.give(self) }
    }

    /// Slots in all.
    let capacity: Int
    /// Slots one client address may hold.
    let perClient: Int
    private let lock = NSLock()
    private var inUse = 0
    private var byClient: [String: Int] = [:]

    init(capacity: Int, perClient: Int) {
        self.capacity = capacity
        self.perClient = perClient
    }

    /// How many slots are held now.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return inUse
    }

    /// A slot for a client, or nil when the pool or the client's share is full.
    func take(for client: String) -> Slot? {
        lock.lock()
        defer { lock.unlock() }
        guard inUse < capacity, byClient[client, default: 0] < perClient else { return nil }
        inUse += 1
        byClient[client, default: 0] += 1
        return Slot(pool: self, client: client)
    }

    fileprivate func give(_ slot: Slot) {
        lock.lock()
        defer { lock.unlock() }
        guard !slot.released else { return }
        slot.released = true
        inUse -= 1
        let left = byClient[slot.client, default: 1] - 1
        byClient[slot.client] = left > 0 ? left : nil
    }
}
