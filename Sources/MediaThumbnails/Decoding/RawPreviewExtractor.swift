import MediaMetadata

/// Finds the largest decodable JPEG preview embedded in a camera raw (or a TIFF).
///
/// TIFF-based raws and RAF are searched where the metadata layer's reader of their
/// structure points (`MetadataReader.embeddedImages`); other containers (CR3, CRW, X3F)
/// by a bounded scan for JPEG start markers.
enum RawPreviewExtractor {
    /// No preview is larger than this; a length beyond it is a lie.
    static let maxPreviewBytes: UInt64 = 64 << 20
    /// How far the fallback scan looks into a file, and how many starts it tries.
    static let scanLimit: UInt64 = 48 << 20
    static let maxScanCandidates = 48
    /// Enough of a JPEG to read its header past a large EXIF segment.
    static let headerProbeBytes = 256 * 1024

    /// A stretch of the file that may hold a JPEG.
    struct Candidate: Hashable {
        var offset: UInt64
        var length: UInt64
    }

    /// An embedded JPEG whose header reads, with its stored size.
    struct Preview: Hashable {
        var candidate: Candidate
        var width: Int
        var height: Int
    }

    /// Every embedded JPEG whose header reads, largest area first: those the file's
    /// structure points at, else (none of them reads) those a scan for JPEG starts finds.
    /// With `scanAlways`, the scan's are added after the structure's (for a caller that
    /// refused all of those).
    static func previews(in source: ByteSource, format: MediaFormat, scanAlways: Bool = false) throws -> [Preview] {
        let listed = try probe(MetadataReader.embeddedImages(in: source, format: format)
            .map { Candidate(offset: $0.offset, length: $0.length) }, in: source)
        guard listed.isEmpty || scanAlways else { return listed }
        let scanned = try probe(scanForJPEGStarts(in: source), in: source)
            .filter { found in !listed.contains(where: { $0.candidate.offset == found.candidate.offset }) }
        return listed + scanned
    }

    /// The bytes of `preview`, its stated length bounded by `maxPreviewBytes` and the file.
    static func bytes(of preview: Preview, in source: ByteSource) throws -> [UInt8] {
        let length = min(preview.candidate.length, maxPreviewBytes, source.size - preview.candidate.offset)
        return try source.read(at: preview.candidate.offset, count: Int(length))
    }

    /// The candidates whose header reads as a JPEG, largest area first (ties by offset).
    private static func probe(_ candidates: [Candidate], in source: ByteSource) throws -> [Preview] {
        var found: [Preview] = []
        for candidate in Set(candidates) where candidate.offset < source.size {
            let probe = try source.read(at: candidate.offset, count: headerProbeBytes)
            guard probe.count > 4, probe[0] == 0xFF, probe[1] == 0xD8 else { continue }
            guard let size = probe.withUnsafeBufferPointer({ JPEGDecoder.size(of: $0) }) else { continue }
            found.append(Preview(candidate: candidate, width: size.width, height: size.height))
        }
        return found.sorted {
            ($0.width * $0.height, -Int(truncatingIfNeeded: $0.candidate.offset))
                > ($1.width * $1.height, -Int(truncatingIfNeeded: $1.candidate.offset))
        }
    }

    /// Offsets of `FF D8 FF` in the first `scanLimit` bytes, each with the rest of the
    /// file (bounded) as its length: the decoder stops at the image's end marker.
    private static func scanForJPEGStarts(in source: ByteSource) throws -> [Candidate] {
        var found: [Candidate] = []
        let chunk = 4 << 20
        var offset: UInt64 = 0
        let end = min(source.size, scanLimit)
        while offset < end && found.count < maxScanCandidates {
            let bytes = try source.read(at: offset, count: chunk + 2)
            guard bytes.count >= 3 else { break }
            var i = 0
            while i + 2 < bytes.count && found.count < maxScanCandidates {
                if bytes[i] == 0xFF && bytes[i + 1] == 0xD8 && bytes[i + 2] == 0xFF {
                    let start = offset + UInt64(i)
                    found.append(.init(offset: start, length: min(maxPreviewBytes, source.size - start)))
                }
                i += 1
            }
            offset += UInt64(chunk)
        }
        return found
    }
}
