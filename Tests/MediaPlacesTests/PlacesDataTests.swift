import Foundation
import Testing
@testable import MediaPlaces

/// A fixture around Geneva: France's zone everywhere in cell 46°N 6°E except a square in its
/// north-east quarter that is Switzerland's; the sea elsewhere.
private func genevaFixture() -> PlacesFixture {
    var fixture = PlacesFixture()
    fixture.squares = [
        .init(cellLatitude: 46, cellLongitude: 6, zone: 1, west: 0, south: 0, east: 1, north: 0.5),
        .init(cellLatitude: 46, cellLongitude: 6, zone: 2, west: 0.5, south: 0.5, east: 1, north: 1),
        .init(cellLatitude: 46, cellLongitude: 6, zone: 1, west: 0, south: 0.5, east: 0.5, north: 1),
    ]
    fixture.cities = [
        .init(name: "Genève", latitude: 46.80, longitude: 6.80, population: 200_000, country: 0, region: 1, geonameID: 1),
        .init(name: "Village français", latitude: 46.79, longitude: 6.49, population: 600, country: 1, region: 0, geonameID: 2),
        .init(name: "Hameau", latitude: 46.70, longitude: 6.90, population: 500, country: 0, region: 1, geonameID: 3),
        .init(name: "Bourg", latitude: 46.20, longitude: 6.20, population: 3_000, country: 1, region: 0, geonameID: 4),
    ]
    return fixture
}

@Suite("PlacesData: place and zone from a places file")
struct PlacesDataTests {
    @Test("takes the country from the boundary, not from the nearest place across it")
    func countryFromBoundary() throws {
        let path = try genevaFixture().write()
        defer { unlink(path) }
        let places = try PlacesData(path: path)
        // 1.5 km east of the French village, inside the Swiss square: the village is nearer than Genève.
        let lookup = places.lookup(try Coordinate(latitude: 46.79, longitude: 6.51))
        #expect(lookup.timeZone == "Europe/Zurich")
        #expect(lookup.place.countryCode == "CH")
        #expect(lookup.place.country == "Switzerland")
        #expect(lookup.place.locality == "Genève")
        #expect(lookup.place.region == "Geneva")
        #expect(lookup.place.regionCode == "GE")
        #expect(lookup.place.geonameId == 1)
    }

    @Test("weights places by population: equally far from a town and a hamlet, the town; at the hamlet, the hamlet")
    func populationWeighted() throws {
        let path = try genevaFixture().write()
        defer { unlink(path) }
        let places = try PlacesData(path: path)
        let lookup = places.lookup(try Coordinate(latitude: 46.75, longitude: 6.85))
        #expect(lookup.place.locality == "Genève")
        let atHamlet = places.lookup(try Coordinate(latitude: 46.701, longitude: 6.901))
        #expect(atHamlet.place.locality == "Hameau")
    }

    @Test("more than 30 km from any place of the country gives the country alone; the sea gives 'At sea'")
    func countryAloneAndSea() throws {
        let path = try genevaFixture().write()
        defer { unlink(path) }
        let places = try PlacesData(path: path)
        let empty = places.lookup(try Coordinate(latitude: 46.1, longitude: 6.95))
        #expect(empty.timeZone == "Europe/Paris")
        #expect(empty.place == Place(name: "France", country: "France", countryCode: "FR"))
        let sea = places.lookup(try Coordinate(latitude: 40.5, longitude: -30.5))
        #expect(sea.atSea)
        #expect(sea.place == Place(name: "At sea"))
        #expect(sea.timeZone == "Etc/GMT")
    }

    @Test("refuses 0,0, NaN and out-of-range positions with a reason")
    func badPositions() {
        #expect(throws: Coordinate.Problem.nullIsland) { try Coordinate(latitude: 0, longitude: 0) }
        #expect(throws: Coordinate.Problem.notANumber) { try Coordinate(latitude: .nan, longitude: 3) }
        #expect(throws: Coordinate.Problem.outOfRange(latitude: 91, longitude: 3)) { try Coordinate(latitude: 91, longitude: 3) }
        #expect((try? Coordinate(latitude: 0, longitude: 0, allowingNullIsland: true)) != nil)
    }
}

@Suite("PlacesFile: damaged and foreign files are refused with a sentence naming them")
struct PlacesFileRefusalTests {
    @Test("a missing file says places are off")
    func missing() {
        #expect(throws: PlacesFileError.missing(path: "/nonexistent/places.mip")) {
            try PlacesData(path: "/nonexistent/places.mip")
        }
        #expect(PlacesFileError.missing(path: "/x").description.contains("places are off"))
    }

    @Test("a JPEG is a foreign file")
    func foreign() throws {
        let path = try PlacesFixture.write([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 60))
        defer { unlink(path) }
        #expect(throws: PlacesFileError.foreign(path: path)) { try PlacesData(path: path) }
        #expect(PlacesFileError.foreign(path: path).description.contains(path))
    }

    @Test("one flipped byte anywhere in the body fails the checksum")
    func flippedByte() throws {
        var bytes = genevaFixture().bytes()
        bytes[bytes.count - 3_000_000] ^= 0x10
        let path = try PlacesFixture.write(bytes)
        defer { unlink(path) }
        #expect(throws: PlacesFileError.damaged(path: path, reason: "its checksum does not match")) {
            try PlacesData(path: path)
        }
    }

    @Test("a cut-short file and a file of another format are refused")
    func truncatedAndOtherFormat() throws {
        let bytes = genevaFixture().bytes()
        let cut = try PlacesFixture.write(Array(bytes.prefix(bytes.count / 2)))
        defer { unlink(cut) }
        #expect(throws: PlacesFileError.damaged(path: cut, reason: "a section lies outside the file")) {
            try PlacesData(path: cut)
        }
        var later = bytes
        later[8] = 2
        let other = try PlacesFixture.write(later)
        defer { unlink(other) }
        #expect(throws: PlacesFileError.unsupportedFormat(path: other, version: 2)) { try PlacesData(path: other) }
    }

    @Test("a leaf pointing outside its section answers no zone instead of reading past the file")
    func wildReference() throws {
        var fixture = genevaFixture()
        fixture.backgroundZone = 0x3FFF_FFF0
        let path = try fixture.write()
        defer { unlink(path) }
        let places = try PlacesData(path: path)
        #expect(places.timeZone(try Coordinate(latitude: 10.5, longitude: 10.5)) == nil)
    }
}

