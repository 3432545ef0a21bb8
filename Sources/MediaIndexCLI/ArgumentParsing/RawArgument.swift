#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One command-line argument as the kernel passed it: bytes, which need not be UTF-8.
///
/// On Linux a file name is any byte string; `CommandLine.arguments` replaces invalid
/// UTF-8 with U+FFFD, which would turn such a path into one that does not exist. The
/// parser matches option names on `string` but keeps `bytes`, so a command declares a
/// path argument with `as: RawArgument.self` and gets the exact bytes back.
public struct RawArgument: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The argument's bytes, without the terminating NUL.
    public let bytes: [UInt8]

    /// The argument from its bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The argument from a string (its UTF-8 bytes).
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    public init(stringLiteral value: String) { self.init(value) }

    /// The argument as text; invalid UTF-8 sequences become U+FFFD.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the bytes are valid UTF-8, so `string` holds them exactly.
    public var isValidUTF8: Bool { String(validating: bytes, as: UTF8.self) != nil }

    public var description: String { string }

    /// The process's arguments after the program name, with their exact bytes, read
    /// from `argv`.
    public static func processArguments() -> [RawArgument] {
        let count = Int(CommandLine.argc)
        guard count > 1 else { return [] }
        var arguments: [RawArgument] = []
        arguments.reserveCapacity(count - 1)
        for index in 1..<count {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let length = strlen(pointer)
            let bytes = pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
            arguments.append(RawArgument(bytes: bytes))
        }
        return arguments
    }
}
