/// A command line the tool cannot accept: reported as `Error: <message>` followed by
/// the command's usage line, with exit code 64 (`EX_USAGE`).
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// One sentence saying what is wrong with the command line.
    public var message: String
    /// The usage line of the command concerned (`mediaindex roots remove <root>`), set
    /// by the parser.
    public var usage: String?
    /// The words that select the command concerned (`["mediaindex", "roots", "remove"]`),
    /// set by the parser.
    public var commandPath: [String]

    /// A usage error; the parser fills in the usage line.
    public init(_ message: String, usage: String? = nil, commandPath: [String] = []) {
        self.message = message
        self.usage = usage
        self.commandPath = commandPath
    }

    public var description: String { message }
}

/// Input that parsed but makes no sense, thrown by `validate()` (or `init(parsed:)`):
/// reported like a `UsageError`, exit code 64.
public struct ValidationError: Error, Equatable, CustomStringConvertible {
    /// One sentence a user can act on.
    public var message: String

    /// A validation failure with its message.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Thrown from `run` to end the process with a chosen code and no `Error:` line (the
/// command has already said what it needs to).
public struct ExitCode: Error, Equatable, Sendable {
    /// The process exit status.
    public var rawValue: Int32

    /// An exit with this status.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Success, 0.
    public static let success = ExitCode(0)
    /// Runtime failure, 1.
    public static let failure = ExitCode(1)
    /// Bad command line, 64 (`EX_USAGE` from sysexits.h).
    public static let usage = ExitCode(64)
}
