import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Why the server refuses a request before any route sees it: the status and one sentence.
public struct HTTPRefusal: Error, Equatable, Sendable {
    /// The status code (400, 414).
    public var status: Int
    /// A short machine-readable name (`nulByte`, `targetTooLong`, `tooManyParameters`).
    public var code: String
    /// One sentence saying what was refused and why.
    public var message: String
}

/// The bounds every request is held to before it is decoded for a route: a target no
/// longer than `HTTPServer.maximumTargetBytes`, at most `HTTPServer.maximumParameters`
/// query parameters, and no NUL byte anywhere. libmicrohttpd hands fields over as C
/// strings, so a NUL (`%00` in the target, a raw one in a header) would silently cut
/// what a route sees; such a request is refused whole instead.
enum RequestLimits {
    /// The refusal of a request whose raw target (escapes intact) is `target`, or nil.
    static func refusal(target: [UInt8]) -> HTTPRefusal? {
        if target.count > HTTPServer.maximumTargetBytes {
            return HTTPRefusal(status: 414, code: "targetTooLong",
                               message: "the request's path and query take \(target.count) bytes; at most \(HTTPServer.maximumTargetBytes) are read")
        }
        if let question = target.firstIndex(of: UInt8(ascii: "?")) {
            let parameters = target[(question + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).count
            if parameters > HTTPServer.maximumParameters {
                return HTTPRefusal(status: 414, code: "tooManyParameters",
                                   message: "the request carries \(parameters) query parameters; at most \(HTTPServer.maximumParameters) are read")
            }
        }
        if containsEncodedNUL(target) || target.contains(0) {
            return HTTPRefusal(status: 400, code: "nulByte", message: "the request's path or query holds a NUL byte (%00)")
        }
        return nil
    }

    /// The refusal of a request whose header fields, cookies or decoded query hold a NUL
    /// byte, or nil. Wraps `MHD_get_connection_values_n`, which gives each field's length.
    static func refusal(fieldsOf connection: OpaquePointer) -> HTTPRefusal? {
        var found: MHD_ValueKind?
        for kind in [MHD_ValueKind.HEADER_KIND, .COOKIE_KIND, .GET_ARGUMENT_KIND] {
            var holdsNUL = false
            _ = withUnsafeMutablePointer(to: &holdsNUL) { flag in
                MHD_get_connection_values_n(connection, kind, { context, _, key, keySize, value, valueSize in
                    let cut = (key.map { strlen($0) != keySize } ?? false) || (value.map { strlen($0) != valueSize } ?? false)
                    if cut { context?.assumingMemoryBound(to: Bool.self).pointee = true }
                    return cut ? .NO : .YES
                }, UnsafeMutableRawPointer(flag))
            }
            if holdsNUL { found = kind; break }
        }
        guard let found else { return nil }
        let what = found == .HEADER_KIND ? "a header field" : found == .COOKIE_KIND ? "a cookie" : "a query parameter"
        return HTTPRefusal(status: 400, code: "nulByte", message: "\(what) of the request holds a NUL byte")
    }

    /// The refusal of a request with a header value that libmicrohttpd cut at a NUL byte
    /// with more bytes after it (`Host: good\0evil`), or nil.
    ///
    /// libmicrohttpd 0.9.75 (Debian's) ends a header line at its line end but measures the
    /// value with `strlen`, so `MHD_get_connection_values_n` gives the cut size. The values
    /// point into the connection's read buffer, where the head's line ends (CR, LF) and
    /// colons were overwritten with NUL bytes: so the bytes between a value's end and the
    /// next field's name are all NUL in a clean head (one or two: LF or CR LF), and the
    /// byte after the last value's end is the NUL of its line end or of the empty line
    /// ending the head. Any other byte there is what came after a NUL in the value.
    /// A field folded onto a second line (obs-fold) leaves other bytes there too: such a
    /// request is refused as well, as RFC 9112 (5.2) allows.
    static func refusal(hiddenBytesOf connection: OpaquePointer) -> HTTPRefusal? {
        final class Fields { var list: [(name: UnsafeRawPointer, value: UnsafeRawPointer?, size: Int)] = [] }
        let fields = Fields()
        withExtendedLifetime(fields) {
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { context, _, key, _, value, valueSize in
                guard let context, let key else { return .YES }
                let fields = Unmanaged<Fields>.fromOpaque(context).takeUnretainedValue()
                fields.list.append((UnsafeRawPointer(key), value.map(UnsafeRawPointer.init), valueSize))
                return .YES
            }, Unmanaged.passUnretained(fields).toOpaque())
        }
        for (index, field) in fields.list.enumerated() {
            guard let value = field.value else { continue }
            let end = value + field.size  // the NUL that ends the value as libmicrohttpd sees it
            let hides: Bool
            if index + 1 < fields.list.count {
                let next = fields.list[index + 1].name
                hides = next > end && UnsafeRawBufferPointer(start: end + 1, count: next - end - 1).contains { $0 != 0 }
            } else {
                hides = end.load(fromByteOffset: 1, as: UInt8.self) != 0
            }
            if hides {
                let name = String(cString: field.name.assumingMemoryBound(to: CChar.self))
                return HTTPRefusal(status: 400, code: "nulByte",
                                   message: "the header field \(name) of the request holds a NUL byte, or the field after it is folded onto a second line (obs-fold, refused as RFC 9112 allows)")
            }
        }
        return nil
    }

    /// Whether `%00` occurs in `target` (either case of the hex digits does not matter: 0 has one).
    private static func containsEncodedNUL(_ target: [UInt8]) -> Bool {
        guard target.count >= 3 else { return false }
        for index in 0..<(target.count - 2)
        where target[index] == UInt8(ascii: "%") && target[index + 1] == UInt8(ascii: "0") && target[index + 2] == UInt8(ascii: "0") {
            return true
        }
        return false
    }
}
