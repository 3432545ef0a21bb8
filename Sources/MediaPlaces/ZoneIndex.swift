/// The time-zone polygons of a places file: which zone holds a coordinate.
///
/// A 360 × 180 grid of one-degree squares, each a quadtree reference (two type bits, thirty of
/// index): a zone leaf names one zone for the whole square; a node has four children (south-west,
/// south-east, north-west, north-east); a geometry leaf holds the zones' polygons clipped to its
/// square, with vertices as 16-bit fractions of it, and a default zone for the rest of the square.
struct ZoneIndex: Sendable {
    private let file: PlacesFile
    private let roots: Range<Int>
    private let nodes: Range<Int>
    private let leaves: Range<Int>
    private let geometry: Range<Int>
    /// IANA names, by zone number.
    let names: [String]
    /// ISO 3166 country of each zone (tzdata's zone.tab), by zone number; nil for the sea's Etc zones.
    let countries: [String?]

    init(file: PlacesFile) throws {
        self.file = file
        roots = try file.section("ROOT")
        nodes = try file.section("NODE")
        leaves = try file.section("LEAF")
        geometry = try file.section("GEOM")
        guard roots.count == 360 * 180 * 4, nodes.count % 16 == 0, leaves.count % 4 == 0 else {
            throw PlacesFileError.damaged(path: file.path, reason: "its zone grid has the wrong size")
        }
        var names: [String] = [], countries: [String?] = []
        for line in try file.text("ZONE").split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            names.append(String(fields[0]))
            countries.append(fields.count > 1 && !fields[1].isEmpty ? String(fields[1]) : nil)
        }
        self.names = names
        self.countries = countries
    }

    /// The zone number holding the point, or nil when the file has none there (or is damaged there).
    func zone(latitude: Double, longitude: Double) -> Int? {
        let column = min(359, max(0, Int((longitude + 180).rounded(.down))))
        let row = min(179, max(0, Int((latitude + 90).rounded(.down))))
        var reference = file.u32(at: roots.lowerBound + (row * 360 + column) * 4)
        var west = Double(column - 180), south = Double(row - 90), side = 1.0
        for _ in 0..<32 {
            let index = Int(reference & 0x3FFF_FFFF)
            switch reference >> 30 {
            case 0:
                return index < names.count ? index : nil
            case 1:
                guard (index + 1) * 16 <= nodes.count else { return nil }
                side /= 2
                let east = longitude >= west + side, north = latitude >= south + side
                if east { west += side }
                if north { south += side }
                reference = file.u32(at: nodes.lowerBound + index * 16 + (north ? 8 : 0) + (east ? 4 : 0))
            case 2:
                guard (index + 1) * 4 <= leaves.count else { return nil }
                let x = (longitude - west) / side * 65535, y = (latitude - south) / side * 65535
                return leafZone(Int(file.u32(at: leaves.lowerBound + index * 4)), x: x, y: y)
            default:
                return nil
            }
        }
        return nil
    }

    /// Tests the point against each polygon of a geometry leaf (even-odd over all its rings).
    private func leafZone(_ start: Int, x: Double, y: Double) -> Int? {
        var cursor = geometry.lowerBound + start
        guard start >= 0, cursor + 4 <= geometry.upperBound else { return nil }
        let fallback = Int(file.u16(at: cursor)), polygons = Int(file.u16(at: cursor + 2))
        cursor += 4
        for _ in 0..<polygons {
            guard cursor + 4 <= geometry.upperBound else { return nil }
            let zone = Int(file.u16(at: cursor)), rings = Int(file.u16(at: cursor + 2))
            cursor += 4
            var inside = false
            for _ in 0..<rings {
                guard cursor + 2 <= geometry.upperBound else { return nil }
                let count = Int(file.u16(at: cursor))
                cursor += 2
                guard count > 0, cursor + count * 4 <= geometry.upperBound else { return nil }
                if ringCrossings(at: cursor, count: count, x: x, y: y) { inside.toggle() }
                cursor += count * 4
            }
            if inside { return zone < names.count ? zone : nil }
        }
        return fallback < names.count ? fallback : nil
    }

    /// Whether a ray from the point towards +x crosses the ring an odd number of times.
    private func ringCrossings(at start: Int, count: Int, x: Double, y: Double) -> Bool {
        var odd = false
        var previousX = Double(file.u16(at: start + (count - 1) * 4))
        var previousY = Double(file.u16(at: start + (count - 1) * 4 + 2))
        for vertex in 0..<count {
            let currentX = Double(file.u16(at: start + vertex * 4)), currentY = Double(file.u16(at: start + vertex * 4 + 2))
            if (currentY > y) != (previousY > y),
               x < (previousX - currentX) * (y - currentY) / (previousY - currentY) + currentX {
                odd.toggle()
            }
            previousX = currentX
            previousY = currentY
        }
        return odd
    }
}
