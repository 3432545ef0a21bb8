/// What a file's name says about its place among the files of one asset: the base name
/// it shares with its original, whether it is an edited copy, and the Pixel RAW pair
/// and burst marks.
///
/// The forms, from how devices and exporters name files (names compared lowercased):
/// - edited copies: Apple Photos and Image Capture `IMG_E1234.HEIC`/`.JPG`/`.MOV` of
///   `IMG_1234`; macOS Photos exports `IMG_1234 (Edited).HEIC`; osxphotos
///   `IMG_1234_edited.jpeg`; Google Takeout `IMG_1234-edited.jpg` (and its translations,
///   `-bearbeitet`, `-modifié`, …); Google Photos on
///   Android `PXL_20230101_123456789~2.jpg` (a tilde and a counter straight after a base
///   of at least 8 characters: 8.3 short names such as `IMG_12~1.JPG` are not edits);
/// - Apple's adjustments `IMG_1234.AAE`, and `IMG_O1234.AAE` (the original's);
/// - live-photo movies renamed by converters and downloaders: `IMG_1234_HEVC.MOV`,
///   `IMG_1234_3.mov` (a counter of one or two digits after a base ending in a digit),
///   `IMG_1234.JPG.MOV` (the still's name with `.MOV` added);
/// - Pixel RAW pairs: `PXL_….RAW-01.MP.COVER.jpg` (or `.RAW-01.COVER.jpg`) with
///   `PXL_….RAW-02.ORIGINAL.dng`, and the motion-photo mark `PXL_….MP.jpg`;
/// - bursts: Pixel `00000IMG_00000_BURST20201123164411530_COVER.jpg` and its frames
///   `00001IMG_00001_BURST20201123164411530.jpg`, Sony `DSC_0052_BURST20230709220904977_COVER.JPG`,
///   Huawei `IMG_20231014_183246_BURST001_COVER.jpg`.
///
/// Sources: the osxphotos issues on `IMG_E`/`IMG_O` and `_edited` names (RhetTbull/osxphotos
/// #1113, #1871, #2043), immich-go's stacking issues (simulot/immich-go #94, #345, #651)
/// and Immich issue #8674 (Pixel `RAW-01.MP.COVER`/`RAW-02.ORIGINAL`).
struct NameLayout: Equatable {
    /// Which half of a Pixel RAW pair the name marks.
    enum PixelPart: Equatable { case cover, original }

    /// The lowercased stem with the layout marks taken off: what an edit, a renamed
    /// movie or the other half of a Pixel pair shares with its original (`files.base_key`).
    var baseKey: String
    /// The name marks an edited copy.
    var isEdit = false
    /// The name marks a live-photo movie renamed from its still's name.
    var isRenamedMovie = false
    /// The Pixel RAW pair mark, if any.
    var pixelPart: PixelPart?

