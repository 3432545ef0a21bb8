/// Reads DjVu documents (the DjVu v3 specification; IFF85 chunks after `AT&T`):
/// single pages (`FORM:DJVU`) and bundled multi-page documents (`FORM:DJVM`, whose
/// pages are nested `FORM:DJVU` and whose shared data are `FORM:DJVI`).
///
/// - `INFO` of the first page: width and height (big-endian 16 bits), then the version,
///   resolution, gamma and a flags byte whose bits 0–2 are the rotation (1 none, 6 a
///   quarter turn counter-clockwise, 2 a half turn, 5 a quarter turn clockwise), given
///   as the EXIF orientation that shows the page the same way.
/// - Annotations, plain (`ANTa`) or BZZ-compressed (`ANTz`, see `BZZDecoder`), of the
///   first page or of a shared component (`FORM:DJVI`), whichever comes first: the
///   `(metadata (CreationDate "…"))` entry (ISO 8601, as djvused writes it), and the
///   `(xmp "…")` packet, handed to the XMP decoder, which fills what the metadata entry
///   leaves empty.
///
/// An indirect multi-page document keeps its pages in other files: it has no `INFO`
/// and is reported as such.
public enum DjVuReader {
    static let maxChunks = 4096
    static let maxDepth = 3
    static let maxAnnotationBytes = 1 << 20

    struct Findings {
        var info: [UInt8]?
        var annotations: [UInt8]?
        var damagedAnnotations = false
        var chunks = 0
    }

