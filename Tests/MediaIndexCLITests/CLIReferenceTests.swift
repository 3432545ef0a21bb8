import Foundation
import Testing
@testable import MediaIndexCLI

@Suite("docs/cli.md: every command and option documented, none that does not exist")
struct CLIReferenceTests {
    static let page = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/cli.md")

    @Test("docs/cli.md lists every subcommand and option of mediaindex, and nothing else")
    func pageMatchesTheCommands() throws {
        let reference = CLIReference(markdown: try String(contentsOf: Self.page, encoding: .utf8))
        let problems = reference.differences(from: MediaIndexCommand.self)
        #expect(problems.isEmpty, Comment(rawValue: """
            docs/cli.md does not match the command definitions (Sources/MediaIndexCLI/Commands); \
            the rules are at the top of docs/cli.md:
            \(problems.map { "- " + $0 }.joined(separator: "\n"))
            """))
        #expect(reference.commandSections.count == CLIReference.commands(under: MediaIndexCommand.self).count)
    }

    // The reader and the comparison, on the parser's sample tree (SampleCommands.swift).

    static let samplePage = """
        # Sample

        ### mediaindex

        | option | meaning |
        |---|---|
        | `--version` | The version. |
        | `--generate-completion-script SHELL`, `--generate-manual` | Generated text. |

        ### mediaindex index

        | option | meaning |
        |---|---|
        | `--library DIR` | The library. |
        | `-q`, `--quiet` | Quiet. |
        | `PATHS…` | Positionals are not checked. |

        Prose naming `--jobs` does not document it; nor does another table:

        | flag | meaning |
        |---|---|
        | `--jobs N` | Not an option table. |

        #### A note inside the section

        | option | meaning |
        |---|---|
        | `--frobnicate` | Listed, and not declared. |

        ```
        ### mediaindex in-a-code-block
        ```

        ### mediaindex roots

        ### mediaindex roots list

        | option | meaning |
        |---|---|
        | `--library DIR` | The library. |

        ### mediaindex roots remove

        | option | meaning |
        |---|---|
        | `--library DIR`, `-f`, `--force` | Both. |
        | `--size WxH\\|N` | An escaped pipe stays in the cell. |

        ### mediaindex reticulate

        ## Elsewhere

        | option | meaning |
        |---|---|
        | `--filter` | Outside every command section: not counted. |

        ### mediaindex roots list
        """

    @Test("sections are read from level-3 headings, option tables from their first cells only")
    func readsSections() {
        let reference = CLIReference(markdown: Self.samplePage)
        #expect(reference.commandSections.map(\.path) == [[], ["index"], ["roots"], ["roots", "list"], ["roots", "remove"],
                                                          ["reticulate"], ["roots", "list"]])
        #expect(reference.commandSections[0].options == ["--version", "--generate-completion-script", "--generate-manual"])
        #expect(reference.commandSections[1].options == ["--library", "--quiet", "--frobnicate"])
        #expect(reference.commandSections[4].options == ["--library", "--force", "--size"])
        #expect(reference.commandSections[4].line == 42)
    }

    @Test("each difference is one sentence naming the section, its line and the option")
    func namesEachDifference() {
        let problems = CLIReference(markdown: Self.samplePage).differences(from: SampleRoot.self)
        #expect(problems == [
            "`### mediaindex roots list` appears twice (lines 36 and 57); keep one section",
            "`### mediaindex index` (line 10) does not list --jobs: add a row `| --jobs … | … |` to its option table",
            "`### mediaindex index` (line 10) lists --frobnicate, which the command does not declare: remove the row or fix its spelling",
            "`### mediaindex roots remove` (line 42) lists --size, which the command does not declare: remove the row or fix its spelling",
            "`mediaindex assets` has no section: add a heading `### mediaindex assets` with an `| option | meaning |` table "
                + "listing --captured-after, --format, --library, --limit, --offset, --size, --verbose",
            "`### mediaindex reticulate` (line 49) documents a command that does not exist",
        ])
    }
}
