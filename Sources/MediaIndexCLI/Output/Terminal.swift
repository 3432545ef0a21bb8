#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the terminal a file descriptor is connected to.
public enum Terminal {
    /// Whether the descriptor is a terminal. Wraps `isatty(3)`.
    public static func isTerminal(_ fileDescriptor: Int32) -> Bool {
        isatty(fileDescriptor) == 1
    }

    /// The terminal's width in columns: the kernel's answer for a terminal, else a
    /// positive `$COLUMNS`, else nil. Wraps `ioctl(2)` `TIOCGWINSZ`.
    public static func width(of fileDescriptor: Int32, environment: [String: String]) -> Int? {
        var size = winsize()
        if isTerminal(fileDescriptor), ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 {
            return columns
        }
        return nil
    }
}