    /// Reads the first page's size and rotation, and the document's XMP and creation date.
    ///
    /// - Throws: `MetadataError` when the `AT&TFORM` header is missing or no page `INFO`
    ///   chunk is found.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        let head = try source.read(at: 0, count: 16)
        guard head.count == 16, Array(head[0..<8]) == Array("AT&TFORM".utf8), let length = VideoFields.be32(head, 8) else {
            throw MetadataError.malformed("the DjVu AT&TFORM header is missing")
        }
        var metadata = MediaMetadata(format: .djvu)
        let formEnd = min(source.size, 12 + UInt64(length))
        if 12 + UInt64(length) > source.size { metadata.warnings.append("the DjVu FORM chunk is cut short") }
        var findings = Findings()
        try walk(source, from: 16, to: formEnd, formType: String(decoding: head[12..<16], as: UTF8.self),
                 depth: 0, into: &findings)
        guard let info = findings.info, let width = VideoFields.be16(info, 0), let height = VideoFields.be16(info, 2),
              width > 0, height > 0 else {
            throw MetadataError.malformed("no DjVu page INFO chunk gives a size (an indirect document keeps its pages in other files)")
        }
        metadata.pixelWidth = width
        metadata.pixelHeight = height
        if let flags = VideoFields.u8(info, 9) {
            switch flags & 0x07 {
            case 2: metadata.orientation = 3
            case 5: metadata.orientation = 6
            case 6: metadata.orientation = 8
            default: break
            }
        }
        var reading = ContainerReading(metadata: metadata)
        if let text = findings.annotations {
            let annotations = parseAnnotations(text)
            reading.xmp = annotations.xmp.map { Array($0.utf8) }
            // The container's own date comes first; XMP fills only what is still empty.
            if let created = annotations.metadata["CreationDate"], let date = QuickTimeValues.date(iso8601: created) {
                reading.metadata.captureDate = date
                reading.metadata.captureDateSource = .djvuMetadataCreationDate
            }
        } else if findings.damagedAnnotations {
            reading.metadata.warnings.append("the DjVu compressed annotations (ANTz) are damaged or too large and were not read")
        }
        return reading
    }

    /// Walks the chunks between `from` and `to`, descending into nested `FORM`s.
    static func walk(_ source: ByteSource, from: UInt64, to end: UInt64, formType: String, depth: Int,
                     into findings: inout Findings) throws {
        var position = from
        while position + 8 <= end, findings.chunks < maxChunks {
            findings.chunks += 1
            let header = try source.read(at: position, count: 8)
            guard header.count == 8, let size = VideoFields.be32(header, 4) else { return }
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let dataStart = position + 8
            let dataEnd = min(end, dataStart + UInt64(size))
            switch id {
            case "FORM" where depth < maxDepth && dataEnd >= dataStart + 4:
                let type = String(decoding: try source.read(at: dataStart, count: 4), as: UTF8.self)
                if type == "DJVU" || type == "DJVI" {
                    try walk(source, from: dataStart + 4, to: dataEnd, formType: type, depth: depth + 1, into: &findings)
                }
            case "INFO" where findings.info == nil && formType == "DJVU":
                findings.info = try source.read(at: dataStart, count: Int(min(dataEnd - dataStart, 16)))
            case "ANTa" where findings.annotations == nil:
                if dataEnd - dataStart <= UInt64(maxAnnotationBytes) {
                    findings.annotations = try source.read(at: dataStart, count: Int(dataEnd - dataStart))
                }
            case "ANTz" where findings.annotations == nil:
                if dataEnd - dataStart <= UInt64(maxAnnotationBytes),
                   let text = BZZDecoder.decode(try source.read(at: dataStart, count: Int(dataEnd - dataStart)),
                                                maxOutput: maxAnnotationBytes) {
                    findings.annotations = text
                } else {
                    findings.damagedAnnotations = true
                }
            default:
                break
            }
            // Chunks start on even offsets.
            position = dataStart + UInt64(size) + UInt64(size & 1)
        }
    }

    /// What the plain-text annotations say: the XMP packet and the `metadata` entries.
    struct Annotations {
        var xmp: String?
        var metadata: [String: String] = [:]
    }

    /// Reads the top-level `(xmp "…")` and `(metadata (KEY "value") …)` expressions of
    /// an annotation chunk (S-expressions; strings use C escapes).
    static func parseAnnotations(_ text: [UInt8]) -> Annotations {
        enum Token: Equatable { case open, close, symbol(String), string(String) }
        var tokens: [Token] = []
        var i = 0
        while i < text.count, tokens.count < 1 << 16 {
            let c = text[i]
            switch c {
            case 0x28: tokens.append(.open); i += 1
            case 0x29: tokens.append(.close); i += 1
            case 0x22:
                i += 1
                var out: [UInt8] = []
                while i < text.count, text[i] != 0x22 {
                    if text[i] == 0x5C, i + 1 < text.count {
                        let e = text[i + 1]
                        i += 2
                        switch e {
                        case 0x6E: out.append(0x0A)
                        case 0x74: out.append(0x09)
                        case 0x72: out.append(0x0D)
                        case 0x30...0x37:
                            var value = Int(e - 0x30), digits = 1
                            while digits < 3, i < text.count, (0x30...0x37).contains(text[i]) {
                                value = value * 8 + Int(text[i] - 0x30); i += 1; digits += 1
                            }
                            out.append(UInt8(truncatingIfNeeded: value))
                        default: out.append(e)
                        }
                    } else {
                        out.append(text[i]); i += 1
                    }
                }
                i += 1
                tokens.append(.string(String(decoding: out, as: UTF8.self)))
            case 0x20, 0x09, 0x0A, 0x0D, 0x00: i += 1
            default:
                let start = i
                while i < text.count, ![0x28, 0x29, 0x22, 0x20, 0x09, 0x0A, 0x0D, 0x00].contains(text[i]) { i += 1 }
                tokens.append(.symbol(String(decoding: text[start..<i], as: UTF8.self)))
            }
        }
        var result = Annotations()
        var depth = 0
        var k = 0
        while k < tokens.count {
            switch tokens[k] {
            case .open:
                if depth == 0, k + 1 < tokens.count, case .symbol(let name) = tokens[k + 1] {
                    if name == "xmp", k + 2 < tokens.count, case .string(let packet) = tokens[k + 2], result.xmp == nil {
                        result.xmp = packet
                    } else if name == "metadata" {
                        // (metadata (KEY "value") …): pairs at depth 2.
                        var j = k + 2
                        while j + 3 < tokens.count, tokens[j] == .open {
                            if case .symbol(let key) = tokens[j + 1], case .string(let value) = tokens[j + 2], tokens[j + 3] == .close {
                                result.metadata[key] = value
                                j += 4
                            } else { break }
                        }
                    }
                }
                depth += 1
            case .close: depth = max(0, depth - 1)
            default: break
            }
            k += 1
        }
        return result
    }
}
