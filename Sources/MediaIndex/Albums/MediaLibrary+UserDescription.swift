import Foundation
import MediaMetadata

/// A change to the user's own words for assets: each field is left alone (nil), set,
/// or cleared. Set through MediaIndex, they live in user state, by asset identifier;
/// the files are never written.
public struct UserDescriptionEdit: Sendable, Equatable {
    /// One field's change.
    public enum Change<Value: Sendable & Equatable>: Sendable, Equatable {
        case set(Value)
        case clear
    }

    /// Stars from -1 (rejected) to 5.
    public var rating: Change<Int>?
    public var title: Change<String>?
    public var caption: Change<String>?
    /// Keywords; hierarchies as `A|B|C` paths.
    public var keywords: Change<[String]>?

    public init(rating: Change<Int>? = nil, title: Change<String>? = nil, caption: Change<String>? = nil,
                keywords: Change<[String]>? = nil) {
        self.rating = rating; self.title = title; self.caption = caption; self.keywords = keywords
    }

    /// Whether the edit changes nothing.
    public var isEmpty: Bool { rating == nil && title == nil && caption == nil && keywords == nil }
}

extension MediaLibrary {
    /// Sets or clears the user's own rating, title, caption or keywords of assets.
    ///
    /// - Throws: as `Blocking.setUserDescription(_:for:)`.
    public func setUserDescription(_ edit: UserDescriptionEdit, for assets: [Asset.ID]) async throws {
        try await offExecutor { try $0.setUserDescription(edit, for: assets) }
    }

    /// The user's own words for an asset (only the fields set through MediaIndex).
    ///
    /// - Throws: as `Blocking.userDescription(of:)`.
    public func userDescription(of asset: Asset.ID) async throws -> DescriptiveMetadata {
        try await offExecutor { try $0.userDescription(of: asset) }
    }
}

extension MediaLibrary.Blocking {
    /// Sets or clears the user's own rating, title, caption or keywords of assets, in
    /// one user-state transaction: all change or none. Texts are trimmed and NFC;
    /// keywords become a set of paths, as read from files.
    ///
    /// - Throws: `LibraryError.invalidUserDescription` for a rating outside -1…5,
    ///   `LibraryError.assetNotFound` for an asset the library does not hold (nothing
    ///   changes then), `LibraryError.readOnly`, `LibraryError.database`.
    public func setUserDescription(_ edit: UserDescriptionEdit, for assetIDs: [Asset.ID]) throws {
        if case .set(let stars)? = edit.rating, !(-1...5).contains(stars) {
            throw LibraryError.invalidUserDescription("a rating is -1 (rejected) to 5 stars, not \(stars)")
        }
        var assignments: [String] = []
        var values: [DatabaseValueConvertible] = []
        func assign<Value>(_ column: String, _ change: UserDescriptionEdit.Change<Value>?, _ stored: (Value) -> DatabaseValueConvertible) {
            guard let change else { return }
            assignments.append("\(column) = ?")
            if case .set(let value) = change { values.append(stored(value)) } else { values.append(String?.none) }
        }
        assign("rating", edit.rating) { $0 }
        assign("title", edit.title) { DescriptiveMetadata.cleanText($0) }
        assign("caption", edit.caption) { DescriptiveMetadata.cleanText($0) }
        assign("keywords", edit.keywords) { keywords in
            let set = DescriptiveMetadata.keywordSet(keywords)
            guard !set.isEmpty, let json = try? JSONEncoder().encode(set) else { return String?.none }
            return String(decoding: json, as: UTF8.self)
        }
        guard !assignments.isEmpty else { return }
        try library.writeUserState { db in
            let now = Date().timeIntervalSince1970
            for assetID in assetIDs {
                try MediaLibrary.requireAsset(assetID, db: db)
                try db.execute("INSERT INTO userstate.asset_user_state (identifier, modified_at) VALUES (?, ?) ON CONFLICT (identifier) DO NOTHING",
                               [assetID.rawValue, now])
                try db.execute("UPDATE userstate.asset_user_state SET \(assignments.joined(separator: ", ")), modified_at = ? WHERE identifier = ?",
                               values + [now, assetID.rawValue])
            }
        }
    }

    /// The user's own words for an asset: the fields set through MediaIndex, nothing else.
    ///
    /// - Throws: `LibraryError.database`.
    public func userDescription(of assetID: Asset.ID) throws -> DescriptiveMetadata {
        try library.read { db in
            guard let row = try db.rows("SELECT rating, title, caption, keywords FROM userstate.asset_user_state WHERE identifier = ?",
                                        [assetID.rawValue]).first else { return DescriptiveMetadata() }
            let keywords = row.string("keywords").flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
            return DescriptiveMetadata(keywords: keywords, title: row.string("title"), caption: row.string("caption"),
                                       rating: row.int("rating"))
        }
    }
}