    /// The suffixes of an edited copy's stem (lowercased): macOS Photos', osxphotos', and
    /// Google Photos' in each language Takeout writes (`TakeoutSidecar.editedSuffixes`).
    static let editedSuffixes = [" (edited)", "_edited"] + TakeoutSidecar.editedSuffixes
    static let movieExtensions: Set<String> = ["mov", "mp4", "m4v", "qt"]
    static let stillExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "png", "dng", "tif", "tiff"]

    /// The layout of a lowercased file name.
    init(lowercasedName name: String) {
        var stem = Substring(name), ext = Substring("")
        if let dot = name.lastIndex(of: "."), dot > name.startIndex {
            stem = name[..<dot]
            ext = name[name.index(after: dot)...]
        }
        let isMovie = Self.movieExtensions.contains(String(ext)), isAdjustments = ext == "aae"

        // IMG_1234.JPG.MOV, IMG_1234.HEIC.AAE: the still's whole name.
        if isMovie || isAdjustments, let dot = stem.lastIndex(of: "."), dot > stem.startIndex,
           Self.stillExtensions.contains(String(stem[stem.index(after: dot)...])) {
            stem = stem[..<dot]
            isRenamedMovie = isMovie
        }
        // Pixel: NAME.RAW-01.MP.COVER, NAME.RAW-01.COVER, NAME.RAW-02.ORIGINAL; NAME.MP.
        if let raw = stem.range(of: ".raw-", options: .backwards), raw.lowerBound > stem.startIndex {
            let rest = stem[raw.upperBound...]
            if rest.count > 2, rest.prefix(2).allSatisfy(\.isASCIIDigit) {
                switch rest.dropFirst(2) {
                case ".cover", ".mp.cover": pixelPart = .cover
                case ".original", ".mp.original": pixelPart = .original
                default: break
                }
                if pixelPart != nil { stem = stem[..<raw.lowerBound] }
            }
        }
        if pixelPart == nil, stem.hasSuffix(".mp"), stem.count > 3 { stem = stem.dropLast(3) }

        if isMovie {
            if stem.hasSuffix("_hevc"), stem.count > 5 {
                stem = stem.dropLast(5)
                isRenamedMovie = true
            } else if let underscore = stem.lastIndex(of: "_") {
                let counter = stem[stem.index(after: underscore)...], before = stem[..<underscore]
                if (1...2).contains(counter.count), counter.allSatisfy(\.isASCIIDigit),
                   before.count >= 5, before.last?.isASCIIDigit == true {
                    stem = before
                    isRenamedMovie = true
                }
            }
        }

        // Edited copies. Takeout puts a duplicate's counter after the mark:
        // `IMG_1-edited(1)` is the edit of `IMG_1(1)`.
        var counter = Substring("")
        if stem.last == ")", let open = stem.lastIndex(of: "("), open > stem.startIndex {
            let digits = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
            if (1...3).contains(digits.count), digits.allSatisfy(\.isASCIIDigit) { counter = stem[open...] }
        }
        let marked = stem.dropLast(counter.count)
        for suffix in Self.editedSuffixes where marked.hasSuffix(suffix) && marked.count > suffix.count {
            stem = Substring(String(marked.dropLast(suffix.count)) + counter)
            isEdit = true
            break
        }
        if !isEdit, let tilde = stem.lastIndex(of: "~") {
            let counter = stem[stem.index(after: tilde)...]
            if (1...2).contains(counter.count), counter.allSatisfy(\.isASCIIDigit), stem[..<tilde].count >= 8 {
                stem = stem[..<tilde]
                isEdit = true
            }
        }
        // IMG_E1234 (an edit) and IMG_O1234.AAE (the original's adjustments) of IMG_1234.
        if stem.hasPrefix("img_e") || (isAdjustments && stem.hasPrefix("img_o")) {
            let digits = stem.dropFirst(5)
            if let first = digits.first, first.isASCIIDigit {
                if stem.hasPrefix("img_e") { isEdit = true }
                stem = "img_" + digits
            }
        }
        baseKey = String(stem)
    }

    /// A burst named in the file name: Pixel, Sony and Huawei write `_BURST` and digits,
    /// and `_COVER` on the frame they show for the burst.
    ///
    /// - Returns: the burst's identifier (`BURST` and the digits when they are a
    ///   timestamp, shared by every frame; else, the digits counting frames, the name
    ///   before `_BURST`), and
    ///   whether this frame is the cover; nil when the name names no burst.
    static func burst(ofFileName fileName: String) -> (identifier: String, isCover: Bool)? {
        let name = fileName.lowercased()
        guard let mark = name.range(of: "_burst", options: .backwards) else { return nil }
        let digits = name[mark.upperBound...].prefix(while: \.isASCIIDigit)
        guard digits.count >= 3 else { return nil }
        let rest = name[digits.endIndex...]
        let isCover = rest.hasPrefix("_cover")
        guard isCover || rest.hasPrefix(".") || rest.isEmpty else { return nil }
        let identifier = digits.count >= 14 ? "BURST" + digits : String(name[..<mark.lowerBound]) + "_BURST"
        return (identifier, isCover)
    }
}

extension Character {
    /// `0`…`9`.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
