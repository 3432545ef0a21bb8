/// What people wrote on a photo or movie: keywords, title, caption, rating, colour
/// label, the people shown, creator and copyright.
///
/// Read from every family of tags that carries them (XMP, IPTC IIM, EXIF and the
/// Windows `XP*` tags, QuickTime), reconciled as the Metadata Working Group's guidelines
/// say (see `DescriptiveSources.reconciled()` and `docs/descriptive-metadata.md`).
/// Text is decoded in its declared character set and normalised to NFC.
public struct DescriptiveMetadata: Sendable, Equatable, Hashable, Codable {
    /// Keywords as a set (no two equal without regard to case), in the order first met.
    /// A hierarchy is one path, its levels joined by `|` (`Places|France|Paris`); a flat
    /// keyword that is a level of a path is folded into that path.
    public var keywords: [String]
    public var title: String?
    public var caption: String?
    /// Star rating: -1 (rejected), 0 (unrated) … 5.
    public var rating: Int?
    /// Colour label, as Lightroom and darktable write `xmp:Label` (`Red`, `Green` …).
    public var label: String?
    /// The people named in the picture, each with the rectangle of their face where given.
    public var people: [PersonInImage]
    /// The creators, joined by "; " as the MWG joins a list into EXIF `Artist`.
    public var creator: String?
    public var copyright: String?

    public init(keywords: [String] = [], title: String? = nil, caption: String? = nil, rating: Int? = nil,
                label: String? = nil, people: [PersonInImage] = [], creator: String? = nil,
                copyright: String? = nil) {
        self.keywords = keywords; self.title = title; self.caption = caption; self.rating = rating
        self.label = label; self.people = people; self.creator = creator; self.copyright = copyright
    }

    /// A text as every descriptive field holds it: trimmed, bounded, NFC; nil when blank.
    public static func cleanText(_ text: String?) -> String? { DescriptiveText.clean(text) }

    /// Keywords as a set, as every keyword field holds them: cleaned, hierarchies as
    /// `A|B|C` paths, deduplicated without regard to case, levels of a path folded into it.
    public static func keywordSet(_ keywords: [String]) -> [String] {
        let cleaned = DescriptiveText.clean(keywords)
        let paths = cleaned.filter { $0.contains("|") }.map { KeywordPath.levels($0, separator: "|") }.filter { !$0.isEmpty }
        return KeywordPath.keywordSet(flat: cleaned.filter { !$0.contains("|") }, paths: paths)
    }

    /// Whether no field has a value.
    public var isEmpty: Bool { self == DescriptiveMetadata() }

    /// The names of the fields that have a value, as the JSON names them.
    public var fieldsWithValues: [String] {
        var names: [String] = []
        if !keywords.isEmpty { names.append("keywords") }
        if title != nil { names.append("title") }
        if caption != nil { names.append("caption") }
        if rating != nil { names.append("rating") }
        if label != nil { names.append("label") }
        if !people.isEmpty { names.append("people") }
        if creator != nil { names.append("creator") }
        if copyright != nil { names.append("copyright") }
        return names
    }

    /// These values where they have one, `fallback`'s elsewhere: field by field, never
    /// merged within a field (an XMP sidecar's keywords replace the file's keywords).
    public func replacingFields(of fallback: DescriptiveMetadata) -> DescriptiveMetadata {
        DescriptiveMetadata(
            keywords: keywords.isEmpty ? fallback.keywords : keywords,
            title: title ?? fallback.title, caption: caption ?? fallback.caption,
            rating: rating ?? fallback.rating, label: label ?? fallback.label,
            people: people.isEmpty ? fallback.people : people,
            creator: creator ?? fallback.creator, copyright: copyright ?? fallback.copyright)
    }
}

/// A person named in a picture, with their face's rectangle where the file gives one.
public struct PersonInImage: Sendable, Equatable, Hashable, Codable {
    public var name: String
    /// The face, as fractions of the picture's width and height; nil when only the name is given.
    public var face: FaceRectangle?

    public init(name: String, face: FaceRectangle? = nil) {
        self.name = name
        self.face = face
    }
}

/// A rectangle in a picture as fractions (0…1) of its width and height, from the top
/// left corner, in the picture's stored orientation (as MWG regions are).
public struct FaceRectangle: Sendable, Equatable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// MWG's form: the centre and the size. Nil unless every number is finite and the
    /// rectangle overlaps the picture.
    public init?(centreX: Double, centreY: Double, width: Double, height: Double) {
        self.init(validX: centreX - width / 2, y: centreY - height / 2, width: width, height: height)
    }

    /// Nil unless every number is finite, the size positive and the rectangle overlaps the picture.
    public init?(validX x: Double, y: Double, width: Double, height: Double) {
        guard [x, y, width, height].allSatisfy(\.isFinite), width > 0, height > 0,
              x < 1, y < 1, x + width > 0, y + height > 0 else { return nil }
        self.init(x: x, y: y, width: width, height: height)
    }
}
