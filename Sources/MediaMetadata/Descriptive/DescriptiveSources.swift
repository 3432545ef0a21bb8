/// EXIF's descriptive tags, IFD0 and the Exif IFD, decoded.
struct ExifDescription: Sendable, Equatable, Codable {
    /// `ImageDescription` (0x010E), already without a camera's placeholder.
    var imageDescription: String?
    /// `Artist` (0x013B), split as the MWG stores a list in it (`a; b`, quoted when needed).
    var artist: [String] = []
    /// `Copyright` (0x8298): the photographer's part.
    var copyright: String?
    /// `Rating` (0x4746), `RatingPercent` (0x4749).
    var rating: Int?
    var ratingPercent: Int?
    /// Windows' `XPTitle`, `XPComment`, `XPAuthor` (UCS-2) and `XPKeywords` (split at `;`).
    var xpTitle: String?
    var xpComment: String?
    var xpAuthor: String?
    var xpKeywords: [String] = []
    /// `UserComment` (0x9286), in its declared code, already without placeholders.
    var userComment: String?
}

/// IPTC IIM record 2, from a Photoshop image resource block (JPEG APP13).
struct IPTCRecord: Sendable, Equatable, Codable {
    /// 2:25 `Keywords`.
    var keywords: [String] = []
    /// 2:05 `ObjectName`, 2:120 `Caption-Abstract`, 2:80 `By-line`, 2:116 `CopyrightNotice`.
    var objectName: String?
    var caption: String?
    var byLine: [String] = []
    var copyrightNotice: String?
    /// The MD5 of the whole IIM block, as exiftool's `CurrentIPTCDigest` computes it.
    var digest: [UInt8] = []
}

/// XMP's descriptive properties.
struct XMPDescription: Sendable, Equatable, Codable {
    var subject: [String] = []
    /// `lr:hierarchicalSubject` (`A|B|C`), digiKam `TagsList` (`A/B/C`), Microsoft
    /// `LastKeywordXMP` (`A/B/C`), each as written.
    var hierarchicalSubject: [String] = []
    var tagsList: [String] = []
    var lastKeywordXMP: [String] = []
    var title: String?
    var description: String?
    var rating: Double?
    /// `MicrosoftPhoto:Rating`, a percentage.
    var microsoftRating: Double?
    var label: String?
    /// Faces of `mwg-rs:Regions` (type Face) and `MP:RegionInfo`, with names.
    var regions: [PersonInImage] = []
    /// `Iptc4xmpExt:PersonInImage`.
    var personInImage: [String] = []
    var creator: [String] = []
    var rights: String?
}

/// A movie's descriptive metadata: QuickTime `mdta` keys, else `udta`/`ilst` atoms.
struct QuickTimeDescription: Sendable, Equatable, Codable {
    var keywords: [String] = []
    var title: String?
    var description: String?
    var artist: String?
    var copyright: String?
}

/// The descriptive values of one file as each family of tags gives them, before they
/// are reconciled into one `DescriptiveMetadata`.
struct DescriptiveSources: Sendable, Equatable, Codable {
    var exif = ExifDescription()
    /// Nil when the file has no standard IPTC block.
    var iptc: IPTCRecord?
    /// Photoshop's `IPTCDigest` (resource 0x0425): the MD5 of the IPTC block when the XMP
    /// was last brought in step with it.
    var storedIPTCDigest: [UInt8]?
    var xmp = XMPDescription()
    var quickTime = QuickTimeDescription()

    /// Whether IPTC was changed after the XMP was written: there is IPTC, a stored
    /// digest, and the stored digest is not the IPTC's own.
    var iptcChangedSinceXMP: Bool {
        guard let iptc, let storedIPTCDigest else { return false }
        return storedIPTCDigest != iptc.digest
    }

    /// The MWG's reading of a value that IPTC and XMP both hold (exiftool's MWG composite
    /// tags): XMP when there is no IPTC, or when there is an XMP value and the IPTC was not
    /// changed since (no stored digest, or a matching one); IPTC otherwise, completed from
    /// XMP where IPTC's length limit cut it.
    func reconciled(iptc iptcValue: String?, xmp xmpValue: String?, limit: Int) -> String? {
        guard iptc != nil else { return xmpValue }
        if xmpValue != nil && !iptcChangedSinceXMP { return xmpValue }
        return Self.recoverTruncated(iptcValue, xmp: xmpValue, limit: limit)
    }

    /// The list form of `reconciled(iptc:xmp:limit:)`, item by item for truncation.
    func reconciled(iptc iptcValues: [String], xmp xmpValues: [String], limit: Int) -> [String] {
        guard iptc != nil else { return xmpValues }
        if !xmpValues.isEmpty && !iptcChangedSinceXMP { return xmpValues }
        return iptcValues.enumerated().map { index, value in
            Self.recoverTruncated(value, xmp: index < xmpValues.count ? xmpValues[index] : nil, limit: limit) ?? value
        }
    }

    /// IPTC's value, or XMP's when IPTC holds exactly its first `limit` characters.
    static func recoverTruncated(_ iptc: String?, xmp: String?, limit: Int) -> String? {
        guard let iptc, let xmp, iptc.count == limit, xmp.count > limit, xmp.hasPrefix(iptc) else { return iptc }
        return xmp
    }

