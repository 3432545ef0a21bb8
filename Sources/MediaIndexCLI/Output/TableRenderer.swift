/// A column of a `TableRenderer` table.
public struct TableColumn: Sendable, Equatable {
    /// Which side of the column cells line up on.
    public enum Alignment: Sendable, Equatable {
        /// Text, names, paths.
        case left
        /// Numbers, sizes, durations.
        case right
    }

    /// The column's heading.
    public var header: String
    /// Which side cells line up on.
    public var alignment: Alignment
    /// Where a cell too wide for the column loses its characters.
    public enum Truncation: Sendable, Equatable {
        /// At the end: `Summer holid…`.
        case end
        /// In the middle, keeping a path's last component whole when it fits:
        /// `/home/me/Pi…/2024/IMG_0001.jpg`.
        case middle
    }

    /// Whether cells may be cut (with `…`) to fit the table to the terminal; never for
    /// an identifier, which must stay whole to be copied.
    public var isTruncatable: Bool
    /// Where cut cells lose their characters.
    public var truncation: Truncation
    /// The narrowest the column is cut to.
    public var minimumWidth: Int

    /// A column; numbers and identifiers should not be truncatable, paths `.middle`.
    public init(_ header: String, alignment: Alignment = .left, isTruncatable: Bool = true,
                truncation: Truncation = .end, minimumWidth: Int = 6) {
        self.header = header
        self.alignment = alignment
        self.isTruncatable = isTruncatable
        self.truncation = truncation
        self.minimumWidth = max(1, minimumWidth)
    }
}

/// Lays rows out in aligned columns, separated by two spaces, under a header line.
///
/// Given a maximum width (the terminal's), it narrows the widest truncatable columns,
/// one column at a time, until the table fits or every such column is at its minimum,
/// and cuts cells that no longer fit with `…`. Widths count terminal columns
/// (`DisplayWidth`), so CJK text and emoji line up. Lines carry no trailing spaces.
/// Control characters in cells are shown escaped (`TerminalSanitizer`).
public struct TableRenderer: Sendable {
    /// The columns, left to right.
    public var columns: [TableColumn]
    /// Whether the first line holds the headers.
    public var showsHeader: Bool
    /// What goes between columns.
    public static let separator = "  "

    /// A table with these columns.
    public init(columns: [TableColumn], showsHeader: Bool = true) {
        self.columns = columns
        self.showsHeader = showsHeader
    }

    /// The table as lines (without newlines); a row's missing cells are empty, extra
    /// cells ignored.
    public func lines(_ rows: [[String]], maxWidth: Int? = nil) -> [String] {
        guard !columns.isEmpty else { return [] }
        // Cells come from files: a name's escape sequences must not reach the terminal.
        var allRows = rows.map { row in columns.indices.map { $0 < row.count ? TerminalSanitizer.escape(row[$0]) : "" } }
        if showsHeader { allRows.insert(columns.map(\.header), at: 0) }

        var widths = columns.indices.map { index in
            allRows.reduce(0) { max($0, DisplayWidth.of($1[index])) }
        }
        if let maxWidth { shrink(&widths, toFit: maxWidth) }

        return allRows.map { row in
            var line = ""
            for index in columns.indices {
                let column = columns[index]
                let cell = column.truncation == .middle
                    ? DisplayWidth.truncateMiddle(row[index], toWidth: widths[index])
                    : DisplayWidth.truncate(row[index], toWidth: widths[index])
                if index > 0 { line += Self.separator }
                line += DisplayWidth.pad(cell, toWidth: widths[index], alignment: column.alignment)
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The table as text, each line ending with a newline.
    public func render(_ rows: [[String]], maxWidth: Int? = nil) -> String {
        lines(rows, maxWidth: maxWidth).map { $0 + "\n" }.joined()
    }

    private func shrink(_ widths: inout [Int], toFit maxWidth: Int) {
        var excess = widths.reduce(0, +) + Self.separator.count * (widths.count - 1) - maxWidth
        while excess > 0 {
            // The widest column that may still give up a character.
            let candidates = columns.indices.filter {
                columns[$0].isTruncatable && widths[$0] > columns[$0].minimumWidth
            }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { return }
            let others = candidates.filter { $0 != widest }.map { widths[$0] }.max() ?? columns[widest].minimumWidth
            let step = min(excess, widths[widest] - max(others, columns[widest].minimumWidth), widths[widest] - columns[widest].minimumWidth)
            widths[widest] -= max(1, step)
            excess -= max(1, step)
        }
    }
}
