import Foundation

/// What a running command writes to and reads its surroundings from; tests build one
/// with capturing outputs.
public struct CommandContext: Sendable {
    /// Where results go.
    public var standardOutput: TextOutput
    /// Where progress, warnings and errors go.
    public var standardError: TextOutput
    /// The process environment (`MEDIAINDEX_LIBRARY`, `XDG_DATA_HOME`, …).
    public var environment: [String: String]
    /// The width tables fit to: the terminal's when stdout is one, else nil (no
    /// truncation when output goes to a file or a pipe).
    public var terminalWidth: Int?

    /// A context from its parts.
    public init(
        standardOutput: TextOutput,
        standardError: TextOutput,
        environment: [String: String] = [:],
        terminalWidth: Int? = nil
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.environment = environment
        self.terminalWidth = terminalWidth
    }

    /// The real process: stdout, stderr, environment, terminal width.
    public static func process() -> CommandContext {
        let environment = ProcessInfo.processInfo.environment
        let output = TextOutput.standardOutput
        return CommandContext(
            standardOutput: output,
            standardError: TextOutput.standardError,
            environment: environment,
            terminalWidth: output.isTerminal ? Terminal.width(of: 1, environment: environment) : nil
        )
    }

    /// A context that keeps what is written, for tests.
    public static func capturing(environment: [String: String] = [:], terminalWidth: Int? = nil) -> CommandContext {
        CommandContext(
            standardOutput: .capturing(asTerminal: terminalWidth != nil),
            standardError: .capturing(),
            environment: environment,
            terminalWidth: terminalWidth
        )
    }
}
