import Foundation

/// One album of the smart Places family, as Apple's Places album: all placed assets, then
/// country → region → city. Keys are stable identifiers, never names: the ISO 3166-1 code,
/// GeoNames' admin1 code and the locality's GeoNames id.
public struct PlaceAlbum: Sendable, Hashable {
    /// ISO 3166-1 alpha-2; nil for the Places album itself (every asset with a country).
    public var countryCode: String?
    /// GeoNames' admin1 code of the region, within the country; `PlaceAlbum.noRegion` for
    /// the assets of the country that have no region. Nil above the region level.
    public var regionCode: String?
    /// The locality's GeoNames id; nil above the city level.
    public var geonameId: Int?

    /// The region key of a country's assets that have none (a country without admin1 divisions).
    public static let noRegion = "-"

    /// The Places album: every asset placed in a country.
    public static let all = PlaceAlbum()

    public init(countryCode: String? = nil, regionCode: String? = nil, geonameId: Int? = nil) {
        self.countryCode = countryCode
        self.regionCode = regionCode
        self.geonameId = geonameId
    }

    /// How deep in the family: 0 for Places, 1 a country, 2 a region, 3 a city.
    public var level: Int { countryCode == nil ? 0 : regionCode == nil ? 1 : geonameId == nil ? 2 : 3 }

    /// The album one level up; nil for Places.
    public var parent: PlaceAlbum? {
        switch level {
        case 0: return nil
        case 1: return .all
        case 2: return PlaceAlbum(countryCode: countryCode)
        default: return PlaceAlbum(countryCode: countryCode, regionCode: regionCode)
        }
    }

    /// `place`, `place.JP`, `place.JP.40`, `place.JP.40.1850147`.
    var idText: String {
        (["place", countryCode, regionCode, geonameId.map(String.init)] as [String?]).compactMap { $0 }
            .joined(separator: ".")
    }

    /// The album an identifier's text names, or nil.
    init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == "place", (1...4).contains(parts.count) else { return nil }
        if parts.count >= 2 {
            guard parts[1].count == 2, parts[1].allSatisfy({ $0.isASCII && $0.isUppercase }) else { return nil }
            countryCode = parts[1]
        }
        if parts.count >= 3 {
            guard !parts[2].isEmpty, parts[2].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else { return nil }
            regionCode = parts[2]
        }
        if parts.count == 4 {
            guard let id = Int(parts[3]), id > 0 else { return nil }
            geonameId = id
        }
    }

    /// The assets in the album: the same columns `--country` reads.
    var condition: SQLCondition {
        guard let countryCode else { return SQLCondition(sql: "a.place_country_code IS NOT NULL") }
        var sql = "a.place_country_code = ?"
        var values: [DatabaseValueConvertible] = [countryCode]
        if let regionCode {
            if regionCode == Self.noRegion {
                sql += " AND a.place_region_code IS NULL"
            } else {
                sql += " AND a.place_region_code = ?"
                values.append(regionCode)
            }
        }
        if let geonameId {
            sql += " AND a.place_geoname_id = ?"
            values.append(geonameId)
        }
        return SQLCondition(sql: sql, values: values)
    }

    /// The albums one level down, with their titles, as the assets name them: a country's
    /// regions, a region's cities (assets with no locality are in their region only).
    func children(db: DatabaseConnection) throws -> [(album: PlaceAlbum, title: String)] {
        let (key, title): (String, String)
        switch level {
        case 0: (key, title) = ("a.place_country_code", "a.place_country")
        case 1: (key, title) = ("coalesce(a.place_region_code, '\(Self.noRegion)')", "a.place_region")
        case 2: (key, title) = ("a.place_geoname_id", "a.place_locality")
        default: return []
        }
        let condition = level == 2 ? SQLCondition(sql: condition.sql + " AND a.place_geoname_id IS NOT NULL",
                                                  values: condition.values) : condition
        var children: [(album: PlaceAlbum, title: String)] = []
        for row in try db.rows("""
            SELECT \(key) AS key, max(\(title)) AS title FROM assets a WHERE \(condition.sql) GROUP BY 1
            """, condition.values) {
            var child = self
            switch level {
            case 0: child.countryCode = row.string("key")
            case 1: child.regionCode = row.string("key")
            default: child.geonameId = row.int("key")
            }
            guard child.level == level + 1 else { continue }
            let name = row.string("title") ?? (level == 1 ? (child.countryCode ?? "") : "")
            children.append((child, name))
        }
        return children.sorted {
            $0.title.localizedStandardCompare($1.title) == .orderedAscending
        }
    }
}
