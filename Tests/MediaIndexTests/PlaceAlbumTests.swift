import CorpusSupport
import Foundation
import MediaPlaces
import Testing
@testable import MediaIndex

@Suite("The Places album family",
       .enabled(if: Corpus.isAvailable && placesInstalled && exiftoolInstalled, "needs the corpus, the places data and exiftool"))
struct PlaceAlbumTests {
    /// Photos at known points, written with exiftool: two regions of Japan, two of France, one at sea, one without GPS.
    static let points: [(name: String, latitude: Double, longitude: Double)?] = [
        ("tokyo1.jpg", 35.6812, 139.7671), ("tokyo2.jpg", 35.6813, 139.7670), ("shibuya.jpg", 35.6595, 139.7005),
        ("osaka.jpg", 34.7025, 135.4959), ("paris.jpg", 48.8566, 2.3522), ("lyon.jpg", 45.7640, 4.8357),
        ("atlantic.jpg", 30.0, -40.0), nil,
    ]

    /// The places data's answer for each photo's position as exiftool reads it back from the file.
    static func referencePlaces(in root: String) throws -> [String: Place] {
        let output = try ExternalTool.run(ExternalTool.exiftool, ["-j", "-n", "-Composite:GPSLatitude", "-Composite:GPSLongitude", root])
        let rows = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        let data = try PlacesData(path: PlacesData.defaultPath)
        var places: [String: Place] = [:]
        for row in rows {
            guard let latitude = row["GPSLatitude"] as? Double, let longitude = row["GPSLongitude"] as? Double,
                  let file = (row["SourceFile"] as? String).map({ ($0 as NSString).lastPathComponent }) else { continue }
            let lookup = data.lookup(try Coordinate(latitude: latitude, longitude: longitude))
            if !lookup.atSea { places[file] = lookup.place }
        }
        return places
    }

    @Test("Places lists countries, a country its regions, a region its cities, with the counts the places data give and --country finds")
    func family() throws {
        let scratch = try ScratchLibrary()
        let photo = "exiftool-t-images/t/images/Google.jpg"
        var fixtures: [(name: String, source: String, tags: [String])] = []
        for (number, point) in Self.points.enumerated() {
            var tags = ["-all=", "-DateTimeOriginal=2023:07:0\(number + 1) 12:00:00"]
            if let point {
                tags += ["-GPSLatitude=\(abs(point.latitude))", "-GPSLatitudeRef=\(point.latitude < 0 ? "S" : "N")",
                         "-GPSLongitude=\(abs(point.longitude))", "-GPSLongitudeRef=\(point.longitude < 0 ? "W" : "E")"]
            }
            fixtures.append((point?.name ?? "nowhere.jpg", photo, tags))
        }
        let (library, byName) = try indexFixtures(fixtures, in: scratch)
        // A hidden photo leaves every count, as in the other albums.
        try library.blocking.setHidden(true, for: [try #require(byName["tokyo2.jpg"]?.id)])
        let reference = try Self.referencePlaces(in: scratch.root).filter { $0.key != "tokyo2.jpg" }
        #expect(Set(reference.values.compactMap(\.countryCode)) == ["JP", "FR"], "\(reference)")

        let listed = try library.blocking.fetchAlbums().filter { $0.kind == .place }
        let places = try #require(listed.first)
        #expect(places.id.rawValue == "place" && places.title == "Places" && places.parentID == nil)
        #expect(places.count == reference.count)
        // Countries: by ISO code, counted as the places data place the photos, and as --country finds them.
        let countries = try library.blocking.fetchAlbums(in: places.id)
        #expect(Array(listed.dropFirst()) == countries)
        var byCountry: [String: Int] = [:]
        for place in reference.values { byCountry[place.countryCode ?? "", default: 0] += 1 }
        #expect(Dictionary(uniqueKeysWithValues: countries.map { ($0.id.rawValue, $0.count) })
                == Dictionary(uniqueKeysWithValues: byCountry.map { ("place." + $0.key, $0.value) }))
        for country in countries {
            var options = FetchOptions()
            options.country = country.title
            #expect(try library.blocking.countAssets(options).total == country.count, "\(country.title)")
            #expect(country.parentID == places.id)
            // Regions by GeoNames' admin1 code; they share the country's photos out between them.
            let regions = try library.blocking.fetchAlbums(in: country.id)
            #expect(regions.reduce(0) { $0 + $1.count } == country.count)
            for region in regions {
                let code = try #require(country.id.rawValue.split(separator: ".").last)
                let expected = reference.values.filter { $0.countryCode == String(code) && "\(country.id).\($0.regionCode ?? "-")" == region.id.rawValue }
                #expect(region.count == expected.count && region.title == expected.first?.region, "\(region.id)")
                // Cities by GeoNames id, each as --place finds it within the region.
                for city in try library.blocking.fetchAlbums(in: region.id) {
                    let inCity = expected.filter { "\(region.id).\($0.geonameId ?? 0)" == city.id.rawValue }
                    #expect(city.count == inCity.count && city.title == inCity.first?.locality, "\(city.id)")
                    options = FetchOptions()
                    options.album = city.scope
                    #expect(try library.blocking.fetchAssets(options).assets.allSatisfy { $0.place?.locality == city.title })
                    #expect(try library.blocking.fetchAlbums(in: city.id).isEmpty)
                }
            }
        }
        // The identifiers name the same scope through the album argument, as `assets --album` takes it.
        #expect(try library.blocking.albumScope(named: "place.JP") == .place(PlaceAlbum(countryCode: "JP")))
        #expect(throws: AssetQueryError.self) { try library.blocking.fetchAlbums(in: AlbumScope.smart(.recents).id) }
    }

    @Test("place album identifiers round-trip and refuse what is not one")
    func identifiers() {
        for text in ["place", "place.JP", "place.JP.40", "place.US.CA.5391959", "place.FR.-"] {
            #expect(Album.ID(text)?.rawValue == text && Album.ID(text)?.kind == .place, "\(text)")
        }
        for text in ["place.", "place.jp", "place.JPN", "place.JP..1", "place.JP.40.x", "place.JP.40.1.2", "places"] {
            #expect(Album.ID(text) == nil, "\(text)")
        }
    }
}
