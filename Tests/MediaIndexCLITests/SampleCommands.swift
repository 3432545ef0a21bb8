@testable import MediaIndexCLI

// A small command tree in the shape the real `mediaindex` will have, for the parser's
// specifications. `run` records what it saw through the context.

struct SampleLibraryOptions: ParsableArguments {
    static let arguments: [ArgumentDefinition] = [
        .option("library", valueName: "dir", help: "The library directory."),
    ]
    var library: String?
    var libraryBytes: [UInt8]?

    init(parsed: ParsedArguments) throws {
        library = parsed.option("library") ?? parsed.environment["MEDIAINDEX_LIBRARY"]
        libraryBytes = parsed.rawOption("library")?.bytes
    }
}

enum SampleFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case table, json, jsonl
}

struct SampleRoot: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "mediaindex",
        abstract: "Index photos and videos, and query the index.",
        version: "1.2.3",
        subcommands: [SampleIndex.self, SampleRoots.self, SampleAssets.self]
    )
    init(parsed: ParsedArguments) {}
}

struct SampleIndex: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "index",
        abstract: "Scan the roots and update the library.",
        discussion: "Only files whose size or modification time changed are read again."
    )
    static let arguments = SampleLibraryOptions.arguments + [
        .flag("quiet", short: "q", help: "Print nothing but errors."),
        .option("jobs", short: "j", valueName: "n", default: "4", help: "How many files to read at once."),
        .positional("paths", arity: .zeroOrMore, help: "Roots to scan; all roots when none is given."),
    ]

    var libraryOptions: SampleLibraryOptions
    var quiet: Bool
    var jobs: Int
    var paths: [String]

    init(parsed: ParsedArguments) throws {
        libraryOptions = try SampleLibraryOptions(parsed: parsed)
        quiet = parsed.flag("quiet")
        jobs = try parsed.option("jobs", as: Int.self) ?? 4
        paths = parsed.positionals("paths")
    }

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    func run(in context: CommandContext) async throws {
        if paths == ["fail"] { throw SampleFailure() }
        if paths == ["exit3"] { throw ExitCode(3) }
        context.standardOutput.writeLine("indexed \(paths.count) paths with \(jobs) jobs")
    }
}

struct SampleFailure: Error, CustomStringConvertible {
    var description: String { "Cannot open the library at /nowhere: no such directory." }
}

struct SampleRoots: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "roots",
        abstract: "List, add and remove the folders the library indexes.",
        subcommands: [SampleRootsList.self, SampleRootsRemove.self]
    )
    init(parsed: ParsedArguments) {}
}

struct SampleRootsList: ParsableCommand {
    static let configuration = CommandConfiguration(name: "list", abstract: "List the roots.")
    static let arguments = SampleLibraryOptions.arguments
    var libraryOptions: SampleLibraryOptions
    init(parsed: ParsedArguments) throws { libraryOptions = try SampleLibraryOptions(parsed: parsed) }
}

struct SampleRootsRemove: ParsableCommand {
    static let configuration = CommandConfiguration(name: "remove", abstract: "Stop indexing a root and forget its assets.")
    static let arguments = SampleLibraryOptions.arguments + [
        .flag("force", short: "f", help: "Remove even when user albums hold its assets."),
        .positional("root", help: "The root folder, as `roots list` shows it."),
    ]
    var libraryOptions: SampleLibraryOptions
    var force: Bool
    var root: String
    var rootBytes: [UInt8]

    init(parsed: ParsedArguments) throws {
        libraryOptions = try SampleLibraryOptions(parsed: parsed)
        force = parsed.flag("force")
        root = parsed.positional("root") ?? ""
        rootBytes = parsed.rawPositional("root")?.bytes ?? []
    }
}

struct SampleAssets: ParsableCommand {
    static let configuration = CommandConfiguration(name: "assets", abstract: "List assets matching filters.")
    static let arguments = SampleLibraryOptions.arguments + [
        .option("format", valueName: "format", default: "table", help: "Output format: table, json or jsonl."),
        .repeatableOption(
            "size", valueName: "pixels",
            help: "A thumbnail size to report, in pixels along the longer side; repeat the option for several sizes."
        ),
        .option("captured-after", valueName: "iso8601-date", help: "Only assets captured after this date."),
        .option("limit", valueName: "n", help: "Show at most this many assets."),
        .option("offset", valueName: "n", help: "Skip this many assets first."),
        .flag("verbose", short: "v", help: "Show every column, however long the line."),
    ]
    var format: SampleFormat
    var sizes: [Int]
    var limit: Int?
    var offset: Int?
    var verbose: Bool

    init(parsed: ParsedArguments) throws {
        format = try parsed.option("format", as: SampleFormat.self) ?? .table
        sizes = try parsed.options("size", as: Int.self)
        limit = try parsed.option("limit", as: Int.self)
        offset = try parsed.option("offset", as: Int.self)
        verbose = parsed.flag("verbose")
    }
}
