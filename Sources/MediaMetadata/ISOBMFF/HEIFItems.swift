/// The item structure of a HEIF or AVIF file's `meta` box (ISO/IEC 23008-12): its items,
/// where their bytes are, their properties and how they reference each other.
///
/// The one reader of this structure: the metadata reader takes sizes, orientation and
/// metadata items from it, and the thumbnailer finds an HEVC image's tiles, parameter
/// sets and transforms in it. Counts and sizes read from the file are capped; parts that
/// cannot be read become `warnings`.
public struct HEIFItems: Sendable {
    /// One item: its type and where its bytes are.
    public struct Item: Sendable, Hashable {
        public let id: UInt32
        /// The item type as four characters (`hvc1`, `av01`, `grid`, `Exif`, `mime` …);
        /// empty when `iinf` does not list the item.
        public var type: String = ""
        /// The MIME type of a `mime` item (`application/rdf+xml` for XMP).
        public var contentType: String?
        /// Whether the item is protected (encrypted): its bytes are not usable as they are.
        public var isProtected = false
        /// 0: extents are file offsets; 1: offsets into `idat`; 2: item offsets (not read here).
        public var constructionMethod: UInt8 = 0
        /// The item's bytes, in order; a length of 0 runs to the end of the data.
        public var extents: [Extent] = []
    }

    /// A run of an item's bytes.
    public struct Extent: Sendable, Hashable {
        public var offset: UInt64
        public var length: UInt64
    }

    /// One property box of `ipco`: its type and payload (after the box header).
    public struct Property: Sendable, Hashable {
        /// The box type as four characters (`ispe`, `irot`, `imir`, `hvcC`, `colr` …).
        public let type: String
        /// The payload, including a full box's version and flags.
        public let payload: [UInt8]
    }

    /// A reference of `iref`: `from` refers to each of `to` in the way `type` says
    /// (`dimg` derivation, `thmb` thumbnail, `auxl` auxiliary image, `cdsc` description).
    public struct Reference: Sendable, Hashable {
        public let type: String
        public let from: UInt32
        public let to: [UInt32]

        public init(type: String, from: UInt32, to: [UInt32]) {
            self.type = type
            self.from = from
            self.to = to
        }
    }

    /// The rows and columns of a `grid` item and the size of the picture they make.
    public struct Grid: Sendable, Hashable {
        public var rows: Int
        public var columns: Int
        public var width: Int
        public var height: Int
    }

    /// A `meta` box larger than this is not read (typical: a few KB).
    public static let metaLimit = 16 << 20
    /// The most items, properties, references or extents kept.
    static let maxEntries = 100_000

    /// `hdlr`'s handler type: `pict` for an image.
    public internal(set) var handler: String?
    /// `pitm`'s primary item.
    public internal(set) var primaryID: UInt32?
    public internal(set) var items: [UInt32: Item] = [:]
    /// `ipco`'s properties, in order (associations count from 1).
    public internal(set) var properties: [Property] = []
    /// Each item's 1-based property indexes, in `ipma` order.
    public internal(set) var associations: [UInt32: [Int]] = [:]
    public internal(set) var references: [Reference] = []
    /// Where the `iref` box lies in the file (header included), when the `meta` box was
    /// read from a file, and its version (0: 16-bit item ids, 1: 32-bit).
    public internal(set) var referenceBox: (range: Range<UInt64>, version: UInt8)?
    /// Parts that could not be read, one sentence each.
    public internal(set) var warnings: [String] = []
    /// The payload of `idat`, and where it starts in the file (when read from a file).
    var itemData: [UInt8] = []
    var itemDataOffset: UInt64?

    init() {}

    /// Reads the top-level `meta` box of the HEIF or AVIF file in `source`.
    ///
    /// - Throws: `MetadataError` when the file has no readable top-level `meta` box, or
    ///   it is larger than `metaLimit`; parts that cannot be read become `warnings`.
    public static func read(_ source: ByteSource) throws -> HEIFItems {
        var boxes = BoxReader(source: source)
        let top = try boxes.boxes(from: 0, to: source.size, depth: 0, in: "the file")
        guard let meta = top.first("meta") else { throw MetadataError.malformed("the file has no 'meta' box") }
        return try read(meta: meta, boxes: &boxes)
    }

