import Foundation
import MediaPlaces

/// Places look-ups: speed (median and p99 of one place-and-zone look-up, warm), resident memory,
/// and accuracy on the check points, side by side with a nearest-city k-d tree over the same cities.
enum PlacesBenchmark {
    struct CheckPoint {
        var set: String, latitude: Double, longitude: Double, instant: Date, zone: String, country: String, offset: Int
    }

    static func run(lookups: Int) throws -> [Row] {
        let checkPoints = readCheckPoints()
        let points = queryPoints(count: lookups, around: checkPoints)
        // Resident memory for places alone: the file's pages and tables once every point was looked up.
        let residentBefore = residentBytes()
        let path = PlacesData.defaultPath
        let opening = Date()
        let places = try PlacesData(path: path)
        let openSeconds = Date().timeIntervalSince(opening)
        for point in points { _ = places.lookup(point) }
        let residentAfter = residentBytes()
        let ours = time(points) { _ = places.lookup($0) }
        let baseline = NearestCity(places: places)
        let theirs = time(points) { _ = baseline.nearest(latitude: $0.latitude, longitude: $0.longitude) }
        var rows = [
            Row(measurement: "place + zone look-up, warm (\(points.count) points)",
                ours: String(format: "median %.2f µs, p99 %.2f µs; all in %.2f s", ours.median, ours.p99, ours.total),
                reference: String(format: "nearest-city k-d tree: median %.2f µs, p99 %.2f µs", theirs.median, theirs.p99),
                ratio: String(format: "%.1f× the k-d tree's median", ours.median / theirs.median),
                target: "≤ 5 µs median, ≤ 50 µs p99",
                json: ["median_us": ours.median, "p99_us": ours.p99, "kd_median_us": theirs.median, "kd_p99_us": theirs.p99,
                       "lookups": points.count, "total_seconds": ours.total, "open_seconds": openSeconds]),
            Row(measurement: "places data", ours: String(format: "%.1f MB on disk, %.1f MB resident after the look-ups",
                                                         fileSize(path) / 1e6, Double(residentAfter - residentBefore) / 1e6),
                reference: "-", ratio: "-", target: "≤ 60 MB on disk, ≤ 80 MB resident",
                json: ["file_bytes": fileSize(path), "resident_bytes": residentAfter - residentBefore]),
        ]
        rows.append(placingRow(places: places, points: points))
        if !checkPoints.isEmpty { rows += accuracyRows(places: places, baseline: baseline, checkPoints: checkPoints) }
        return rows
    }

    /// What placing adds to an index run, per asset as `CaptureResolution` does it: the place and
    /// zone of the position, then the capture time's offset in that zone (tzdata's rules at the
    /// instant), against the same capture times resolved with places off.
    static func placingRow(places: PlacesData, points: [Coordinate]) -> Row {
        var generator = SystemRandomNumberGenerator()
        // Wall clocks 2000–2025, no offset tag: step 3 (the position's zone) decides.
        let clocks = points.map { point in
            CaptureClock(recordedSeconds: .random(in: 946_684_800...1_767_225_600, using: &generator), coordinate: point)
        }
        let placesOff = LocalTime(zoneOf: nil)
        func seconds(_ body: (CaptureClock) -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            for clock in clocks { body(clock) }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        var placed = 0
        let on = seconds { clock in
            let lookup = clock.coordinate.map(places.lookup)
            let zone = lookup?.timeZone
            if LocalTime(zoneOf: { _ in zone }).resolveAlone(clock).source == .place { placed += 1 }
        }
        let off = seconds { _ = placesOff.resolveAlone($0) }
        let added = on - off
        return Row(measurement: "placing \(clocks.count) assets (place, zone, offset), one thread",
                   ours: String(format: "%.2f s (%.2f µs an asset), %d placed", on, on / Double(clocks.count) * 1e6, placed),
                   reference: String(format: "places off: %.2f s; added %.2f s", off, added),
                   ratio: "-", target: "adds ≤ 10 s to a cold index of 1 M assets",
                   json: ["assets": clocks.count, "seconds": on, "places_off_seconds": off, "added_seconds": added,
                          "placed": placed])
    }

    /// The check points' answers against ours and the baseline's: UTC offset for the zone sets,
    /// country for the country-border set.
    static func accuracyRows(places: PlacesData, baseline: NearestCity, checkPoints: [CheckPoint]) -> [Row] {
        Dictionary(grouping: checkPoints, by: \.set).sorted { $0.key < $1.key }.map { set, points in
            let byCountry = set == "country-border"
            func correct(_ answer: (Double, Double) -> (zone: String?, country: String?)) -> Double {
                let right = points.filter { point in
                    let found = answer(point.latitude, point.longitude)
                    if byCountry { return (found.country ?? "") == point.country }
                    return found.zone.flatMap { TimeZoneRules.secondsFromUTC(zone: $0, at: point.instant) } == point.offset
                }.count
                return Double(right) / Double(points.count) * 100
            }
            let ours = correct { latitude, longitude in
                guard let coordinate = try? Coordinate(latitude: latitude, longitude: longitude, allowingNullIsland: true) else {
                    return (nil, nil)
                }
                let lookup = places.lookup(coordinate)
                return (lookup.timeZone, lookup.place.countryCode)
            }
            let theirs = correct { baseline.answer(latitude: $0, longitude: $1) }
            return Row(measurement: "\(byCountry ? "country" : "UTC offset") right, \(set) (\(points.count) points)",
                       ours: String(format: "%.2f%%", ours), reference: String(format: "nearest city: %.2f%%", theirs),
                       ratio: "-", target: set == "zone-border" || byCountry ? "≥ 99.5%" : "≥ 99.9%",
                       json: ["ours_percent": ours, "nearest_city_percent": theirs, "points": points.count])
        }
    }

    static func time(_ points: [Coordinate], _ body: (Coordinate) -> Void) -> (median: Double, p99: Double, total: Double) {
        for point in points.prefix(10_000) { body(point) }
        var nanoseconds = [UInt64](repeating: 0, count: points.count)
        let start = DispatchTime.now().uptimeNanoseconds
        for (index, point) in points.enumerated() {
            let before = DispatchTime.now().uptimeNanoseconds
            body(point)
            nanoseconds[index] = DispatchTime.now().uptimeNanoseconds - before
        }
        let total = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        nanoseconds.sort()
        return (Double(nanoseconds[nanoseconds.count / 2]) / 1000, Double(nanoseconds[nanoseconds.count * 99 / 100]) / 1000, total)
    }

    /// Half the points near the check points (around borders and cities), half uniform over the Earth.
    static func queryPoints(count: Int, around checkPoints: [CheckPoint]) -> [Coordinate] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).compactMap { index in
            if index % 2 == 0, let point = checkPoints.randomElement(using: &generator) {
                return try? Coordinate(latitude: max(-90, min(90, point.latitude + .random(in: -0.02...0.02))),
                                       longitude: max(-180, min(180, point.longitude + .random(in: -0.02...0.02))))
            }
            return try? Coordinate(latitude: asin(.random(in: -1...1)) * 180 / .pi, longitude: .random(in: -180...180))
        }
    }

    /// `$MEDIAINDEX_PLACES_CHECKPOINTS`, else the file `scripts/install-places-data --checkpoints` writes.
    static func readCheckPoints() -> [CheckPoint] {
        let environment = ProcessInfo.processInfo.environment
        let path = environment["MEDIAINDEX_PLACES_CHECKPOINTS"]
            ?? (PlacesData.defaultPath as NSString).deletingLastPathComponent + "/places-checkpoints.tsv"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 7, let latitude = Double(fields[1]), let longitude = Double(fields[2]),
                  let seconds = Double(fields[3]), let offset = Int(fields[6]) else { return nil }
            return CheckPoint(set: fields[0], latitude: latitude, longitude: longitude,
                              instant: Date(timeIntervalSince1970: seconds), zone: fields[4], country: fields[5], offset: offset)
        }
    }

    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    static func fileSize(_ path: String) -> Double {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.doubleValue ?? 0
    }
}

