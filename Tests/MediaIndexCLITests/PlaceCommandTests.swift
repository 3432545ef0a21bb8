import Foundation
import MediaPlaces
import Testing
@testable import MediaIndexCLI

/// Runs `mediaindex` in-process with `MEDIAINDEX_PLACES_DATA` set.
private func mediaindex(_ arguments: [String], placesData: String) async -> (code: Int32, out: String, err: String) {
    let context = CommandContext.capturing(environment: ["HOME": "/nonexistent", "MEDIAINDEX_PLACES_DATA": placesData])
    let code = await CommandRunner.run(root: MediaIndexCommand.self, arguments: arguments.map { RawArgument($0) },
                                       context: context)
    return (code, context.standardOutput.capturedText, context.standardError.capturedText)
}

/// The installed places data, or nil after saying why (an issue under CI=true).
private func installedPlaces() -> PlacesData? {
    if let data = try? PlacesData(path: PlacesData.defaultPath) { return data }
    let why = "no places data at \(PlacesData.defaultPath) (scripts/install-places-data builds it)"
    if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("\(why).") } else { print("Skipping: \(why).") }
    return nil
}

@Suite("mediaindex place: place, zone and UTC offset of a position")
struct PlaceCommandTests {
    @Test("refuses 0,0, out-of-range and malformed positions before any work, with exit code 64")
    func refusals() async {
        for (argument, words) in [("0,0", "exactly 0,0"), ("91,10", "out of range"), ("north,east", "decimal degrees"),
                                  ("1,2,3,4", "LAT,LON")] {
            let result = await mediaindex(["place", argument], placesData: "/nonexistent/places.mip")
            #expect(result.code == 64, "\(argument)")
            #expect(result.err.contains(words), "\(argument): \(result.err)")
        }
        let badInstant = await mediaindex(["place", "10,10", "--at", "yesterday"], placesData: "/nonexistent/places.mip")
        #expect(badInstant.code == 64)
        #expect(badInstant.err.contains("ISO 8601"))
    }

    @Test("without the data file it says places are off, naming the file")
    func missingData() async {
        let result = await mediaindex(["place", "48.85,2.35"], placesData: "/nonexistent/places.mip")
        #expect(result.code == 1)
        #expect(result.err.contains("/nonexistent/places.mip"))
        #expect(result.err.contains("places are off"))
    }

    @Test("a photo's position in Tokyo at 23:30 local time: Japan, Asia/Tokyo, +09:00")
    func tokyo() async throws {
        guard let data = installedPlaces() else { return }
        let result = await mediaindex(["place", "35.6895,139.6917", "--at", "2023-07-01T23:30:00", "--json"], placesData: data.path)
        #expect(result.code == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let place = try #require(object["place"] as? [String: Any])
        #expect(place["countryCode"] as? String == "JP")
        #expect(place["country"] as? String == "Japan")
        #expect(place["region"] as? String == "Tokyo")
        #expect(object["timeZone"] as? String == "Asia/Tokyo")
        #expect(object["utcOffset"] as? String == "+09:00")
        #expect(object["at"] as? String == "2023-07-01T23:30:00+09:00")
    }

    @Test("lines on standard input: one JSON object each, in order; a bad line gives an error and the rest goes on")
    func lines() throws {
        guard let data = installedPlaces() else { return }
        let inputs = ["40.7128,-74.0060,2023-01-15T12:00:00Z", "not a position", "0,0", "40.7128,-74.0060"]
        let at = try PlaceQuery.parseInstant("2023-07-15T12:00:00Z")
        let answers = inputs.enumerated().map { PlaceCommand.answerLine($1, number: $0 + 1, places: data, at: at).compactText }
        #expect(answers[0].contains(#""utcOffset":"-05:00""#))
        #expect(answers[0].contains(#""countryCode":"US""#))
        #expect(answers[1].hasPrefix(#"{"line":2,"input":"not a position","error":"#))
        #expect(answers[2].contains("exactly 0,0"))
        #expect(answers[3].contains(#""utcOffset":"-04:00""#))
    }

    @Test("at sea: no country and no locality, an Etc zone")
    func atSea() async throws {
        guard let data = installedPlaces() else { return }
        let result = await mediaindex(["place", "30,-40", "--json", "--at", "2023-01-01T00:00:00Z"], placesData: data.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect((object["place"] as? [String: Any])?["name"] as? String == "At sea")
        #expect((object["place"] as? [String: Any])?["countryCode"] == nil)
        #expect(object["timeZone"] as? String == "Etc/GMT+3")
        #expect(object["utcOffset"] as? String == "-03:00")
    }
}
