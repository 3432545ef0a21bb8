import MediaIndex

/// The JSON of duplicate groups, shared by `mediaindex duplicates --json` and HTTP.
public enum DuplicateJSON {
    /// `{"group", "kind", "keep", "assets", "reasons", "distance", "sharedFiles"}`: `reasons`
    /// holds the keeper rule (`keep`) and, by member, what it has that the keeper lacks
    /// (`extras`); `keep` is null for similar shots.
    public static func group(_ group: DuplicateGroup) -> JSON {
        var reasons: [(String, JSON)] = []
        if let rule = group.keeperReason { reasons.append(("keep", .string(rule.rawValue))) }
        let extras = group.extras.keys.sorted().map { ($0.rawValue, JSON.array((group.extras[$0] ?? []).map(JSON.string))) }
        reasons.append(("extras", .object(extras)))
        return .object([
            ("group", .string(group.id)), ("kind", .string(group.kind.rawValue)),
            ("keep", JSON(group.keeper?.rawValue)), ("assets", .array(group.assets.map { .string($0.rawValue) })),
            ("reasons", .object(reasons)), ("distance", .int(group.distance)),
            ("sharedFiles", .array(group.sharedFiles.map { .array($0.map { .string($0.rawValue) }) })),
        ])
    }
}
