import MediaMetadata

/// A HEIF file rewritten in memory so that libheif 1.15 (Debian 12's) reads it: its `iref`
/// box keeps only the references the primary image needs.
///
/// Why: since iOS 17, an iPhone HEIC carries an ISO 21496-1 gain map: a `tmap` item derived
/// from the primary and the gain-map image, and auxiliary images (the HDR gain map, the
/// segmentation mattes) whose `auxl` reference names both the primary and the `tmap` item.
/// libheif before 1.19 refuses an `auxl` or `thmb` reference with more than one target
/// ("Too many auxiliary image references"), and so the whole file. Here each such
/// reference keeps the primary (else its first target), references to and from `tmap`
/// items are dropped, and the bytes saved become a `free` box inside `meta`, so every
/// other byte keeps its offset and `iloc` needs no change. Newer libheif reads the file as
/// it is; this is only tried after a refusal.
enum HEIFPrimaryReferences {
    /// Item types libheif 1.15 does not know as images, whose references it cannot follow.
    static let unknownDerivedTypes: Set<String> = ["tmap"]
    /// Reference types libheif 1.15 allows one target for.
    static let singleTargetTypes: Set<String> = ["auxl", "thmb"]

    /// The references libheif 1.15 accepts, in the order of `items.references`: nil when
    /// there is nothing to change.
    static func simplified(_ items: HEIFItems) -> [HEIFItems.Reference]? {
        guard let primary = items.primaryID else { return nil }
        let derived = Set(items.items.values.filter { unknownDerivedTypes.contains($0.type) }.map(\.id))
        var changed = false
        var kept: [HEIFItems.Reference] = []
        for reference in items.references {
            guard !derived.contains(reference.from) else { changed = true; continue }
            var targets = reference.to.filter { !derived.contains($0) }
            if singleTargetTypes.contains(reference.type), targets.count > 1 {
                targets = [targets.contains(primary) ? primary : targets[0]]
            }
            if targets != reference.to { changed = true }
            if !targets.isEmpty { kept.append(HEIFItems.Reference(type: reference.type, from: reference.from, to: targets)) }
        }
        return changed ? kept : nil
    }

    /// `file` with its `iref` box holding only `simplified(items)`, followed by a `free` box
    /// of the bytes saved; nil when nothing needs to change, the references could not be
    /// read whole, or fewer than 8 bytes were saved (too few for a `free` box).
    ///
    /// - Parameter items: `HEIFItems.read` of `file`.
    static func rewritten(_ file: UnsafeBufferPointer<UInt8>, items: HEIFItems) -> [UInt8]? {
        guard let box = items.referenceBox, box.version <= 1, box.range.upperBound <= UInt64(file.count),
              // The references read must be the whole box, or a rewrite would lose some.
              encodedSize(items.references, version: box.version) == Int(box.range.count),
              let kept = simplified(items) else { return nil }
        let iref = encoded(kept, version: box.version)
        let saved = Int(box.range.count) - iref.count
        guard saved >= 8, saved <= Int(UInt32.max) else { return nil }
        var bytes = Array(file)
        let start = Int(box.range.lowerBound)
        let free = bigEndian(UInt32(saved), bytes: 4) + Array("free".utf8) + [UInt8](repeating: 0, count: saved - 8)
        bytes.replaceSubrange(start..<Int(box.range.upperBound), with: iref + free)
        return bytes
    }

    /// An `iref` box (ISO/IEC 14496-12 §8.11.12) of `references`: item ids of 16 bits in
    /// version 0, 32 in version 1.
    static func encoded(_ references: [HEIFItems.Reference], version: UInt8) -> [UInt8] {
        let idBytes = version == 0 ? 2 : 4
        var body: [UInt8] = [version, 0, 0, 0]
        for reference in references {
            let size = 8 + idBytes + 2 + idBytes * reference.to.count
            body += bigEndian(UInt32(size), bytes: 4) + Array(reference.type.utf8.prefix(4))
            body += bigEndian(reference.from, bytes: idBytes) + bigEndian(UInt32(reference.to.count), bytes: 2)
            for target in reference.to { body += bigEndian(target, bytes: idBytes) }
        }
        return bigEndian(UInt32(8 + body.count), bytes: 4) + Array("iref".utf8) + body
    }

    /// The size `encoded` gives, without building it.
    static func encodedSize(_ references: [HEIFItems.Reference], version: UInt8) -> Int {
        let idBytes = version == 0 ? 2 : 4
        return references.reduce(12) { $0 + 8 + idBytes + 2 + idBytes * $1.to.count }
    }

    private static func bigEndian(_ value: UInt32, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
