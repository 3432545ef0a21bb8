import Foundation
import MediaIndex

/// The answers being made ahead of their first request (`MediaIndexAPI.warmPickerFirstScreen`),
/// so a request that arrives meanwhile waits for the answer instead of making it again.
final class AnswersInMaking: @unchecked Sendable {
    // @unchecked: `keys` is only touched under `condition`.
    private let condition = NSCondition()
    private var keys: Set<String> = []

    /// Marks `key` as being made; false when it already is.
    func begin(_ key: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return keys.insert(key).inserted
    }

    /// Marks `key` as made (or given up) and wakes the requests waiting for it.
    func end(_ key: String) {
        condition.lock()
        keys.remove(key)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits while `key` is being made, for at most `seconds`.
    func wait(for key: String, seconds: Double = 5) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        while keys.contains(key), condition.wait(until: deadline) {}
        condition.unlock()
    }
}

extension MediaIndexAPI {
    /// The requests the web picker opened without a filter sends first (`loadTimeline` in
    /// picker.js): the day timeline and, beside it, the newest page of 200.
    static let pickerFirstRequests = [
        HTTPRequest(method: "GET", path: "/v1/timeline", query: [("sort", "captureDate")]),
        HTTPRequest(method: "GET", path: "/v1/assets", query: [("sort", "captureDate"), ("limit", "200")]),
    ]

    /// Answers the picker's first requests (`pickerFirstRequests`) once, in the background,
    /// right after the server has opened the library: the first picker opened then finds
    /// them in the answer cache instead of reading the day index cold. Bounded: two reads,
    /// one after the other, at utility priority; the second is skipped when anything
    /// committed since the first (its answer would be for a library that changed under
    /// it: the next request makes it). A request for one of them that arrives while it is
    /// being made waits for it.
    public func warmPickerFirstScreen() {
        let requests = Self.pickerFirstRequests
        let keys = requests.map(answerKey)
        for key in keys { _ = inMaking.begin(key) }
        DispatchQueue.global(qos: .utility).async { [self] in
            defer { for key in keys { inMaking.end(key) } }
            guard let opened = try? library.blocking.dataVersion() else { return }
            for (request, key) in zip(requests, keys) {
                guard (try? library.blocking.dataVersion()) == opened else { return }
                _ = try? request.path == "/v1/timeline" ? timeline(request, makingAhead: true)
                    : assets(request, makingAhead: true)
                inMaking.end(key)
            }
        }
    }

    /// Waits while the answer for `key` is being made ahead (`warmPickerFirstScreen`),
    /// then gives it when the cache holds it for `version`.
    func answerMadeAhead(_ key: String, version: LibraryDataVersion) -> HTTPResponse? {
        inMaking.wait(for: key)
        return answers.value(for: key, version: version).map { Self.jsonResponse(body: $0) }
    }
}
