/// Renders help pages and usage lines in swift-argument-parser's fixed shape:
/// `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:`, `SUBCOMMANDS:`.
struct HelpFormatter {
    /// The commands from the root down to the one described.
    let chain: [any ParsableCommand.Type]

    /// Where descriptions start, as in swift-argument-parser.
    static let descriptionColumn = 26
    /// The width help text is wrapped to.
    static let lineWidth = 80

    private var command: any ParsableCommand.Type {
        guard let last = chain.last else { preconditionFailure("the chain always holds the root") }
        return last
    }
    private var path: String { chain.map { $0.configuration.name }.joined(separator: " ") }
    private var isRoot: Bool { chain.count == 1 }
    private var isGroup: Bool { !command.configuration.subcommands.isEmpty }

    /// `mediaindex roots remove [--force] <root>`, or `mediaindex roots <subcommand>`.
    func usageLine() -> String {
        if isGroup { return "\(path) <subcommand>" }
        let full = usageWords(collapsingOptionals: false)
        if ("USAGE: " + full).count <= Self.lineWidth { return full }
        return usageWords(collapsingOptionals: true)
    }

    private func usageWords(collapsingOptionals: Bool) -> String {
        var words = [path]
        var collapsed = false
        for argument in command.arguments {
            switch argument.kind {
            case .flag:
                if collapsingOptionals {
                    if !collapsed { words.append("[<options>]"); collapsed = true }
                } else {
                    words.append("[\(argument.longFlag)]")
                }
            case .option(let valueName, _, let isRepeatable, let isRequired):
                let spelled = "\(argument.longFlag) <\(valueName)>"
                if isRequired {
                    words.append(spelled)
                } else if collapsingOptionals {
                    if !collapsed { words.append("[<options>]"); collapsed = true }
                } else {
                    words.append(isRepeatable ? "[\(spelled) ...]" : "[\(spelled)]")
                }
            case .positional(let arity):
                switch arity {
                case .required: words.append("<\(argument.name)>")
                case .optional: words.append("[<\(argument.name)>]")
                case .oneOrMore: words.append("<\(argument.name)> ...")
                case .zeroOrMore: words.append("[<\(argument.name)> ...]")
                }
            }
        }
        return words.joined(separator: " ")
    }

    /// The whole help page, without a trailing newline.
    func helpText() -> String {
        let configuration = command.configuration
        var blocks: [String] = []
        if !configuration.abstract.isEmpty {
            blocks.append(Self.wrap(configuration.abstract, firstPrefix: "OVERVIEW: ", indent: 0))
        }
        if let discussion = configuration.discussion, !discussion.isEmpty {
            blocks.append(discussion)
        }
        blocks.append("USAGE: " + usageLine())

        let positionals = command.arguments.filter { !$0.isNamed }
        if !positionals.isEmpty {
            blocks.append((["ARGUMENTS:"] + positionals.map { entry(label: positionalLabel($0), help: $0.help) })
                .joined(separator: "\n"))
        }

        var options = command.arguments.filter(\.isNamed).map { argument -> String in
            var help = argument.help
            if case .option(_, let defaultValue?, _, _) = argument.kind {
                help += help.isEmpty ? "(default: \(defaultValue))" : " (default: \(defaultValue))"
            }
            return entry(label: optionLabel(argument), help: help)
        }
        if isRoot, configuration.version != nil {
            options.append(entry(label: "--version", help: "Show the version."))
        }
        if isRoot {
            options.append(entry(label: "--generate-completion-script <shell>",
                                 help: "Print a completion script for bash, zsh or fish."))
            options.append(entry(label: "--generate-manual", help: "Print the \(chain[0].configuration.name).1 manual page."))
        }
        options.append(entry(label: "-h, --help", help: "Show help information."))
        blocks.append((["OPTIONS:"] + options).joined(separator: "\n"))

        if isGroup {
            let subcommands = configuration.subcommands.map {
                entry(label: $0.configuration.name, help: $0.configuration.abstract)
            }
            blocks.append((["SUBCOMMANDS:"] + subcommands).joined(separator: "\n"))
            let helpPath = (["help"] + chain.dropFirst().map { $0.configuration.name }).joined(separator: " ")
            blocks.append("  See '\(chain[0].configuration.name) \(helpPath) <subcommand>' for detailed help.")
        }
        return blocks.joined(separator: "\n\n")
    }

    private func optionLabel(_ argument: ArgumentDefinition) -> String {
        var label = argument.shortName.map { "-\($0), " } ?? ""
        label += argument.longFlag
        if case .option(let valueName, _, _, _) = argument.kind { label += " <\(valueName)>" }
        return label
    }

    private func positionalLabel(_ argument: ArgumentDefinition) -> String {
        if case .positional(let arity) = argument.kind, arity.isVariadic { return "<\(argument.name)> ..." }
        return "<\(argument.name)>"
    }

    /// `  label<pad>help`, the help wrapped at the description column; a label too long
    /// to leave two spaces before the column puts the help on the next line.
    private func entry(label: String, help: String) -> String {
        let column = Self.descriptionColumn
        let indentedLabel = "  " + label
        guard !help.isEmpty else { return indentedLabel }
        if indentedLabel.count + 2 <= column {
            let prefix = indentedLabel + String(repeating: " ", count: column - indentedLabel.count)
            return Self.wrap(help, firstPrefix: prefix, indent: column)
        }
        return indentedLabel + "\n" + Self.wrap(help, firstPrefix: String(repeating: " ", count: column), indent: column)
    }

    /// Word-wraps `text` to `lineWidth`: the first line starts with `firstPrefix`, the
    /// others with `indent` spaces. Newlines in `text` are kept.
    static func wrap(_ text: String, firstPrefix: String, indent: Int) -> String {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let prefix = lines.isEmpty ? firstPrefix : margin
            var line = prefix
            var lineHasWord = false
            for word in paragraph.split(separator: " ") {
                if lineHasWord, line.count + 1 + word.count > lineWidth {
                    lines.append(line)
                    line = margin
                    lineHasWord = false
                }
                line += (lineHasWord ? " " : "") + word
                lineHasWord = true
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
