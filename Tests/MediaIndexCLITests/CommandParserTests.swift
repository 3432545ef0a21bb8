import Testing
@testable import MediaIndexCLI
import MediaIndexInterface

/// Parses `arguments` against the sample tree and returns the command to run.
func sampleCommand<Command: ParsableCommand>(
    _ arguments: [String], as type: Command.Type, environment: [String: String] = [:]
) throws -> Command? {
    guard case .run(let command) = try CommandParser(root: SampleRoot.self).parse(arguments, environment: environment) else {
        return nil
    }
    return command as? Command
}

/// The usage error `arguments` raise against the sample tree, or nil when they parse.
func sampleUsageError(_ arguments: [String]) -> UsageError? {
    do {
        _ = try CommandParser(root: SampleRoot.self).parse(arguments)
        return nil
    } catch let error as UsageError {
        return error
    } catch {
        return nil
    }
}

@Suite("CommandParser: selecting commands and reading values")
struct CommandParserTests {
    @Test("the sample tree declares nothing twice and keeps variadic positionals last")
    func sampleTreeIsWellFormed() {
        #expect(CommandParser(root: SampleRoot.self).declarationProblems() == [])
    }

    @Test("reports a duplicated option name and a reused -h")
    func declarationProblemsAreFound() {
        struct Broken: ParsableCommand {
            static let configuration = CommandConfiguration(name: "broken", abstract: "")
            static let arguments: [ArgumentDefinition] = [
                .flag("quiet", short: "h", help: ""), .option("quiet", help: ""),
                .positional("rest", arity: .zeroOrMore, help: ""), .positional("last", help: ""),
            ]
            init(parsed: ParsedArguments) {}
        }
        let problems = CommandParser(root: Broken.self).declarationProblems()
        #expect(problems.count == 3)
        #expect(problems.contains("'broken' declares 'quiet' twice (or reuses a built-in name)"))
    }

    @Test("selects a leaf command and reads flags, options, defaults and positionals")
    func readsLeafValues() throws {
        let index = try #require(try sampleCommand(["index", "--library", "/lib", "-q", "a", "b"], as: SampleIndex.self))
        #expect(index.libraryOptions.library == "/lib")
        #expect(index.quiet)
        #expect(index.jobs == 4)
        #expect(index.paths == ["a", "b"])
    }

    @Test("accepts --opt=value, -o value, -ovalue, -o=value and clustered short flags")
    func acceptsEveryValueSpelling() throws {
        for arguments in [["--jobs=3"], ["--jobs", "3"], ["-j", "3"], ["-j3"], ["-j=3"], ["-qj3"]] {
            let index = try #require(try sampleCommand(["index"] + arguments, as: SampleIndex.self))
            #expect(index.jobs == 3, "\(arguments)")
        }
        let clustered = try #require(try sampleCommand(["index", "-qj", "2"], as: SampleIndex.self))
        #expect(clustered.quiet && clustered.jobs == 2)
    }

    @Test("keeps everything after '=' as the value, even another '='")
    func keepsEqualsInValues() throws {
        let index = try #require(try sampleCommand(["index", "--library=/a=b"], as: SampleIndex.self))
        #expect(index.libraryOptions.library == "/a=b")
    }

    @Test("'--' ends options: later words are positionals even when they start with '-'")
    func doubleDashEndsOptions() throws {
        let index = try #require(try sampleCommand(["index", "--", "-q", "--jobs"], as: SampleIndex.self))
        #expect(!index.quiet)
        #expect(index.paths == ["-q", "--jobs"])
    }

    @Test("a lone '-' and a negative number are values, not options")
    func dashAndNegativeNumbersAreValues() throws {
        let index = try #require(try sampleCommand(["index", "-"], as: SampleIndex.self))
        #expect(index.paths == ["-"])
        let assets = try #require(try sampleCommand(["assets", "--offset", "-3"], as: SampleAssets.self))
        #expect(assets.offset == -3)
    }

