/// Reads a JPEG's frame size and its EXIF and XMP segments, from the segments before
/// the first scan (`JPEGSegments`; typically well under 128 KiB).
enum JPEGReader {
    /// The first read; most files' header segments fit in it, so one `pread` suffices.
    static let prefixBytes = 128 * 1024

    private static let exifSignature: [UInt8] = Array("Exif\0\0".utf8)
    private static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// Reads the JPEG at `base` in `source` (non-zero for a JPEG embedded in a raw).
    ///
    /// - Throws: `MetadataError.truncated` or `.malformed` when neither a frame size nor
    ///   EXIF could be read.
    static func read(_ source: ByteSource, base: UInt64 = 0, format: MediaFormat = .jpeg) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: format))
        let prefix = try source.read(at: base, count: prefixBytes)
        let walk = try JPEGSegments.read(source, base: base, prefix: prefix)
        reading.metadata.warnings.append(contentsOf: walk.warnings)

        func payload(_ segment: JPEGSegment, count: Int) throws -> [UInt8] {
            let offset = segment.payloadOffset - base
            if offset + UInt64(count) <= UInt64(prefix.count) {
                return Array(prefix[Int(offset)..<(Int(offset) + count)])
            }
            return try source.read(at: segment.payloadOffset, count: count)
        }
        var foundFrame = false
        var ciff: CIFFReader.Facts?
        var photoshopResources: [UInt8] = []  // over several APP13 segments, joined: one block
        for segment in walk.segments {
            switch segment.marker {
            case _ where segment.isFrameHeader:
                // SOFn: precision, height, width.
                let frame = try payload(segment, count: 5)
                if frame.count == 5 && !foundFrame {
                    let height = Int(frame[1]) << 8 | Int(frame[2])
                    let width = Int(frame[3]) << 8 | Int(frame[4])
                    if width > 0 && height > 0 {
                        reading.metadata.pixelWidth = width
                        reading.metadata.pixelHeight = height
                    }
                    foundFrame = true
                }
            case 0xE0 where ciff == nil && segment.payloadLength >= 14:
                // Early Canon PowerShots wrote a CIFF heap here instead of EXIF.
                if CIFFReader.hasHeader(try payload(segment, count: 14)) {
                    let slice = ByteSourceSlice(source, offset: segment.payloadOffset, length: UInt64(segment.payloadLength))
                    do { ciff = try CIFFReader.facts(in: slice) } catch {
                        reading.metadata.warnings.append("the CIFF block in APP0 could not be read: \(error)")
                    }
                }
            case 0xE1:
                let bytes = try payload(segment, count: segment.payloadLength)
                if reading.exif == nil, bytes.starts(with: exifSignature) {
                    reading.exif = bytes
                } else if reading.xmp == nil, bytes.starts(with: xmpSignature) {
                    reading.xmp = Array(bytes[xmpSignature.count...])
                }
            case 0xED where photoshopResources.count < 4 << 20:
                if let resources = IPTCReader.photoshopResources(inAPP13: try payload(segment, count: segment.payloadLength)) {
                    photoshopResources += resources
                }
            default:
                break
            }
        }
        if !photoshopResources.isEmpty { IPTCReader.apply(photoshopResources: photoshopResources[...], to: &reading.metadata) }

        var problem = walk.problem
        if problem == nil, !foundFrame, let end = walk.endMarker {
            problem = end == 0xD9 ? "the image ends before a frame header" : "the scan starts before a frame header"
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
}