    /// Reads the `meta` box `meta` found by `boxes`.
    static func read(meta: BoxHeader, boxes: inout BoxReader) throws -> HEIFItems {
        guard let payload = try boxes.payload(of: meta, limit: metaLimit) else {
            throw MetadataError.malformed("the 'meta' box is larger than \(metaLimit) bytes")
        }
        var items = HEIFItems()
        try items.parse(metaPayload: payload, at: meta.payloadOffset)
        return items
    }

    mutating func warn(_ message: String) {
        if !warnings.contains(message), warnings.count < 50 { warnings.append(message) }
    }

    // MARK: Questions

    /// The properties associated with an item, in association order.
    public func properties(of id: UInt32) -> [Property] {
        (associations[id] ?? []).compactMap { index in
            index >= 1 && index <= properties.count ? properties[index - 1] : nil
        }
    }

    /// Items that reference `target` with a reference of `type` (`auxl`, `thmb`, `cdsc`).
    public func items(referencing target: UInt32, by type: String) -> [UInt32] {
        references.filter { $0.type == type && $0.to.contains(target) }.map(\.from)
    }

    /// The items `id` refers to by `type`, in order: a grid's tiles for `dimg`.
    public func referenced(from id: UInt32, by type: String) -> [UInt32] {
        references.first { $0.type == type && $0.from == id }?.to ?? []
    }

    /// An item's `ispe` size (before `irot`), when it has a usable one.
    public func spatialExtent(of id: UInt32) -> (width: Int, height: Int)? {
        for property in properties(of: id) {
            if case .size(let width, let height) = property.decoded, width > 0, height > 0 { return (width, height) }
        }
        return nil
    }

    /// The EXIF orientation (1–8) equal to the item's `irot` and `imir`, applied in
    /// association order; 1 when it has neither.
    public func orientation(of id: UInt32) -> Int {
        HEIFItems.orientation(applying: properties(of: id).map(\.decoded))
    }

    /// Whether the item has an `irot` or `imir` property (which govern its display).
    public func isTransformed(_ id: UInt32) -> Bool {
        properties(of: id).contains { $0.type == "irot" || $0.type == "imir" }
    }

    /// The bytes of an item, at most `limit`: its extents concatenated, read from the
    /// file (construction method 0) or from `idat` (method 1).
    ///
    /// - Throws: `MetadataError` when an extent lies outside the file or `idat`, the item
    ///   is larger than `limit`, or it is built in a way not read here.
    public func data(of id: UInt32, source: ByteSource, limit: Int) throws -> [UInt8] {
        guard let item = items[id] else { throw MetadataError.malformed("item \(id) is not listed") }
        guard item.constructionMethod <= 1 else {
            throw MetadataError.unsupported("item \(item.id) is built by construction method \(item.constructionMethod)")
        }
        var collected: [UInt8] = []
        for extent in try ranges(of: item, available: item.constructionMethod == 0 ? source.size : UInt64(itemData.count)) {
            guard UInt64(collected.count) + UInt64(extent.count) <= UInt64(limit) else {
                throw MetadataError.malformed("item \(item.id) is larger than \(limit) bytes")
            }
            if item.constructionMethod == 0 {
                collected += try source.readExactly(at: extent.lowerBound, count: extent.count)
            } else {
                collected += itemData[Int(extent.lowerBound)..<Int(extent.upperBound)]
            }
        }
        return collected
    }

    /// Where an item's bytes are in the file of `fileSize` bytes, in order (`idat`
    /// offsets translated), each range inside the file.
    ///
    /// - Throws: `MetadataError` when the item is protected, built by item offsets, or
    ///   an extent lies outside the file or `idat`.
    public func fileRanges(of id: UInt32, fileSize: UInt64) throws -> [Range<UInt64>] {
        guard let item = items[id] else { throw MetadataError.malformed("item \(id) is not listed") }
        guard !item.isProtected else { throw MetadataError.unsupported("item \(id) is protected") }
        switch item.constructionMethod {
        case 0:
            return try ranges(of: item, available: fileSize)
        case 1:
            guard let itemDataOffset, itemDataOffset + UInt64(itemData.count) <= fileSize else {
                throw MetadataError.malformed("item \(id) points into an 'idat' box that is not in the file")
            }
            return try ranges(of: item, available: UInt64(itemData.count)).map {
                (itemDataOffset + $0.lowerBound)..<(itemDataOffset + $0.upperBound)
            }
        default:
            throw MetadataError.unsupported("item \(item.id) is built by construction method \(item.constructionMethod)")
        }
    }

