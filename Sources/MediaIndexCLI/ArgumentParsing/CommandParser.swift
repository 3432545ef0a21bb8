import MediaIndexInterface

/// What a command line asks for.
public enum ParseOutcome: Sendable {
    /// Run this command: parsed, built and validated.
    case run(any ParsableCommand)
    /// Print this help page (to stdout, exit 0).
    case help(String)
    /// Print this version (to stdout, exit 0).
    case version(String)
    /// Print this generated text: a completion script or the manual page (to stdout, exit 0).
    case generated(String)
}

/// Turns a command line into the command to run, following swift-argument-parser's
/// conventions: `--opt value`, `--opt=value`, `-o value`, `-o=value`, `-ovalue`,
/// clustered short flags (`-qv`), `--` ending options, `-h`/`--help` on every command,
/// `--version` and `help <subcommand>` on the root.
public struct CommandParser: Sendable {
    /// The root command (`mediaindex`).
    public let root: any ParsableCommand.Type

    /// A parser for the tree under `root`.
    public init(root: any ParsableCommand.Type) {
        self.root = root
    }

    /// Parses arguments given as strings (the program name excluded).
    ///
    /// - Throws: `UsageError` for an unknown option or subcommand, a missing value or
    ///   argument, an extra argument, a value that does not convert, or a failed
    ///   `validate()`; any other error `init(parsed:)` throws.
    public func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> ParseOutcome {
        try parse(raw: arguments.map { RawArgument($0) }, environment: environment)
    }

    /// Parses arguments with their exact bytes (the program name excluded).
    ///
    /// - Throws: as `parse(_:environment:)`.
    public func parse(raw arguments: [RawArgument], environment: [String: String] = [:]) throws -> ParseOutcome {
        var chain: [any ParsableCommand.Type] = [root]
        var index = 0
        while let command = chain.last, !command.configuration.subcommands.isEmpty {
            guard index < arguments.count else {
                return .help(HelpFormatter(chain: chain).helpText())
            }
            let word = arguments[index].string
            if word == "-h" || word == "--help" {
                return .help(HelpFormatter(chain: chain).helpText())
            }
            if chain.count == 1, word == "--version", let version = root.configuration.version {
                return .version(version)
            }
            if chain.count == 1, let generated = try generatedText(for: arguments[index...]) {
                return .generated(generated)
            }
            if chain.count == 1, word == "help" {
                return .help(try helpText(for: arguments[(index + 1)...].map(\.string)))
            }
            if let subcommand = command.configuration.subcommands.first(where: { $0.configuration.name == word }) {
                chain.append(subcommand)
                index += 1
                continue
            }
            if word.hasPrefix("-") {
                var known = ["help"]
                if chain.count == 1, root.configuration.version != nil { known.append("version") }
                throw usageError(unknownOptionMessage(word, knownLongNames: known), chain: chain)
            }
            let names = command.configuration.subcommands.map { $0.configuration.name }
            var message = "Unknown subcommand '\(word)'"
            if let suggestion = Suggestion.closest(to: word, among: names) {
                message += ". Did you mean '\(suggestion)'?"
            }
            throw usageError(message, chain: chain)
        }
        return try parseLeaf(chain: chain, arguments: arguments[index...], environment: environment)
    }

    /// `--generate-completion-script SHELL` (also `=SHELL`) and `--generate-manual` on
    /// the root: the script or page, from the same declarations as help; nil for other words.
    ///
    /// - Throws: `UsageError` for a missing or unknown shell.
    func generatedText(for arguments: ArraySlice<RawArgument>) throws -> String? {
        guard let first = arguments.first?.string else { return nil }
        if first == "--generate-manual" { return ManualPageGenerator(root: root).page() }
        let option = "--generate-completion-script"
        guard first == option || first.hasPrefix(option + "=") else { return nil }
        let value = first == option ? arguments.dropFirst().first?.string : String(first.dropFirst(option.count + 1))
        let shells = CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")
        guard let value else {
            throw usageError("Missing value for '\(option) <shell>': one of \(shells)", chain: [root])
        }
        guard let shell = CompletionShell(rawValue: value) else {
            throw usageError("The value '\(value)' is invalid for '\(option) <shell>': expected one of \(shells)", chain: [root])
        }
        return CompletionScriptGenerator(root: root).script(for: shell)
    }

    /// The help page of the command the words select (`["roots", "remove"]`; empty for
    /// the root), as `mediaindex help roots remove` prints it.
    ///
    /// - Throws: `UsageError` for a word that names no subcommand.
    public func helpText(for subcommandPath: [String]) throws -> String {
        var chain: [any ParsableCommand.Type] = [root]
        for word in subcommandPath where !word.hasPrefix("-") {
            guard let command = chain.last else { break }
            let subcommands = command.configuration.subcommands
            guard let next = subcommands.first(where: { $0.configuration.name == word }) else {
                var message = "Unknown subcommand '\(word)'"
                if let suggestion = Suggestion.closest(to: word, among: subcommands.map { $0.configuration.name }) {
                    message += ". Did you mean '\(suggestion)'?"
                }
                throw usageError(message, chain: chain)
            }
            chain.append(next)
        }
        return HelpFormatter(chain: chain).helpText()
    }

