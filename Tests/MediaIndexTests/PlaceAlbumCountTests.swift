import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// The Places family's counts and names come from one grouped read per level
/// (`PlaceAlbum.children`); these tests hold them to one straightforward query per album.
@Suite("Places album counts from one grouped read")
struct PlaceAlbumCountTests {
    /// Countries with their regions (nil: a country without regions) and cities, some of
    /// them named two ways, as places data of different versions could name them.
    static let countries: [(code: String, names: [String], regions: [String?])] = [
        ("JP", ["Japan"], ["40", "13", nil]), ("FR", ["France", "République française"], ["11", "84"]),
        ("MC", ["Monaco"], [nil]), ("US", ["United States"], ["CA", "NY", "TX"]), ("IS", ["Iceland"], ["1"]),
    ]

    /// A library of `count` generated assets: a third unplaced, the rest spread over
    /// `countries`, with videos, burst frames that are not the representative, undated
    /// assets, and every asset of Iceland a hidden or non-representative one.
    static func generatedLibrary(count: Int = 1_500) throws -> SyntheticLibrary {
        let lib = try SyntheticLibrary()
        var random = SplitMix64(seed: 30)
        var rows: [SyntheticLibrary.Row] = []
        for n in 0..<count {
            let video = random.next() % 7 == 0
            rows.append(SyntheticLibrary.Row(
                id: "a\(n)", type: video ? "video" : "image", time: random.next() % 20 == 0 ? nil : Double(random.next() % 100_000),
                burst: n % 13 == 0 ? "B\(n / 26)" : nil, representative: random.next() % 3 != 0,
                path: "/photos/\(n % 17)/\(n).\(video ? "mov" : "jpg")"))
        }
        try lib.insert(rows)
        var hidden: [Asset.ID] = []
        try lib.library.requireWriter().transaction { db in
            for n in 0..<count where random.next() % 3 != 0 {
                let country = countries[Int(random.next() % UInt64(countries.count))]
                let regionIndex = Int(random.next() % UInt64(country.regions.count))
                let region = country.regions[regionIndex]
                // Five cities a region, their ids apart, some sharing a name.
                let city: Int? = random.next() % 4 == 0 ? nil
                    : 1000 * (regionIndex + 1) + 100 * country.code.utf8.first.map(Int.init)! + Int(random.next() % 5)
                try db.execute("""
                    UPDATE assets SET place_country_code = ?, place_country = ?, place_region_code = ?, place_region = ?,
                        place_geoname_id = ?, place_locality = ?
                    WHERE identifier = ?
                    """, [country.code, country.names[Int(random.next() % UInt64(country.names.count))], region,
                          region.map { "Region \($0)" }, city, city.map { "City \($0 % 7)" }, "a\(n)"])
                if country.code == "IS" && random.next() % 2 == 0 {
                    try db.execute("UPDATE assets SET is_burst_representative = 0 WHERE identifier = ?", ["a\(n)"])
                } else if country.code == "IS" || random.next() % 11 == 0 {
                    hidden.append(Asset.ID(stored: "a\(n)"))
                }
            }
        }
        try lib.library.blocking.setHidden(true, for: hidden)
        return lib
    }

    /// The albums below `parent` as one query per album lists them: the names from a
    /// straightforward `GROUP BY`, each album summarised by its own count and key queries.
    static func straightforwardChildren(of parent: PlaceAlbum, library: MediaLibrary) throws -> [Album] {
        try library.read { db in
            let (key, title): (String, String)
            switch parent.level {
            case 0: (key, title) = ("a.place_country_code", "a.place_country")
            case 1: (key, title) = ("coalesce(a.place_region_code, '-')", "a.place_region")
            default: (key, title) = ("a.place_geoname_id", "a.place_locality")
            }
            var condition = parent.condition
            if parent.level == 2 { condition.sql += " AND a.place_geoname_id IS NOT NULL" }
            var albums: [Album] = []
            for row in try db.rows("SELECT \(key) AS key, max(\(title)) AS title FROM assets a WHERE \(condition.sql) GROUP BY 1",
                                   condition.values) {
                var child = parent
                switch parent.level {
                case 0: child.countryCode = row.string("key")
                case 1: child.regionCode = row.string("key")
                default: child.geonameId = row.int("key")
                }
                var options = FetchOptions()
                options.album = .place(child)
                var album = try library.summary(of: try AssetQuery(options), id: AlbumScope.place(child).id, kind: .place,
                                                title: row.string("title") ?? (parent.level == 1 ? child.countryCode ?? "" : ""),
                                                db: db)
                album.parentID = AlbumScope.place(parent).id
                if album.count > 0 { albums.append(album) }
            }
            return albums.sorted { $0.title.localizedStandardCompare($1.title) == .orderedAscending }
        }
    }