    @Test("a repeatable option keeps every value in order; a single one keeps the last")
    func repeatedOptions() throws {
        let assets = try #require(try sampleCommand(
            ["assets", "--size", "256", "--size=1024", "--limit", "5", "--limit", "7"], as: SampleAssets.self))
        #expect(assets.sizes == [256, 1024])
        #expect(assets.limit == 7)
    }

    @Test("an option not given reads its declared default; an enum converts from its raw value")
    func defaultsAndEnums() throws {
        let plain = try #require(try sampleCommand(["assets"], as: SampleAssets.self))
        #expect(plain.format == .table)
        #expect(plain.limit == nil)
        #expect(plain.sizes == [])
        let json = try #require(try sampleCommand(["assets", "--format", "jsonl"], as: SampleAssets.self))
        #expect(json.format == .jsonl)
    }

    @Test("a shared option group reads the environment the parser was given")
    func optionGroupReadsEnvironment() throws {
        let list = try #require(try sampleCommand(
            ["roots", "list"], as: SampleRootsList.self, environment: ["MEDIAINDEX_LIBRARY": "/env/lib"]))
        #expect(list.libraryOptions.library == "/env/lib")
        let overridden = try #require(try sampleCommand(
            ["roots", "list", "--library", "/flag"], as: SampleRootsList.self, environment: ["MEDIAINDEX_LIBRARY": "/env"]))
        #expect(overridden.libraryOptions.library == "/flag")
    }

    @Test("nested subcommands are selected word by word")
    func nestedSubcommands() throws {
        let remove = try #require(try sampleCommand(["roots", "remove", "-f", "/photos"], as: SampleRootsRemove.self))
        #expect(remove.force)
        #expect(remove.root == "/photos")
    }

    @Test("path arguments that are not UTF-8 keep their exact bytes")
    func rawBytesRoundTrip() throws {
        let path: [UInt8] = [0x2F, 0x70, 0xE9, 0x2F, 0xFF] // "/p\xE9/\xFF", Latin-1 names
        let outcome = try CommandParser(root: SampleRoot.self).parse(raw: [
            "roots", "remove", RawArgument(bytes: Array("--library=".utf8) + path), RawArgument(bytes: path),
        ])
        guard case .run(let command) = outcome else { Issue.record("expected a command"); return }
        let remove = try #require(command as? SampleRootsRemove)
        #expect(remove.rootBytes == path)
        #expect(remove.libraryOptions.libraryBytes == path)
        #expect(remove.root == "/p\u{FFFD}/\u{FFFD}")
        #expect(!RawArgument(bytes: path).isValidUTF8)
    }
}

@Suite("CommandParser: help and version requests")
struct CommandParserRequestTests {
    let parser = CommandParser(root: SampleRoot.self)

    @Test("-h and --help anywhere on a leaf's line ask for that command's help, even beside errors")
    func helpFlagsOnLeaves() throws {
        let expected = try parser.helpText(for: ["roots", "remove"])
        for arguments in [["roots", "remove", "-h"], ["roots", "remove", "--bogus", "--help"], ["roots", "remove", "x", "y", "-h"]] {
            guard case .help(let text) = try parser.parse(arguments) else { Issue.record("no help for \(arguments)"); continue }
            #expect(text == expected)
        }
    }

    @Test("'help <subcommand>', a bare group and no arguments at all show help")
    func helpRequests() throws {
        guard case .help(let viaHelp) = try parser.parse(["help", "roots", "remove"]),
              case .help(let bareGroup) = try parser.parse(["roots"]),
              case .help(let bareRoot) = try parser.parse([]),
              case .help(let rootFlag) = try parser.parse(["--help"])
        else { Issue.record("expected help"); return }
        #expect(viaHelp == (try parser.helpText(for: ["roots", "remove"])))
        #expect(bareGroup == (try parser.helpText(for: ["roots"])))
        #expect(bareRoot == rootFlag)
        #expect(bareRoot.hasPrefix("OVERVIEW: Index photos and videos"))
    }

    @Test("--version on the root prints the version; after '--' it is a positional")
    func versionRequests() throws {
        guard case .version(let version) = try parser.parse(["--version"]) else { Issue.record("expected version"); return }
        #expect(version == "1.2.3")
        let index = try #require(try sampleCommand(["index", "--", "--version"], as: SampleIndex.self))
        #expect(index.paths == ["--version"])
    }
}

