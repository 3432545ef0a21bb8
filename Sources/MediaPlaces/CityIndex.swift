import Foundation

/// A populated place of the places file (GeoNames cities500).
struct City: Sendable, Hashable {
    let latitude: Double
    let longitude: Double
    let geonameID: Int
    let population: Int
    let name: String
    let countryIndex: Int
    let regionIndex: Int?
    let subregionIndex: Int?
}

/// The cities of a places file, sorted by a 0.2-degree grid, with their names and region tables.
///
/// A record is 32 bytes: i32 latitude and longitude (10⁻⁷ degrees), u32 GeoNames id, u32 population,
/// u32 name offset, u16 name length, u16 country, u32 region and u32 subregion (0xFFFFFFFF: none).
struct CityIndex: Sendable {
    static let recordSize = 32
    static let cellDegrees = 0.2
    static let columns = 1800, rows = 900
    /// Farther than this from every locality, a point is named by its country alone.
    static let searchRadiusKilometres = 30.0
    /// A place's radius in the score: 1 km, growing with the square root of its population to this.
    static let largestRadiusKilometres = 12.0

    private let file: PlacesFile
    private let records: Range<Int>
    private let names: Range<Int>
    private let grid: Range<Int>
    let count: Int
    /// ISO 3166-1 code and English name, by country index.
    let countries: [(code: String, name: String)]
    /// Country code, GeoNames admin1 code and English name, by region index.
    let regions: [(country: String, code: String, name: String)]
    let subregions: [String]

    init(file: PlacesFile) throws {
        self.file = file
        records = try file.section("CITY")
        names = try file.section("CNAM")
        grid = try file.section("CGRD")
        count = records.count / Self.recordSize
        guard records.count % Self.recordSize == 0, grid.count == (Self.columns * Self.rows + 1) * 4,
              Int(file.u32(at: grid.upperBound - 4)) == count else {
            throw PlacesFileError.damaged(path: file.path, reason: "its city table and grid disagree")
        }
        countries = try file.text("CTRY").split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", maxSplits: 1)
            return (String(fields[0]), String(fields.count > 1 ? fields[1] : fields[0]))
        }
        regions = try file.text("REGN").split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return ("", "", String(line)) }
            return (String(fields[0]), String(fields[1]), String(fields[2]))
        }
        subregions = try file.text("SUBR").split(separator: "\n").map(String.init)
    }

    /// The country index of an ISO code, if the file lists it.
    func countryIndex(code: String) -> Int? {
        countries.firstIndex { $0.code == code }
    }

    /// The locality a point belongs to: among the places within 30 km in `country` (any country when
    /// nil), the one with the smallest distance measured in its own radius (larger towns reach
    /// farther), or nil when there is none.
    func locality(latitude: Double, longitude: Double, country: Int?) -> City? {
        let latitudeReach = Self.searchRadiusKilometres / 111.2
        let cosine = max(cos(latitude * .pi / 180), 0.01)
        let longitudeReach = min(180, latitudeReach / cosine)
        let firstRow = max(0, Int(((latitude - latitudeReach + 90) / Self.cellDegrees).rounded(.down)))
        let lastRow = min(Self.rows - 1, Int(((latitude + latitudeReach + 90) / Self.cellDegrees).rounded(.down)))
        guard firstRow <= lastRow else { return nil }
        let firstColumn = Int(((longitude - longitudeReach + 180) / Self.cellDegrees).rounded(.down))
        let lastColumn = Int(((longitude + longitudeReach + 180) / Self.cellDegrees).rounded(.down))
        let columnSpan = min(Self.columns - 1, lastColumn - firstColumn)
        // Nearest cells first; a cell whose nearest edge is farther than the best score times the
        // largest radius (12 km) cannot hold a better place, nor can any cell after it.
        var cells: [(cell: Int, kilometres: Double)] = []
        cells.reserveCapacity((lastRow - firstRow + 1) * (columnSpan + 1))
        for row in firstRow...lastRow {
            let south = Double(row) * Self.cellDegrees - 90
            let north = latitude < south ? south - latitude : max(0, latitude - south - Self.cellDegrees)
            for step in 0...columnSpan {
                let west = Double(firstColumn + step) * Self.cellDegrees - 180
                let east = longitude < west ? west - longitude : max(0, longitude - west - Self.cellDegrees)
                let column = ((firstColumn + step) % Self.columns + Self.columns) % Self.columns
                cells.append((row * Self.columns + column, ((north * 111.2) * (north * 111.2)
                    + (east * 111.2 * cosine) * (east * 111.2 * cosine)).squareRoot()))
            }
        }
        cells.sort { $0.kilometres < $1.kilometres }
        var best: (record: Int, score: Double)?
        for (cell, kilometres) in cells {
            if let best, kilometres / Self.largestRadiusKilometres >= best.score { break }
            let start = Int(file.u32(at: grid.lowerBound + cell * 4))
            let end = min(count, Int(file.u32(at: grid.lowerBound + cell * 4 + 4)))
            guard start < end else { continue }
            for record in start..<end {
                guard let score = score(record, latitude: latitude, longitude: longitude,
                                        cosine: cosine, country: country) else { continue }
                if best == nil || score < best!.score { best = (record, score) }
            }
        }
        return best.flatMap { city(at: $0.record) }
    }

    /// Distance over the place's radius (1 km, growing with the square root of its population to
    /// 12 km), or nil when the place is farther than 30 km or in another country.
    private func score(_ record: Int, latitude: Double, longitude: Double, cosine: Double, country: Int?) -> Double? {
        let offset = records.lowerBound + record * Self.recordSize
        if let country, Int(file.u16(at: offset + 22)) != country { return nil }
        let cityLatitude = Double(file.i32(at: offset)) / 1e7
        let northKilometres = (cityLatitude - latitude) * 111.2
        guard abs(northKilometres) <= Self.searchRadiusKilometres else { return nil }
        var longitudeDifference = Double(file.i32(at: offset + 4)) / 1e7 - longitude
        if longitudeDifference > 180 { longitudeDifference -= 360 }
        if longitudeDifference < -180 { longitudeDifference += 360 }
        let eastKilometres = longitudeDifference * 111.2 * cosine
        let distance = (northKilometres * northKilometres + eastKilometres * eastKilometres).squareRoot()
        guard distance <= Self.searchRadiusKilometres else { return nil }
        let population = Double(file.u32(at: offset + 12))
        let radius = min(Self.largestRadiusKilometres, max(1, 0.02 * population.squareRoot()))
        return distance / radius
    }

    /// The city record at an index, or nil when its fields point outside the file.
    func city(at record: Int) -> City? {
        guard record >= 0, record < count else { return nil }
        let offset = records.lowerBound + record * Self.recordSize
        let nameOffset = Int(file.u32(at: offset + 16)), nameLength = Int(file.u16(at: offset + 20))
        let countryIndex = Int(file.u16(at: offset + 22))
        let region = file.u32(at: offset + 24), subregion = file.u32(at: offset + 28)
        guard nameOffset <= names.count - nameLength, countryIndex < countries.count,
              let name = file.string(at: names.lowerBound + nameOffset, length: nameLength) else { return nil }
        return City(latitude: Double(file.i32(at: offset)) / 1e7, longitude: Double(file.i32(at: offset + 4)) / 1e7,
                    geonameID: Int(file.u32(at: offset + 8)), population: Int(file.u32(at: offset + 12)),
                    name: name, countryIndex: countryIndex,
                    regionIndex: Int(region) < regions.count ? Int(region) : nil,
                    subregionIndex: Int(subregion) < subregions.count ? Int(subregion) : nil)
    }
}
