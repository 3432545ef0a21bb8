import Foundation
import MediaPlaces
import Testing
@testable import MediaIndex

@Suite("Whether an index run says places are off, without opening the data")
struct IndexPlacesOffReasonTests {
    @Test("a missing or foreign places file is off, with what to run; the installed file is on")
    func headerDecides() throws {
        let missing = try #require(IndexPlaces.offReason(headerOf: "/nonexistent/places.mip"))
        #expect(missing.hasPrefix("Places are off: There is no places data file at /nonexistent/places.mip"))
        #expect(missing.contains("mediaindex places install"))
        let foreign = NSTemporaryDirectory() + "not-places-\(UUID().uuidString).mip"
        try Data(repeating: 0xFF, count: 4096).write(to: URL(fileURLWithPath: foreign))
        defer { unlink(foreign) }
        #expect(IndexPlaces.offReason(headerOf: foreign)?.contains("is not a MediaIndex places data file") == true)
        if placesInstalled {
            #expect(IndexPlaces.offReason(headerOf: PlacesData.defaultPath) == nil)
            #expect(IndexPlaces.offReason == nil)
        }
    }

    @Test("the data are made by their first reader, once; before, asking whether they were made makes nothing")
    func madeOnce() {
        let count = Counter()
        let once = MadeOnce { count.increment() }
        #expect(once.valueIfMade == nil)
        #expect(count.value == 0)
        #expect(once.value == 1)
        #expect(once.value == 1)
        #expect(once.valueIfMade == 1)
        #expect(count.value == 1)
    }
}

private final class Counter: @unchecked Sendable {
    // @unchecked: only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() -> Int { lock.withLock { count += 1; return count } }
}
