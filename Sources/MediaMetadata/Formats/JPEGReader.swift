/// Reads a JPEG's frame size and its EXIF and XMP segments, walking the markers up to
/// the first scan. Only the header segments are read (typically well under 128 KiB).
enum JPEGReader {
    /// The first read; most files' header segments fit in it, so one `pread` suffices.
    static let prefixBytes = 128 * 1024
    /// A JPEG has a few dozen segments before its scan; more means a loop or garbage.
    static let maxSegments = 4096

    private static let exifSignature: [UInt8] = Array("Exif\0\0".utf8)
    private static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// Reads the JPEG at `base` in `source` (non-zero for a JPEG embedded in a raw).
    ///
    /// - Throws: `MetadataError.truncated` or `.malformed` when neither a frame size nor
    ///   EXIF could be read.
    static func read(_ source: ByteSource, base: UInt64 = 0, format: MediaFormat = .jpeg) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: format))
        let prefix = try source.read(at: base, count: prefixBytes)
        let size = source.size > base ? source.size - base : 0

        func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
            if offset + UInt64(count) <= UInt64(prefix.count) {
                let start = Int(offset)
                return Array(prefix[start..<(start + count)])
            }
            return try source.read(at: base + offset, count: count)
        }

        guard prefix.count >= 2, prefix[0] == 0xFF, prefix[1] == 0xD8 else {
            throw MetadataError.malformed("the JPEG start-of-image marker is missing")
        }
        var offset: UInt64 = 2
        var problem: String?
        var foundFrame = false
        var ciff: CIFFReader.Facts?
        segments: for _ in 0..<maxSegments {
            // A marker is 0xFF, any number of 0xFF fill bytes, then the code.
            var head = try bytes(at: offset, count: 2)
            guard head.count == 2 else { problem = "the file ends before the image data"; break }
            if head[0] != 0xFF {
                // Some writers leave stray bytes between segments; exiftool skips to
                // the next 0xFF, and so do we, within a bound.
                guard let resumed = try nextMarker(after: offset, bytes: { try bytes(at: $0, count: $1) }) else {
                    problem = "expected a JPEG marker at offset \(offset) but found data"
                    break
                }
                reading.metadata.warnings.append("skipped \(resumed - offset) stray bytes at offset \(offset)")
                offset = resumed
                head = try bytes(at: offset, count: 2)
                guard head.count == 2 else { problem = "the file ends before the image data"; break }
            }
            var fill = 0
            while head.count == 2 && head[1] == 0xFF && fill < 65_536 {
                offset += 1
                fill += 1
                head = try bytes(at: offset, count: 2)
            }
            guard head.count == 2 else { problem = "the file ends before the image data"; break }
            let marker = head[1]
            offset += 2
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7:
                continue segments  // markers without a length
            case 0xD9, 0xDA:
                if !foundFrame { problem = marker == 0xD9 ? "the image ends before a frame header" : "the scan starts before a frame header" }
                break segments
            default:
                break
            }
            let lengthBytes = try bytes(at: offset, count: 2)
            guard lengthBytes.count == 2 else { problem = "the file ends inside a segment header"; break }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2 else { problem = "a JPEG segment at offset \(offset) has an impossible length \(length)"; break }
            let payloadStart = offset + 2
            let payloadLength = length - 2
            if payloadStart + UInt64(payloadLength) > size {
                problem = "a JPEG segment at offset \(offset) runs past the end of the file"
                // Still read what is there if it is EXIF: a cut-off file often keeps it.
            }

            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                // SOFn: precision, height, width.
                let frame = try bytes(at: payloadStart, count: 5)
                if frame.count == 5 && !foundFrame {
                    let height = Int(frame[1]) << 8 | Int(frame[2])
                    let width = Int(frame[3]) << 8 | Int(frame[4])
                    if width > 0 && height > 0 {
                        reading.metadata.pixelWidth = width
                        reading.metadata.pixelHeight = height
                    }
                    foundFrame = true
                }
            case 0xE0 where ciff == nil && payloadLength >= 14:
                // Early Canon PowerShots wrote a CIFF heap here instead of EXIF.
                if CIFFReader.hasHeader(try bytes(at: payloadStart, count: 14)) {
                    let slice = ByteSourceSlice(source, offset: base + payloadStart, length: UInt64(payloadLength))
                    do { ciff = try CIFFReader.facts(in: slice) } catch {
                        reading.metadata.warnings.append("the CIFF block in APP0 could not be read: \(error)")
                    }
                }
            case 0xE1:
                let payload = try bytes(at: payloadStart, count: payloadLength)
                if reading.exif == nil, payload.starts(with: exifSignature) {
                    reading.exif = payload
                } else if reading.xmp == nil, payload.starts(with: xmpSignature) {
                    reading.xmp = Array(payload[xmpSignature.count...])
                }
            default:
                break
            }
            if problem != nil { break }
            offset = payloadStart + UInt64(payloadLength)
        }

        // CIFF stands in for EXIF only: where both exist, EXIF (applied later) wins.
        if let ciff, reading.exif == nil {
            var facts = ciff
            facts.pixelWidth = nil  // the frame header gives the size
            facts.pixelHeight = nil
            CIFFReader.apply(facts, to: &reading.metadata)
        }
        if let problem {
            if !foundFrame && reading.exif == nil && ciff == nil {
                if problem.contains("ends") || problem.contains("past the end") {
                    throw MetadataError.truncated(problem)
                }
                throw MetadataError.malformed(problem)
            }
            reading.metadata.warnings.append(problem)
        } else if !foundFrame {
            reading.metadata.warnings.append("no JPEG frame header was found before the segment limit")
        }
        return reading
    }

    /// The offset of the next 0xFF that starts a marker, looking at most 64 KiB ahead.
    private static func nextMarker(after offset: UInt64, bytes: (UInt64, Int) throws -> [UInt8]) throws -> UInt64? {
        let window = try bytes(offset, 65_536)
        var i = 0
        while i + 1 < window.count {
            if window[i] == 0xFF && window[i + 1] != 0 && window[i + 1] != 0xFF { return offset + UInt64(i) }
            i += 1
        }
        return nil
    }
}
