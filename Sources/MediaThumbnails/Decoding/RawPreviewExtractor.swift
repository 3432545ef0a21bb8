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

    /// The bytes of the largest preview and its stored size, or nil when none decodes.
    static func largestPreview(in source: ByteSource, format: MediaFormat) throws -> (bytes: [UInt8], width: Int, height: Int)? {
        let candidates = try MetadataReader.embeddedImages(in: source, format: format)
            .map { Candidate(offset: $0.offset, length: $0.length) }
        if let best = try bestCandidate(candidates, in: source) { return best }
        return try bestCandidate(scanForJPEGStarts(in: source), in: source)
    }

    /// Probes each candidate's header and decodes-ready bytes of the largest by area.
    private static func bestCandidate(_ candidates: [Candidate],
                                      in source: ByteSource) throws -> (bytes: [UInt8], width: Int, height: Int)? {
        var best: (candidate: Candidate, width: Int, height: Int)?
        for candidate in Set(candidates) where candidate.offset < source.size {
            let probe = try source.read(at: candidate.offset, count: headerProbeBytes)
            guard probe.count > 4, probe[0] == 0xFF, probe[1] == 0xD8 else { continue }
            guard let size = probe.withUnsafeBufferPointer({ JPEGDecoder.size(of: $0) }) else { continue }
            if best == nil || size.width * size.height > best!.width * best!.height {
                best = (candidate, size.width, size.height)
            }
        }
        guard let best else { return nil }
        let length = min(best.candidate.length, maxPreviewBytes, source.size - best.candidate.offset)
        let bytes = try source.read(at: best.candidate.offset, count: Int(length))
        return (bytes, best.width, best.height)
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
