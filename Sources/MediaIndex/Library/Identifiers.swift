import Foundation

extension Asset {
    /// An asset's stable identifier: 13 characters of lowercase Crockford base 32,
    /// URL-safe, the same across re-index, moves and rebuilds.
    ///
    /// Its text form (`description`) is what the JSON, the CLI and the change feed show.
    public struct ID: Hashable, Comparable, Sendable, Codable, LosslessStringConvertible {
        /// The identifier's text.
        public let rawValue: String

        /// The identifier spelled by `description`, or nil when the text does not have an
        /// identifier's shape (13 base-32 characters).
        public init?(_ description: String) {
            guard AssetIdentifierFactory.isWellFormed(description) else { return nil }
            rawValue = description
        }

        /// An identifier read from the library, trusted as it is.
        init(stored rawValue: String) { self.rawValue = rawValue }

        /// The identifier's text.
        public var description: String { rawValue }

        /// Orders by text, as the CLI lists them.
        public static func < (a: ID, b: ID) -> Bool { a.rawValue < b.rawValue }

        /// Decodes the text form.
        ///
        /// - Throws: `DecodingError.dataCorrupted` when the text is not an identifier.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let id = ID(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an asset identifier")
            }
            self = id
        }

        /// Encodes the text form.
        ///
        /// - Throws: the encoder's error.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

extension Album {
    /// An album's stable identifier: `smart.recents`, `folder.<base64url of the path>`,
    /// `user.<13 characters>` or `place[.<country>[.<region>[.<geonameId>]]]`. It names the album's kind too, so it always says
    /// which scope it fetches (`AlbumScope(id)`).
    public struct ID: Hashable, Comparable, Sendable, Codable, LosslessStringConvertible {
        /// The identifier's text, with its kind prefix.
        public let rawValue: String

        /// The identifier spelled by `description`, or nil when it names no album kind:
        /// `smart.` with a smart album's name, `folder.` with a base64url path, `user.`
        /// with a user album's identifier.
        public init?(_ description: String) {
            guard AlbumScope(parsing: description) != nil else { return nil }
            rawValue = description
        }

        /// The identifier of a scope (always well formed).
        init(scope: AlbumScope) { rawValue = scope.idText }

        /// An identifier read from the library, trusted as it is.
        init(stored rawValue: String) { self.rawValue = rawValue }

        /// A user album's identifier from its bare part (without `user.`), as stored.
        init(userAlbum identifier: String) { rawValue = "user." + identifier }

        /// The identifier's text.
        public var description: String { rawValue }

        /// The kind of album it names.
        public var kind: Album.Kind {
            switch AlbumScope(parsing: rawValue) {
            case .smart?: return .smart
            case .folder?: return .folder
            case .place?: return .place
            case .user?, nil: return .user
            }
        }

        /// A user album's identifier without its `user.` prefix, as the JSON asset
        /// shape's `albums` lists it; nil for smart and folder albums.
        public var userAlbumIdentifier: String? {
            rawValue.hasPrefix("user.") ? String(rawValue.dropFirst(5)) : nil
        }

        /// Orders by text.
        public static func < (a: ID, b: ID) -> Bool { a.rawValue < b.rawValue }

        /// Decodes the text form.
        ///
        /// - Throws: `DecodingError.dataCorrupted` when the text is not an album identifier.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let id = ID(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an album identifier")
            }
            self = id
        }

        /// Encodes the text form.
        ///
        /// - Throws: the encoder's error.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

/// A position in the change feed (PhotoKit's `PHPersistentChangeToken`): every change
/// gets a larger token than all before it. Persist `rawValue` (or `description`) and
/// ask `changes(since:)` with it next time.
public struct ChangeToken: Hashable, Comparable, Sendable, Codable, LosslessStringConvertible {
    /// The token's number; 0 is before every change.
    public let rawValue: Int64

    /// The token with this number.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// The token a decimal number spells, or nil when the text is not one or is negative.
    public init?(_ description: String) {
        guard let value = Int64(description), value >= 0 else { return nil }
        rawValue = value
    }

    /// Before every change: `changes(since: .initial)` is the whole retained history.
    public static let initial = ChangeToken(rawValue: 0)

    /// The decimal number.
    public var description: String { String(rawValue) }

    /// Orders by number: later changes have larger tokens.
    public static func < (a: ChangeToken, b: ChangeToken) -> Bool { a.rawValue < b.rawValue }

    /// Decodes the number.
    ///
    /// - Throws: `DecodingError` when the value is not an integer.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes the number.
    ///
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
