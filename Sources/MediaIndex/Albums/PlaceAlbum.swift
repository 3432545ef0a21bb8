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

    /// One album one level down, as `children(db:)` lists it.
    struct Child {
        var album: PlaceAlbum
        /// Its name as its assets give it (the greatest, when they differ).
        var title: String
        /// What a default fetch of it counts: burst representatives, hidden assets left out.
        var counts: AssetCounts
    }

    /// The albums one level down, by title, with their names and counts, as the assets give
    /// them: a country's regions, a region's cities (assets with no locality are in their
    /// region only). One grouped read of the place index (and one of the hidden assets) for
    /// every child, where a count per child would read each child's entries again; the
    /// countries from the counts kept for them (`countriesSQL`).
    func children(db: DatabaseConnection) throws -> [Child] {
        guard let (key, title) = childKeyAndTitle else { return [] }
        let condition = level == 2 ? SQLCondition(sql: condition.sql + " AND a.place_geoname_id IS NOT NULL",
                                                  values: condition.values) : condition
        // Counts as `AssetQuery.counts` makes them: a row that is not a video is an image.
        var children: [Child] = []
        for row in try db.rows(level == 0 ? Self.countriesSQL : """
            SELECT \(key) AS key, max(\(title)) AS title, sum(a.is_burst_representative = 1) AS shown,
                   sum(a.is_burst_representative = 1 AND a.media_type = 'video') AS videos
            FROM assets a INDEXED BY assets_by_place WHERE \(condition.sql) GROUP BY 1
            """, level == 0 ? [] : condition.values) {
            guard let child = child(key: row) else { continue }
            let videos = row.int("videos") ?? 0, shown = row.int("shown") ?? 0
            let name = row.string("title") ?? (level == 1 ? (child.countryCode ?? "") : "")
            children.append(Child(album: child, title: name, counts: AssetCounts(images: shown - videos, videos: videos)))
        }
        // Hidden assets, few and found through the user state's index, are subtracted.
        var hidden: [PlaceAlbum: AssetCounts] = [:]
        for row in try db.rows("""
            SELECT \(key) AS key, count(*) AS shown, sum(a.media_type = 'video') AS videos
            FROM userstate.asset_user_state h CROSS JOIN assets a
            WHERE \(condition.sql) AND a.is_burst_representative = 1 AND h.hidden = 1 AND a.identifier = h.identifier
            GROUP BY 1
            """, condition.values) {
            guard let child = child(key: row) else { continue }
            let videos = row.int("videos") ?? 0
            hidden[child] = AssetCounts(images: (row.int("shown") ?? 0) - videos, videos: videos)
        }
        for index in children.indices {
            guard let subtracted = hidden[children[index].album] else { continue }
            children[index].counts.images -= subtracted.images
            children[index].counts.videos -= subtracted.videos
        }
        return children.sorted {
            $0.title.localizedStandardCompare($1.title) == .orderedAscending
        }
    }

    /// Every country's row as the grouped read gives it (`key`, `title`, `shown`, `videos`),
    /// from the counts triggers keep (`place_country_stats`, migration 60): a few rows a
    /// country instead of every placed asset's index entry.
    private static let countriesSQL = """
        SELECT country_code AS key, max(nullif(country, '')) AS title, sum(shown) AS shown, sum(videos) AS videos
        FROM place_country_stats GROUP BY 1
        """

    /// The column the albums one level down are keyed by, and the one that names them; nil at a city.
    private var childKeyAndTitle: (key: String, title: String)? {
        switch level {
        case 0: return ("a.place_country_code", "a.place_country")
        case 1: return ("coalesce(a.place_region_code, '\(Self.noRegion)')", "a.place_region")
        case 2: return ("a.place_geoname_id", "a.place_locality")
        default: return nil
        }
    }

    /// The album one level down a row's `key` names, or nil when it names none.
    private func child(key row: Row) -> PlaceAlbum? {
        var child = self
        switch level {
        case 0: child.countryCode = row.string("key")
        case 1: child.regionCode = row.string("key")
        default: child.geonameId = row.int("key")
        }
        return child.level == level + 1 ? child : nil
    }
}
