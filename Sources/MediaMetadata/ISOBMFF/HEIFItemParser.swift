/// One item of a HEIF `meta` box (ISO/IEC 23008-12): its type and where its bytes are.
struct HEIFItem {
    let id: UInt32
    var type: FourCC?
    var contentType: String?
    /// 0: file offsets; 1: offsets into `idat`.
    var constructionMethod: UInt8 = 0
    var extents: [(offset: UInt64, length: UInt64)] = []
}

/// An item property from `ipco`, kept only for the kinds this reader uses.
enum HEIFProperty {
    case size(width: Int, height: Int)          // ispe
    case rotation(anticlockwiseQuarterTurns: Int) // irot
    case mirror(axis: Int)                       // imir: 0 vertical axis (left-right), 1 horizontal
    case auxiliaryType(String)                   // auxC
    case other(FourCC)
}

/// Reads the item structure of a HEIF/AVIF `meta` box: items, their locations,
/// properties and references.
struct HEIFItemParser {
    /// A `meta` box larger than this is not read (typical: a few KB).
    static let metaLimit = 16 << 20
    /// The most items, properties or references kept.
    static let maxEntries = 100_000

    var warnings: [String] = []
    var handler: FourCC?
    var primaryID: UInt32?
    var items: [UInt32: HEIFItem] = [:]
    var properties: [HEIFProperty] = []
    /// Item id to 1-based property indexes.
    var associations: [UInt32: [Int]] = [:]
    /// (type, from, to) references from `iref`.
    var references: [(type: FourCC, from: UInt32, to: [UInt32])] = []
    /// The payload of `idat`, and where it starts in the file.
    var itemData: [UInt8] = []

    mutating func warn(_ message: String) {
        if !warnings.contains(message), warnings.count < 50 { warnings.append(message) }
    }

