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
    public var compactText: String {
        var output = ""
        write(to: &output, indent: nil, depth: 0)
        return output
    }

    /// The value indented by two spaces per level, `"key": value`, empty containers as
    /// `[]` and `{}`; no trailing newline.
    public var prettyText: String {
        var output = ""
        write(to: &output, indent: "  ", depth: 0)
        return output
    }

    private func write(to output: inout String, indent: String?, depth: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value): output += Self.numberText(value)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            writeContainer(open: "[", close: "]", count: elements.count, to: &output, indent: indent, depth: depth) { index, output in
                elements[index].write(to: &output, indent: indent, depth: depth + 1)
            }
        case .object(let members):
            writeContainer(open: "{", close: "}", count: members.count, to: &output, indent: indent, depth: depth) { index, output in
                Self.writeString(members[index].0, to: &output)
                output += indent == nil ? ":" : ": "
                members[index].1.write(to: &output, indent: indent, depth: depth + 1)
            }
        }
    }

    private func writeContainer(
        open: String, close: String, count: Int, to output: inout String, indent: String?, depth: Int,
        element: (Int, inout String) -> Void
    ) {
        output += open
        guard count > 0 else { output += close; return }
        for index in 0..<count {
            if index > 0 { output += "," }
            if let indent { output += "\n" + String(repeating: indent, count: depth + 1) }
            element(index, &output)
        }
        if let indent { output += "\n" + String(repeating: indent, count: depth) }
        output += close
    }

    /// Swift's shortest round-tripping form (`2.635`, `1e-05`, `5.0`), which is valid
    /// JSON; NaN and infinities, which JSON cannot hold, become `null`.
    public static func numberText(_ value: Double) -> String {
        value.isFinite ? value.description : "null"
    }

    /// Quotes and escapes: `"` `\` and control characters (as `\n`, `\t`… or `\u001f`),
    /// and U+2028/U+2029, which JavaScript strings cannot hold raw.
    public static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{2028}": output += "\\u2028"
            case "\u{2029}": output += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
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
