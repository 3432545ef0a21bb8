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
    /// Whether cells may be cut (with `…`) to fit the table to the terminal.
    public var isTruncatable: Bool
    /// The narrowest the column is cut to.
    public var minimumWidth: Int

    /// A column; numbers should be `.right` and not truncatable.
    public init(_ header: String, alignment: Alignment = .left, isTruncatable: Bool = true, minimumWidth: Int = 6) {
        self.header = header
        self.alignment = alignment
        self.isTruncatable = isTruncatable
        self.minimumWidth = max(1, minimumWidth)
    }
}

/// Lays rows out in aligned columns, separated by two spaces, under a header line.
///
/// Given a maximum width (the terminal's), it narrows the widest truncatable columns,
/// one column at a time, until the table fits or every such column is at its minimum,
/// and cuts cells that no longer fit with `…`. Widths count terminal columns
/// (`DisplayWidth`), so CJK text and emoji line up. Lines carry no trailing spaces.
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
        var allRows = rows.map { row in columns.indices.map { $0 < row.count ? row[$0] : "" } }
        if showsHeader { allRows.insert(columns.map(\.header), at: 0) }

        var widths = columns.indices.map { index in
            allRows.reduce(0) { max($0, DisplayWidth.of($1[index])) }
        }
        if let maxWidth { shrink(&widths, toFit: maxWidth) }

        return allRows.map { row in
            var line = ""
            for index in columns.indices {
                let column = columns[index]
                let cell = DisplayWidth.truncate(row[index], toWidth: widths[index])
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
