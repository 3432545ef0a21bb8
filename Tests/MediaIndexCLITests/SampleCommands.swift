@testable import MediaIndexCLI

// A small command tree in the shape the real `mediaindex` will have, for the parser's
// specifications. `run` records what it saw through the context.

struct SampleLibraryOptions: ParsableArguments {
    static let library = Argument.option("library", valueName: "dir", as: RawArgument.self, help: "The library directory.")
    static let arguments = declared(library)
    var library: String?
    var libraryBytes: [UInt8]?

    init(parsed: ParsedArguments) throws {
        let raw = try parsed[Self.library]
        library = raw?.string ?? parsed.environment["MEDIAINDEX_LIBRARY"]
        libraryBytes = raw?.bytes
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
    static let quiet = Argument.flag("quiet", short: "q", help: "Print nothing but errors.")
    static let jobs = Argument.option("jobs", short: "j", valueName: "n", default: 4, help: "How many files to read at once.")
    static let paths = Argument.positionals("paths", help: "Roots to scan; all roots when none is given.")
    static let arguments = SampleLibraryOptions.arguments + declared(quiet, jobs, paths)

    var libraryOptions: SampleLibraryOptions
    var quiet: Bool
    var jobs: Int
    var paths: [String]

    init(parsed: ParsedArguments) throws {
        libraryOptions = try SampleLibraryOptions(parsed: parsed)
        quiet = try parsed[Self.quiet]
        jobs = try parsed[Self.jobs]
        paths = try parsed[Self.paths]
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
    static let force = Argument.flag("force", short: "f", help: "Remove even when user albums hold its assets.")
    static let root = Argument.positional("root", as: RawArgument.self, help: "The root folder, as `roots list` shows it.")
    static let arguments = SampleLibraryOptions.arguments + declared(force, root)
    var libraryOptions: SampleLibraryOptions
    var force: Bool
    var root: String
    var rootBytes: [UInt8]

    init(parsed: ParsedArguments) throws {
        libraryOptions = try SampleLibraryOptions(parsed: parsed)
        force = try parsed[Self.force]
        let raw = try parsed[Self.root]
        root = raw.string
        rootBytes = raw.bytes
    }
}

struct SampleAssets: ParsableCommand {
    static let configuration = CommandConfiguration(name: "assets", abstract: "List assets matching filters.")
    static let format = Argument.option(
        "format", valueName: "format", default: SampleFormat.table, help: "Output format: table, json or jsonl."
    )
    static let sizes = Argument.repeatableOption(
        "size", valueName: "pixels", as: Int.self,
        help: "A thumbnail size to report, in pixels along the longer side; repeat the option for several sizes."
    )
    static let capturedAfter = Argument.option("captured-after", valueName: "iso8601-date", help: "Only assets captured after this date.")
    static let limit = Argument.option("limit", valueName: "n", as: Int.self, help: "Show at most this many assets.")
    static let offset = Argument.option("offset", valueName: "n", as: Int.self, help: "Skip this many assets first.")
    static let verbose = Argument.flag("verbose", short: "v", help: "Show every column, however long the line.")
    static let arguments = SampleLibraryOptions.arguments + declared(format, sizes, capturedAfter, limit, offset, verbose)
    var format: SampleFormat
    var sizes: [Int]
    var limit: Int?
    var offset: Int?
    var verbose: Bool

    init(parsed: ParsedArguments) throws {
        format = try parsed[Self.format]
        sizes = try parsed[Self.sizes]
        limit = try parsed[Self.limit]
        offset = try parsed[Self.offset]
        verbose = try parsed[Self.verbose]
    }
}
