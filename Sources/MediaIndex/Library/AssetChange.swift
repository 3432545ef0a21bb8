import Foundation

/// One entry of the change feed (PhotoKit's `PHPersistentChange`, one asset at a time).
public struct AssetChange: Sendable, Equatable {
    /// What happened to the asset.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// It appeared: a new file, or one that came back.
        case inserted
        /// Its content or metadata changed; `fields` says which.
        case updated
        /// Its last file went away.
        case deleted
        /// Its files moved or were renamed; it is otherwise the same.
        case moved
        /// Pairing joined another file to it (a live photo's movie, a RAW's JPEG).
        case paired
        /// Pairing took a file away from it.
        case unpaired
    }

    /// The change's token: every change gets a larger one than all before it.
    public var token: ChangeToken
    /// The asset that changed.
    public var id: Asset.ID
    /// What happened.
    public var kind: Kind
    /// The fields that changed, for `updated`, in the order the index recorded them.
    public var fields: [Asset.Field]
    /// When the change was recorded.
    public var date: Date
}

/// The writer's name for a change kind (Identity/ChangeLog.swift).
typealias AssetChangeKind = AssetChange.Kind

/// Changes since a token, and the token to ask with next time.
public struct AssetChanges: Sendable, Equatable {
    /// The changes, oldest first.
    public var changes: [AssetChange]
    /// The newest token; pass it as `since` next time.
    public var currentToken: ChangeToken
}

extension Asset {
    /// A field of the asset shape, by its JSON name: what an `updated` change lists.
    ///
    /// A struct rather than an enum so that a name a newer MediaIndex records is still
    /// read (as a field this build has no constant for) instead of being lost.
    public struct Field: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The JSON name.
        public let rawValue: String
        /// The field with this JSON name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The JSON name.
        public var description: String { rawValue }

        // The constants (`.mediaType`, `.rating`, …) are declared with the field table,
        // in AssetFields.swift.

        /// Decodes the JSON name.
        ///
        /// - Throws: `DecodingError` when the value is not a string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes the JSON name.
        ///
        /// - Throws: the encoder's error.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}
