import Foundation

/// Where a coordinate is: locality, regions and country, in English, with the GeoNames id kept so
/// another language can be added later. Empty levels are nil (and left out of JSON).
public struct Place: Sendable, Hashable, Codable {
    /// The most specific name known: the locality, else the country, else "At sea".
    public var name: String
    /// The city, town or village (GeoNames cities500), when one is within 30 km in the same country.
    public var locality: String?
    /// The second-level division (GeoNames admin2), where known.
    public var subregion: String?
    /// The first-level division (GeoNames admin1).
    public var region: String?
    /// The GeoNames admin1 code of `region` (`CA` in the US, `08` in Spain: GeoNames' codes, not ISO 3166-2).
    public var regionCode: String?
    /// The country's English short name (ISO 3166-1, Debian's iso-codes).
    public var country: String?
    /// ISO 3166-1 alpha-2.
    public var countryCode: String?
    /// The GeoNames id of the locality.
    public var geonameId: Int?

    public init(name: String, locality: String? = nil, subregion: String? = nil, region: String? = nil,
                regionCode: String? = nil, country: String? = nil, countryCode: String? = nil, geonameId: Int? = nil) {
        self.name = name
        self.locality = locality
        self.subregion = subregion
        self.region = region
        self.regionCode = regionCode
        self.country = country
        self.countryCode = countryCode
        self.geonameId = geonameId
    }
}

/// A position checked for being one: finite, in range, and not the 0,0 that devices write for "none".
public struct Coordinate: Sendable, Hashable {
    public let latitude: Double
    public let longitude: Double

    /// Why a recorded position is no position.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case notANumber
        case outOfRange(latitude: Double, longitude: Double)
        /// Exactly 0,0 (in the Gulf of Guinea), which cameras write when they have no fix.
        case nullIsland

        public var description: String {
            switch self {
            case .notANumber: return "The position is not a number."
            case .outOfRange(let latitude, let longitude):
                return "The position \(latitude),\(longitude) is out of range (latitude −90…90, longitude −180…180)."
            case .nullIsland: return "The position is exactly 0,0, which devices write when they have no fix."
            }
        }
    }

    /// - Throws: `Problem` for NaN, out-of-range values, and exactly 0,0 (unless `allowingNullIsland`).
    public init(latitude: Double, longitude: Double, allowingNullIsland: Bool = false) throws(Problem) {
        guard latitude.isFinite, longitude.isFinite else { throw .notANumber }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw .outOfRange(latitude: latitude, longitude: longitude)
        }
        guard allowingNullIsland || latitude != 0 || longitude != 0 else { throw .nullIsland }
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// What the places data say about one coordinate.
public struct PlaceLookup: Sendable, Hashable {
    /// Locality, regions and country; "At sea" with no country in international waters.
    public var place: Place
    /// The IANA zone whose boundary holds the point (an `Etc/GMT±N` zone at sea).
    public var timeZone: String?
    /// Whether the point lies outside every country's land and territorial waters.
    public var atSea: Bool
}
