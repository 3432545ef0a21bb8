#if canImport(Glibc)
import Glibc
#endif

/// Where the server listens: an IP address and a port (`127.0.0.1:8423`, `[::1]:8423`,
/// `0.0.0.0:8423`).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The default: loopback only.
    public static let loopbackDefault = ListenAddress(host: "127.0.0.1", port: 8423, isIPv6: false)

    /// The address as written, without brackets (`127.0.0.1`, `::1`).
    public var host: String
    /// The port; 0 lets the kernel choose one.
    public var port: UInt16
    /// Whether `host` is an IPv6 address.
    public var isIPv6: Bool

    /// Parses `HOST:PORT`, `[IPV6]:PORT` or `localhost:PORT`; the host must be an IP address
    /// (or `localhost`, which is 127.0.0.1) so the bind never depends on name resolution.
    ///
    /// - Throws: `ListenAddressError` saying what is wrong with `text`.
    public init(parsing text: String) throws {
        var hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ListenAddressError(text: text, reason: "an IPv6 address is written [ADDRESS]:PORT")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ListenAddressError(text: text, reason: "it needs a port, as in 127.0.0.1:8423")
            }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portPart) else {
            throw ListenAddressError(text: text, reason: "the port must be a number from 0 to 65535")
        }
        if hostPart == "localhost" { hostPart = "127.0.0.1" }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, String(hostPart), &v4) == 1 {
            self.init(host: String(hostPart), port: port, isIPv6: false)
        } else if inet_pton(AF_INET6, String(hostPart), &v6) == 1 {
            self.init(host: String(hostPart), port: port, isIPv6: true)
        } else {
            throw ListenAddressError(text: text, reason: "'\(hostPart)' is not an IP address")
        }
    }

    /// An address from its parts; `host` must be an IP address literal.
    public init(host: String, port: UInt16, isIPv6: Bool) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    /// Whether only this machine can reach the address: 127.0.0.0/8 or ::1 (also as
    /// ::ffff:127.x.y.z). The wildcards 0.0.0.0 and :: are not loopback.
    public var isLoopback: Bool {
        if isIPv6 {
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return false }
            let bytes = withUnsafeBytes(of: address) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        return withUnsafeBytes(of: address) { $0[0] } == 127
    }

    /// `127.0.0.1:8423` or `[::1]:8423`.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A `--listen` value that cannot be used.
public struct ListenAddressError: Error, Equatable, CustomStringConvertible {
    /// The value given.
    public var text: String
    /// Why it cannot be used.
    public var reason: String
    public var description: String { "cannot listen on '\(text)': \(reason)" }
}
