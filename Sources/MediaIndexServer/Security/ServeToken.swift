import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The secret that authorises requests: 256 random bits as 64 hex digits, kept in a
/// file only its owner can read.
public struct ServeToken: Sendable, Equatable {
    /// The token's text.
    public let value: String

    /// A token from its text.
    public init(value: String) { self.value = value }

    /// The token in `path`, creating the file (mode 0600, 256 random bits) when it is
    /// absent; `created` says which happened.
    ///
    /// - Throws: `ServeTokenError` when the file cannot be created or read, is a
    ///   symlink, is readable by others, or holds too short a token.
    public static func loadOrCreate(at path: String) throws -> (token: ServeToken, created: Bool) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            defer { close(descriptor) }
            let token = random()
            let line = Array((token.value + "\n").utf8)
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == line.count, fchmod(descriptor, 0o600) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw ServeTokenError(path: path, reason: "it cannot be written (\(reason))")
            }
            return (token, true)
        }
        guard errno == EEXIST else {
            throw ServeTokenError(path: path, reason: "it cannot be created (\(String(cString: strerror(errno))))")
        }
        return (try read(at: path), false)
    }

    /// The token in an existing file.
    ///
    /// - Throws: `ServeTokenError` as `loadOrCreate(at:)` does.
    public static func read(at path: String) throws -> ServeToken {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw ServeTokenError(path: path, reason: code == ELOOP ? "it is a symbolic link"
                                  : "it cannot be opened (\(String(cString: strerror(code))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw ServeTokenError(path: path, reason: "it is not a regular file")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw ServeTokenError(path: path, reason: String(format: "others can read it (mode %o); run chmod 600 on it",
                                                             status.st_mode & 0o777))
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        let text = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count >= 32, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ServeTokenError(path: path, reason: "it must hold one token of at least 32 printable characters")
        }
        return ServeToken(value: text)
    }

    /// A new token: 256 bits from the system's random source, as 64 hex digits.
    public static func random() -> ServeToken {
        var generator = SystemRandomNumberGenerator()
        let words = (0..<4).map { _ in generator.next() as UInt64 }
        return ServeToken(value: words.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined())
    }

    /// Whether `candidate` is this token, in time that depends only on the lengths, so
    /// the comparison leaks nothing of where a guess goes wrong.
    public func matches(_ candidate: String) -> Bool {
        let expected = Array(value.utf8), given = Array(candidate.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}

/// A token file that cannot be used.
public struct ServeTokenError: Error, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// Why it cannot be used.
    public var reason: String
    public var description: String { "cannot use the token file \(path): \(reason)" }
}
