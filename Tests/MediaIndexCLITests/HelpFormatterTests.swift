import Testing
@testable import MediaIndexCLI

@Suite("HelpFormatter: the fixed shape of help pages")
struct HelpFormatterTests {
    let parser = CommandParser(root: SampleRoot.self)

    @Test("the root lists version, help and subcommands, and points to 'help <subcommand>'")
    func rootHelp() throws {
        #expect(try parser.helpText(for: []) == """
            OVERVIEW: Index photos and videos, and query the index.

            USAGE: mediaindex <subcommand>

            OPTIONS:
              --version               Show the version.
              --generate-completion-script <shell>
                                      Print a completion script for bash, zsh or fish.
              --generate-manual       Print the mediaindex.1 manual page.
              -h, --help              Show help information.

            SUBCOMMANDS:
              index                   Scan the roots and update the library.
              roots                   List, add and remove the folders the library indexes.
              assets                  List assets matching filters.

              See 'mediaindex help <subcommand>' for detailed help.
            """)
    }

    @Test("a nested group shows its own subcommands and its help path")
    func groupHelp() throws {
        #expect(try parser.helpText(for: ["roots"]) == """
            OVERVIEW: List, add and remove the folders the library indexes.

            USAGE: mediaindex roots <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              list                    List the roots.
              remove                  Stop indexing a root and forget its assets.

              See 'mediaindex help roots <subcommand>' for detailed help.
            """)
    }

    @Test("a leaf shows discussion, usage in declaration order, arguments, options with short names and defaults")
    func leafHelp() throws {
        #expect(try parser.helpText(for: ["index"]) == """
            OVERVIEW: Scan the roots and update the library.

            Only files whose size or modification time changed are read again.

            USAGE: mediaindex index [--library <dir>] [--quiet] [--jobs <n>] [<paths> ...]

            ARGUMENTS:
              <paths> ...             Roots to scan; all roots when none is given.

            OPTIONS:
              --library <dir>         The library directory.
              -q, --quiet             Print nothing but errors.
              -j, --jobs <n>          How many files to read at once. (default: 4)
              -h, --help              Show help information.
            """)
        #expect(try parser.helpText(for: ["roots", "remove"]) == """
            OVERVIEW: Stop indexing a root and forget its assets.

            USAGE: mediaindex roots remove [--library <dir>] [--force] <root>

            ARGUMENTS:
              <root>                  The root folder, as `roots list` shows it.

            OPTIONS:
              --library <dir>         The library directory.
              -f, --force             Remove even when user albums hold its assets.
              -h, --help              Show help information.
            """)
    }

    @Test("a long usage collapses optional options; long help wraps; a long label puts help below it")
    func longHelp() throws {
        #expect(try parser.helpText(for: ["assets"]) == """
            OVERVIEW: List assets matching filters.

            USAGE: mediaindex assets [<options>]

            OPTIONS:
              --library <dir>         The library directory.
              --format <format>       Output format: table, json or jsonl. (default: table)
              --size <pixels>         A thumbnail size to report, in pixels along the longer
                                      side; repeat the option for several sizes.
              --captured-after <iso8601-date>
                                      Only assets captured after this date.
              --limit <n>             Show at most this many assets.
              --offset <n>            Skip this many assets first.
              -v, --verbose           Show every column, however long the line.
              -h, --help              Show help information.
            """)
    }

    @Test("usage marks required, optional and repeated arguments the way swift-argument-parser does")
    func usageNotation() {
        struct Shapes: ParsableCommand {
            static let configuration = CommandConfiguration(name: "shapes", abstract: "")
            static let arguments: [ArgumentDefinition] = [
                .option("name", isRequired: true, help: ""),
                .repeatableOption("tag", help: ""),
                .positional("first", help: ""),
                .positional("second", arity: .optional, help: ""),
            ]
            init(parsed: ParsedArguments) {}
        }
        struct Many: ParsableCommand {
            static let configuration = CommandConfiguration(name: "many", abstract: "")
            static let arguments: [ArgumentDefinition] = [.positional("files", arity: .oneOrMore, help: "")]
            init(parsed: ParsedArguments) {}
        }
        #expect(HelpFormatter(chain: [Shapes.self]).usageLine() == "shapes --name <name> [--tag <tag> ...] <first> [<second>]")
        #expect(HelpFormatter(chain: [Many.self]).usageLine() == "many <files> ...")
    }
}
