import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("GET /v1/timeline counts the assets per day, month or year, and period= fetches one",
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct TimelineRouteTests {
    /// The fixture's days as exiftool reads them (`DateTimeOriginal`, the local day the camera wrote).
    static func exiftoolDays() throws -> [String] {
        try ServedLibrary.sourceFiles.map { file in
            guard case .string(let text)? = Corpus.exiftool[file]?["ExifIFD:DateTimeOriginal"] else {
                throw MissingValue(description: "exiftool has no DateTimeOriginal for \(file)")
            }
            return String(text.prefix(10)).replacingOccurrences(of: ":", with: "-")
        }
    }

    static func buckets(_ response: LoopbackResponse) throws -> [(period: String?, count: Int)] {
        let object = try require(response.json as? [String: Any], "a JSON object")
        let buckets = try require(object["buckets"] as? [[String: Any]], "buckets")
        return buckets.map { ($0["period"] as? String, $0["count"] as? Int ?? -1) }
    }

    @Test("day, month and year buckets are exiftool's capture days counted, newest first, totalling count=true")
    func bucketsFollowExiftool() throws {
        let served = try ServedLibrary()
        let days = try Self.exiftoolDays()
        for (group, length) in [("day", 10), ("month", 7), ("year", 4)] {
            let response = try served.get("/v1/timeline?group=\(group)")
            #expect(response.status == 200)
            var expected: [String: Int] = [:]
            for day in days { expected[String(day.prefix(length)), default: 0] += 1 }
            let buckets = try Self.buckets(response)
            #expect(buckets.map(\.period) == expected.keys.sorted(by: >), "\(group)")
            #expect(buckets.map(\.count) == expected.keys.sorted(by: >).map { expected[$0]! }, "\(group)")
            #expect((response.json as? [String: Any])?["total"] as? Int == days.count)
        }
        let counted = try served.get("/v1/assets?count=true")
        #expect((counted.json as? [String: Any])?["total"] as? Int == days.count)
        let oldestFirst = try Self.buckets(served.get("/v1/timeline?group=year&reverse=true"))
        #expect(oldestFirst.map(\.period) == Set(days.map { String($0.prefix(4)) }).sorted())
        #expect(try Self.buckets(served.get("/v1/timeline?filter=videos")).isEmpty)
    }

    @Test("period= selects the assets of a day, month or year; none the undated; anything else is a 400")
    func periodSelectsABucket() throws {
        let served = try ServedLibrary()
        let days = try Self.exiftoolDays()
        for period in Set(days.flatMap { [String($0.prefix(4)), String($0.prefix(7)), $0] }) {
            let page = try served.get("/v1/assets?period=\(period)&limit=1000")
            let assets = try require((page.json as? [String: Any])?["assets"] as? [[String: Any]], "assets")
            #expect(assets.count == days.filter { $0.hasPrefix(period) }.count, "\(period)")
            for asset in assets { #expect((asset["creationDate"] as? String)?.hasPrefix(period) == true) }
        }
        let undated = try served.get("/v1/assets?period=none")
        #expect(((undated.json as? [String: Any])?["assets"] as? [Any])?.isEmpty == true)
        for bad in ["2023-13", "23", "2023-07-1", "2023/07", "July"] {
            let refused = try served.get("/v1/assets?period=\(bad)")
            #expect(refused.status == 400, "\(bad)")
            #expect(refused.errorMessage?.contains("period") == true)
        }
        let week = try served.get("/v1/timeline?group=week")
        #expect(week.status == 400)
        #expect(week.errorMessage?.contains("day, month, year") == true)
        #expect(try served.get("/v1/timeline?after=x").status == 400)
    }

    @Test("a hidden asset leaves its bucket, unless includeHidden with the token")
    func hiddenAssetsAreNotCounted() throws {
        let served = try ServedLibrary()
        let asset = try served.anyAsset()
        let day = String(try require(asset.captureTime?.iso8601, "a dated asset").prefix(10))
        let before = try Self.buckets(served.get("/v1/timeline"))
        #expect(try served.send("PUT", "/v1/assets/\(asset.id.rawValue)/hidden", headers: served.bearer).status == 200)
        let after = try Self.buckets(served.get("/v1/timeline"))
        #expect(after.reduce(0) { $0 + $1.count } == before.reduce(0) { $0 + $1.count } - 1)
        #expect(after.first { $0.period == day }?.count ?? 0 == (before.first { $0.period == day }?.count ?? 0) - 1)
        let page = try served.get("/v1/assets?period=\(day)")
        #expect(((page.json as? [String: Any])?["assets"] as? [[String: Any]])?.contains { $0["id"] as? String == asset.id.rawValue } == false)
        let included = try Self.buckets(served.get("/v1/timeline?includeHidden=true", headers: served.bearer))
        #expect(included.map(\.count) == before.map(\.count))
    }
}