    @Test("Places, its countries, regions and cities equal one query per album: counts, names, keys and days")
    func equalsOneQueryPerAlbum() throws {
        let lib = try Self.generatedLibrary()
        let library = lib.library
        let listed = try library.blocking.fetchAlbums().filter { $0.kind == .place }
        var options = FetchOptions()
        options.album = .place(.all)
        let places = try library.read { db in
            try library.summary(of: try AssetQuery(options), id: AlbumScope.place(.all).id, kind: .place, title: "Places", db: db)
        }
        #expect(listed.first == places)
        #expect(places.count == (try library.blocking.countAssets(options).total) && places.count > 300)
        let countries = try Self.straightforwardChildren(of: .all, library: library)
        #expect(Array(listed.dropFirst()) == countries)
        #expect(try library.blocking.fetchAlbums(in: places.id) == countries)
        // Iceland's assets are all hidden or burst frames: no album; France's two names: the greatest.
        #expect(Set(countries.map(\.id.rawValue)) == ["place.JP", "place.FR", "place.MC", "place.US"])
        #expect(countries.first { $0.id.rawValue == "place.FR" }?.title == "République française")
        var regionCount = 0, cityCount = 0
        for country in countries {
            guard case .place(let countryPlace) = AlbumScope(country.id) else { Issue.record("\(country.id)"); continue }
            let regions = try Self.straightforwardChildren(of: countryPlace, library: library)
            #expect(try library.blocking.fetchAlbums(in: country.id) == regions, "\(country.id)")
            for region in regions {
                guard case .place(let regionPlace) = AlbumScope(region.id) else { Issue.record("\(region.id)"); continue }
                let cities = try Self.straightforwardChildren(of: regionPlace, library: library)
                #expect(try library.blocking.fetchAlbums(in: region.id) == cities, "\(region.id)")
                regionCount += 1
                cityCount += cities.count
            }
        }
        #expect(regionCount >= 8 && cityCount >= 20, "\(regionCount) regions, \(cityCount) cities")
    }

    @Test("the countries' kept counts follow assets that move, are renamed, lose their place, change kind or burst standing, or are removed")
    func countriesFollowChanges() throws {
        let lib = try Self.generatedLibrary(count: 600)
        try lib.library.requireWriter().transaction { db in
            try db.execute("UPDATE assets SET place_country_code = 'MC', place_country = 'Monaco' WHERE id % 7 = 0 AND place_country_code = 'JP'")
            try db.execute("UPDATE assets SET place_country = 'Nippon' WHERE id % 5 = 0 AND place_country_code = 'JP'")
            try db.execute("UPDATE assets SET place_country_code = NULL, place_country = NULL WHERE id % 6 = 0")
            try db.execute("UPDATE assets SET place_country = NULL WHERE id % 11 = 0")
            try db.execute("UPDATE assets SET is_burst_representative = 1 - is_burst_representative WHERE id % 4 = 0")
            try db.execute("UPDATE assets SET media_type = CASE media_type WHEN 'video' THEN 'image' ELSE 'video' END WHERE id % 9 = 0")
            try db.execute("DELETE FROM files WHERE asset_id IN (SELECT id FROM assets WHERE id % 8 = 0)")
            try db.execute("DELETE FROM assets WHERE id % 8 = 0")
        }
        let listed = try lib.library.blocking.fetchAlbums().filter { $0.kind == .place }.dropFirst()
        #expect(Array(listed) == (try Self.straightforwardChildren(of: .all, library: lib.library)))
        let (kept, fresh) = try lib.library.read { db in
            let rows = { (sql: String) in
                try db.rows(sql).map { row in
                    ["country_code", "country", "assets", "shown", "videos"].map { row.string($0) ?? row.int($0).map(String.init) ?? "-" }
                }
            }
            return (try rows("SELECT * FROM place_country_stats ORDER BY 1, 2"), try rows("""
                SELECT place_country_code AS country_code, coalesce(place_country, '') AS country, count(*) AS assets,
                       sum(is_burst_representative = 1) AS shown, sum(is_burst_representative = 1 AND media_type = 'video') AS videos
                FROM assets WHERE place_country_code IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
                """))
        }
        #expect(kept == fresh && kept.count >= 5)
    }

    @Test("an empty Places lists nothing, and a library whose placed assets are all hidden neither")
    func emptyPlaces() throws {
        let lib = try SyntheticLibrary()
        try lib.insert([SyntheticLibrary.Row(id: "x", time: 10, path: "/photos/x.jpg")])
        #expect(try lib.library.blocking.fetchAlbums().allSatisfy { $0.kind != .place })
        try lib.library.requireWriter().write { db in
            try db.execute("UPDATE assets SET place_country_code = 'JP', place_country = 'Japan'")
        }
        #expect(try lib.library.blocking.fetchAlbums().filter { $0.kind == .place }.map(\.id.rawValue) == ["place", "place.JP"])
        try lib.library.blocking.setHidden(true, for: [Asset.ID(stored: "x")])
        #expect(try lib.library.blocking.fetchAlbums().allSatisfy { $0.kind != .place })
    }
}
