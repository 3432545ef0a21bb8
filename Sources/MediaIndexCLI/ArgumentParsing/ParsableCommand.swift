/// A group of arguments that reads itself from parsed values: a command, or a set of
/// options shared by several commands (such as `--library`).
///
/// Declare each argument once, as a static `ArgumentKey` (`Argument.flag`, `.option`,
/// `.positional`…), list the keys in `arguments` with `declared(_:)`, and read them in
/// `init(parsed:)` through the same keys. Share a group by concatenating its declarations
/// into a command's `arguments` (`LibraryOptions.arguments + declared(...)`) and building
/// it in the command's `init(parsed:)` with `try LibraryOptions(parsed: parsed)`.
public protocol ParsableArguments: Sendable {
    /// The arguments, in the order help lists them and positionals are filled.
    static var arguments: [ArgumentDefinition] { get }

    /// Reads typed values from what the parser found.
    ///
    /// - Throws: `UsageError` when a value does not convert (reading a key throws it),
    ///   or `ValidationError`.
    init(parsed: ParsedArguments) throws
}

/// A command of the `mediaindex` tool: a leaf that runs, or a group of subcommands.
///
/// A group (non-empty `configuration.subcommands`) takes no arguments of its own; given
/// no subcommand, the parser answers with its help.
///
///     struct RootsRemove: ParsableCommand {
///         static let configuration = CommandConfiguration(name: "remove", abstract: "Stop indexing a root.")
///         static let force = Argument.flag("force", short: "f", help: "Remove even when albums hold its assets.")
///         static let root = Argument.positional("root", as: RawArgument.self, help: "The root folder.")
///         static let arguments = LibraryOptions.arguments + declared(force, root)
///         var library: LibraryOptions
///         var force: Bool
///         var root: RawArgument
///
///         init(parsed: ParsedArguments) throws {
///             library = try LibraryOptions(parsed: parsed)
///             force = try parsed[Self.force]
///             root = try parsed[Self.root]   // required: the parser ensured it is there
///         }
///         func run(in context: CommandContext) async throws { … }
///     }
public protocol ParsableCommand: ParsableArguments {
    /// The command's name, help texts, version (root only) and subcommands.
    static var configuration: CommandConfiguration { get }

    /// Rejects bad input before any work is done.
    ///
    /// - Throws: `ValidationError`, reported as a usage error (exit code 64).
    func validate() throws

    /// Does the command's work, writing through `context`.
    ///
    /// - Throws: any error, reported as `Error: <description>` with exit code 1, or
    ///   `ExitCode` to leave quietly with a chosen code.
    func run(in context: CommandContext) async throws
}

extension ParsableArguments {
    /// No arguments, by default.
    public static var arguments: [ArgumentDefinition] { [] }
}

extension ParsableCommand {
    /// Accepts everything, by default.
    public func validate() throws {}

    /// A group that is run without a subcommand; the parser never gets here because it
    /// answers such a call with help.
    public func run(in context: CommandContext) async throws {
        throw ValidationError("'\(Self.configuration.name)' needs a subcommand")
    }
}

/// A section of the manual page: a title and its paragraphs.
public struct ManualSection: Sendable {
    /// The heading (`ENVIRONMENT`).
    public var title: String
    /// Paragraphs of plain text.
    public var paragraphs: [String]

    /// A section.
    public init(title: String, paragraphs: [String]) {
        self.title = title
        self.paragraphs = paragraphs
    }
}

/// How a command presents itself: its name, help texts and subcommands.
public struct CommandConfiguration: Sendable {
    /// The word that selects the command (`remove` in `mediaindex roots remove`).
    public var name: String
    /// One line: shown after `OVERVIEW:` and beside the name in a parent's list.
    public var abstract: String
    /// Longer help text, shown in the command's own help after the abstract.
    public var discussion: String?
    /// The version `--version` prints; only read on the root command.
    public var version: String?
    /// The commands below this one, in the order help lists them.
    public var subcommands: [any ParsableCommand.Type]
    /// Sections the manual page adds after its commands (root only): ENVIRONMENT,
    /// FILES, EXIT STATUS…
    public var manualSections: [ManualSection]

    /// Describes a command.
    public init(
        name: String,
        abstract: String,
        discussion: String? = nil,
        version: String? = nil,
        subcommands: [any ParsableCommand.Type] = [],
        manualSections: [ManualSection] = []
    ) {
        self.manualSections = manualSections
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.subcommands = subcommands
    }
}
