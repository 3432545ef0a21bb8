/// Reads IPTC IIM (record 2) from Photoshop image resources, as JPEG's APP13
/// (`Photoshop 3.0\0` then `8BIM` resources) and TIFF's tag 0x8649 hold them.
enum IPTCReader {
    /// Resource 0x0404 holds the IIM block; 0x0425 the MD5 of that block when the XMP was
    /// last written (Photoshop's `IPTCDigest`).
    static let iimResource: UInt16 = 0x0404
    static let digestResource: UInt16 = 0x0425
    private static let app13Signature: [UInt8] = Array("Photoshop 3.0\0".utf8)

    /// The IIM block and the stored digest found in Photoshop resources.
    struct Resources: Sendable, Equatable {
        var iim: [UInt8]?
        var storedDigest: [UInt8]?
    }

    /// Records the IPTC block and stored digest of Photoshop resources as the file's IPTC.
    static func apply(photoshopResources: ArraySlice<UInt8>, to metadata: inout MediaMetadata) {
        let found = resources(photoshopResources)
        metadata.updateDescriptiveSources { sources in
            if sources.iptc == nil, let iim = found.iim { sources.iptc = record(iim) }
            if sources.storedIPTCDigest == nil { sources.storedIPTCDigest = found.storedDigest }
        }
    }

    /// Whether an APP13 payload holds Photoshop resources; the resources start after the signature.
    static func photoshopResources(inAPP13 payload: [UInt8]) -> ArraySlice<UInt8>? {
        payload.starts(with: app13Signature) ? payload[app13Signature.count...] : nil
    }

    /// Walks `8BIM` resources (type, id, padded Pascal name, size, padded data), keeping the
    /// first IIM block and digest; stops at the first malformed entry.
    static func resources(_ data: ArraySlice<UInt8>) -> Resources {
        var found = Resources()
        var at = data.startIndex
        var count = 0
        while at + 12 <= data.endIndex, count < 10_000 {
            count += 1
            let type = Array(data[at..<(at + 4)])
            guard type == Array("8BIM".utf8) || type == Array("PHUT".utf8) || type == Array("AgHg".utf8)
                    || type == Array("DCSR".utf8) else { break }
            let id = UInt16(data[at + 4]) << 8 | UInt16(data[at + 5])
            let nameLength = Int(data[at + 6])
            var cursor = at + 6 + (nameLength + 2) & ~1
            guard cursor + 4 <= data.endIndex else { break }
            let size = Int(data[cursor]) << 24 | Int(data[cursor + 1]) << 16 | Int(data[cursor + 2]) << 8 | Int(data[cursor + 3])
            cursor += 4
            guard size >= 0, size <= data.endIndex - cursor else { break }
            let body = Array(data[cursor..<(cursor + size)])
            if id == iimResource, found.iim == nil { found.iim = body }
            if id == digestResource, found.storedDigest == nil, body.count == 16 { found.storedDigest = body }
            at = cursor + (size + 1) & ~1
        }
        return found
    }

    /// Decodes record 2 of an IIM block: keywords, object name, caption, by-line and
    /// copyright, in the character set record 1:90 declares (UTF-8 for `ESC % G`), else
    /// UTF-8 when the bytes are valid UTF-8, else Windows-1252 as exiftool reads them.
    static func record(_ iim: [UInt8]) -> IPTCRecord {
        var record = IPTCRecord(digest: MD5.digest(iim))
        var declaresUTF8 = false
        var raw: [(UInt8, ArraySlice<UInt8>)] = []
        var at = 0
        while at + 5 <= iim.count, iim[at] == 0x1C, raw.count < 10_000 {
            let recordNumber = iim[at + 1], dataset = iim[at + 2]
            var length = Int(iim[at + 3]) << 8 | Int(iim[at + 4])
            at += 5
            if length & 0x8000 != 0 {
                // An extended dataset: the low bits count the bytes of the real length.
                let lengthBytes = length & 0x7FFF
                guard lengthBytes <= 4, at + lengthBytes <= iim.count else { break }
                length = iim[at..<(at + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
                at += lengthBytes
            }
            guard length <= iim.count - at else { break }
            let value = iim[at..<(at + length)]
            at += length
            if recordNumber == 1, dataset == 90 { declaresUTF8 = Array(value) == [0x1B, 0x25, 0x47] }
            if recordNumber == 2 { raw.append((dataset, value)) }
        }
        func text(_ bytes: ArraySlice<UInt8>) -> String? {
            if let utf8 = String(validating: bytes, as: UTF8.self) { return DescriptiveText.clean(utf8) }
            return DescriptiveText.clean(declaresUTF8 ? String(decoding: bytes, as: UTF8.self) : DescriptiveText.windows1252(bytes))
        }
        for (dataset, value) in raw {
            guard let value = text(value) else { continue }
            switch dataset {
            case 25: if record.keywords.count < DescriptiveText.maxItems { record.keywords.append(value) }
            case 5: if record.objectName == nil { record.objectName = value }
            case 120: if record.caption == nil { record.caption = value }
            case 80: if record.byLine.count < DescriptiveText.maxItems { record.byLine.append(value) }
            case 116: if record.copyrightNotice == nil { record.copyrightNotice = value }
            default: break
            }
        }
        return record
    }
}