    /// Problems in the command tree's declarations (duplicate names, a variadic
    /// positional not last, a group with arguments…), one sentence each; a test should
    /// expect none.
    public func declarationProblems() -> [String] {
        var problems: [String] = []
        func check(_ chain: [any ParsableCommand.Type]) {
            guard let command = chain.last else { return }
            let path = chain.map { $0.configuration.name }.joined(separator: " ")
            let arguments = command.arguments
            if !command.configuration.subcommands.isEmpty, !arguments.isEmpty {
                problems.append("'\(path)' has subcommands and arguments; a group takes no arguments")
            }
            var seenNames: Set<String> = ["help"]
            var seenShorts: Set<Character> = ["h"]
            if chain.count == 1, command.configuration.version != nil { seenNames.insert("version") }
            for argument in arguments {
                if !seenNames.insert(argument.name).inserted {
                    problems.append("'\(path)' declares '\(argument.name)' twice (or reuses a built-in name)")
                }
                if let short = argument.shortName, !seenShorts.insert(short).inserted {
                    problems.append("'\(path)' declares '-\(short)' twice (or reuses '-h')")
                }
                if let short = argument.shortName, !(short.isASCII && short.isLetter) {
                    problems.append("'\(path)' short name '-\(short)' is not an ASCII letter")
                }
            }
            let positionals = arguments.compactMap { argument -> PositionalArity? in
                if case .positional(let arity) = argument.kind { return arity }
                return nil
            }
            if let variadic = positionals.firstIndex(where: \.isVariadic), variadic != positionals.count - 1 {
                problems.append("'\(path)' has a variadic positional that is not the last one")
            }
            var names: Set<String> = []
            for subcommand in command.configuration.subcommands {
                if !names.insert(subcommand.configuration.name).inserted {
                    problems.append("'\(path)' has two subcommands named '\(subcommand.configuration.name)'")
                }
                check(chain + [subcommand])
            }
        }
        check([root])
        return problems
    }

    // MARK: - Leaf commands

    private func parseLeaf(
        chain: [any ParsableCommand.Type],
        arguments: ArraySlice<RawArgument>,
        environment: [String: String]
    ) throws -> ParseOutcome {
        guard let command = chain.last else { preconditionFailure("the chain always holds the root") }
        // Help wins over every other problem on the line, as in swift-argument-parser.
        for argument in arguments {
            let text = argument.string
            if text == "--" { break }
            if text == "-h" || text == "--help" { return .help(HelpFormatter(chain: chain).helpText()) }
            if chain.count == 1, text == "--version", let version = root.configuration.version { return .version(version) }
        }

        var scan = LeafScan(parser: self, chain: chain, remaining: arguments)
        try scan.scanAll()
        let declarations = command.arguments
        let positionalValues = try assignPositionals(scan.positionalArguments, to: declarations, chain: chain)
        for declaration in declarations {
            if case .option(_, _, _, true) = declaration.kind, scan.optionValues[declaration.name] == nil {
                throw usageError("Missing expected argument '\(declaration.displayName)'", chain: chain)
            }
        }

        let parsed = ParsedArguments(
            commandPath: chain.map { $0.configuration.name },
            environment: environment,
            definitions: declarations,
            presentFlags: scan.presentFlags,
            optionValues: scan.optionValues,
            positionalValues: positionalValues
        )
        do {
            let instance = try command.init(parsed: parsed)
            try instance.validate()
            return .run(instance)
        } catch let error as UsageError {
            throw usageError(error.message, chain: chain)
        } catch let error as ValidationError {
            throw usageError(error.message, chain: chain)
        }
    }

    /// Fills positionals in declaration order; a variadic one (always last) takes the rest.
    ///
    /// - Throws: `UsageError` for a missing required argument or an extra one.
    private func assignPositionals(_ arguments: [RawArgument], to declarations: [ArgumentDefinition],
                                   chain: [any ParsableCommand.Type]) throws -> [String: [RawArgument]] {
        var positionalValues: [String: [RawArgument]] = [:]
        var unassigned = arguments[...]
        for declaration in declarations {
            guard case .positional(let arity) = declaration.kind else { continue }
            if arity.isVariadic {
                positionalValues[declaration.name] = Array(unassigned)
                unassigned = []
            } else if let value = unassigned.popFirst() {
                positionalValues[declaration.name] = [value]
            }
            if arity.isRequired, positionalValues[declaration.name, default: []].isEmpty {
                throw usageError("Missing expected argument '\(declaration.displayName)'", chain: chain)
            }
        }
        if let extra = unassigned.first {
            throw usageError("Unexpected argument '\(extra.string)'", chain: chain)
        }
        return positionalValues
    }

    /// One pass over a leaf command's words: the flags present, each option's values and
    /// the positional words, in order.
    private struct LeafScan {
        let parser: CommandParser
        let chain: [any ParsableCommand.Type]
        var remaining: ArraySlice<RawArgument>
        var presentFlags: Set<String> = []
        var optionValues: [String: [RawArgument]] = [:]
        var positionalArguments: [RawArgument] = []
        private var byLongName: [String: ArgumentDefinition] = [:]
        private var byShortName: [Character: ArgumentDefinition] = [:]

