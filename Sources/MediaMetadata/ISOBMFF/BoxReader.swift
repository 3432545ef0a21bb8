/// One box's header: where it sits in its source and how large it says it is.
struct BoxHeader: Sendable, Equatable {
    let type: FourCC
    /// The 16-byte extended type of a `uuid` box.
    let userType: [UInt8]?
    /// Where the box starts (its size field).
    let offset: UInt64
    let headerSize: Int
    /// The total size, header included, after `size == 0` / `largesize` were resolved
    /// and a box running past its parent was cut at the parent's end.
    let size: UInt64
    /// Whether the declared size ran past the parent and was cut.
    let isCut: Bool

    var payloadOffset: UInt64 { offset + UInt64(headerSize) }
    var payloadSize: UInt64 { size - UInt64(headerSize) }
    var end: UInt64 { offset + size }
}

/// Walks ISO base media boxes (ISO/IEC 14496-12 §4.2) over any byte source, reading
/// only headers; payloads are read on request, up to a cap.
///
/// Hostile input is expected: a size smaller than its header or past its parent's end
/// stops the walk of that level with a warning; the number of boxes per level and the
/// nesting depth are capped, and every step advances by at least one header.
struct BoxReader {
    let source: ByteSource
    /// Deeper nesting than this is not followed.
    static let maxDepth = 16
    /// More boxes than this in one parent are not listed.
    static let maxBoxesPerLevel = 10_000

    /// Problems met while walking, one sentence each.
    private(set) var warnings: [String] = []

    init(source: ByteSource) { self.source = source }

    mutating func warn(_ message: String) {
        if !warnings.contains(message), warnings.count < 50 { warnings.append(message) }
    }

    /// The boxes directly inside the byte range `start..<end`.
    ///
    /// - Throws: `MetadataError.io` when a read fails; lying sizes become warnings.
    mutating func boxes(from start: UInt64, to end: UInt64, depth: Int, in parent: String) throws -> [BoxHeader] {
        guard depth <= BoxReader.maxDepth else {
            warn("boxes nested deeper than \(BoxReader.maxDepth) levels inside \(parent) were skipped")
            return []
        }
        let limit = min(end, source.size)
        var found: [BoxHeader] = []
        var position = start
        while position < limit {
            guard found.count < BoxReader.maxBoxesPerLevel else {
                warn("\(parent) holds more than \(BoxReader.maxBoxesPerLevel) boxes; the rest were skipped")
                break
            }
            guard limit - position >= 8 else {
                // QuickTime ends some lists with a 32-bit zero; other short zero padding is
                // harmless too. Only non-zero leftovers are worth a warning.
                let rest = try source.read(at: position, count: Int(limit - position))
                if rest.contains(where: { $0 != 0 }) {
                    warn("\(limit - position) stray bytes at the end of \(parent)")
                }
                break
            }
            let head = try source.read(at: position, count: 32)
            guard head.count >= 8 else { break }
            var cursor = ByteCursor(head, context: "box header")
            let size32 = try cursor.u32()
            let type = try cursor.fourCC()
            var headerSize = 8
            var size: UInt64
            switch size32 {
            case 1:
                guard let large = try? cursor.u64() else {
                    warn("a '\(type)' box in \(parent) is cut before its 64-bit size")
                    return found
                }
                headerSize = 16
                size = large
            case 0:
                size = limit - position
            default:
                size = UInt64(size32)
            }
            var userType: [UInt8]?
            if type == "uuid" {
                guard let extended = try? cursor.bytes(16) else {
                    warn("a 'uuid' box in \(parent) is cut before its extended type")
                    return found
                }
                userType = extended
                headerSize += 16
            }
            guard size >= UInt64(headerSize) else {
                warn("a '\(type)' box in \(parent) declares \(size) bytes, less than its own header; the rest of \(parent) was skipped")
                return found
            }
            var isCut = false
            if size > limit - position {
                // A box running past its parent (or the file): keep what is there, stop this level.
                let parentEnd = end > source.size ? "the end of the file" : "the end of \(parent)"
                warn("a '\(type)' box in \(parent) declares \(size) bytes, past \(parentEnd)")
                size = limit - position
                isCut = true
                guard size >= UInt64(headerSize) else { return found }
            }
            found.append(BoxHeader(type: type, userType: userType, offset: position,
                                   headerSize: headerSize, size: size, isCut: isCut))
            if isCut { break }
            position += size
        }
        return found
    }

    /// The boxes inside `box`, skipping `skip` leading payload bytes (4 for a full box).
    mutating func children(of box: BoxHeader, skipping skip: UInt64 = 0, depth: Int) throws -> [BoxHeader] {
        guard box.payloadSize >= skip else { return [] }
        return try boxes(from: box.payloadOffset + skip, to: box.end, depth: depth, in: "the '\(box.type)' box")
    }

    /// The payload of `box`, if it is at most `limit` bytes; otherwise a warning and nil.
    ///
    /// - Throws: `MetadataError.io` when the read fails.
    mutating func payload(of box: BoxHeader, limit: Int) throws -> [UInt8]? {
        guard box.payloadSize <= UInt64(limit) else {
            warn("the '\(box.type)' box holds \(box.payloadSize) bytes, more than the \(limit) read; it was skipped")
            return nil
        }
        return try source.read(at: box.payloadOffset, count: Int(box.payloadSize))
    }
}

extension Array where Element == BoxHeader {
    /// The first box of the given type.
    func first(_ type: FourCC) -> BoxHeader? { first { $0.type == type } }
}
