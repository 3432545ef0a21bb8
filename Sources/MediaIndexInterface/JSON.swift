/// A JSON value whose objects keep their keys in the order they were built, so output
/// reads in a declared order (`id`, `path`, `date`, …) rather than alphabetically.
///
/// Build it with literals (`["id": .string(id), "size": 12]` keeps that order) or the
/// optional-taking initialisers (`JSON(asset.duration)` is `null` when nil).
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    /// Members in order; a key given twice is written twice (avoid it).
    case object([(String, JSON)])

    /// A string, or `null` for nil.
    public init(_ value: String?) { self = value.map(JSON.string) ?? .null }
    /// An integer, or `null` for nil.
    public init(_ value: Int?) { self = value.map(JSON.int) ?? .null }
    /// An integer, or `null` for nil (values beyond `Int` cannot occur on 64-bit Linux).
    public init(_ value: Int64?) { self = value.map { JSON.int(Int($0)) } ?? .null }
    /// A number, or `null` for nil.
    public init(_ value: Double?) { self = value.map(JSON.double) ?? .null }
    /// A boolean, or `null` for nil.
    public init(_ value: Bool?) { self = value.map(JSON.bool) ?? .null }

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The value on one line with no spaces: one record of `--jsonl` output.
    public var compactText: String { String(decoding: compactUTF8, as: UTF8.self) }

    /// The value indented by two spaces per level, `"key": value`, empty containers as
    /// `[]` and `{}`; no trailing newline.
    public var prettyText: String { String(decoding: prettyUTF8, as: UTF8.self) }

    /// `compactText` as UTF-8 bytes, written without building a `String`.
    public var compactUTF8: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, pretty: false, depth: 0)
        return output
    }

    /// `prettyText` as UTF-8 bytes, written without building a `String`: what the HTTP
    /// server sends.
    public var prettyUTF8: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, pretty: true, depth: 0)
        return output
    }

    private func write(to output: inout [UInt8], pretty: Bool, depth: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): output.append(contentsOf: Self.numberText(value).utf8)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            Self.writeContainer(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), count: elements.count,
                                to: &output, pretty: pretty, depth: depth) { index, output in
                elements[index].write(to: &output, pretty: pretty, depth: depth + 1)
            }
        case .object(let members):
            Self.writeContainer(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), count: members.count,
                                to: &output, pretty: pretty, depth: depth) { index, output in
                Self.writeString(members[index].0, to: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                members[index].1.write(to: &output, pretty: pretty, depth: depth + 1)
            }
        }
    }

    private static func writeContainer(
        open: UInt8, close: UInt8, count: Int, to output: inout [UInt8], pretty: Bool, depth: Int,
        element: (Int, inout [UInt8]) -> Void
    ) {
        output.append(open)
        guard count > 0 else { output.append(close); return }
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            if pretty { newline(indentedBy: depth + 1, to: &output) }
            element(index, &output)
        }
        if pretty { newline(indentedBy: depth, to: &output) }
        output.append(close)
    }

    /// A line break and two spaces per level.
    private static func newline(indentedBy depth: Int, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// Swift's shortest round-tripping form (`2.635`, `1e-05`, `5.0`), which is valid
    /// JSON; NaN and infinities, which JSON cannot hold, become `null`.
    public static func numberText(_ value: Double) -> String {
        value.isFinite ? value.description : "null"
    }

    /// Quotes and escapes into UTF-8 bytes: `"` `\` and control characters (as `\n`,
    /// `\t`… or `\u001f`), and U+2028/U+2029, which JavaScript strings cannot hold raw.
    /// A Swift `String` is valid Unicode, so its other bytes are copied as they are.
    static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var index = 0
            var runStart = 0
            func flush(upTo end: Int) {
                if runStart < end { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end])) }
            }
            while index < bytes.count {
                let byte = bytes[index]
                var escape: StaticString?
                var length = 1
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case UInt8(ascii: "\n"): escape = "\\n"
                case UInt8(ascii: "\r"): escape = "\\r"
                case UInt8(ascii: "\t"): escape = "\\t"
                case 0x08: escape = "\\b"
                case 0x0C: escape = "\\f"
                case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80
                    && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    escape = bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                    length = 3
                default:
                    if byte < 0x20 {
                        flush(upTo: index)
                        let hex = Array("0123456789abcdef".utf8)
                        output.append(contentsOf: "\\u00".utf8)
                        output.append(hex[Int(byte >> 4)])
                        output.append(hex[Int(byte & 0x0F)])
                        index += 1
                        runStart = index
                        continue
                    }
                }
                if let escape {
                    flush(upTo: index)
                    escape.withUTF8Buffer { output.append(contentsOf: $0) }
                    index += length
                    runStart = index
                } else {
                    index += 1
                }
            }
            flush(upTo: bytes.count)
        }
        output.append(UInt8(ascii: "\""))
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// Keeps the literal's order.
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements) }
}
