/// The few facts about a HEIF file's items that decoding its primary HEVC image without
/// libheif needs: item types and data, `dimg` references, properties in order, from a
/// file held in memory.
///
/// Why our own reading: libheif 1.15 hands out handles for top-level images only, never
/// for grid tiles, and assembles every grid at full size. Reading the boxes here lets
/// `HEIFDirectDecoder` feed each tile to libde265 and shrink it straight away.
/// Anything unexpected fails (nil or a thrown error): the caller then uses libheif.
struct HEIFItems {
    struct Item {
        var type: String
        /// Byte ranges of the item's data, in order, in the file or (`inItemData`) in `idat`.
        var extents: [Range<Int>] = []
        var inItemData = false
        var isProtected = false
    }

    struct Malformed: Error {}

    private(set) var primary: UInt32 = 0
    private(set) var items: [UInt32: Item] = [:]
    /// `ipco`'s boxes: type and payload range in the file.
    private(set) var properties: [(type: String, payload: Range<Int>)] = []
    /// Each item's 1-based property indices, in `ipma` order.
    private(set) var associations: [UInt32: [Int]] = [:]
    /// `dimg` references: a derived image's inputs, in order.
    private(set) var derivedFrom: [UInt32: [UInt32]] = [:]
    private(set) var itemData: Range<Int>?
    let file: UnsafeBufferPointer<UInt8>

    /// Caps on counts read from the file: far above any camera's, far below harm.
    static let maximumItems = 4096, maximumExtents = 64, maximumBoxes = 10_000

    init(_ file: UnsafeBufferPointer<UInt8>) throws {
        self.file = file
        guard let meta = try Self.boxes(in: file, 0..<file.count).first(where: { $0.type == "meta" }),
              meta.payload.count > 4 else { throw Malformed() }
        var sawPrimary = false
        for box in try Self.boxes(in: file, (meta.payload.lowerBound + 4)..<meta.payload.upperBound) {
            var reader = Reader(file: file, range: box.payload)
            switch box.type {
            case "pitm":
                let version = try reader.u8(); try reader.skip(3)
                primary = version == 0 ? UInt32(try reader.u16()) : try reader.u32()
                sawPrimary = true
            case "iinf": try readItemInfo(box.payload)
            case "iloc": try readLocations(&reader)
            case "iref": try readReferences(box.payload)
            case "iprp": try readProperties(box.payload)
            case "idat": itemData = box.payload
            default: break
            }
        }
        guard sawPrimary, items[primary] != nil else { throw Malformed() }
    }