    /// The one reading of the file: see `docs/descriptive-metadata.md` for the order.
    func reconciled() -> DescriptiveMetadata {
        var result = DescriptiveMetadata()
        result.keywords = keywords()
        result.title = reconciled(iptc: iptc?.objectName, xmp: xmp.title, limit: 64)
            ?? exif.xpTitle ?? quickTime.title
        result.caption = exif.imageDescription
            ?? reconciled(iptc: iptc?.caption, xmp: xmp.description, limit: 2000)
            ?? exif.xpComment ?? exif.userComment ?? quickTime.description
        result.rating = rating()
        result.label = xmp.label
        result.people = people()
        let creators = !exif.artist.isEmpty ? exif.artist
            : reconciled(iptc: iptc?.byLine ?? [], xmp: xmp.creator, limit: 32)
        result.creator = creators.isEmpty ? (exif.xpAuthor ?? quickTime.artist) : creators.joined(separator: "; ")
        result.copyright = exif.copyright ?? reconciled(iptc: iptc?.copyrightNotice, xmp: xmp.rights, limit: 128)
            ?? quickTime.copyright
        return result
    }

    /// `xmp:Rating`, else EXIF `Rating`, else EXIF `RatingPercent`, else Microsoft's
    /// percentage, as stars from -1 to 5.
    func rating() -> Int? {
        if let stars = xmp.rating, stars.isFinite { return Int(max(-1, min(5, stars.rounded()))) }
        if let stars = exif.rating { return max(-1, min(5, stars)) }
        if let percent = exif.ratingPercent { return Self.stars(percent: Double(percent)) }
        return xmp.microsoftRating.flatMap { $0.isFinite ? Self.stars(percent: $0) : nil }
    }

    /// Windows' mapping of a percentage to stars (1–12 one star … 88–99 five).
    static func stars(percent: Double) -> Int {
        switch percent {
        case ..<1: return 0
        case ..<13: return 1
        case ..<38: return 2
        case ..<63: return 3
        case ..<88: return 4
        default: return 5
        }
    }

    /// The keyword set: the MWG's `Keywords` (IPTC or `dc:subject`), then the paths of
    /// `lr:hierarchicalSubject`, digiKam's `TagsList` and Microsoft's `LastKeywordXMP`,
    /// `XPKeywords` and QuickTime's keywords. digiKam's `People/…` tags are people.
    func keywords() -> [String] {
        var flat = reconciled(iptc: iptc?.keywords ?? [], xmp: xmp.subject, limit: 64)
        flat += exif.xpKeywords + quickTime.keywords
        var paths = xmp.hierarchicalSubject.map { KeywordPath.levels($0, separator: "|") }
        paths += xmp.tagsList.map { KeywordPath.levels($0, separator: "/") }
        paths += xmp.lastKeywordXMP.map { KeywordPath.levels($0, separator: "/") }
        let people = paths.filter(KeywordPath.isPeopleTag).compactMap(\.last)
        paths = paths.filter { !$0.isEmpty && !KeywordPath.isPeopleTag($0) }
        return KeywordPath.keywordSet(flat: flat, paths: paths, folded: people)
    }

    /// Named faces first (MWG regions, then Microsoft's), then names without a face:
    /// `Iptc4xmpExt:PersonInImage` and digiKam's `People/…` tags; one entry per name.
    func people() -> [PersonInImage] {
        var result: [PersonInImage] = []
        var seen: Set<String> = []
        let tagged = xmp.tagsList.map { KeywordPath.levels($0, separator: "/") }.filter(KeywordPath.isPeopleTag)
        let names = xmp.personInImage + tagged.compactMap(\.last)
        for person in xmp.regions + names.map({ PersonInImage(name: $0) }) where result.count < DescriptiveText.maxItems {
            if seen.insert(person.name.lowercased()).inserted { result.append(person) }
        }
        return result
    }
}

/// Keyword hierarchies as paths (`A|B|C`).
enum KeywordPath {
    /// The levels of a hierarchical keyword, blanks dropped.
    static func levels(_ text: String, separator: Character) -> [String] {
        text.split(separator: separator).compactMap { DescriptiveText.clean(String($0)) }
    }

    /// Whether a tag path is digiKam's (or Windows') person tag: `People/Name`.
    static func isPeopleTag(_ levels: [String]) -> Bool {
        levels.count >= 2 && ["people", "persons", "person"].contains(levels[0].lowercased())
    }

    /// Flat keywords and paths as one set, deduplicated without regard to case: a flat
    /// keyword that is a level of some path is dropped (the path holds it), and so is a
    /// path that is the start of a longer one. Flat keywords equal to one of `folded` (the
    /// names of digiKam's `People/…` tags, which are people, not keywords) are dropped too.
    static func keywordSet(flat: [String], paths: [[String]], folded: [String] = []) -> [String] {
        var levels = Set(folded.map { $0.lowercased() })
        var ancestors: Set<String> = []
        for path in paths {
            var prefix = ""
            for (index, level) in path.enumerated() {
                levels.insert(level.lowercased())
                prefix += (index == 0 ? "" : "|") + level.lowercased()
                if index < path.count - 1 { ancestors.insert(prefix) }
            }
        }
        var result: [String] = []
        var seen: Set<String> = []
        for keyword in flat where !levels.contains(keyword.lowercased()) {
            if seen.insert(keyword.lowercased()).inserted { result.append(keyword) }
        }
        for path in paths.map({ $0.joined(separator: "|") }) where !ancestors.contains(path.lowercased()) {
            if seen.insert(path.lowercased()).inserted { result.append(path) }
        }
        return Array(result.prefix(DescriptiveText.maxItems))
    }
}