    /// The extents of `item` as ranges of data `available` bytes long.
    private func ranges(of item: Item, available: UInt64) throws -> [Range<UInt64>] {
        try item.extents.prefix(1000).map { extent in
            guard extent.offset < available else {
                throw MetadataError.malformed("item \(item.id) points at offset \(extent.offset), past the end of its data (\(available) bytes)")
            }
            // Length 0 means "to the end of the data".
            let length = extent.length == 0 ? available - extent.offset : extent.length
            guard length <= available - extent.offset else {
                throw MetadataError.truncated("item \(item.id) extends past the end of its data")
            }
            return extent.offset..<(extent.offset + length)
        }
    }

    /// A `grid` item's layout (ISO/IEC 23008-12 §6.6.2.3), nil when it is not one.
    public func grid(_ id: UInt32, source: ByteSource) -> Grid? {
        guard items[id]?.type == "grid", let data = try? data(of: id, source: source, limit: 64) else { return nil }
        return HEIFItems.grid(data)
    }

    static func grid(_ data: [UInt8]) -> Grid? {
        var cursor = ByteCursor(data, context: "image grid")
        guard let version = try? cursor.u8(), version == 0, let flags = try? cursor.u8(),
              let rows = try? cursor.u8(), let columns = try? cursor.u8() else { return nil }
        let wide = flags & 1 != 0
        guard let width = try? cursor.unsigned(byteCount: wide ? 4 : 2),
              let height = try? cursor.unsigned(byteCount: wide ? 4 : 2),
              width > 0, height > 0, width <= UInt64(Int32.max), height <= UInt64(Int32.max) else { return nil }
        return Grid(rows: Int(rows) + 1, columns: Int(columns) + 1, width: Int(width), height: Int(height))
    }

    /// The EXIF orientation equal to applying `irot` and `imir` in the listed order.
    ///
    /// Each transform is a 2×2 matrix on (x right, y down) display coordinates.
    static func orientation(applying transforms: [HEIFProperty]) -> Int {
        typealias Matrix = (Int, Int, Int, Int)  // row-major a b / c d
        func multiply(_ m: Matrix, _ n: Matrix) -> Matrix {
            (m.0 * n.0 + m.1 * n.2, m.0 * n.1 + m.1 * n.3, m.2 * n.0 + m.3 * n.2, m.2 * n.1 + m.3 * n.3)
        }
        let anticlockwise: Matrix = (0, 1, -1, 0)
        var total: Matrix = (1, 0, 0, 1)
        for transform in transforms {
            switch transform {
            case .rotation(let turns):
                for _ in 0..<(turns & 3) { total = multiply(anticlockwise, total) }
            case .mirror(let axis):
                // ISO/IEC 23008-12:2022 §6.5.12: axis 0 exchanges top and bottom, 1 left and right.
                total = multiply(axis == 0 ? (1, 0, 0, -1) : (-1, 0, 0, 1), total)
            default: break
            }
        }
        let table: [(Matrix, Int)] = [
            ((1, 0, 0, 1), 1), ((-1, 0, 0, 1), 2), ((-1, 0, 0, -1), 3), ((1, 0, 0, -1), 4),
            ((0, 1, 1, 0), 5), ((0, -1, 1, 0), 6), ((0, -1, -1, 0), 7), ((0, 1, -1, 0), 8),
        ]
        return table.first { $0.0 == total }?.1 ?? 1
    }

    // MARK: Parsing

