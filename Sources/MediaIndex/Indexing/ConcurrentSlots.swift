/// Result slots filled concurrently, one index per worker.
final class ConcurrentSlots<Value>: @unchecked Sendable {
    // @unchecked: each index is written by exactly one worker, and read only after
    // concurrentPerform has returned. The storage is a fixed allocation written
    // through its pointer: a Swift array must not be used here, because
    // `withUnsafeMutableBufferPointer` moves the array out of the property while
    // the closure runs, so two workers at once would corrupt the heap.
    private let storage: UnsafeMutableBufferPointer<Value>
    init(count: Int, initial: Value) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: initial)
    }
    deinit {
        storage.deinitialize()
        storage.deallocate()
    }
    func set(_ index: Int, _ value: Value) {
        precondition(index >= 0 && index < storage.count, "slot \(index) out of 0..<\(storage.count)")
        storage[index] = value
    }
    var values: [Value] { Array(storage) }
}

