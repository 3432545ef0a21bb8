/// A type an argument's text converts to, for the typed accessors of `ParsedArguments`.
public protocol ExpressibleByArgument {
    /// The value the text denotes, or nil when it denotes none.
    init?(argument: String)

    /// What a valid value looks like, completing "expected …" in error messages.
    static var expectedValueDescription: String { get }
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
}

extension ExpressibleByArgument where Self: RawRepresentable, Self.RawValue == String, Self: CaseIterable {
    /// A string enum converts from its raw values.
    public init?(argument: String) { self.init(rawValue: argument) }

    /// "one of 'table', 'json'".
    public static var expectedValueDescription: String {
        "one of " + allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
