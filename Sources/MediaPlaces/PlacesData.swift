import Foundation

/// The offline places data: time-zone boundaries, countries and populated places, read from one
/// memory-mapped file built at install time (`scripts/install-places-data`). It never calls out.
///
/// Country and zone come from the boundaries (timezone-boundary-builder, zones mapped to countries
/// by tzdata's `zone.tab`), never from the nearest city; the locality is then chosen among the
/// places of that country only.
public final class PlacesData: Sendable {
    /// The file the data were read from.
    public let path: String
    /// The sources and their versions, as the build recorded them (`timezoneBoundaries`, `cities`, …).
    public let versions: [String: String]
    private let file: PlacesFile
    private let zones: ZoneIndex
    private let cities: CityIndex
    /// The country index of each zone's country, by zone number.
    private let zoneCountries: [Int?]

    /// Maps and checks the places file.
    /// - Throws: `PlacesFileError` naming the file: missing, foreign, of another format, or damaged.
    public init(path: String) throws {
        file = try PlacesFile(path: path)
        self.path = path
        zones = try ZoneIndex(file: file)
        cities = try CityIndex(file: file)
        let cityIndex = cities
        zoneCountries = zones.countries.map { code in code.flatMap { cityIndex.countryIndex(code: $0) } }
        let meta = try file.text("META")
        guard let object = try? JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any] else {
            throw PlacesFileError.damaged(path: path, reason: "its META section is not a JSON object")
        }
        versions = object.mapValues { "\($0)" }
    }

    /// Checks the places file at `path` by its header alone: it is there, a places file of the
    /// format this build reads, its section table inside the file. Nothing is mapped and the body
    /// is not read (its checksum and tables are checked by `init(path:)`), so this costs one
    /// `open` and one short read: for code that only needs to say whether places are installed.
    /// - Throws: `PlacesFileError` naming the file, as `init(path:)` throws for a bad header.
    public static func checkHeader(path: String) throws {
        try PlacesFile.checkHeader(path: path)
    }

    /// Where the places file is looked for: `$MEDIAINDEX_PLACES_DATA` when set, else
    /// `$XDG_DATA_HOME/mediaindex/places.mip` (`~/.local/share/mediaindex/places.mip`).
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        return defaultPath(environment: environment)
    }

    /// `defaultPath` for a given environment.
    public static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["MEDIAINDEX_PLACES_DATA"], !path.isEmpty { return path }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (dataHome as NSString).appendingPathComponent("mediaindex/places.mip")
    }

    /// The place and zone of a coordinate.
    public func lookup(_ coordinate: Coordinate) -> PlaceLookup {
        let zone = zones.zone(latitude: coordinate.latitude, longitude: coordinate.longitude)
        let zoneName = zone.map { zones.names[$0] }
        guard let zone, let country = zoneCountries[zone] else {
            return PlaceLookup(place: Place(name: "At sea"), timeZone: zoneName, atSea: true)
        }
        let (countryCode, countryName) = cities.countries[country]
        var place = Place(name: countryName, country: countryName, countryCode: countryCode)
        if let city = cities.locality(latitude: coordinate.latitude, longitude: coordinate.longitude, country: country) {
            place.name = city.name
            place.locality = city.name
            place.geonameId = city.geonameID
            if let region = city.regionIndex {
                place.region = cities.regions[region].name
                place.regionCode = cities.regions[region].code
            }
            place.subregion = city.subregionIndex.map { cities.subregions[$0] }
        }
        return PlaceLookup(place: place, timeZone: zoneName, atSea: false)
    }

    /// The zone of a coordinate alone, without the locality search.
    public func timeZone(_ coordinate: Coordinate) -> String? {
        zones.zone(latitude: coordinate.latitude, longitude: coordinate.longitude).map { zones.names[$0] }
    }

    /// The zone's ISO 3166 country (tzdata's zone.tab), when it has one.
    public func countryCode(ofZone name: String) -> String? {
        zones.names.firstIndex(of: name).flatMap { zones.countries[$0] }
    }

    /// Every country the file names: ISO code and English name.
    public var countries: [(code: String, name: String)] { cities.countries }
}

extension PlacesData {
    /// Every locality's position and country code, in file order: what a nearest-city look-up
    /// (the benchmark's baseline) works from.
    public func localities() -> [(latitude: Double, longitude: Double, countryCode: String)] {
        (0..<cities.count).compactMap { index in
            cities.city(at: index).map { ($0.latitude, $0.longitude, cities.countries[$0.countryIndex].code) }
        }
    }
}
