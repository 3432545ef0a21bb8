/// The declaration of one argument of a command: a flag, an option or a positional,
/// without its type; what help, the manual page, completions and the parser read.
///
/// Commands make it through `Argument` (`Argument.option("limit", as: Int.self, …)`),
/// whose `ArgumentKey` carries it with the type and reads the value back.
/// Options and flags are keyed by their long name without dashes (`"library"` for
/// `--library`); positionals by their name (`"root"`, shown as `<root>`).
public struct ArgumentDefinition: Sendable, Equatable {
    /// What kind of argument this is.
    public enum Kind: Sendable, Equatable {
        /// `--name`, true when present.
        case flag
        /// `--name <value>`: a value, given once (the last one wins) or repeatedly.
        case option(valueName: String, defaultValue: String?, isRepeatable: Bool, isRequired: Bool)
        /// A bare word, matched by position.
        case positional(PositionalArity)
    }

    /// The key: long name without dashes, or positional name.
    public let name: String
    /// The one-letter form (`-q`), if any.
    public let shortName: Character?
    /// One sentence for the help page.
    public let help: String
    /// What kind of argument this is.
    public let kind: Kind

    /// A flag, `--name` or `-s`: present or not.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> ArgumentDefinition {
        ArgumentDefinition(name: name, shortName: short, help: help, kind: .flag)
    }

    /// An option taking one value, `--name <valueName>` or `--name=<valueName>`; if
    /// repeated, the last value wins. Help shows `(default: …)` when `default` is set.
    public static func option(
        _ name: String,
        short: Character? = nil,
        valueName: String? = nil,
        default defaultValue: String? = nil,
        isRequired: Bool = false,
        help: String
    ) -> ArgumentDefinition {
        ArgumentDefinition(
            name: name, shortName: short, help: help,
            kind: .option(valueName: valueName ?? name, defaultValue: defaultValue, isRepeatable: false, isRequired: isRequired)
        )
    }

    /// An option that may be given several times; every value is kept, in order.
    public static func repeatableOption(
        _ name: String,
        short: Character? = nil,
        valueName: String? = nil,
        help: String
    ) -> ArgumentDefinition {
        ArgumentDefinition(
            name: name, shortName: short, help: help,
            kind: .option(valueName: valueName ?? name, defaultValue: nil, isRepeatable: true, isRequired: false)
        )
    }

    /// A positional argument, shown as `<name>`; a variadic one must come last.
    public static func positional(_ name: String, arity: PositionalArity = .required, help: String) -> ArgumentDefinition {
        ArgumentDefinition(name: name, shortName: nil, help: help, kind: .positional(arity))
    }

    /// Whether this is a flag or an option (as opposed to a positional).
    var isNamed: Bool {
        if case .positional = kind { return false }
        return true
    }

    /// `--name`, for messages.
    var longFlag: String { "--\(name)" }

    /// How messages and help name it: `--limit <n>`, `--quiet`, `<root>`.
    var displayName: String {
        switch kind {
        case .flag: return longFlag
        case .option(let valueName, _, _, _): return "\(longFlag) <\(valueName)>"
        case .positional: return "<\(name)>"
        }
    }
}

/// How many values a positional argument takes.
public enum PositionalArity: Sendable, Equatable {
    /// Exactly one: `<root>`.
    case required
    /// Zero or one: `[<root>]`.
    case optional
    /// One or more: `<paths> ...`.
    case oneOrMore
    /// Any number: `[<paths> ...]`.
    case zeroOrMore

    var isVariadic: Bool { self == .oneOrMore || self == .zeroOrMore }
    var isRequired: Bool { self == .required || self == .oneOrMore }
}
