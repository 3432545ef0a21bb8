/// A position in an ordered fetch: the last row's sort key and row id.
///
/// Encoded as URL-safe base64 of `1|key|a or d|value|id`, where the value is `r` with
/// the 16 hex digits of a double's bits (exact), `i` with an integer, or `t` with the
/// base64url of a text. Decoding checks every part; a damaged cursor is an error.
struct AssetCursor: Equatable {
    var sort: AssetSort
    var value: DatabaseValue
    var rowID: Int64

    var encoded: String {
        let valueText: String
        switch value {
        case .real(let v): valueText = "r" + String(v.bitPattern, radix: 16)
        case .integer(let v): valueText = "i" + String(v)
        case .text(let v): valueText = "t" + Base64URL.encode(Array(v.utf8))
        case .blob(let v): valueText = "t" + Base64URL.encode(v)
        case .null: valueText = "n"
        }
        let plain = ["1", sort.key.rawValue, sort.ascending ? "a" : "d", valueText, String(rowID)].joined(separator: "|")
        return Base64URL.encode(Array(plain.utf8))
    }

    /// Why a cursor's text is not a cursor (the query reports it as `AssetQueryError.invalidCursor`).
    struct DecodingError: Error, Equatable {
        var reason: String
    }

    /// The cursor `text` encodes.
    ///
    /// - Throws: `DecodingError` naming the part that is wrong.
    static func decode(_ text: String) throws -> AssetCursor {
        guard text.utf8.count <= 4096 else { throw DecodingError(reason: "it is too long") }
        guard let bytes = Base64URL.decode(text), let plain = String(validating: bytes, as: UTF8.self) else {
            throw DecodingError(reason: "it is not URL-safe base64")
        }
        let parts = plain.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == "1" else { throw DecodingError(reason: "its layout is unknown") }
        guard let key = AssetSortKey(rawValue: parts[1]) else {
            throw DecodingError(reason: "it names no known sort")
        }
        guard parts[2] == "a" || parts[2] == "d" else { throw DecodingError(reason: "its direction is unknown") }
        guard let rowID = Int64(parts[4]) else { throw DecodingError(reason: "its row is not a number") }
        let valueText = parts[3]
        let body = String(valueText.dropFirst())
        let value: DatabaseValue
        switch valueText.first {
        case "r"?:
            guard !body.isEmpty, let bits = UInt64(body, radix: 16) else { throw DecodingError(reason: "its key is not a number") }
            let double = Double(bitPattern: bits)
            guard double.isFinite else { throw DecodingError(reason: "its key is not a finite number") }
            value = .real(double)
        case "i"?:
            guard let integer = Int64(body) else { throw DecodingError(reason: "its key is not an integer") }
            value = .integer(integer)
        case "t"?:
            guard let textBytes = Base64URL.decode(body), let string = String(validating: textBytes, as: UTF8.self) else {
                throw DecodingError(reason: "its key is not text")
            }
            value = .text(string)
        default:
            throw DecodingError(reason: "its key has no known type")
        }
        return AssetCursor(sort: AssetSort(key, ascending: parts[2] == "a"), value: value, rowID: rowID)
    }
}
