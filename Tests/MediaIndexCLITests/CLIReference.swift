import Foundation
@testable import MediaIndexCLI

/// What `docs/cli.md` documents, read by the rules its header states, and how that
/// differs from a command tree's declarations.
///
/// - A command's section starts at a heading `### mediaindex <words>` and ends at the
///   next heading of level 1 to 3 (`####` notes stay inside it). Headings inside fenced
///   code blocks are text.
/// - In a section, a table whose first header cell is `option` lists options: every
///   `--name` in a body row's first cell counts. Other tables, prose and code are not read.
struct CLIReference: Equatable {
    /// One `### mediaindex …` section.
    struct Section: Equatable {
        /// The words after `mediaindex` (empty for the root command).
        var path: [String]
        /// The heading's line number, 1-based, for messages.
        var line: Int
        /// Every `--name` listed in the section's option tables.
        var options: Set<String>
    }

    var sections: [Section]

    /// Reads the sections of `markdown`.
    init(markdown: String) {
        sections = []
        var isInCode = false
        var tableKind: TableKind = .none
        for (index, rawLine) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") { isInCode.toggle(); tableKind = .none; continue }
            if isInCode { continue }
            if line.hasPrefix("#") {
                tableKind = .none
                readHeading(line, lineNumber: index + 1)
                continue
            }
            guard line.hasPrefix("|") else { tableKind = .none; continue }
            let firstCell = Self.firstCell(of: line)
            switch tableKind {
            case .none:
                tableKind = Self.unquoted(firstCell).lowercased() == "option" ? .options : .other
            case .other:
                break
            case .options:
                guard !sections.isEmpty, !firstCell.allSatisfy({ "-: ".contains($0) }) else { continue }
                sections[sections.count - 1].options.formUnion(Self.longOptions(in: firstCell))
            }
        }
    }

    private enum TableKind { case none, options, other }

    /// Opens a section at `### mediaindex …`, or closes the open one at any other
    /// heading of level 1 to 3; level 4 and below leave it open.
    private mutating func readHeading(_ line: String, lineNumber: Int) {
        let level = line.prefix { $0 == "#" }.count
        guard level <= 3 else { return }
        let words = line.dropFirst(level).split(separator: " ").map(String.init)
        if level == 3, words.first == "mediaindex" {
            sections.append(Section(path: Array(words.dropFirst()), line: lineNumber, options: []))
        } else {
            // Rows under any other heading belong to no command: they go to a pseudo-section.
            sections.append(Section(path: [Self.closedMarker], line: lineNumber, options: []))
        }
    }

    /// The path of the pseudo-section that collects rows outside every command section.
    static let closedMarker = "\u{0}closed"

    /// The command sections, without the pseudo-sections that closed them.
    var commandSections: [Section] { sections.filter { $0.path.first != Self.closedMarker } }

    /// The first cell of a table row, with escaped pipes (`\|`) kept inside it.
    static func firstCell(of row: String) -> String {
        var cell = ""
        var previous: Character = " "
        for character in row.dropFirst() {
            if character == "|" && previous != "\\" { break }
            cell.append(character)
            previous = character
        }
        return cell.trimmingCharacters(in: .whitespaces)
    }

    /// The text of a cell without its backticks.
    static func unquoted(_ cell: String) -> String {
        cell.filter { $0 != "`" }.trimmingCharacters(in: .whitespaces)
    }

    /// `--name` words in a cell: two dashes, then lowercase letters, digits and dashes.
    static func longOptions(in cell: String) -> Set<String> {
        var result: Set<String> = []
        let characters = Array(cell)
        var index = 0
        while index + 2 < characters.count {
            let startsWord = index == 0 || !(characters[index - 1].isLetter || characters[index - 1].isNumber || characters[index - 1] == "-")
            if startsWord, characters[index] == "-", characters[index + 1] == "-", Self.isNameCharacter(characters[index + 2]) {
                var end = index + 2
                while end < characters.count, Self.isNameCharacter(characters[end]) || characters[end] == "-" { end += 1 }
                result.insert(String(characters[index..<end]))
                index = end
            } else {
                index += 1
            }
        }
        return result
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLowercase || character.isNumber)
    }

    /// Every command of the tree under `root`, with the words that select it.
    static func commands(under root: any ParsableCommand.Type) -> [(path: [String], command: any ParsableCommand.Type)] {
        var result: [(path: [String], command: any ParsableCommand.Type)] = []
        func visit(_ command: any ParsableCommand.Type, path: [String]) {
            result.append((path, command))
            for subcommand in command.configuration.subcommands {
                visit(subcommand, path: path + [subcommand.configuration.name])
            }
        }
        visit(root, path: [])
        return result
    }

    /// The options a command declares, as `--name`, with the parser's built-ins on the
    /// root (`--version`, `--generate-completion-script`, `--generate-manual`).
    /// `--help` works everywhere and is left out.
    static func declaredOptions(of command: any ParsableCommand.Type, isRoot: Bool) -> Set<String> {
        var options = Set(command.arguments.filter(\.isNamed).map(\.longFlag))
        if isRoot {
            if command.configuration.version != nil { options.insert("--version") }
            options.formUnion(["--generate-completion-script", "--generate-manual"])
        }
        return options
    }

    /// One sentence per difference between this page and the tree under `root`, in the
    /// order of the tree, then of the page; empty when they agree.
    func differences(from root: any ParsableCommand.Type) -> [String] {
        var problems: [String] = []
        let documented = commandSections
        var sectionsByPath: [[String]: Section] = [:]
        for section in documented {
            if let first = sectionsByPath[section.path] {
                problems.append("`\(Self.heading(section.path))` appears twice (lines \(first.line) and \(section.line)); keep one section")
            } else {
                sectionsByPath[section.path] = section
            }
        }
        let tree = Self.commands(under: root)
        for (path, command) in tree {
            let declared = Self.declaredOptions(of: command, isRoot: path.isEmpty)
            guard let section = sectionsByPath[path] else {
                let list = declared.sorted().joined(separator: ", ")
                problems.append("`mediaindex\(path.map { " " + $0 }.joined())` has no section: add a heading `\(Self.heading(path))` "
                                + "with an `| option | meaning |` table" + (list.isEmpty ? "" : " listing \(list)"))
                continue
            }
            let place = "`\(Self.heading(path))` (line \(section.line))"
            for option in declared.subtracting(section.options).sorted() {
                problems.append("\(place) does not list \(option): add a row `| \(option) … | … |` to its option table")
            }
            for option in section.options.subtracting(declared).subtracting(["--help"]).sorted() {
                problems.append("\(place) lists \(option), which the command does not declare: remove the row or fix its spelling")
            }
        }
        let known = Set(tree.map(\.path))
        for section in documented where !known.contains(section.path) {
            problems.append("`\(Self.heading(section.path))` (line \(section.line)) documents a command that does not exist")
        }
        return problems
    }

    static func heading(_ path: [String]) -> String {
        "### mediaindex" + path.map { " " + $0 }.joined()
    }
}