    /// The properties of `item`, in order: type and payload.
    func properties(of item: UInt32) -> [(type: String, payload: Range<Int>)] {
        (associations[item] ?? []).compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil }
    }

    /// The item's data as byte ranges of the file (`idat` extents translated).
    func dataRanges(of id: UInt32) throws -> [Range<Int>] {
        guard let item = items[id], !item.isProtected else { throw Malformed() }
        guard item.inItemData else {
            // Checked here too: a later `iloc` entry for the same item (fuzzing found
            // one) must not hand out a range past the end of the file.
            guard item.extents.allSatisfy({ $0.lowerBound >= 0 && $0.upperBound <= file.count }) else {
                throw Malformed()
            }
            return item.extents
        }
        guard let itemData else { throw Malformed() }
        return try item.extents.map { extent in
            guard extent.upperBound <= itemData.count else { throw Malformed() }
            return (itemData.lowerBound + extent.lowerBound)..<(itemData.lowerBound + extent.upperBound)
        }
    }

    // MARK: - Boxes

    static func boxes(in file: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws -> [(type: String, payload: Range<Int>)] {
        var found: [(type: String, payload: Range<Int>)] = []
        var position = range.lowerBound
        while range.upperBound - position >= 8, found.count < maximumBoxes {
            var reader = Reader(file: file, range: position..<range.upperBound)
            var size = Int(try reader.u32())
            let type = try reader.fourCC()
            var header = 8
            if size == 1 {
                let large = try reader.u64()
                guard large <= UInt64(Int.max) else { throw Malformed() }
                size = Int(large); header = 16
            } else if size == 0 {
                size = range.upperBound - position
            }
            guard size >= header, size <= range.upperBound - position else { throw Malformed() }
            found.append((type, (position + header)..<(position + size)))
            position += size
        }
        return found
    }

    private mutating func readItemInfo(_ payload: Range<Int>) throws {
        var reader = Reader(file: file, range: payload)
        let version = try reader.u8(); try reader.skip(3)
        _ = version == 0 ? Int(try reader.u16()) : Int(try reader.u32())
        let start = payload.lowerBound + reader.offset
        for box in try Self.boxes(in: file, start..<payload.upperBound).prefix(Self.maximumItems) where box.type == "infe" {
            var entry = Reader(file: file, range: box.payload)
            let entryVersion = try entry.u8(); try entry.skip(3)
            guard entryVersion >= 2 else { continue }
            let id = entryVersion == 2 ? UInt32(try entry.u16()) : try entry.u32()
            let protection = try entry.u16()
            let type = try entry.fourCC()
            var item = items[id] ?? Item(type: type)
            item.type = type
            item.isProtected = protection != 0
            items[id] = item
        }
    }

    private mutating func readLocations(_ reader: inout Reader) throws {
        let version = try reader.u8(); try reader.skip(3)
        guard version <= 2 else { throw Malformed() }
        let sizes = try reader.u8(), more = try reader.u8()
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseSize = Int(more >> 4)
        let indexSize = version >= 1 ? Int(more & 15) : 0
        let count = version < 2 ? Int(try reader.u16()) : Int(try reader.u32())
        guard count <= Self.maximumItems else { throw Malformed() }
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try reader.u16()) : try reader.u32()
            let method = version >= 1 ? Int(try reader.u16() & 15) : 0
            try reader.skip(2)  // data_reference_index
            let base = try reader.uint(baseSize)
            let extentCount = Int(try reader.u16())
            guard extentCount <= Self.maximumExtents else { throw Malformed() }
            var extents: [Range<Int>] = []
            for _ in 0..<extentCount {
                _ = try reader.uint(indexSize)
                let offset = try reader.uint(offsetSize), length = try reader.uint(lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow, length > 0, start <= Int.max / 2, length <= Int.max / 2 else { throw Malformed() }
                extents.append(Int(start)..<(Int(start) + Int(length)))
            }
            var item = items[id] ?? Item(type: "")
            item.extents = extents
            item.inItemData = method == 1
            if method == 0 {
                guard extents.allSatisfy({ $0.upperBound <= file.count }) else { throw Malformed() }
            } else if method != 1 {
                item.isProtected = true  // construction method 2 (item offsets): left to libheif
            }
            items[id] = item
        }
    }

    private mutating func readReferences(_ payload: Range<Int>) throws {
        var reader = Reader(file: file, range: payload)
        let version = try reader.u8(); try reader.skip(3)
        for box in try Self.boxes(in: file, (payload.lowerBound + 4)..<payload.upperBound) where box.type == "dimg" {
            var entry = Reader(file: file, range: box.payload)
            let from = version == 0 ? UInt32(try entry.u16()) : try entry.u32()
            let count = Int(try entry.u16())
            guard count <= Self.maximumItems else { throw Malformed() }
            var to: [UInt32] = []
            for _ in 0..<count { to.append(version == 0 ? UInt32(try entry.u16()) : try entry.u32()) }
            derivedFrom[from] = to
        }
    }

    private mutating func readProperties(_ payload: Range<Int>) throws {
        for box in try Self.boxes(in: file, payload) {
            if box.type == "ipco" {
                properties = try Self.boxes(in: file, box.payload)
            } else if box.type == "ipma" {
                var reader = Reader(file: file, range: box.payload)
                let version = try reader.u8(); try reader.skip(2)
                let flags = try reader.u8()
                let count = Int(try reader.u32())
                guard count <= Self.maximumItems else { throw Malformed() }
                for _ in 0..<count {
                    let id = version < 1 ? UInt32(try reader.u16()) : try reader.u32()
                    let associationCount = Int(try reader.u8())
                    var indices: [Int] = []
                    for _ in 0..<associationCount {
                        indices.append(flags & 1 != 0 ? Int(try reader.u16() & 0x7FFF) : Int(try reader.u8() & 0x7F))
                    }
                    associations[id, default: []].append(contentsOf: indices)
                }
            }
        }
    }

    /// Big-endian reads within a range of the file; running past it throws.
    struct Reader {
        let file: UnsafeBufferPointer<UInt8>
        let range: Range<Int>
        private(set) var offset = 0

        init(file: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
            self.file = file
            self.range = range.clamped(to: 0..<file.count)
        }

        mutating func skip(_ count: Int) throws {
            guard count >= 0, count <= range.count - offset else { throw Malformed() }
            offset += count
        }

        mutating func uint(_ bytes: Int) throws -> UInt64 {
            guard bytes <= range.count - offset, bytes <= 8 else { throw Malformed() }
            var value: UInt64 = 0
            for i in 0..<bytes { value = value << 8 | UInt64(file[range.lowerBound + offset + i]) }
            offset += bytes
            return value
        }

        mutating func u8() throws -> UInt8 { UInt8(try uint(1)) }
        mutating func u16() throws -> UInt16 { UInt16(try uint(2)) }
        mutating func u32() throws -> UInt32 { UInt32(try uint(4)) }
        mutating func u64() throws -> UInt64 { try uint(8) }

        mutating func fourCC() throws -> String {
            let value = try u32()
            let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
            return String(decoding: bytes, as: Unicode.ASCII.self)
        }
    }
}
