import MediaIndex

/// Asset identifiers as users type them: Crockford base 32 is case-insensitive, so
/// `01HV3K…` and `01hv3k…` name the same asset; as Crockford decodes, `I` and `L`
/// read as `1` and `O` as `0`.
enum AssetIdentifierArgument {
    /// The identifier in its stored (lower-case) form, or nil when the text does not
    /// have an identifier's shape in any case.
    static func identifier(_ text: String) -> String? {
        guard text.utf8.count == 13 else { return nil }
        let lowered = String(text.lowercased().map { $0 == "i" || $0 == "l" ? "1" : $0 == "o" ? "0" : $0 })
        return AssetIdentifierFactory.isWellFormed(lowered) ? lowered : nil
    }

    /// Each argument in the stored form when it is an identifier, else as typed (the
    /// library then names it in its "not found" error).
    static func identifiers(_ texts: [String]) -> [String] {
        texts.map { identifier($0) ?? $0 }
    }
}
