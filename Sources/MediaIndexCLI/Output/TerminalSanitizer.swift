/// Makes text from files (names, messages, titles) safe to print to a terminal.
///
/// A file name may hold any byte but `/` and NUL, including escape sequences that set
/// a terminal's title or colours, and newlines that break a table row. Human output
/// shows every control character — C0 (U+0000–U+001F), DEL (U+007F) and C1
/// (U+0080–U+009F) — escaped as text: `\n`, `\r`, `\t`, `\\` is left alone, the rest
/// as `\x1b`, `\x7f`, `\u{9b}`. JSON output needs none of this: its encoder escapes them
/// as JSON does.
public enum TerminalSanitizer {
    /// `text` with each control character written out as an escape.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                let hex = String(scalar.value, radix: 16)
                result += scalar.value < 0x80
                    ? "\\x" + (hex.count < 2 ? "0" + hex : hex)
                    : "\\u{" + hex + "}"
            }
        }
        return result
    }

    /// Whether the scalar is a C0 or C1 control character or DEL.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
