/// What the parser found on the command line for one command, read by the command's
/// `init(parsed:)` through the keys it declared: `try parsed[Self.limit]`.
///
/// Reading a key the command did not list in its `arguments` is a programming error and
/// stops the process with a message naming it; `CLIReferenceTests` builds every command
/// so such a read fails a test, not a user.
public struct ParsedArguments: Sendable {
    /// The words that select the command (`["mediaindex", "roots", "remove"]`).
    public let commandPath: [String]
    /// The process environment given to the parser (for defaults like `$XDG_DATA_HOME`).
    public let environment: [String: String]

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
        positionalValues: [String: [RawArgument]]
    ) {
        self.commandPath = commandPath
        self.environment = environment
        self.definitions = Dictionary(definitions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.presentFlags = presentFlags
        self.optionValues = optionValues
        self.positionalValues = positionalValues
    }

    /// The key's value: a flag's presence, an option's value or its default, a
    /// positional's values, converted to the key's type.
    ///
    /// - Throws: `UsageError` "The value 'x' is invalid for '--limit <n>': expected an
    ///   integer" when a text does not convert.
    public subscript<Value>(key: ArgumentKey<Value>) -> Value {
        get throws { try key.read(self, declared(key.definition)) }
    }

    func isPresent(_ definition: ArgumentDefinition) -> Bool {
        presentFlags.contains(definition.name)
    }

    func optionValues(_ definition: ArgumentDefinition) -> [RawArgument] {
        optionValues[definition.name] ?? []
    }

    func positionalValues(_ definition: ArgumentDefinition) -> [RawArgument] {
        positionalValues[definition.name] ?? []
    }

    func convert<T: ExpressibleByArgument>(_ argument: RawArgument, for declaration: ArgumentDefinition) throws -> T {
        guard let value = T(rawArgument: argument) else {
            throw UsageError(
                "The value '\(argument.string)' is invalid for '\(declaration.displayName)': expected \(T.expectedValueDescription)"
            )
        }
        return value
    }

    /// The command's own declaration of the key's name, which must be the key's.
    private func declared(_ definition: ArgumentDefinition) -> ArgumentDefinition {
        guard let declaration = definitions[definition.name], declaration == definition else {
            preconditionFailure("'\(commandPath.joined(separator: " "))' does not list '\(definition.displayName)' in its arguments")
        }
        return declaration
    }
}