/// The baseline Immich and exiftool use: the nearest populated place, by a k-d tree over the same
/// cities500 places; its country, and its zone (the zone at the place's own position).
struct NearestCity {
    private var points: [(x: Double, y: Double, z: Double, index: Int)]
    private let countries: [String]
    private let zones: [String?]

    init(places: PlacesData) {
        let localities = places.localities()
        countries = localities.map(\.countryCode)
        zones = localities.map { locality in
            (try? Coordinate(latitude: locality.latitude, longitude: locality.longitude, allowingNullIsland: true))
                .flatMap { places.timeZone($0) }
        }
        points = localities.enumerated().map { index, locality in
            let unit = Self.unit(latitude: locality.latitude, longitude: locality.longitude)
            return (unit.0, unit.1, unit.2, index)
        }
        Self.build(&points[...], depth: 0)
    }

    func answer(latitude: Double, longitude: Double) -> (zone: String?, country: String?) {
        guard let index = nearest(latitude: latitude, longitude: longitude) else { return (nil, nil) }
        return (zones[index], countries[index])
    }

    /// The index of the nearest place (chord distance on the unit sphere orders as great-circle distance).
    func nearest(latitude: Double, longitude: Double) -> Int? {
        let target = Self.unit(latitude: latitude, longitude: longitude)
        var best: (distance: Double, index: Int)?
        search(points[...], target: target, depth: 0, best: &best)
        return best?.index
    }

    private func search(_ slice: ArraySlice<(x: Double, y: Double, z: Double, index: Int)>,
                        target: (Double, Double, Double), depth: Int, best: inout (distance: Double, index: Int)?) {
        guard !slice.isEmpty else { return }
        let middle = slice.startIndex + slice.count / 2
        let point = slice[middle]
        let distance = (point.x - target.0) * (point.x - target.0) + (point.y - target.1) * (point.y - target.1)
            + (point.z - target.2) * (point.z - target.2)
        if best == nil || distance < best!.distance { best = (distance, point.index) }
        let axisDifference = Self.coordinate(point, depth) - Self.coordinate((target.0, target.1, target.2, 0), depth)
        let (near, far) = axisDifference > 0
            ? (slice[slice.startIndex..<middle], slice[(middle + 1)...])
            : (slice[(middle + 1)...], slice[slice.startIndex..<middle])
        search(near, target: target, depth: depth + 1, best: &best)
        if axisDifference * axisDifference < best!.distance { search(far, target: target, depth: depth + 1, best: &best) }
    }

    private static func build(_ slice: inout ArraySlice<(x: Double, y: Double, z: Double, index: Int)>, depth: Int) {
        guard slice.count > 1 else { return }
        slice.sort { coordinate($0, depth) < coordinate($1, depth) }
        let middle = slice.startIndex + slice.count / 2
        build(&slice[slice.startIndex..<middle], depth: depth + 1)
        build(&slice[(middle + 1)...], depth: depth + 1)
    }

    private static func coordinate(_ point: (x: Double, y: Double, z: Double, index: Int), _ depth: Int) -> Double {
        switch depth % 3 {
        case 0: return point.x
        case 1: return point.y
        default: return point.z
        }
    }

    private static func unit(latitude: Double, longitude: Double) -> (Double, Double, Double) {
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }
}
