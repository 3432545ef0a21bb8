/// A type an argument's text converts to: the value type of an `ArgumentKey`.
public protocol ExpressibleByArgument {
    /// The value the text denotes, or nil when it denotes none.
    init?(argument: String)

    /// The value the argument's bytes denote; by default, that of its text.
    init?(rawArgument: RawArgument)

    /// What a valid value looks like, completing "expected …" in error messages.
    static var expectedValueDescription: String { get }

    /// How help shows the value as a default (`1024`, `1.5`, `fit`).
    var defaultValueDescription: String { get }
}

extension ExpressibleByArgument {
    public init?(rawArgument: RawArgument) { self.init(argument: rawArgument.string) }
    public var defaultValueDescription: String { "\(self)" }
}

extension RawArgument: ExpressibleByArgument {
    /// The exact bytes, for file paths that need not be UTF-8.
    public init?(rawArgument: RawArgument) { self = rawArgument }
    public init?(argument: String) { self.init(argument) }
    public static var expectedValueDescription: String { "a string" }
}

extension String: ExpressibleByArgument {
    public init?(argument: String) { self = argument }
    public static var expectedValueDescription: String { "a string" }
}

extension Int: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument, radix: 10) }
    public static var expectedValueDescription: String { "an integer" }
}

extension Int64: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument, radix: 10) }
    public static var expectedValueDescription: String { "an integer" }
}

extension Double: ExpressibleByArgument {
    public init?(argument: String) {
        // Double("nan") and Double("inf") parse, but no option of ours means them.
        guard let value = Double(argument), value.isFinite else { return nil }
        self = value
    }
    public static var expectedValueDescription: String { "a number" }
    /// `1` for 1.0, `1.5` for 1.5.
    public var defaultValueDescription: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}

extension ExpressibleByArgument where Self: RawRepresentable, Self.RawValue == String, Self: CaseIterable {
    /// A string enum converts from its raw values.
    public init?(argument: String) { self.init(rawValue: argument) }

    /// "one of 'table', 'json'".
    public static var expectedValueDescription: String {
        "one of " + allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }

    /// The raw value.
    public var defaultValueDescription: String { rawValue }
}
