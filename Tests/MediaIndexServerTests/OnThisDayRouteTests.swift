import CorpusSupport
import Foundation
import LoopbackHTTPClient
import MediaIndex
import Testing
@testable import MediaIndexServer

@Suite("GET /v1/assets?onThisDay= lists a month and day of earlier years by the camera's day",
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct OnThisDayRouteTests {
    @Test("each month-day of the fixture gives exiftool's photos of that day, as count=true counts; a bad day is a 400")
    func monthDaysFollowExiftool() throws {
        let served = try ServedLibrary()
        let days = try TimelineRouteTests.exiftoolDays()
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(days.contains { (Int($0.prefix(4)) ?? year) < year }, "the fixture has photos of earlier years")
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        for monthDay in Set(days.map { String($0.suffix(5)) }) {
            let matching = days.filter {
                (Int($0.prefix(4)) ?? year) < year
                    && ($0.hasSuffix(monthDay) || (!leap && monthDay == "02-28" && $0.hasSuffix("02-29")))
            }
            let page = try served.get("/v1/assets?onThisDay=\(monthDay)&limit=1000")
            #expect(page.status == 200)
            let assets = try require((page.json as? [String: Any])?["assets"] as? [[String: Any]], "assets")
            #expect(assets.count == matching.count, "\(monthDay)")
            let counted = try served.get("/v1/assets?onThisDay=\(monthDay)&count=true")
            #expect((counted.json as? [String: Any])?["total"] as? Int == matching.count, "\(monthDay)")
        }
        #expect(try served.get("/v1/assets?onThisDay=today").status == 200)
        for bad in ["13-01", "02-30", "7-1", "0701", "tomorrow"] {
            let response = try served.get("/v1/assets?onThisDay=\(bad)")
            #expect(response.status == 400, "\(bad)")
        }
    }
}
