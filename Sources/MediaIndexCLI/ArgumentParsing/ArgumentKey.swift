/// One argument of a command, declared once with its name, help, type and default, and
/// read back as a typed value: `try parsed[Self.limit]`.
///
/// A command declares its keys as static properties and lists them in `arguments`; its
/// `init(parsed:)` reads each through the key, so a misspelt name is a compile error and
/// a default is written only in the declaration:
///
///     static let limit = Argument.option("limit", valueName: "n", default: 100, help: "Print at most this many.")
///     static let json = Argument.flag("json", help: "Print JSON.")
///     static let arguments = LibraryOptions.arguments + declared(limit, json)
///
///     init(parsed: ParsedArguments) throws {
///         limit = try parsed[Self.limit]   // an Int: the default when absent
///         json = try parsed[Self.json]     // a Bool
///     }
public struct ArgumentKey<Value>: DeclaredArgument, Sendable {
    /// The untyped declaration help, completion scripts and the parser read.
    public let definition: ArgumentDefinition
    let read: @Sendable (ParsedArguments, ArgumentDefinition) throws -> Value

    init(_ definition: ArgumentDefinition, read: @escaping @Sendable (ParsedArguments, ArgumentDefinition) throws -> Value) {
        self.definition = definition
        self.read = read
    }
}

/// Anything that declares an argument; `declared(_:)` lists keys of different types.
public protocol DeclaredArgument: Sendable {
    /// The untyped declaration.
    var definition: ArgumentDefinition { get }
}

/// The definitions of these keys, in order, for a command's `arguments`.
public func declared(_ keys: any DeclaredArgument...) -> [ArgumentDefinition] {
    keys.map(\.definition)
}

/// The declarations of arguments: each makes a key of the value's type.
public enum Argument {
    /// A flag, `--name` or `-s`: true when present.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> ArgumentKey<Bool> {
        ArgumentKey(.flag(name, short: short, help: help)) { parsed, definition in
            parsed.isPresent(definition)
        }
    }

    /// An option taking one value converted to `T`, nil when absent; if repeated, the
    /// last value wins. A value that does not convert is a usage error naming the option.
    public static func option<T: ExpressibleByArgument & Sendable>(
        _ name: String, short: Character? = nil, valueName: String? = nil, as type: T.Type = String.self, help: String
    ) -> ArgumentKey<T?> {
        ArgumentKey(.option(name, short: short, valueName: valueName, help: help)) { parsed, definition in
            try parsed.optionValues(definition).last.map { try parsed.convert($0, for: definition) }
        }
    }

    /// An option that must be given, taking one value converted to `T`; the parser
    /// reports it missing before the command is built.
    public static func requiredOption<T: ExpressibleByArgument & Sendable>(
        _ name: String, short: Character? = nil, valueName: String? = nil, as type: T.Type = String.self, help: String
    ) -> ArgumentKey<T> {
        ArgumentKey(.option(name, short: short, valueName: valueName, isRequired: true, help: help)) { parsed, definition in
            guard let value = parsed.optionValues(definition).last else {
                preconditionFailure("the parser ensures '\(definition.displayName)' is given")
            }
            return try parsed.convert(value, for: definition)
        }
    }

    /// An option taking one value converted to `T`, `defaultValue` when absent; help adds
    /// `(default: …)` unless `helpDescribesDefault` says its sentence already does.
    public static func option<T: ExpressibleByArgument & Sendable>(
        _ name: String, short: Character? = nil, valueName: String? = nil, default defaultValue: T,
        helpDescribesDefault: Bool = false, help: String
    ) -> ArgumentKey<T> {
        let definition = ArgumentDefinition.option(
            name, short: short, valueName: valueName,
            default: helpDescribesDefault ? nil : defaultValue.defaultValueDescription, help: help
        )
        return ArgumentKey(definition) { parsed, definition in
            try parsed.optionValues(definition).last.map { try parsed.convert($0, for: definition) } ?? defaultValue
        }
    }

    /// An option that may be given several times; every value, converted to `T`, in order.
    public static func repeatableOption<T: ExpressibleByArgument & Sendable>(
        _ name: String, short: Character? = nil, valueName: String? = nil, as type: T.Type = String.self, help: String
    ) -> ArgumentKey<[T]> {
        ArgumentKey(.repeatableOption(name, short: short, valueName: valueName, help: help)) { parsed, definition in
            try parsed.optionValues(definition).map { try parsed.convert($0, for: definition) }
        }
    }

    /// A positional argument that must be given, converted to `T`.
    public static func positional<T: ExpressibleByArgument & Sendable>(
        _ name: String, as type: T.Type = String.self, help: String
    ) -> ArgumentKey<T> {
        ArgumentKey(.positional(name, arity: .required, help: help)) { parsed, definition in
            guard let value = parsed.positionalValues(definition).first else {
                preconditionFailure("the parser ensures '\(definition.displayName)' is given")
            }
            return try parsed.convert(value, for: definition)
        }
    }

    /// A positional argument that may be left out: nil when it is.
    public static func optionalPositional<T: ExpressibleByArgument & Sendable>(
        _ name: String, as type: T.Type = String.self, help: String
    ) -> ArgumentKey<T?> {
        ArgumentKey(.positional(name, arity: .optional, help: help)) { parsed, definition in
            try parsed.positionalValues(definition).first.map { try parsed.convert($0, for: definition) }
        }
    }

    /// A variadic positional (always the last one): every value, converted to `T`;
    /// `isRequired` asks for at least one.
    public static func positionals<T: ExpressibleByArgument & Sendable>(
        _ name: String, as type: T.Type = String.self, isRequired: Bool = false, help: String
    ) -> ArgumentKey<[T]> {
        ArgumentKey(.positional(name, arity: isRequired ? .oneOrMore : .zeroOrMore, help: help)) { parsed, definition in
            try parsed.positionalValues(definition).map { try parsed.convert($0, for: definition) }
        }
    }
}
