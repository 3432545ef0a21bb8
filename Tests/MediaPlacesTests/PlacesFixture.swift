import Foundation
@testable import MediaPlaces

/// Writes small places files in the format `scripts/build-places-data.py` writes, for tests that
/// need known polygons and cities rather than the real data.
struct PlacesFixture {
    struct Square {
        /// The one-degree cell (south-west corner) the square lies in, and its zone.
        var cellLatitude: Int, cellLongitude: Int, zone: Int
        /// Its corners as fractions (0…1) of the cell: west, south, east, north.
        var west: Double, south: Double, east: Double, north: Double
    }
    struct FixtureCity {
        var name: String, latitude: Double, longitude: Double, population: Int, country: Int, region: Int?
        var geonameID: Int
    }

    /// Zones by number: name and country code ("" for the sea).
    var zones: [(String, String)] = [("Etc/GMT", ""), ("Europe/Paris", "FR"), ("Europe/Zurich", "CH")]
    /// Every cell is this zone unless a square says otherwise.
    var backgroundZone = 0
    var squares: [Square] = []
    var countries: [(String, String)] = [("CH", "Switzerland"), ("FR", "France")]
    var regions: [(String, String, String)] = [("FR", "84", "Auvergne-Rhône-Alpes"), ("CH", "GE", "Geneva")]
    var cities: [FixtureCity] = []
    var meta = #"{"format": 1, "cities": "fixture"}"#

    /// The file's bytes.
    func bytes() -> [UInt8] { Self.assemble(sections()) }

    /// The file's sections, by tag, in file order.
    func sections() -> [(String, [UInt8])] {
        var roots = [UInt32](repeating: UInt32(backgroundZone), count: 360 * 180)
        var leaves: [UInt32] = [], geometry: [UInt8] = []
        for (cell, group) in Dictionary(grouping: squares, by: { ($0.cellLatitude + 90) * 360 + $0.cellLongitude + 180 }) {
            leaves.append(UInt32(geometry.count))
            geometry += le16(backgroundZone) + le16(group.count)
            for square in group {
                let corners = [(square.west, square.south), (square.east, square.south), (square.east, square.north), (square.west, square.north)]
                geometry += le16(square.zone) + le16(1) + le16(4)
                for (x, y) in corners { geometry += le16(Int((x * 65535).rounded())) + le16(Int((y * 65535).rounded())) }
            }
            roots[cell] = (2 << 30) | UInt32(leaves.count - 1)
        }
        let (records, names, grid) = cityTables()
        let sections: [(String, [UInt8])] = [
            ("META", Array(meta.utf8)),
            ("ZONE", Array(zones.map { "\($0.0)\t\($0.1)\n" }.joined().utf8)),
            ("ROOT", roots.flatMap(le32)), ("NODE", []), ("LEAF", leaves.flatMap(le32)), ("GEOM", geometry),
            ("CTRY", Array(countries.map { "\($0.0)\t\($0.1)\n" }.joined().utf8)),
            ("REGN", Array(regions.map { "\($0.0)\t\($0.1)\t\($0.2)\n" }.joined().utf8)),
            ("SUBR", []), ("CITY", records), ("CNAM", names), ("CGRD", grid),
        ]
        return sections
    }

    private func cityTables() -> ([UInt8], [UInt8], [UInt8]) {
        func cell(_ city: FixtureCity) -> Int {
            let column = min(1799, Int((city.longitude + 180) / 0.2)), row = min(899, Int((city.latitude + 90) / 0.2))
            return row * 1800 + column
        }
        let sorted = cities.sorted { cell($0) < cell($1) }
        var records: [UInt8] = [], names: [UInt8] = []
        var counts = [UInt32](repeating: 0, count: 1800 * 900 + 1)
        for city in sorted {
            counts[cell(city) + 1] += 1
            let name = Array(city.name.utf8)
            records += le32(UInt32(bitPattern: Int32((city.latitude * 1e7).rounded())))
            records += le32(UInt32(bitPattern: Int32((city.longitude * 1e7).rounded())))
            records += le32(UInt32(city.geonameID)) + le32(UInt32(city.population)) + le32(UInt32(names.count))
            records += le16(name.count) + le16(city.country) + le32(city.region.map(UInt32.init) ?? .max) + le32(.max)
            names += name
        }
        for index in 1..<counts.count { counts[index] += counts[index - 1] }
        return (records, names, counts.flatMap(le32))
    }

    /// Header, section table, checksum and padded sections, as the builder lays them out.
    static func assemble(_ sections: [(String, [UInt8])]) -> [UInt8] {
        let headerSize = 16 + 24 * sections.count + 8
        let bodyStart = (headerSize + 7) / 8 * 8
        var table: [UInt8] = [], body: [UInt8] = []
        for (tag, bytes) in sections {
            table += Array(tag.utf8) + le32(0) + le64(UInt64(bodyStart + body.count)) + le64(UInt64(bytes.count))
            body += bytes + [UInt8](repeating: 0, count: (8 - bytes.count % 8) % 8)
        }
        var header = Array("MIPLACES".utf8) + le32(1) + le32(UInt32(sections.count)) + table
        header += [UInt8](repeating: 0, count: bodyStart - 8 - header.count)
        return header + le64(checksum(body)) + body
    }

    static func checksum(_ body: [UInt8]) -> UInt64 {
        var sum: UInt64 = 0, factor: UInt64 = 1
        for start in stride(from: 0, to: body.count, by: 8) {
            var word: UInt64 = 0
            for byte in 0..<8 { word |= UInt64(body[start + byte]) << (8 * UInt64(byte)) }
            sum &+= word &* factor
            factor &+= 2
        }
        return sum
    }

    /// Writes the file to a fresh temporary path and returns it.
    func write() throws -> String {
        try Self.write(bytes())
    }

    static func write(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "places-fixture-\(UUID().uuidString).mip"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) } }
