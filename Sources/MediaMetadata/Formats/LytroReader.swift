/// Reads Lytro light-field pictures (LFP): the JSON metadata of the container's
/// sections, as exiftool's Lytro module reads them.
///
/// An LFP file is the signature `89 'LFP' 0D 0A 1A 0A` and a 4-byte version and
/// length, then sections: an 8-byte magic (`89 'LFM'` for the table of contents,
/// `89 'LFC'` for a chunk, each followed by `0D 0A 1A 0A`), 4 reserved bytes, a
/// 4-byte big-endian data length, an 80-byte name (`sha1-…`, NUL-padded), the data,
/// and zero padding to a multiple of 16. The sections whose data is a JSON object give:
/// `image.width`/`height`/`orientation` (the light field's sensor image),
/// `camera.make`/`model` and `devices.clock.zuluTime` (UTC).
public enum LytroReader {
    static let maxSections = 256
    static let maxJSONBytes = 1 << 20

    /// Reads the size, orientation, make, model and capture date.
    ///
    /// - Throws: `MetadataError` when the LFP signature is missing.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        let signature: [UInt8] = [0x89, 0x4C, 0x46, 0x50, 0x0D, 0x0A, 0x1A, 0x0A]
        guard try source.read(at: 0, count: 8) == signature else {
            throw MetadataError.malformed("the Lytro LFP signature is missing")
        }
        var metadata = MediaMetadata(format: .lytro)
        var position: UInt64 = 16
        var sections = 0
        while sections < maxSections, position + 96 <= source.size {
            sections += 1
            let header = try source.read(at: position, count: 96)
            guard header.count == 96, header[0] == 0x89, header[1] == 0x4C, header[2] == 0x46,
                  Array(header[4..<8]) == [0x0D, 0x0A, 0x1A, 0x0A],
                  let length = VideoFields.be32(header, 12) else {
                metadata.warnings.append("the Lytro section at byte \(position) is damaged; the sections before it were kept")
                break
            }
            let dataOffset = position + 96
            guard dataOffset + UInt64(length) <= source.size else {
                metadata.warnings.append("the Lytro section at byte \(position) is cut short")
                break
            }
            if length <= maxJSONBytes, try source.read(at: dataOffset, count: 1) == [0x7B] {  // "{"
                var parser = TinyJSON(bytes: try source.read(at: dataOffset, count: length))
                if let document = parser.parseDocument() {
                    apply(document, to: &metadata)
                } else {
                    metadata.warnings.append("the Lytro JSON at byte \(dataOffset) is malformed")
                }
            }
            position = (dataOffset + UInt64(length) + 15) / 16 * 16
        }
        if metadata.pixelWidth == nil {
            metadata.warnings.append("no Lytro metadata section gives the image size")
        }
        return ContainerReading(metadata: metadata)
    }

    /// Fills what is still empty from one section's JSON object.
    static func apply(_ document: TinyJSON.Value, to metadata: inout MediaMetadata) {
        if metadata.pixelWidth == nil,
           let width = document["image"]?["width"]?.integer, let height = document["image"]?["height"]?.integer,
           width > 0, height > 0 {
            metadata.pixelWidth = width
            metadata.pixelHeight = height
            if let orientation = document["image"]?["orientation"]?.integer, (1...8).contains(orientation) {
                metadata.orientation = orientation
            }
        }
        if metadata.make == nil, let make = document["camera"]?["make"]?.string, !make.isEmpty { metadata.make = make }
        if metadata.model == nil, let model = document["camera"]?["model"]?.string, !model.isEmpty { metadata.model = model }
        if metadata.captureDate == nil, let text = document["devices"]?["clock"]?["zuluTime"]?.string,
           let date = QuickTimeValues.date(iso8601: text) {
            metadata.captureDate = date
            metadata.captureDateSource = .lytroClockZuluTime
        }
    }
}

