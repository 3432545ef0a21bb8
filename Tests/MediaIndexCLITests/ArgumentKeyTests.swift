import Testing
@testable import MediaIndexCLI

/// Every leaf command under `chain`, with the path of names that selects it.
private func leaves(_ chain: [any ParsableCommand.Type]) -> [[any ParsableCommand.Type]] {
    guard let command = chain.last else { return [] }
    let subcommands = command.configuration.subcommands
    return subcommands.isEmpty ? [chain] : subcommands.flatMap { leaves(chain + [$0]) }
}

@Suite("ArgumentKey: an argument declared once, read back typed")
struct ArgumentKeyTests {
    @Test("an option's declared default is its value when absent, and help shows it as written")
    func defaultsComeFromTheDeclaration() throws {
        let index = try #require(try sampleCommand(["index"], as: SampleIndex.self))
        #expect(index.jobs == 4)
        let assets = try #require(try sampleCommand(["assets"], as: SampleAssets.self))
        #expect(assets.format == .table)
        #expect(SampleIndex.jobs.definition.kind == .option(valueName: "n", defaultValue: "4", isRepeatable: false, isRequired: false))
        #expect(WatchCommand.quietPeriod.definition.kind == .option(valueName: "seconds", defaultValue: "1", isRepeatable: false, isRequired: false))
        #expect(WatchCommand.maximumDelay.definition.kind == .option(valueName: "seconds", defaultValue: "1.5", isRepeatable: false, isRequired: false))
    }

    @Test("a default the help sentence already states is not repeated by help")
    func helpDescribedDefaultIsNotRepeated() {
        #expect(PickCommand.limit.definition.kind == .option(valueName: "n", defaultValue: nil, isRepeatable: false, isRequired: false))
    }

    /// A command that read a key it does not list would stop the process here: every
    /// leaf is built from a command line holding only its required positionals.
    @Test("every command reads only the arguments it declares")
    func everyCommandReadsOnlyItsDeclarations() {
        let parser = CommandParser(root: MediaIndexCommand.self)
        for chain in leaves([MediaIndexCommand.self]) {
            guard let command = chain.last else { continue }
            let required = command.arguments.compactMap { argument -> String? in
                guard case .positional(let arity) = argument.kind, arity.isRequired else { return nil }
                return "x"
            }
            let words = chain.dropFirst().map { $0.configuration.name } + required
            do {
                _ = try parser.parse(words, environment: ["MEDIAINDEX_LIBRARY": "/nonexistent"])
            } catch let error as UsageError {
                // Validation may refuse "x"; the keys were read before it did.
                #expect(!error.message.isEmpty)
            } catch {
                Issue.record("\(words): \(error)")
            }
        }
    }
}
