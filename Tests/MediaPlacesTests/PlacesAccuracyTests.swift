import Foundation
import Testing
@testable import MediaPlaces

/// The installed places file and the check points `scripts/install-places-data --checkpoints` wrote
/// from the unsimplified boundaries (answers from GEOS and Python's zoneinfo, never from this code).
/// Without them the checks are skipped with a message, except under `CI=true`, where they fail.
enum InstalledPlaces {
    static let environment = ProcessInfo.processInfo.environment
    static let checkPointsPath = environment["MEDIAINDEX_PLACES_CHECKPOINTS"]
        ?? (PlacesData.defaultPath as NSString).deletingLastPathComponent + "/places-checkpoints.tsv"

    static let data: PlacesData? = try? PlacesData(path: PlacesData.defaultPath)

    static let checkPoints: [(set: String, latitude: Double, longitude: Double, instant: Date, zone: String, country: String, offset: Int)] = {
        guard let text = try? String(contentsOfFile: checkPointsPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 7, let latitude = Double(fields[1]), let longitude = Double(fields[2]),
                  let seconds = Double(fields[3]), let offset = Int(fields[6]) else { return nil }
            return (fields[0], latitude, longitude, Date(timeIntervalSince1970: seconds), fields[4], fields[5], offset)
        }
    }()

    /// The data, or nil after saying why the checks cannot run (an issue under CI).
    static func require() -> PlacesData? {
        if let data, !checkPoints.isEmpty { return data }
        let why = data == nil
            ? "no places data at \(PlacesData.defaultPath) (scripts/install-places-data builds it)"
            : "no check points at \(checkPointsPath) (scripts/install-places-data --checkpoints FILE writes them)"
        if environment["CI"] == "true" {
            Issue.record("Places accuracy checks cannot run: \(why).")
        } else {
            print("Skipping places accuracy checks: \(why).")
        }
        return nil
    }

    /// The percentage of a set's points answered right: the UTC offset at the point's instant, or its country.
    static func percentRight(_ set: String, data: PlacesData, byCountry: Bool = false) -> (percent: Double, count: Int) {
        let points = checkPoints.filter { $0.set == set }
        var wrong: [String] = []
        let right = points.filter { point in
            guard let coordinate = try? Coordinate(latitude: point.latitude, longitude: point.longitude, allowingNullIsland: true) else {
                return false
            }
            let lookup = data.lookup(coordinate)
            let found = byCountry ? lookup.place.countryCode ?? ""
                : lookup.timeZone.flatMap { TimeZoneRules.secondsFromUTC(zone: $0, at: point.instant) }.map { String($0) } ?? "none"
            let expected = byCountry ? point.country : String(point.offset)
            if found != expected, wrong.count < 5 {
                wrong.append("\(point.latitude),\(point.longitude) at \(point.instant): \(found) (\(lookup.timeZone ?? "no zone")), "
                             + "expected \(expected) (\(point.zone))")
            }
            return found == expected
        }.count
        if !wrong.isEmpty { print("Some misses, \(set):\n  " + wrong.joined(separator: "\n  ")) }
        return (points.isEmpty ? 0 : Double(right) / Double(points.count) * 100, points.count)
    }
}

@Suite("Places accuracy on points built from the boundaries")
struct PlacesAccuracyTests {
    @Test("the UTC offset is right for ≥ 99.5% of points within 5 km of a zone border")
    func offsetNearZoneBorders() throws {
        guard let data = InstalledPlaces.require() else { return }
        let (percent, count) = InstalledPlaces.percentRight("zone-border", data: data)
        print("UTC offset right within 5 km of a zone border: \(percent)% of \(count)")
        #expect(count >= 1000)
        #expect(percent >= 99.5)
    }

    @Test("the UTC offset is right for ≥ 99.9% of points overall and around cities")
    func offsetOverall() throws {
        guard let data = InstalledPlaces.require() else { return }
        for set in ["overall", "cities"] {
            let (percent, count) = InstalledPlaces.percentRight(set, data: data)
            print("UTC offset right, \(set): \(percent)% of \(count)")
            #expect(count >= 1000)
            #expect(percent >= 99.9, "\(set)")
        }
    }

    @Test("the country is right for ≥ 99.5% of points within 5 km of a national border")
    func countryNearBorders() throws {
        guard let data = InstalledPlaces.require() else { return }
        let (percent, count) = InstalledPlaces.percentRight("country-border", data: data, byCountry: true)
        print("Country right within 5 km of a national border: \(percent)% of \(count)")
        #expect(count >= 1000)
        #expect(percent >= 99.5)
    }

    @Test("the installed file records its sources' versions")
    func versions() throws {
        guard let data = InstalledPlaces.require() else { return }
        #expect(data.versions["timezoneBoundaries"]?.contains("timezone-boundary-builder") == true)
        #expect(data.versions["cities"]?.contains("cities500") == true)
        #expect(data.versions["format"] == "1")
    }
}
