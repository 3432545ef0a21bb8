import MediaIndex
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses, validates and runs a command, and turns the outcome into an exit code:
/// 0 success, 1 runtime error (`Error: …`), 64 usage error (`Error: …` + `Usage: …`).
public enum CommandRunner {
    /// The executable's entry point: runs the command the process's arguments (exact
    /// bytes) select, flushes output, and exits.
    public static func main(root: any ParsableCommand.Type) async -> Never {
        let code = await run(root: root, arguments: RawArgument.processArguments(), context: .process())
        exit(code)
    }

    /// Runs the command `arguments` select and returns the exit code; everything is
    /// written through `context` (flushed before returning).
    public static func run(
        root: any ParsableCommand.Type,
        arguments: [RawArgument],
        context: CommandContext
    ) async -> Int32 {
        defer { context.standardOutput.flush() }
        do {
            switch try CommandParser(root: root).parse(raw: arguments, environment: context.environment) {
            case .help(let text), .version(let text), .generated(let text):
                context.standardOutput.writeLine(text)
                return 0
            case .run(let command):
                try await command.run(in: context)
                return 0
            }
        } catch {
            context.standardOutput.flush()
            return report(error, rootName: root.configuration.name, to: context.standardError)
        }
    }

    /// Writes what went wrong and returns the exit code for it.
    static func report(_ error: any Error, rootName: String, to output: TextOutput) -> Int32 {
        switch error {
        case let exit as ExitCode:
            return exit.rawValue
        case let usage as UsageError:
            output.writeLine("Error: \(TerminalSanitizer.escape(usage.message))")
            if let line = usage.usage {
                output.writeLine("Usage: \(line)")
                let path = usage.commandPath.isEmpty ? rootName : usage.commandPath.joined(separator: " ")
                output.writeLine("  See '\(path) --help' for more information.")
            }
            return ExitCode.usage.rawValue
        case let validation as ValidationError:
            output.writeLine("Error: \(TerminalSanitizer.escape(validation.message))")
            return ExitCode.usage.rawValue
        default:
            // Messages name files, whose names may hold escape sequences.
            output.writeLine("Error: \(TerminalSanitizer.escape(ErrorAdvice.sentence(for: error)))")
            return ExitCode.failure.rawValue
        }
    }
}
