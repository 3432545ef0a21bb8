import Foundation

/// A group of assets that are the same file, the same picture, or successive shots.
public struct DuplicateGroup: Sendable, Hashable {
    /// Stays the same while the group's kind and members do (a hash of both).
    public var id: String
    public var kind: DuplicateKind
    /// The members, keeper first, then by identifier.
    public var assets: [Asset.ID]
    /// The member to keep (duplicates and same-file groups; nil for similar shots, where
    /// picking the best is the user's).
    public var keeper: Asset.ID?
    /// Why the keeper was chosen: the first rule of `KeeperRule` that told them apart.
    public var keeperReason: KeeperRule?
    /// What other members have that the keeper lacks (`gps`, `captureDate`, `keywords`,
    /// `album`, `favorite`), by member: what a merge would copy onto the keeper.
    public var extras: [Asset.ID: [String]]
    /// The largest Hamming distance of a link that joined the group (0 for same-file).
    public var distance: Int
    /// Members that are one file seen through several paths (hard links, bind mounts).
    public var sharedFiles: [[Asset.ID]]

    /// A group identifier from its kind and members: `kind:hex`.
    static func identifier(kind: DuplicateKind, members: [String]) -> String {
        var hasher = XXHash64(seed: 33)
        hasher.update(Array(kind.rawValue.utf8))
        for member in members.sorted() { hasher.update([0] + Array(member.utf8)) }
        let hex = String(hasher.finalize(), radix: 16)
        return String(kind.rawValue.prefix(1)) + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// The rules that choose a duplicate group's keeper, in order: the first that tells two
/// members apart decides.
public enum KeeperRule: String, Sendable, CaseIterable {
    /// The camera's original over a derivative: the one whose file names its camera
    /// (an export, a messenger's copy or a conversion loses the make and model).
    case original
    /// More pixels.
    case largerPixelSize = "larger pixel size"
    /// More of GPS, capture date, keywords.
    case moreMetadata = "more metadata"
    /// A lossless format (PNG, TIFF, DNG, …) over a lossy one.
    case losslessFormat = "lossless format"
    /// The older file (modification time).
    case olderFile = "older file"
    /// Nothing told them apart: the smaller identifier, so the choice is stable.
    case identifier
}

/// The facts of an asset the keeper rules and the extras read.
struct KeeperFacts: Sendable, Hashable {
    var identifier: String
    var hasCamera: Bool
    var pixels: Int
    var hasGPS: Bool
    var hasCaptureDate: Bool
    var hasKeywords: Bool
    var format: String?
    var modified: Int64
    var inAlbum: Bool
    var isFavorite: Bool

    static let losslessFormats: Set<String> = ["png", "tiff", "dng", "bmp", "gif", "netpbm"]

    var metadataScore: Int { (hasGPS ? 1 : 0) + (hasCaptureDate ? 1 : 0) + (hasKeywords ? 1 : 0) }
    var isLossless: Bool { format.map(Self.losslessFormats.contains) ?? false }

    /// Whether `self` should be kept over `other`, and the rule that decided.
    func beats(_ other: KeeperFacts) -> (Bool, KeeperRule) {
        if hasCamera != other.hasCamera { return (hasCamera, .original) }
        if pixels != other.pixels { return (pixels > other.pixels, .largerPixelSize) }
        if metadataScore != other.metadataScore { return (metadataScore > other.metadataScore, .moreMetadata) }
        if isLossless != other.isLossless { return (isLossless, .losslessFormat) }
        if modified != other.modified { return (modified < other.modified, .olderFile) }
        return (identifier < other.identifier, .identifier)
    }

    /// What `self` has that `keeper` lacks.
    func extras(over keeper: KeeperFacts) -> [String] {
        var extras: [String] = []
        if hasGPS && !keeper.hasGPS { extras.append("gps") }
        if hasCaptureDate && !keeper.hasCaptureDate { extras.append("captureDate") }
        if hasKeywords && !keeper.hasKeywords { extras.append("keywords") }
        if inAlbum { extras.append("album") }
        if isFavorite && !keeper.isFavorite { extras.append("favorite") }
        return extras
    }

    /// The keeper of `members` and why: the first rule, in order, by which it beats one
    /// of the others (a byte copy of the keeper ties on everything; the export beside
    /// them is what the reason is about).
    static func keeper(of members: [KeeperFacts]) -> (KeeperFacts, KeeperRule)? {
        guard var best = members.first else { return nil }
        for member in members.dropFirst() where member.beats(best).0 { best = member }
        let rules = members.filter { $0.identifier != best.identifier }.map { best.beats($0).1 }
        let reason = KeeperRule.allCases.first(where: rules.contains) ?? .identifier
        return (best, reason)
    }
}