    /// Parses the payload of a `meta` box (starting with its version and flags).
    mutating func parse(metaPayload payload: [UInt8]) throws {
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
                    handler = try cursor.fourCC()
                case "pitm":
                    var cursor = ByteCursor(bytes(box), context: "primary item ('pitm')")
                    let (version, _) = try cursor.fullBoxHeader()
                    primaryID = version == 0 ? UInt32(try cursor.u16()) : try cursor.u32()
                case "iinf": try parseItemInfo(bytes(box))
                case "iloc": try parseItemLocations(bytes(box))
                case "iprp": try parseProperties(bytes(box))
                case "iref": try parseReferences(bytes(box))
                case "idat": itemData = bytes(box)
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
            guard items.count < HEIFItemParser.maxEntries else { warn("more than \(HEIFItemParser.maxEntries) items; the rest were skipped"); break }
            var infe = ByteCursor(payload, from: Int(entry.payloadOffset), to: Int(entry.end), context: "item info entry ('infe')")
            let (entryVersion, _) = try infe.fullBoxHeader()
            let id: UInt32
            var type: FourCC?
            var contentType: String?
            if entryVersion >= 2 {
                id = entryVersion == 2 ? UInt32(try infe.u16()) : try infe.u32()
                try infe.skip(2)  // protection index
                type = try infe.fourCC()
                _ = infe.cString()  // name
                if type == "mime" { contentType = infe.cString() }
            } else {
                id = UInt32(try infe.u16())
                try infe.skip(2)
                _ = infe.cString()
                contentType = infe.cString()
                type = "mime"
            }
            var item = items[id] ?? HEIFItem(id: id)
            item.type = type
            item.contentType = contentType
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
        for _ in 0..<min(count, UInt32(HEIFItemParser.maxEntries)) {
            let id = version < 2 ? UInt32(try cursor.u16()) : try cursor.u32()
            var method: UInt8 = 0
            if version >= 1 { method = UInt8(try cursor.u16() & 0xF) }
            try cursor.skip(2)  // data reference index
            let base = try cursor.unsigned(byteCount: baseOffsetSize)
            let extentCount = try cursor.u16()
            var extents: [(UInt64, UInt64)] = []
            for _ in 0..<extentCount {
                if indexSize > 0 { _ = try cursor.unsigned(byteCount: indexSize) }
                let offset = try cursor.unsigned(byteCount: offsetSize)
                let length = try cursor.unsigned(byteCount: lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                if !overflow { extents.append((start, length)) }
            }
            var item = items[id] ?? HEIFItem(id: id)
            item.constructionMethod = method
            item.extents = extents
            items[id] = item
        }
        if count > UInt32(HEIFItemParser.maxEntries) { warn("'iloc' lists \(count) items; only \(HEIFItemParser.maxEntries) were read") }
    }

    private mutating func parseProperties(_ payload: [UInt8]) throws {
        var walker = BoxReader(source: MemoryByteSource(payload))
        let children = try walker.boxes(from: 0, to: UInt64(payload.count), depth: 2, in: "the 'iprp' box")
        if let ipco = children.first("ipco") {
            for property in try walker.children(of: ipco, depth: 3) {
                guard properties.count < HEIFItemParser.maxEntries else { break }
                var cursor = ByteCursor(payload, from: Int(property.payloadOffset), to: Int(property.end),
                                        context: "'\(property.type)' property")
                switch property.type {
                case "ispe":
                    _ = try cursor.fullBoxHeader()
                    properties.append(.size(width: Int(try cursor.u32()), height: Int(try cursor.u32())))
                case "irot":
                    properties.append(.rotation(anticlockwiseQuarterTurns: Int(try cursor.u8() & 3)))
                case "imir":
                    properties.append(.mirror(axis: Int(try cursor.u8() & 1)))
                case "auxC":
                    _ = try cursor.fullBoxHeader()
                    properties.append(.auxiliaryType(cursor.cString()))
                default:
                    properties.append(.other(property.type))
                }
            }
        }
        for ipma in children where ipma.type == "ipma" {
            var cursor = ByteCursor(payload, from: Int(ipma.payloadOffset), to: Int(ipma.end), context: "property associations ('ipma')")
            let (version, flags) = try cursor.fullBoxHeader()
            let count = try cursor.u32()
            for _ in 0..<min(count, UInt32(HEIFItemParser.maxEntries)) {
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
            guard references.count < HEIFItemParser.maxEntries else { break }
            var entry = ByteCursor(payload, from: Int(reference.payloadOffset), to: Int(reference.end), context: "'\(reference.type)' reference")
            let from = version == 0 ? UInt32(try entry.u16()) : try entry.u32()
            let count = try entry.u16()
            var to: [UInt32] = []
            for _ in 0..<count { to.append(version == 0 ? UInt32(try entry.u16()) : try entry.u32()) }
            references.append((reference.type, from, to))
        }
        warnings.append(contentsOf: walker.warnings)
    }

    /// The properties associated with an item, in association order.
    func properties(of id: UInt32) -> [HEIFProperty] {
        (associations[id] ?? []).compactMap { index in
            index >= 1 && index <= properties.count ? properties[index - 1] : nil
        }
    }

    /// Items that reference `target` with a reference of `type` (e.g. `auxl`, `thmb`, `cdsc`).
    func items(referencing target: UInt32, by type: FourCC) -> [UInt32] {
        references.filter { $0.type == type && $0.to.contains(target) }.map(\.from)
    }

    /// The bytes of an item, at most `limit`: its extents concatenated, read from the
    /// file (construction method 0) or from `idat` (method 1).
    ///
    /// - Throws: `MetadataError` when an extent lies outside the file or `idat`.
    func data(of item: HEIFItem, source: ByteSource, limit: Int) throws -> [UInt8] {
        guard item.constructionMethod <= 1 else {
            throw MetadataError.unsupported("item \(item.id) is built by construction method \(item.constructionMethod)")
        }
        var collected: [UInt8] = []
        for extent in item.extents.prefix(1000) {
            let available = item.constructionMethod == 0 ? source.size : UInt64(itemData.count)
            guard extent.offset < available else {
                throw MetadataError.malformed("item \(item.id) points at offset \(extent.offset), past the end of its data (\(available) bytes)")
            }
            // Length 0 means "to the end of the data".
            let length = extent.length == 0 ? available - extent.offset : extent.length
            guard length <= available - extent.offset else {
                throw MetadataError.truncated("item \(item.id) extends past the end of its data")
            }
            guard UInt64(collected.count) + length <= UInt64(limit) else {
                throw MetadataError.malformed("item \(item.id) is larger than \(limit) bytes")
            }
            if item.constructionMethod == 0 {
                collected += try source.readExactly(at: extent.offset, count: Int(length))
            } else {
                collected += itemData[Int(extent.offset)..<Int(extent.offset + length)]
            }
        }
        return collected
    }
}
