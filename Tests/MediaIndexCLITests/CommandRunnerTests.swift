import Testing
@testable import MediaIndexCLI

/// Runs the sample tree and returns the exit code, stdout and stderr.
func runSample(_ arguments: [String]) async -> (code: Int32, output: String, errors: String) {
    let context = CommandContext.capturing()
    let code = await CommandRunner.run(root: SampleRoot.self, arguments: arguments.map { RawArgument($0) }, context: context)
    return (code, context.standardOutput.capturedText, context.standardError.capturedText)
}

@Suite("CommandRunner: exit codes and what goes where")
struct CommandRunnerTests {
    @Test("success runs the command, writes its output to stdout and exits 0")
    func success() async {
        let result = await runSample(["index", "-j", "2", "a"])
        #expect(result.code == 0)
        #expect(result.output == "indexed 1 paths with 2 jobs\n")
        #expect(result.errors == "")
    }

    @Test("a usage error prints Error, Usage and a pointer to help on stderr, and exits 64")
    func usageError() async {
        let result = await runSample(["roots", "remove", "--forse", "/a"])
        #expect(result.code == 64)
        #expect(result.output == "")
        #expect(result.errors == """
            Error: Unknown option '--forse'. Did you mean '--force'?
            Usage: mediaindex roots remove [--library <dir>] [--force] <root>
              See 'mediaindex roots remove --help' for more information.

            """)
    }

    @Test("a runtime error prints its description after 'Error:' and exits 1")
    func runtimeError() async {
        let result = await runSample(["index", "fail"])
        #expect(result.code == 1)
        #expect(result.errors == "Error: Cannot open the library at /nowhere: no such directory.\n")
    }

    @Test("ExitCode ends quietly with its code")
    func explicitExitCode() async {
        let result = await runSample(["index", "exit3"])
        #expect(result.code == 3)
        #expect(result.errors == "")
    }

    @Test("help and version go to stdout and exit 0")
    func helpAndVersion() async throws {
        let help = await runSample(["help", "roots"])
        #expect(help.code == 0)
        #expect(help.output == (try CommandParser(root: SampleRoot.self).helpText(for: ["roots"])) + "\n")
        let version = await runSample(["--version"])
        #expect(version.code == 0)
        #expect(version.output == "1.2.3\n")
    }
}

@Suite("RawArgument")
struct RawArgumentTests {
    @Test("argv read as bytes matches CommandLine.arguments for this (UTF-8) process")
    func processArgumentsMatchCommandLine() {
        #expect(RawArgument.processArguments().map(\.string) == Array(CommandLine.arguments.dropFirst()))
    }

    @Test("invalid UTF-8 reads as U+FFFD in string but survives in bytes")
    func invalidUTF8() {
        let argument = RawArgument(bytes: [0x61, 0xC3, 0x28])
        #expect(argument.string == "a\u{FFFD}(")
        #expect(argument.bytes == [0x61, 0xC3, 0x28])
        #expect(!argument.isValidUTF8)
        #expect(RawArgument("café").isValidUTF8)
    }
}
