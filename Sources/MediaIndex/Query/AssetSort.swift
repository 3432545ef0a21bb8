/// What a sort orders by.
public enum AssetSortKey: String, Sendable, Hashable, CaseIterable {
    /// When it was taken (undated assets sort as the oldest).
    case captureDate
    /// When the index last saw its content or metadata change.
    case modificationDate
    /// When it was first indexed.
    case addedDate
    /// The primary file's name.
    case fileName
    /// A video's length (stills sort as the shortest).
    case duration
    /// The primary file's size.
    case fileSize
    /// A user album's own order; only with a user album scope.
    case albumOrder

    /// The direction a key sorts in unless told: names and album order A→Z / first→last,
    /// everything else newest, longest or largest first.
    public var defaultAscending: Bool { self == .fileName || self == .albumOrder }
}

/// An order: a key and a direction. Ties are always broken by the asset's row id, so
/// the order is total and keyset paging never skips or repeats.
public struct AssetSort: Sendable, Hashable {
    /// What it orders by.
    public var key: AssetSortKey
    /// Oldest, shortest, smallest or A first.
    public var ascending: Bool

    /// An order by `key`, in its default direction unless `ascending` says.
    public init(_ key: AssetSortKey, ascending: Bool? = nil) {
        self.key = key
        self.ascending = ascending ?? key.defaultAscending
    }

    /// Capture date, newest first: the default.
    public static let newestFirst = AssetSort(.captureDate)
}

extension AssetSort: CustomStringConvertible {
    /// The key and direction, as `captureDate descending`.
    public var description: String { key.rawValue + (ascending ? " ascending" : " descending") }
}
