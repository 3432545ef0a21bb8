import MediaIndex

/// How commands read the assets their arguments name.
///
/// Identifiers are read as users type them: Crockford base 32 is case-insensitive, so
/// `01HV3K…` and `01hv3k…` name the same asset; as Crockford decodes, `I` and `L` read
/// as `1` and `O` as `0`.
enum AssetArgument {
    /// The asset an argument names: an identifier (in any case), else the path of one of its files.
    ///
    /// - Throws: `LibraryError.assetNotFound` when neither finds one.
    static func asset(named key: RawArgument, in library: MediaLibrary) async throws -> Asset {
        if let id = id(key.string), let asset = try await library.asset(id: id) { return asset }
        if let asset = try await library.asset(path: PathBytes(key.bytes)) { return asset }
        throw LibraryError.assetNotFound(key.string)
    }

    /// The identifier the text spells in any case, in its stored (lower-case) form, or
    /// nil when the text does not have an identifier's shape.
    static func id(_ text: String) -> Asset.ID? {
        guard text.utf8.count == 13 else { return nil }
        return Asset.ID(String(text.lowercased().map { $0 == "i" || $0 == "l" ? "1" : $0 == "o" ? "0" : $0 }))
    }

    /// Identifiers as typed (in any case); text that is not one can match no asset.
    ///
    /// - Throws: `LibraryError.assetNotFound` for the first that is not an identifier.
    static func identifiers(_ texts: [String]) throws -> [Asset.ID] {
        try texts.map { text in
            guard let id = id(text) else { throw LibraryError.assetNotFound(text) }
            return id
        }
    }
}
