/// Reads JPEG XL files: the pixel size and orientation from the codestream's headers,
/// and, in the ISO-BMFF-style container, the `Exif` and `xml ` boxes.
///
/// A bare codestream starts with `FF 0A`; the container with the 12-byte `JXL `
/// signature box, and holds the codestream in one `jxlc` box or split over `jxlp`
/// boxes (each with a 4-byte part index first).
enum JXLReader {
    static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    /// More boxes than this are not walked.
    static let maxBoxes = 10_000
    /// `Exif` boxes larger than this are skipped.
    static let maxExifBytes = 16 << 20
    /// Bytes of codestream gathered for the headers; the size header and the start of
    /// the image metadata take well under this.
    static let headerBytes = 64

    /// - Throws: `MetadataError` when the file has neither a codestream signature nor
    ///   the container signature, or its size header cannot be decoded.
    static func read(_ source: ByteSource) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: .jpegXL))
        let head = try source.read(at: 0, count: 12)
        let codestreamHead: [UInt8]
        if head.count >= 2, head[0] == 0xFF, head[1] == 0x0A {
            codestreamHead = try source.read(at: 0, count: headerBytes)
        } else if head == containerSignature {
            codestreamHead = try readBoxes(source, into: &reading)
        } else {
            throw MetadataError.malformed("neither a JPEG XL codestream (FF 0A) nor a JPEG XL container signature")
        }
        guard !codestreamHead.isEmpty else {
            reading.metadata.warnings.append("the JPEG XL container holds no codestream box")
            return reading
        }
        guard let header = decodeHeaders(codestreamHead) else {
            if reading.exif == nil && reading.xmp == nil {
                throw MetadataError.malformed("the JPEG XL codestream's size header cannot be decoded")
            }
            reading.metadata.warnings.append("the JPEG XL codestream's size header cannot be decoded")
            return reading
        }
        reading.metadata.pixelWidth = header.width
        reading.metadata.pixelHeight = header.height
        // The codestream's orientation governs display; EXIF's is to be ignored.
        reading.metadata.orientation = header.orientation
        return reading
    }

    /// Walks the container's boxes, keeping `Exif` and `xml `; returns the first
    /// `headerBytes` of the codestream (empty when there is none).
    private static func readBoxes(_ source: ByteSource, into reading: inout ContainerReading) throws -> [UInt8] {
        var codestream: [UInt8] = []
        var offset: UInt64 = 0
        var boxes = 0
        while offset + 8 <= source.size {
            boxes += 1
            guard boxes <= maxBoxes else {
                reading.metadata.warnings.append("the JPEG XL container has more than \(maxBoxes) boxes; the rest were not read")
                break
            }
            let header = try source.read(at: offset, count: 16)
            guard header.count >= 8 else { break }
            let declared = UInt64(TIFFDirectoryWalker.u32(header, 0, false))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            var headerSize: UInt64 = 8
            var size = declared
            if declared == 1 {
                guard header.count == 16 else { break }
                size = TIFFDirectoryWalker.u64(header, 8, false)
                headerSize = 16
            } else if declared == 0 {
                size = source.size - offset  // the last box runs to the end of the file
            }
            guard size >= headerSize else {
                reading.metadata.warnings.append("the JPEG XL box '\(type)' at offset \(offset) states an impossible size")
                break
            }
            let available = min(size, source.size - offset)
            if size > available {
                reading.metadata.warnings.append("the JPEG XL box '\(type)' at offset \(offset) runs past the end of the file")
            }
            let bodyStart = offset + headerSize
            let bodySize = available - headerSize
            switch type {
            case "jxlc" where codestream.count < headerBytes:
                codestream += try source.read(at: bodyStart, count: Int(min(bodySize, UInt64(headerBytes - codestream.count))))
            case "jxlp" where codestream.count < headerBytes && bodySize > 4:
                // Parts are stored in order; the 4-byte index comes first.
                codestream += try source.read(at: bodyStart + 4, count: Int(min(bodySize - 4, UInt64(headerBytes - codestream.count))))
            case "Exif" where reading.exif == nil:
                guard bodySize <= UInt64(maxExifBytes) else {
                    reading.metadata.warnings.append("the JPEG XL Exif box is larger than \(maxExifBytes) bytes and was skipped")
                    break
                }
                let body = try source.read(at: bodyStart, count: Int(bodySize))
                // A 4-byte offset to the TIFF header comes first.
                let tiffOffset = UInt64(TIFFDirectoryWalker.u32(body, 0, false))
                if body.count >= 4, tiffOffset < UInt64(body.count - 4) {
                    reading.exif = Array(body[(4 + Int(tiffOffset))...])
                } else {
                    reading.metadata.warnings.append("the JPEG XL Exif box's TIFF header offset points outside the box")
                }
            case "xml " where reading.xmp == nil:
                guard bodySize <= UInt64(XMPReader.maxPacketBytes) else {
                    reading.metadata.warnings.append("the JPEG XL XMP box is too large and was skipped")
                    break
                }
                reading.xmp = try source.read(at: bodyStart, count: Int(bodySize))
            case "brob":
                let inner = try source.read(at: bodyStart, count: 4)
                let innerType = inner.count == 4 ? String(decoding: inner, as: UTF8.self) : "?"
                reading.metadata.warnings.append("the Brotli-compressed JPEG XL box '\(innerType)' was not read")
            default:
                break
            }
            offset += available  // always advances: available >= headerSize >= 8
        }
        return codestream
    }

    /// The size and orientation from a codestream's first bytes.
    struct Headers: Equatable { var width: Int; var height: Int; var orientation: Int }

    /// Decodes the `SizeHeader` after `FF 0A`, and the orientation from the start of
    /// `ImageMetadata` (1 when the defaults apply or the bytes run out).
    static func decodeHeaders(_ bytes: [UInt8]) -> Headers? {
        guard bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0x0A else { return nil }
        var bits = LSBBitReader(bytes: bytes, byteOffset: 2)
        func dimension(div8: Bool) -> UInt64? {
            if div8 { return bits.read(5).map { ($0 + 1) * 8 } }
            guard let selector = bits.read(2) else { return nil }
            let widths: [Int] = [9, 13, 18, 30]
            return bits.read(widths[Int(selector)]).map { $0 + 1 }
        }
        guard let small = bits.read(1) else { return nil }
        guard let height = dimension(div8: small == 1), let ratio = bits.read(3) else { return nil }
        let width: UInt64
        switch ratio {
        case 0:
            guard let w = dimension(div8: small == 1) else { return nil }
            width = w
        case 1: width = height
        case 2: width = height * 12 / 10
        case 3: width = height * 4 / 3
        case 4: width = height * 3 / 2
        case 5: width = height * 16 / 9
        case 6: width = height * 5 / 4
        default: width = height * 2
        }
        guard width > 0, height > 0, width <= UInt64(Int32.max), height <= UInt64(Int32.max) else { return nil }
        var orientation = 1
        // ImageMetadata: all_default, then extra_fields, then orientation - 1 in 3 bits.
        if bits.read(1) == 0, bits.read(1) == 1, let value = bits.read(3) {
            orientation = Int(value) + 1
        }
        return Headers(width: Int(width), height: Int(height), orientation: orientation)
    }

    /// Reads bits least-significant first, as JPEG XL stores them.
    struct LSBBitReader {
        let bytes: [UInt8]
        var position: Int

        init(bytes: [UInt8], byteOffset: Int) {
            self.bytes = bytes
            self.position = byteOffset * 8
        }

        /// The next `count` (≤ 32) bits as a number; nil past the end.
        mutating func read(_ count: Int) -> UInt64? {
            guard count <= 32, position + count <= bytes.count * 8 else { return nil }
            var value: UInt64 = 0
            for i in 0..<count {
                let bit = (bytes[(position + i) >> 3] >> UInt8((position + i) & 7)) & 1
                value |= UInt64(bit) << UInt64(i)
            }
            position += count
            return value
        }
    }
}