/// A small JSON parser (RFC 8259) for the metadata of containers that embed JSON: no
/// Foundation, nesting bounded by `maxDepth`, nil for anything malformed.
struct TinyJSON {
    indirect enum Value: Equatable {
        case object([(String, Value)])
        case array([Value])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null

        static func == (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
            case (.array(let x), .array(let y)): return x == y
            case (.string(let x), .string(let y)): return x == y
            case (.number(let x), .number(let y)): return x == y
            case (.bool(let x), .bool(let y)): return x == y
            case (.null, .null): return true
            default: return false
            }
        }

        /// The first member of that name of an object.
        subscript(key: String) -> Value? {
            if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
            return nil
        }

        var string: String? { if case .string(let s) = self { return s }; return nil }
        var number: Double? { if case .number(let n) = self { return n }; return nil }
        /// A number that is a whole value within ±2^31.
        var integer: Int? {
            guard let n = number, n.rounded() == n, abs(n) < 2_147_483_648 else { return nil }
            return Int(n)
        }
    }

    static let maxDepth = 64
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The one value the bytes hold (trailing NULs and white space allowed); nil when malformed.
    mutating func parseDocument() -> Value? {
        guard let value = parseValue(depth: 0) else { return nil }
        skipSpace()
        while index < bytes.count, bytes[index] == 0 { index += 1 }
        return index == bytes.count ? value : nil
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func literal(_ text: String) -> Bool {
        let expected = Array(text.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<(index + expected.count)]) == expected else { return false }
        index += expected.count
        return true
    }

    private mutating func parseValue(depth: Int) -> Value? {
        guard depth < Self.maxDepth else { return nil }
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case 0x7B:  // {
            index += 1
            var members: [(String, Value)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == 0x7D { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard let key = parseString() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == 0x3A else { return nil }
                index += 1
                guard let value = parseValue(depth: depth + 1) else { return nil }
                members.append((key, value))
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == 0x2C { index += 1; continue }
                if bytes[index] == 0x7D { index += 1; return .object(members) }
                return nil
            }
        case 0x5B:  // [
            index += 1
            var elements: [Value] = []
            skipSpace()
            if index < bytes.count, bytes[index] == 0x5D { index += 1; return .array(elements) }
            while true {
                guard let value = parseValue(depth: depth + 1) else { return nil }
                elements.append(value)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == 0x2C { index += 1; continue }
                if bytes[index] == 0x5D { index += 1; return .array(elements) }
                return nil
            }
        case 0x22:
            return parseString().map { .string($0) }
        case 0x74: return literal("true") ? .bool(true) : nil
        case 0x66: return literal("false") ? .bool(false) : nil
        case 0x6E: return literal("null") ? .null : nil
        default:
            let start = index
            while index < bytes.count, let c = Optional(bytes[index]),
                  (0x30...0x39).contains(c) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 {
                index += 1
            }
            guard index > start, index - start < 64,
                  let n = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
            return .number(n)
        }
    }

    /// A string at `index` (which must be a quote), escapes decoded.
    private mutating func parseString() -> String? {
        guard index < bytes.count, bytes[index] == 0x22 else { return nil }
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let c = bytes[index]
            index += 1
            switch c {
            case 0x22:
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                guard index < bytes.count else { return nil }
                let e = bytes[index]
                index += 1
                switch e {
                case 0x6E: out.append(0x0A)
                case 0x74: out.append(0x09)
                case 0x72: out.append(0x0D)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x75:
                    guard index + 4 <= bytes.count,
                          let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else { return nil }
                    index += 4
                    // A lone surrogate becomes U+FFFD; pairs are not joined (metadata here is ASCII).
                    out.append(contentsOf: Array(String(Unicode.Scalar(code).map(Character.init) ?? "\u{FFFD}").utf8))
                default: out.append(e)
                }
            default:
                out.append(c)
            }
        }
        return nil
    }
}
