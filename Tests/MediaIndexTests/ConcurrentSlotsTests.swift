import Dispatch
import Testing
@testable import MediaIndex

/// The slots the indexer's parallel readers fill. A Swift array written through
/// `withUnsafeMutableBufferPointer` from several workers corrupted the heap (the
/// indexer crashed with SIGSEGV about one run in fifteen); these slots must not.
@Suite("Concurrent result slots")
struct ConcurrentSlotsTests {
    @Test("every worker's value lands in its own slot, under heavy contention")
    func workersFillTheirSlots() {
        for round in 0..<20 {
            let count = 20_000
            let slots = ConcurrentSlots<String?>(count: count, initial: nil)
            DispatchQueue.concurrentPerform(iterations: count) { index in
                slots.set(index, "value \(index) of round \(round)")
            }
            let values = slots.values
            #expect(values.count == count)
            #expect(values.enumerated().allSatisfy { $0.element == "value \($0.offset) of round \(round)" },
                    "round \(round): a slot was lost or overwritten")
        }
    }

    @Test("unset slots keep their initial value")
    func unsetSlotsKeepInitialValue() {
        let slots = ConcurrentSlots<Int>(count: 4, initial: -1)
        slots.set(2, 7)
        #expect(slots.values == [-1, -1, 7, -1])
    }
}
