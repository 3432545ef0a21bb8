/// A forward reader over bytes already in memory, for parsing one box's payload.
///
/// Every read is checked against the end; running past it throws
/// `MetadataError.truncated` naming the structure being read.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int
    /// What is being read, for error messages (`"iloc box"`).
    let context: String

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil, context: String) {
        self.bytes = bytes
        self.end = min(end ?? bytes.count, bytes.count)
        self.position = min(max(0, start), self.end)
        self.context = context
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position >= end }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw MetadataError.truncated("the \(context) ends before its declared contents")
        }
        let slice = bytes[position..<(position + count)]
        position += count
        return slice
    }

    mutating func skip(_ count: Int) throws { _ = try take(count) }

    mutating func u8() throws -> UInt8 { try take(1).first ?? 0 }

    mutating func u16() throws -> UInt16 {
        try take(2).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func u32() throws -> UInt32 {
        try take(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func u64() throws -> UInt64 {
        try take(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func i32() throws -> Int32 { Int32(bitPattern: try u32()) }

    /// An unsigned big-endian integer of 0, 1, 2, 4 or 8 bytes (`iloc` field sizes).
    mutating func unsigned(byteCount: Int) throws -> UInt64 {
        switch byteCount {
        case 0: return 0
        case 1, 2, 4, 8: return try take(byteCount).reduce(0) { $0 << 8 | UInt64($1) }
        default: throw MetadataError.malformed("the \(context) declares a \(byteCount)-byte field size")
        }
    }

    mutating func fourCC() throws -> FourCC { FourCC(try u32()) }

    mutating func bytes(_ count: Int) throws -> [UInt8] { Array(try take(count)) }

    /// A NUL-terminated string; the terminator is consumed. Reads to the end when
    /// the terminator is missing, as some writers omit it on the last field.
    mutating func cString() -> String {
        var collected: [UInt8] = []
        while position < end {
            let byte = bytes[position]
            position += 1
            if byte == 0 { break }
            collected.append(byte)
        }
        return String(decoding: collected, as: UTF8.self)
    }

    /// Version and flags of a full box.
    mutating func fullBoxHeader() throws -> (version: UInt8, flags: UInt32) {
        let word = try u32()
        return (UInt8(word >> 24), word & 0x00FF_FFFF)
    }
}

/// A four-character code, as box types and codec names are written.
struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    let rawValue: UInt32

    init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// From four ASCII (or Latin-1, for `©xyz`) characters.
    init(stringLiteral text: String) {
        var value: UInt32 = 0
        for scalar in text.unicodeScalars.prefix(4) { value = value << 8 | (scalar.value & 0xFF) }
        rawValue = value
    }

    /// The code as text; bytes above ASCII are read as Latin-1 (`©` is 0xA9) and
    /// control characters shown as `?`, so a fuzzed type cannot garble a message.
    var description: String {
        let bytes = [24, 16, 8, 0].map { UInt8((rawValue >> UInt32($0)) & 0xFF) }
        return String(String.UnicodeScalarView(bytes.map { byte in
            byte < 0x20 || (0x7F..<0xA0).contains(byte) ? "?" : Unicode.Scalar(byte)
        }))
    }
}