@Suite("CommandParser: usage errors")
struct CommandParserErrorTests {
    @Test("an unknown option near a known one suggests it")
    func unknownOptionWithSuggestion() {
        #expect(sampleUsageError(["assets", "--fromat", "json"])?.message
            == "Unknown option '--fromat'. Did you mean '--format'?")
        #expect(sampleUsageError(["assets", "--verbos"])?.message
            == "Unknown option '--verbos'. Did you mean '--verbose'?")
        #expect(sampleUsageError(["--verison"])?.message == "Unknown option '--verison'. Did you mean '--version'?")
    }

    @Test("an unknown option far from every known one says only that")
    func unknownOptionWithoutSuggestion() {
        #expect(sampleUsageError(["assets", "--foo"])?.message == "Unknown option '--foo'")
        #expect(sampleUsageError(["assets", "-x"])?.message == "Unknown option '-x'")
    }

    @Test("an unknown subcommand names itself and suggests a near one")
    func unknownSubcommand() {
        #expect(sampleUsageError(["rots"])?.message == "Unknown subcommand 'rots'. Did you mean 'roots'?")
        #expect(sampleUsageError(["roots", "frobnicate"])?.message == "Unknown subcommand 'frobnicate'")
        #expect(sampleUsageError(["help", "rots"])?.message == "Unknown subcommand 'rots'. Did you mean 'roots'?")
    }

    @Test("an option at the end of the line, or followed by another option, misses its value")
    func missingValue() {
        #expect(sampleUsageError(["index", "--library"])?.message == "Missing value for '--library <dir>'")
        #expect(sampleUsageError(["index", "--library", "--quiet"])?.message == "Missing value for '--library <dir>'")
        #expect(sampleUsageError(["index", "-j"])?.message == "Missing value for '--jobs <n>'")
    }

    @Test("a required positional that is absent is named")
    func missingArgument() {
        #expect(sampleUsageError(["roots", "remove", "--force"])?.message == "Missing expected argument '<root>'")
    }

    @Test("a word no positional takes is unexpected")
    func unexpectedArgument() {
        #expect(sampleUsageError(["roots", "remove", "/a", "/b"])?.message == "Unexpected argument '/b'")
        #expect(sampleUsageError(["roots", "list", "extra"])?.message == "Unexpected argument 'extra'")
    }

    @Test("a value that does not convert names the option and what was expected")
    func badValues() {
        #expect(sampleUsageError(["index", "--jobs", "four"])?.message
            == "The value 'four' is invalid for '--jobs <n>': expected an integer")
        #expect(sampleUsageError(["assets", "--format", "xml"])?.message
            == "The value 'xml' is invalid for '--format <format>': expected one of 'table', 'json', 'jsonl'")
        #expect(sampleUsageError(["assets", "--size", "256", "--size", "big"])?.message
            == "The value 'big' is invalid for '--size <pixels>': expected an integer")
    }

    @Test("a flag given a value is refused")
    func flagWithValue() {
        #expect(sampleUsageError(["index", "--quiet=yes"])?.message == "The flag '--quiet' does not take a value")
        #expect(sampleUsageError(["index", "-q=1"])?.message == "The flag '-q' does not take a value")
    }

    @Test("validate() rejects input that parsed, as a usage error")
    func validationFailure() {
        #expect(sampleUsageError(["index", "--jobs", "0"])?.message == "--jobs must be at least 1")
    }

    @Test("a usage error carries the command's usage line and path")
    func errorCarriesUsage() throws {
        let error = try #require(sampleUsageError(["roots", "remove"]))
        #expect(error.usage == "mediaindex roots remove [--library <dir>] [--force] <root>")
        #expect(error.commandPath == ["mediaindex", "roots", "remove"])
    }

    @Test("a required option that is absent is named; given, it is read without an optional")
    func missingRequiredOption() throws {
        struct Needs: ParsableCommand {
            static let configuration = CommandConfiguration(name: "needs", abstract: "")
            static let name = Argument.requiredOption("name", help: "")
            static let arguments = declared(name)
            var name: String
            init(parsed: ParsedArguments) throws { name = try parsed[Self.name] }
        }
        #expect(throws: UsageError("Missing expected argument '--name <name>'", usage: "needs --name <name>", commandPath: ["needs"])) {
            try CommandParser(root: Needs.self).parse([])
        }
        guard case .run(let command) = try CommandParser(root: Needs.self).parse(["--name", "x"]) else {
            Issue.record("expected the command to run")
            return
        }
        #expect((command as? Needs)?.name == "x")
    }
}

@Suite("Suggestion")
struct SuggestionTests {
    @Test("counts a swap of neighbours as one edit")
    func transpositions() {
        #expect(Suggestion.editDistance("fromat", "format") == 1)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
    }

    @Test("suggests an abbreviated name and nothing for a distant one")
    func abbreviationsAndDistance() {
        #expect(Suggestion.closest(to: "verb", among: ["verbose", "version"]) == "verbose")
        #expect(Suggestion.closest(to: "zzz", among: ["verbose", "version"]) == nil)
    }
}
