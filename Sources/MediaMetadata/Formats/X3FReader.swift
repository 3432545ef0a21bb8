/// Reads Sigma/Foveon X3F raws: the header's image size, the `PROP` section's camera
/// make, model and capture time, and the EXIF of the full-size JPEG that newer
/// cameras (DP1, DP2 …) embed as a `SECi` image section.
///
/// Layout: a little-endian header (`FOVb`, version, …, columns, rows), sections, and a
/// directory (`SECd`, version, count, then 12-byte entries: offset, length, type)
/// whose offset is the file's last 4 bytes.
enum X3FReader {
    /// More directory entries than this are not read (cameras write about five).
    static let maxDirectoryEntries = 64
    /// The property section is read whole up to this size.
    static let maxPropertyBytes = 1 << 20
    /// Properties beyond this many are ignored; names and values longer than
    /// `maxPropertyChars` UTF-16 units are cut.
    static let maxProperties = 4096
    static let maxPropertyChars = 256

    /// - Throws: `MetadataError` when the `FOVb` header is missing or cut short.
    static func read(_ source: ByteSource) throws -> ContainerReading {
        let header = try source.read(at: 0, count: 48)
        guard header.count >= 4, Array(header[0..<4]) == Array("FOVb".utf8) else {
            throw MetadataError.malformed("the X3F signature (FOVb) is missing")
        }
        guard header.count >= 40 else { throw MetadataError.truncated("the X3F header is cut short") }
        var reading = ContainerReading(metadata: MediaMetadata(format: .x3f))
        let version = le32(header, 4)
        // Version 4 (Quattro and later) moved the size after a longer identifier block.
        let sizeAt = version >> 16 < 4 ? 28 : 40
        let width = le32(header, sizeAt), height = le32(header, sizeAt + 4)  // 0 past the end
        if width > 0, height > 0, width <= UInt32(Int32.max), height <= UInt32(Int32.max) {
            reading.metadata.pixelWidth = Int(width)
            reading.metadata.pixelHeight = Int(height)
        }

        guard source.size >= 52 else {
            reading.metadata.warnings.append("the X3F file ends before its directory")
            return reading
        }
        let directoryOffset = UInt64(le32(try source.readExactly(at: source.size - 4, count: 4), 0))
        let directoryHeader = try source.read(at: directoryOffset, count: 12)
        guard directoryHeader.count == 12, Array(directoryHeader[0..<4]) == Array("SECd".utf8) else {
            reading.metadata.warnings.append("the X3F directory pointer (\(directoryOffset)) does not point at a SECd section")
            return reading
        }
        let declared = Int(le32(directoryHeader, 8))
        if declared > maxDirectoryEntries {
            reading.metadata.warnings.append("the X3F directory claims \(declared) entries; only the first \(maxDirectoryEntries) are read")
        }
        let entries = try source.read(at: directoryOffset + 12, count: min(declared, maxDirectoryEntries) * 12)
        for index in 0..<(entries.count / 12) {
            let p = index * 12
            let offset = UInt64(le32(entries, p)), length = UInt64(le32(entries, p + 4))
            let type = String(decoding: entries[(p + 8)..<(p + 12)], as: UTF8.self)
            guard offset + length <= source.size else {
                reading.metadata.warnings.append("the X3F section '\(type)' runs past the end of the file")
                continue
            }
            switch type {
            case "PROP":
                guard length <= UInt64(maxPropertyBytes) else {
                    reading.metadata.warnings.append("the X3F property section is larger than \(maxPropertyBytes) bytes and was skipped")
                    continue
                }
                readProperties(try source.read(at: offset, count: Int(length)), into: &reading.metadata)
            case "IMA2", "IMAG":
                if reading.exif == nil { try readEmbeddedJPEG(source, offset: offset, length: length, into: &reading) }
            default:
                break
            }
        }
        return reading
    }

    /// The EXIF and XMP of a JPEG image section (`SECi`, version 2.0, type 2, format
    /// 18, data starting with an APP1 segment).
    private static func readEmbeddedJPEG(_ source: ByteSource, offset: UInt64, length: UInt64,
                                         into reading: inout ContainerReading) throws {
        guard length > 32 else { return }
        let head = try source.read(at: offset, count: 32)
        let jpegImage: [UInt8] = Array("SECi".utf8) + [0, 0, 2, 0, 2, 0, 0, 0, 0x12, 0, 0, 0]
        guard head.count == 32, Array(head[0..<16]) == jpegImage,
              Array(head[28..<32]) == [0xFF, 0xD8, 0xFF, 0xE1] else { return }
        let slice = ByteSourceSlice(source, offset: offset + 28, length: length - 28)
        do {
            let jpeg = try JPEGReader.read(slice, format: .x3f)
            reading.exif = jpeg.exif
            reading.xmp = reading.xmp ?? jpeg.xmp
        } catch {
            reading.metadata.warnings.append("the X3F's embedded JPEG could not be read: \(error)")
        }
    }

    /// `SECp`, version, entry count, character format (0: UTF-16LE), reserved, the
    /// character count, then 8-byte entries (name and value positions, in characters)
    /// and the characters.
    static func readProperties(_ data: [UInt8], into metadata: inout MediaMetadata) {
        guard data.count >= 24, Array(data[0..<4]) == Array("SECp".utf8) else {
            metadata.warnings.append("the X3F property section has no SECp header")
            return
        }
        guard le32(data, 12) == 0 else {
            metadata.warnings.append("the X3F properties use an unknown character format (\(le32(data, 12)))")
            return
        }
        let declared = Int(le32(data, 8))
        let entryCount = min(declared, (data.count - 24) / 8, maxProperties)
        if entryCount < declared {
            metadata.warnings.append("the X3F property section claims \(declared) entries; \(entryCount) were read")
        }
        let charStart = 24 + entryCount * 8
        let charCount = min(Int(le32(data, 20)), (data.count - charStart) / 2)

        func string(at position: Int) -> String? {
            guard position >= 0, position < charCount else { return nil }
            var units: [UInt16] = []
            var i = position
            while i < charCount, units.count < maxPropertyChars {
                let at = charStart + i * 2
                let unit = UInt16(data[at]) | UInt16(data[at + 1]) << 8
                if unit == 0 { break }
                units.append(unit)
                i += 1
            }
            let text = String(decoding: units, as: UTF16.self).trimmingSpacesAndNULs()
            return text.isEmpty ? nil : text
        }

        for index in 0..<entryCount {
            let p = 24 + index * 8
            guard let name = string(at: Int(le32(data, p))) else { continue }
            let value = string(at: Int(le32(data, p + 4)))
            switch name {
            case "CAMMANUF": if metadata.make == nil { metadata.make = value }
            case "CAMMODEL": if metadata.model == nil { metadata.model = value }
            case "TIME":
                // Seconds since 1970 of the camera's clock: local time, zone unknown.
                if metadata.captureDate == nil, let seconds = value.flatMap({ UInt32($0) }), seconds > 0 {
                    metadata.captureDate = CaptureDate(timestamp: Double(seconds), utcOffsetSeconds: nil)
                    metadata.captureDateSource = .x3fPropertyTime
                }
            default:
                break
            }
        }
    }

    private static func le32(_ b: [UInt8], _ at: Int) -> UInt32 { TIFFDirectoryWalker.u32(b, at, true) }
}
