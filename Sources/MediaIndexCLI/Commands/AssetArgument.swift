import MediaIndex

/// How commands read the assets their arguments name.
enum AssetArgument {
    /// The asset an argument names: an identifier, else the path of one of its files.
    ///
    /// - Throws: `LibraryError.assetNotFound` when neither finds one.
    static func asset(named key: RawArgument, in library: MediaLibrary) async throws -> Asset {
        if let id = Asset.ID(key.string), let asset = try await library.asset(id: id) { return asset }
        if let asset = try await library.asset(path: PathBytes(key.bytes)) { return asset }
        throw LibraryError.assetNotFound(key.string)
    }

    /// Identifiers as typed; text that is not one can match no asset.
    ///
    /// - Throws: `LibraryError.assetNotFound` for the first that is not an identifier.
    static func identifiers(_ texts: [String]) throws -> [Asset.ID] {
        try texts.map { text in
            guard let id = Asset.ID(text) else { throw LibraryError.assetNotFound(text) }
            return id
        }
    }
}
