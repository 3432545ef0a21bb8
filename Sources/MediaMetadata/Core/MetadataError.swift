/// Why a file's metadata could not be read. Each case carries one plain sentence.
public enum MetadataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operating system refused or failed a read.
    case io(String)
    /// The file ends before a structure it declares.
    case truncated(String)
    /// A structure is present but its contents are impossible.
    case malformed(String)
    /// The format is recognised but this reader does not handle it.
    case unsupported(String)

    /// Whether the operating system failed the read (rather than the file's contents being wrong).
    public var isIO: Bool {
        if case .io = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .io(let reason): return reason
        case .truncated(let reason): return "truncated file: \(reason)"
        case .malformed(let reason): return "malformed file: \(reason)"
        case .unsupported(let reason): return "unsupported: \(reason)"
        }
    }
}