    /// Parses the payload of a `meta` box (starting with its version and flags), which
    /// starts at `fileOffset` in the file.
    mutating func parse(metaPayload payload: [UInt8], at fileOffset: UInt64? = nil) throws {
        guard payload.count >= 4 else { throw MetadataError.truncated("the HEIF 'meta' box is empty") }
        var walker = BoxReader(source: MemoryByteSource(payload))
        let children = try walker.boxes(from: 4, to: UInt64(payload.count), depth: 1, in: "the 'meta' box")
        func bytes(_ box: BoxHeader) -> [UInt8] {
            Array(payload[Int(box.payloadOffset)..<Int(box.end)])
        }
        for box in children {
            do {
                switch box.type {
                case "hdlr":
                    var cursor = ByteCursor(bytes(box), context: "handler ('hdlr')")
                    try cursor.skip(8)
                    handler = try cursor.fourCC().description
                case "pitm":
                    var cursor = ByteCursor(bytes(box), context: "primary item ('pitm')")
                    let (version, _) = try cursor.fullBoxHeader()
                    primaryID = version == 0 ? UInt32(try cursor.u16()) : try cursor.u32()
                case "iinf": try parseItemInfo(bytes(box))
                case "iloc": try parseItemLocations(bytes(box))
                case "iprp": try parseProperties(bytes(box))
                case "iref":
                    try parseReferences(bytes(box))
                    if let fileOffset, let version = payload[Int(box.payloadOffset)...].first {
                        referenceBox = ((fileOffset + box.offset)..<(fileOffset + box.end), version)
                    }
                case "idat":
                    itemData = bytes(box)
                    itemDataOffset = fileOffset.map { $0 + box.payloadOffset }
                default: break
                }
            } catch let error as MetadataError {
                warn("the '\(box.type)' box could not be read completely (\(error))")
            }
        }
        warnings.append(contentsOf: walker.warnings)
    }

    private mutating func parseItemInfo(_ payload: [UInt8]) throws {
        var cursor = ByteCursor(payload, context: "item info ('iinf')")
        let (version, _) = try cursor.fullBoxHeader()
        _ = version == 0 ? UInt32(try cursor.u16()) : try cursor.u32()
        var walker = BoxReader(source: MemoryByteSource(payload))
        for entry in try walker.boxes(from: UInt64(cursor.position), to: UInt64(payload.count), depth: 2, in: "the 'iinf' box")
        where entry.type == "infe" {
            guard items.count < HEIFItems.maxEntries else { warn("more than \(HEIFItems.maxEntries) items; the rest were skipped"); break }
            var infe = ByteCursor(payload, from: Int(entry.payloadOffset), to: Int(entry.end), context: "item info entry ('infe')")
            let (entryVersion, _) = try infe.fullBoxHeader()
            let id: UInt32
            let type: String
            var contentType: String?
            let protectionIndex: UInt16
            if entryVersion >= 2 {
                id = entryVersion == 2 ? UInt32(try infe.u16()) : try infe.u32()
                protectionIndex = try infe.u16()
                type = try infe.fourCC().description
                _ = infe.cString()  // name
                if type == "mime" { contentType = infe.cString() }
            } else {
                id = UInt32(try infe.u16())
                protectionIndex = try infe.u16()
                _ = infe.cString()
                contentType = infe.cString()
                type = "mime"
            }
            var item = items[id] ?? Item(id: id)
            item.type = type
            item.contentType = contentType
            item.isProtected = protectionIndex != 0
            items[id] = item
        }
        warnings.append(contentsOf: walker.warnings)
    }

