/// A value SQLite stores: the five storage classes.
package enum DatabaseValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    // Read by `Row`, by name or by position, with the same conversions either way.

    /// The integer (a real is taken when it is a whole number), or nil.
    package var int: Int? {
        switch self {
        case .integer(let value): return Int(value)
        case .real(let value): return Int(exactly: value.rounded())
        default: return nil
        }
    }
    /// The integer, or nil for any other storage class.
    package var int64: Int64? { if case .integer(let value) = self { return value } else { return nil } }
    /// The number (an integer is converted), or nil.
    package var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }
    /// The text (a blob decoded as UTF-8), or nil.
    package var text: String? {
        switch self {
        case .text(let value): return value
        case .blob(let value): return String(decoding: value, as: UTF8.self)
        default: return nil
        }
    }
    /// The bytes (a text's UTF-8), or nil.
    package var blob: [UInt8]? {
        switch self {
        case .blob(let value): return value
        case .text(let value): return Array(value.utf8)
        default: return nil
        }
    }
}

/// A Swift value that can be bound as a statement parameter.
package protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
}

extension DatabaseValue: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { self }
}
extension Int: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(Int64(self)) }
}
extension Int64: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(self) }
}
extension UInt64: DatabaseValueConvertible {
    /// Stored as the same 64 bits, reinterpreted as signed.
    package var databaseValue: DatabaseValue { .integer(Int64(bitPattern: self)) }
}
extension Double: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { isFinite ? .real(self) : .null }
}
extension Bool: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}
extension String: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { .text(self) }
}
extension Array: DatabaseValueConvertible where Element == UInt8 {
    package var databaseValue: DatabaseValue { .blob(self) }
}
extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}
