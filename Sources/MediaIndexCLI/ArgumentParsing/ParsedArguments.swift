/// What the parser found on the command line for one command, read by the command's
/// `init(parsed:)`.
///
/// Names are the declared keys (`"library"` for `--library`, `"root"` for `<root>`).
/// Asking for a name the command did not declare is a programming error and stops the
/// process with a message naming it.
public struct ParsedArguments: Sendable {
    /// The words that select the command (`["mediaindex", "roots", "remove"]`).
    public let commandPath: [String]
    /// The process environment given to the parser (for defaults like `$XDG_DATA_HOME`).
    public let environment: [String: String]
    /// Every positional value, in command-line order.
    public let positionals: [String]

    let definitions: [String: ArgumentDefinition]
    let presentFlags: Set<String>
    let optionValues: [String: [RawArgument]]
    let positionalValues: [String: [RawArgument]]

    init(
        commandPath: [String],
        environment: [String: String],
        definitions: [ArgumentDefinition],
        presentFlags: Set<String>,
        optionValues: [String: [RawArgument]],
        positionalValues: [String: [RawArgument]],
        positionalsInOrder: [RawArgument]
    ) {
        self.commandPath = commandPath
        self.environment = environment
        self.definitions = Dictionary(definitions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.presentFlags = presentFlags
        self.optionValues = optionValues
        self.positionalValues = positionalValues
        self.positionals = positionalsInOrder.map(\.string)
    }

    /// Whether the flag was given.
    public func flag(_ name: String) -> Bool {
        _ = definition(name, expecting: "flag")
        return presentFlags.contains(name)
    }

    /// The option's value (the last one if given several times), else its declared
    /// default, else nil.
    public func option(_ name: String) -> String? {
        rawOption(name)?.string ?? declaredDefault(name)
    }

    /// The option's value converted to `T`, else its default converted, else nil.
    ///
    /// - Throws: `UsageError` "The value 'x' is invalid for '--limit <n>': expected an
    ///   integer" when the text does not convert.
    public func option<T: ExpressibleByArgument>(_ name: String, as type: T.Type) throws -> T? {
        guard let text = option(name) else { return nil }
        return try convert(text, for: definition(name, expecting: "option"))
    }

    /// Every value given for a repeatable option, in order.
    public func options(_ name: String) -> [String] {
        rawOptions(name).map(\.string)
    }

    /// Every value given for a repeatable option, converted to `T`.
    ///
    /// - Throws: `UsageError` for the first value that does not convert.
    public func options<T: ExpressibleByArgument>(_ name: String, as type: T.Type) throws -> [T] {
        let declaration = definition(name, expecting: "option")
        return try options(name).map { try convert($0, for: declaration) }
    }

    /// The value of a single positional (nil when an optional one was not given).
    public func positional(_ name: String) -> String? {
        rawPositional(name)?.string
    }

    /// The positional's value converted to `T`.
    ///
    /// - Throws: `UsageError` when the text does not convert.
    public func positional<T: ExpressibleByArgument>(_ name: String, as type: T.Type) throws -> T? {
        guard let text = positional(name) else { return nil }
        return try convert(text, for: definition(name, expecting: "positional"))
    }

    /// Every value of a variadic positional, in order.
    public func positionals(_ name: String) -> [String] {
        rawPositionals(name).map(\.string)
    }

    /// The option's last value with its exact bytes (no default), for file paths.
    public func rawOption(_ name: String) -> RawArgument? {
        rawOptions(name).last
    }

    /// Every value of the option with its exact bytes.
    public func rawOptions(_ name: String) -> [RawArgument] {
        _ = definition(name, expecting: "option")
        return optionValues[name] ?? []
    }

    /// The positional's value with its exact bytes, for file paths.
    public func rawPositional(_ name: String) -> RawArgument? {
        rawPositionals(name).first
    }

    /// Every value of a variadic positional with its exact bytes.
    public func rawPositionals(_ name: String) -> [RawArgument] {
        _ = definition(name, expecting: "positional")
        return positionalValues[name] ?? []
    }

    private func declaredDefault(_ name: String) -> String? {
        if case .option(_, let defaultValue, _, _) = definition(name, expecting: "option").kind { return defaultValue }
        return nil
    }

    private func convert<T: ExpressibleByArgument>(_ text: String, for declaration: ArgumentDefinition) throws -> T {
        guard let value = T(argument: text) else {
            throw UsageError(
                "The value '\(text)' is invalid for '\(declaration.displayName)': expected \(T.expectedValueDescription)"
            )
        }
        return value
    }

    private func definition(_ name: String, expecting kind: String) -> ArgumentDefinition {
        guard let declaration = definitions[name] else {
            preconditionFailure("'\(commandPath.joined(separator: " "))' declares no \(kind) named '\(name)'")
        }
        let matches: Bool
        switch (declaration.kind, kind) {
        case (.flag, "flag"), (.option, "option"), (.positional, "positional"): matches = true
        default: matches = false
        }
        precondition(matches, "'\(name)' of '\(commandPath.joined(separator: " "))' is not declared as a \(kind)")
        return declaration
    }
}