    private mutating func parseItemLocations(_ payload: [UInt8]) throws {
        var cursor = ByteCursor(payload, context: "item locations ('iloc')")
        let (version, _) = try cursor.fullBoxHeader()
        guard version <= 2 else { throw MetadataError.unsupported("'iloc' version \(version) is unknown") }
        let sizes = try cursor.u8(), more = try cursor.u8()
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0xF)
        let baseOffsetSize = Int(more >> 4), indexSize = version >= 1 ? Int(more & 0xF) : 0
        let count = version < 2 ? UInt32(try cursor.u16()) : try cursor.u32()
        // Extents of 0-byte fields take no room: the total is capped so none loops long.
        var extentBudget = HEIFItems.maxEntries
        for _ in 0..<min(count, UInt32(HEIFItems.maxEntries)) {
            let id = version < 2 ? UInt32(try cursor.u16()) : try cursor.u32()
            var method: UInt8 = 0
            if version >= 1 { method = UInt8(try cursor.u16() & 0xF) }
            try cursor.skip(2)  // data reference index
            let base = try cursor.unsigned(byteCount: baseOffsetSize)
            let extentCount = Int(try cursor.u16())
            guard extentCount <= extentBudget else {
                warn("'iloc' lists more than \(HEIFItems.maxEntries) extents; the rest were skipped")
                break
            }
            extentBudget -= extentCount
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                if indexSize > 0 { _ = try cursor.unsigned(byteCount: indexSize) }
                let offset = try cursor.unsigned(byteCount: offsetSize)
                let length = try cursor.unsigned(byteCount: lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                if !overflow, !start.addingReportingOverflow(length).overflow {
                    extents.append(Extent(offset: start, length: length))
                }
            }
            var item = items[id] ?? Item(id: id)
            item.constructionMethod = method
            item.extents = extents
            items[id] = item
        }
        if count > UInt32(HEIFItems.maxEntries) { warn("'iloc' lists \(count) items; only \(HEIFItems.maxEntries) were read") }
    }

    private mutating func parseProperties(_ payload: [UInt8]) throws {
        var walker = BoxReader(source: MemoryByteSource(payload))
        let children = try walker.boxes(from: 0, to: UInt64(payload.count), depth: 2, in: "the 'iprp' box")
        if let ipco = children.first("ipco") {
            for property in try walker.children(of: ipco, depth: 3) {
                guard properties.count < HEIFItems.maxEntries else { break }
                properties.append(Property(type: property.type.description,
                                           payload: Array(payload[Int(property.payloadOffset)..<Int(property.end)])))
            }
        }
        for ipma in children where ipma.type == "ipma" {
            var cursor = ByteCursor(payload, from: Int(ipma.payloadOffset), to: Int(ipma.end), context: "property associations ('ipma')")
            let (version, flags) = try cursor.fullBoxHeader()
            let count = try cursor.u32()
            for _ in 0..<min(count, UInt32(HEIFItems.maxEntries)) {
                let id = version < 1 ? UInt32(try cursor.u16()) : try cursor.u32()
                let associationCount = try cursor.u8()
                var indexes: [Int] = []
                for _ in 0..<associationCount {
                    let index = flags & 1 != 0 ? Int(try cursor.u16() & 0x7FFF) : Int(try cursor.u8() & 0x7F)
                    if index > 0 { indexes.append(index) }
                }
                associations[id, default: []].append(contentsOf: indexes)
            }
        }
        warnings.append(contentsOf: walker.warnings)
    }

    private mutating func parseReferences(_ payload: [UInt8]) throws {
        var cursor = ByteCursor(payload, context: "item references ('iref')")
        let (version, _) = try cursor.fullBoxHeader()
        var walker = BoxReader(source: MemoryByteSource(payload))
        for reference in try walker.boxes(from: 4, to: UInt64(payload.count), depth: 2, in: "the 'iref' box") {
            guard references.count < HEIFItems.maxEntries else { break }
            var entry = ByteCursor(payload, from: Int(reference.payloadOffset), to: Int(reference.end), context: "'\(reference.type)' reference")
            let from = version == 0 ? UInt32(try entry.u16()) : try entry.u32()
            let count = try entry.u16()
            var to: [UInt32] = []
            for _ in 0..<count { to.append(version == 0 ? UInt32(try entry.u16()) : try entry.u32()) }
            references.append(Reference(type: reference.type.description, from: from, to: to))
        }
        warnings.append(contentsOf: walker.warnings)
    }
}

/// The kinds of item property the metadata reader interprets.
enum HEIFProperty {
    case size(width: Int, height: Int)          // ispe
    case rotation(anticlockwiseQuarterTurns: Int) // irot
    case mirror(axis: Int)                       // imir: 0 exchanges top and bottom, 1 left and right
    case auxiliaryType(String)                   // auxC
    case other(String)
}

extension HEIFItems.Property {
    /// The property's meaning, for the kinds read here; `.other` for the rest and for
    /// a payload too short for its kind.
    var decoded: HEIFProperty {
        var cursor = ByteCursor(payload, context: "'\(type)' property")
        switch type {
        case "ispe":
            guard (try? cursor.fullBoxHeader()) != nil, let width = try? cursor.u32(), let height = try? cursor.u32() else { break }
            return .size(width: Int(width), height: Int(height))
        case "irot":
            guard let value = try? cursor.u8() else { break }
            return .rotation(anticlockwiseQuarterTurns: Int(value & 3))
        case "imir":
            guard let value = try? cursor.u8() else { break }
            return .mirror(axis: Int(value & 1))
        case "auxC":
            guard (try? cursor.fullBoxHeader()) != nil else { break }
            return .auxiliaryType(cursor.cString())
        default: break
        }
        return .other(type)
    }

    /// The auxiliary image's type URN (`auxC`), for an `auxC` property.
    public var auxiliaryType: String? {
        if case .auxiliaryType(let urn) = decoded { return urn }
        return nil
    }
}