@Suite("PlacesData.checkHeader: whether places are installed, from the header alone")
struct PlacesHeaderCheckTests {
    @Test("a sound file passes; a missing, foreign, cut-short or other-format file is refused as opening refuses it")
    func refusesAsOpeningDoes() throws {
        let bytes = genevaFixture().bytes()
        let sound = try PlacesFixture.write(bytes)
        defer { unlink(sound) }
        try PlacesData.checkHeader(path: sound)
        #expect(throws: PlacesFileError.missing(path: "/nonexistent/places.mip")) {
            try PlacesData.checkHeader(path: "/nonexistent/places.mip")
        }
        let jpeg = try PlacesFixture.write([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 60))
        defer { unlink(jpeg) }
        #expect(throws: PlacesFileError.foreign(path: jpeg)) { try PlacesData.checkHeader(path: jpeg) }
        let tiny = try PlacesFixture.write(Array(bytes.prefix(12)))
        defer { unlink(tiny) }
        #expect(throws: PlacesFileError.foreign(path: tiny)) { try PlacesData.checkHeader(path: tiny) }
        let cut = try PlacesFixture.write(Array(bytes.prefix(bytes.count / 2)))
        defer { unlink(cut) }
        #expect(throws: PlacesFileError.damaged(path: cut, reason: "a section lies outside the file")) {
            try PlacesData.checkHeader(path: cut)
        }
        let table = try PlacesFixture.write(Array(bytes.prefix(40)))
        defer { unlink(table) }
        #expect(throws: PlacesFileError.damaged(path: table, reason: "its section table is cut short")) {
            try PlacesData.checkHeader(path: table)
        }
        var later = bytes
        later[8] = 2
        let other = try PlacesFixture.write(later)
        defer { unlink(other) }
        #expect(throws: PlacesFileError.unsupportedFormat(path: other, version: 2)) { try PlacesData.checkHeader(path: other) }
        #expect(throws: PlacesFileError.unreadable(path: "/tmp", reason: "it is not a regular file")) {
            try PlacesData.checkHeader(path: "/tmp")
        }
    }

    @Test("a body damaged past the header passes the header check; opening the data refuses it")
    func bodyIsLeftToOpening() throws {
        var bytes = genevaFixture().bytes()
        bytes[bytes.count - 3_000_000] ^= 0x10
        let path = try PlacesFixture.write(bytes)
        defer { unlink(path) }
        try PlacesData.checkHeader(path: path)
        #expect(throws: PlacesFileError.damaged(path: path, reason: "its checksum does not match")) {
            try PlacesData(path: path)
        }
    }
}

@Suite("PlacesData: a file whose checksum is right but whose contents are hostile")
struct HostilePlacesFileTests {
    @Test("random bytes in the tables (checksum recomputed) never crash or hang a look-up")
    func mutatedTables() throws {
        var fixture = genevaFixture()
        fixture.squares.append(.init(cellLatitude: 47, cellLongitude: 7, zone: 2, west: 0.1, south: 0.1, east: 0.9, north: 0.9))
        let sections = fixture.sections()
        var generator = SeededGenerator(seed: 31)
        let probes = try (0..<64).map { index in
            try Coordinate(latitude: 45.5 + Double(index % 8) * 0.25, longitude: 5.5 + Double(index / 8) * 0.25)
        }
        for _ in 0..<6 {
            var mutated = sections
            for _ in 0..<24 {
                let section = Int.random(in: 1..<mutated.count, using: &generator)
                guard !mutated[section].1.isEmpty else { continue }
                let range = mutated[section].1.count
                // Mostly near the start, where the tables that matter (root cells of 45-48°N, city records) lie.
                let position = Int.random(in: 0..<min(range, Int.random(in: 1...4) == 1 ? range : 4096), using: &generator)
                mutated[section].1[position] = UInt8.random(in: 0...255, using: &generator)
            }
            let path = try PlacesFixture.write(PlacesFixture.assemble(mutated))
            defer { unlink(path) }
            guard let places = try? PlacesData(path: path) else { continue }
            for probe in probes { _ = places.lookup(probe) }
        }
    }

    @Test("a quadtree node that points to itself ends the descent with no zone")
    func selfReferencingNode() throws {
        var sections = genevaFixture().sections()
        let cell = (46 + 90) * 360 + 6 + 180
        let nodeReference = le32((1 << 30) | 0)
        let rootIndex = try #require(sections.firstIndex { $0.0 == "ROOT" })
        sections[rootIndex].1.replaceSubrange(cell * 4..<cell * 4 + 4, with: nodeReference)
        let nodeIndex = try #require(sections.firstIndex { $0.0 == "NODE" })
        sections[nodeIndex].1 = Array(repeating: nodeReference, count: 4).flatMap { $0 }
        let path = try PlacesFixture.write(PlacesFixture.assemble(sections))
        defer { unlink(path) }
        let places = try PlacesData(path: path)
        #expect(places.timeZone(try Coordinate(latitude: 46.5, longitude: 6.5)) == nil)
    }
}

/// A small deterministic generator (SplitMix64), so a failing mutation can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
