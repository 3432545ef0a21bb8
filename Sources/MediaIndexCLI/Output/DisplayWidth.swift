/// How many terminal columns text takes, for the common cases: CJK and other East
/// Asian wide characters and emoji take two, combining marks and zero-width
/// characters none (they join a grapheme or are dropped), everything else one.
public enum DisplayWidth {
    /// The columns `text` takes in a terminal.
    public static func of(_ text: String) -> Int {
        var width = 0
        for character in text { width += of(character) }
        return width
    }

    /// The columns one grapheme cluster takes: 0, 1 or 2.
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        let value = first.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if isZeroWidth(value) && character.unicodeScalars.count == 1 { return 0 }
        if isWide(value) || first.properties.isEmojiPresentation { return 2 }
        // A text-style emoji followed by VS16 (U+FE0F) is drawn as a wide emoji.
        if first.properties.isEmoji, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return 1
    }

    /// `text` cut to at most `width` columns, its end replaced by `…` when cut.
    public static func truncate(_ text: String, toWidth width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// `text` cut to at most `width` columns by replacing its middle with `…`: the end
    /// keeps at least half the width, and all of the last path component (after the
    /// last `/`) when that fits, so a file name survives its folders being shortened.
    public static func truncateMiddle(_ text: String, toWidth width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 1 else { return width == 1 ? "…" : "" }
        let available = width - 1
        let characters = Array(text)
        let lastComponent = characters.lastIndex(of: "/").map { characters[($0 + 1)...] } ?? characters[...]
        let lastWidth = lastComponent.reduce(0) { $0 + of($1) }
        let tailBudget = lastWidth <= available ? max(lastWidth, (available + 1) / 2) : available
        var tail: [Character] = []
        var used = 0
        for character in characters.reversed() {
            let columns = of(character)
            if used + columns > tailBudget { break }
            tail.append(character)
            used += columns
        }
        var head = ""
        for character in characters {
            let columns = of(character)
            if used + columns > available { break }
            head.append(character)
            used += columns
        }
        return head + "…" + String(tail.reversed())
    }

    /// `text` padded with spaces to `width` columns, on the right (`.left`) or the left.
    public static func pad(_ text: String, toWidth width: Int, alignment: TableColumn.Alignment) -> String {
        let padding = String(repeating: " ", count: max(0, width - of(text)))
        return alignment == .left ? text + padding : padding + text
    }

    private static func isZeroWidth(_ value: UInt32) -> Bool {
        (0x200B...0x200F).contains(value) || value == 0x2060 || value == 0xFEFF
            || (0x0300...0x036F).contains(value) || (0xFE00...0xFE0F).contains(value)
    }

    // East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, abridged).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