        init(parser: CommandParser, chain: [any ParsableCommand.Type], remaining: ArraySlice<RawArgument>) {
            self.parser = parser
            self.chain = chain
            self.remaining = remaining
            for declaration in chain.last?.arguments ?? [] where declaration.isNamed {
                byLongName[declaration.name] = byLongName[declaration.name] ?? declaration
                if let short = declaration.shortName { byShortName[short] = byShortName[short] ?? declaration }
            }
        }

        mutating func scanAll() throws {
            var optionsEnded = false
            while let argument = remaining.popFirst() {
                let text = argument.string
                if optionsEnded {
                    positionalArguments.append(argument)
                } else if text == "--" {
                    optionsEnded = true
                } else if text.hasPrefix("--") {
                    try scanLongOption(argument)
                } else if CommandParser.looksLikeOption(text) {
                    try scanShortCluster(argument)
                } else {
                    positionalArguments.append(argument)
                }
            }
        }

        /// `--name` or `--name=value`.
        private mutating func scanLongOption(_ argument: RawArgument) throws {
            // Split on the first '=' in the bytes, so a value keeps its exact bytes.
            let body = argument.bytes.dropFirst(2)
            let equals = body.firstIndex(of: UInt8(ascii: "="))
            let name = String(decoding: body[..<(equals ?? body.endIndex)], as: UTF8.self)
            let inline = equals.map { RawArgument(bytes: Array(body[($0 + 1)...])) }
            guard let declaration = byLongName[name] else {
                var known = Array(byLongName.keys) + ["help"]
                if chain.count == 1, parser.root.configuration.version != nil { known.append("version") }
                throw parser.usageError(parser.unknownOptionMessage("--\(name)", knownLongNames: known), chain: chain)
            }
            try record(declaration, spelled: "--\(name)", inline: inline)
        }

        /// `-qv`, `-o value`, `-o=value`, `-ovalue`.
        private mutating func scanShortCluster(_ argument: RawArgument) throws {
            var cluster = argument.bytes.dropFirst()
            while let byte = cluster.popFirst() {
                let letter = Character(Unicode.Scalar(byte))
                guard byte < 0x80, let declaration = byShortName[letter] else {
                    let spelled = byte < 0x80 ? "-\(letter)" : argument.string
                    throw parser.usageError("Unknown option '\(spelled)'", chain: chain)
                }
                if case .option = declaration.kind {
                    if cluster.first == UInt8(ascii: "=") { cluster.removeFirst() }
                    let inline = cluster.isEmpty ? nil : RawArgument(bytes: Array(cluster))
                    try record(declaration, spelled: "-\(letter)", inline: inline)
                    break
                }
                if cluster.first == UInt8(ascii: "=") {
                    throw parser.usageError("The flag '-\(letter)' does not take a value", chain: chain)
                }
                try record(declaration, spelled: "-\(letter)", inline: nil)
            }
        }

        private mutating func record(_ declaration: ArgumentDefinition, spelled: String, inline: RawArgument?) throws {
            switch declaration.kind {
            case .flag:
                if inline != nil {
                    throw parser.usageError("The flag '\(spelled)' does not take a value", chain: chain)
                }
                presentFlags.insert(declaration.name)
            case .option:
                optionValues[declaration.name, default: []].append(try takeValue(for: declaration, inline: inline))
            case .positional:
                preconditionFailure("positionals are not looked up by name")
            }
        }

        private mutating func takeValue(for declaration: ArgumentDefinition, inline: RawArgument?) throws -> RawArgument {
            if let inline { return inline }
            if let next = remaining.first, !CommandParser.looksLikeOption(next.string), next.string != "--" {
                remaining.removeFirst()
                return next
            }
            throw parser.usageError("Missing value for '\(declaration.displayName)'", chain: chain)
        }
    }

    // MARK: - Messages

    fileprivate func usageError(_ message: String, chain: [any ParsableCommand.Type]) -> UsageError {
        UsageError(
            message,
            usage: HelpFormatter(chain: chain).usageLine(),
            commandPath: chain.map { $0.configuration.name }
        )
    }

    fileprivate func unknownOptionMessage(_ spelled: String, knownLongNames: [String]) -> String {
        let name = spelled.hasPrefix("--") ? String(spelled.dropFirst(2)) : spelled
        guard spelled.hasPrefix("--"), let suggestion = Suggestion.closest(to: name, among: knownLongNames) else {
            return "Unknown option '\(spelled)'"
        }
        return "Unknown option '\(spelled)'. Did you mean '--\(suggestion)'?"
    }

    /// Whether a word is an option rather than a value: `-x`, `--x`, but not `-`
    /// (stdin, by convention) nor a negative number (`--offset -3`).
    static func looksLikeOption(_ text: String) -> Bool {
        guard text.hasPrefix("-"), text.count > 1 else { return false }
        return Double(text) == nil
    }
}
