import Foundation

extension ExifDescription {
    /// EXIF's descriptive tags from IFD0 and the Exif IFD. `ImageDescription` and
    /// `UserComment` that only repeat a camera's placeholder are left out.
    init(ifd0: [UInt16: ExifValue], exif: [UInt16: ExifValue], make: String?, model: String?) {
        func meaningful(_ text: String?) -> String? {
            guard let text = DescriptiveText.clean(text),
                  !DescriptiveText.isCameraPlaceholder(text, make: make, model: model) else { return nil }
            return text
        }
        func windowsText(_ tag: UInt16) -> String? {
            ifd0[tag].flatMap { DescriptiveText.clean(DescriptiveText.ucs2LittleEndian($0.bytes)) }
        }
        imageDescription = meaningful(ifd0[ExifTag.imageDescription]?.string)
        artist = DescriptiveText.clean(ifd0[ExifTag.artist]?.string.map(Self.mwgList) ?? [])
        copyright = DescriptiveText.clean(ifd0[ExifTag.copyright].flatMap(Self.copyrightText))
        // Windows and cameras write it in IFD0; Phase One in the Exif IFD. A SHORT may hold -1.
        rating = (ifd0[ExifTag.rating] ?? exif[ExifTag.rating])?.integer().map { $0 > 0x7FFF ? $0 - 0x10000 : $0 }
        ratingPercent = ifd0[ExifTag.ratingPercent]?.integer()
        xpTitle = windowsText(ExifTag.xpTitle)
        xpComment = windowsText(ExifTag.xpComment)
        xpAuthor = windowsText(ExifTag.xpAuthor)
        xpKeywords = DescriptiveText.clean(windowsText(ExifTag.xpKeywords)?.split(separator: ";").map(String.init) ?? [])
        // exiftool ends the comment at its first NUL, as a C string.
        userComment = meaningful(ExifDecoder.userComment(exif[ExifTag.userComment])?
            .split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init))
    }

    /// `Copyright` holds the photographer's notice, a NUL, then the editor's: exiftool
    /// shows both, one per line.
    static func copyrightText(_ value: ExifValue) -> String? {
        let parts = value.bytes.split(separator: 0, omittingEmptySubsequences: true)
            .map { ExifValue.decodeLeniently($0).trimmingSpacesAndNULs() }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.prefix(2).joined(separator: "\n")
    }

    /// The MWG's list in one string: items joined by "; ", an item quoted (its quotes
    /// doubled) when it starts with a quote or holds "; " (exiftool's `StringToList`).
    static func mwgList(_ text: String) -> [String] {
        var items: [String] = []
        var inQuotes = false
        for var part in text.components(separatedBy: "; ") {
            let continuing = inQuotes
            if !inQuotes, part.hasPrefix("\"") { inQuotes = true; part.removeFirst() }
            if inQuotes {
                let trailing = part.reversed().prefix { $0 == "\"" }.count
                if trailing % 2 == 1 { inQuotes = false; part.removeLast() }
                part = part.replacingOccurrences(of: "\"\"", with: "\"")
            }
            if continuing, let last = items.popLast() { items.append(last + "; " + part) } else { items.append(part) }
        }
        return items
    }
}
