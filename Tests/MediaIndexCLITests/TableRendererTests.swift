import Testing
@testable import MediaIndexCLI

@Suite("TableRenderer: aligned columns fitted to the terminal")
struct TableRendererTests {
    let columns = [
        TableColumn("NAME"),
        TableColumn("SIZE", alignment: .right, isTruncatable: false),
        TableColumn("PATH", minimumWidth: 5),
    ]
    let rows = [
        ["IMG_0001.HEIC", "2.1 MB", "/photos/2023/IMG_0001.HEIC"],
        ["a.png", "512 B", "/a.png"],
    ]

    @Test("pads left-aligned text, right-aligns numbers, and leaves no trailing spaces")
    func alignment() {
        #expect(TableRenderer(columns: columns).render(rows) == """
            NAME             SIZE  PATH
            IMG_0001.HEIC  2.1 MB  /photos/2023/IMG_0001.HEIC
            a.png           512 B  /a.png

            """)
    }

    @Test("narrows the widest truncatable column first and marks cut cells with …")
    func truncation() {
        let lines = TableRenderer(columns: columns).lines(rows, maxWidth: 36)
        #expect(lines == [
            "NAME             SIZE  PATH",
            "IMG_0001.HEIC  2.1 MB  /photos/2023…",
            "a.png           512 B  /a.png",
        ])
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 36 })
    }

    @Test("stops at each column's minimum width when the terminal is too narrow")
    func minimumWidths() {
        let lines = TableRenderer(columns: columns, showsHeader: false).lines(rows, maxWidth: 10)
        #expect(lines == ["IMG_0…  2.1 MB  /pho…", "a.png    512 B  /a.p…"])
    }

    @Test("counts wide characters as two columns so they line up")
    func wideCharacters() {
        let table = TableRenderer(columns: [TableColumn("NAME"), TableColumn("N", alignment: .right)])
        #expect(table.lines([["東京タワー", "1"], ["Paris", "22"]]) == [
            "NAME         N",
            "東京タワー   1",
            "Paris       22",
        ])
    }

    @Test("fills missing cells with nothing and ignores extra ones")
    func raggedRows() {
        let table = TableRenderer(columns: [TableColumn("A"), TableColumn("B")], showsHeader: false)
        #expect(table.lines([["x"], ["y", "z", "ignored"]]) == ["x", "y  z"])
    }
}

@Suite("DisplayWidth")
struct DisplayWidthTests {
    @Test("counts ASCII as one, CJK and emoji as two, combining marks as none")
    func widths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("日本") == 4)
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("❤️") == 2)
        #expect(DisplayWidth.of("\u{200B}") == 0)
    }

    @Test("truncates to a width without splitting a wide character")
    func truncation() {
        #expect(DisplayWidth.truncate("abcdef", toWidth: 4) == "abc…")
        #expect(DisplayWidth.truncate("日本語", toWidth: 4) == "日…")
        #expect(DisplayWidth.truncate("abc", toWidth: 3) == "abc")
        #expect(DisplayWidth.truncate("abc", toWidth: 0) == "")
    }
}
