/// One marker segment of a JPEG's header (ITU T.81 §B.1.1.4).
public struct JPEGSegment: Sendable, Hashable {
    /// The marker code: 0xE1 for APP1, 0xC0 for a baseline frame header, 0xEE for APP14 …
    public var marker: UInt8
    /// Where the payload starts (after the marker and its 2-byte length), in the source.
    public var payloadOffset: UInt64
    /// The payload's length as the segment declares it (its length field minus 2).
    public var payloadLength: Int

    /// Whether this is a frame header (SOF0–SOF15, not DHT, JPG or DAC).
    public var isFrameHeader: Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }
}

/// The header segments of a JPEG, in file order, up to its first scan: the one walk of
/// JPEG markers that the metadata reader and the thumbnailer share.
///
/// The walk is bounded (`maxSegments`), skips fill bytes, and resynchronises past stray
/// bytes between segments as exiftool does; anything else that is wrong stops it and
/// is told in `problem`.
public struct JPEGSegments: Sendable {
    /// A JPEG has a few dozen segments before its scan; more means a loop or garbage.
    public static let maxSegments = 4096

    /// The segments, in order; the last may run past the end of the file (see `problem`).
    public internal(set) var segments: [JPEGSegment] = []
    /// The marker that ended the walk: 0xDA (start of scan) or 0xD9 (end of image); nil
    /// when it stopped for a problem or at the segment limit.
    public internal(set) var endMarker: UInt8?
    /// Why the walk stopped early, in one sentence; nil when it reached a scan or the end.
    public internal(set) var problem: String?
    /// What was skipped on the way (stray bytes), one sentence each.
    public internal(set) var warnings: [String] = []

    private static let exifSignature: [UInt8] = Array("Exif\0\0".utf8)
    private static let adobeSignature: [UInt8] = Array("Adobe".utf8)

    /// Walks the markers of the JPEG starting at `base` in `source`.
    ///
    /// - Throws: `MetadataError.malformed` when there is no start-of-image marker at
    ///   `base`, `.io` when a read fails.
    public static func read(_ source: ByteSource, base: UInt64 = 0) throws -> JPEGSegments {
        let prefix = try source.read(at: base, count: JPEGReader.prefixBytes)
        return try read(source, base: base, prefix: prefix)
    }

    /// The walk over `source`, with its first bytes at `base` already read as `prefix`.
    static func read(_ source: ByteSource, base: UInt64, prefix: [UInt8]) throws -> JPEGSegments {
        guard prefix.count >= 2, prefix[0] == 0xFF, prefix[1] == 0xD8 else {
            throw MetadataError.malformed("the JPEG start-of-image marker is missing")
        }
        let size = source.size > base ? source.size - base : 0
        func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
            if offset + UInt64(count) <= UInt64(prefix.count) {
                let start = Int(offset)
                return Array(prefix[start..<(start + count)])
            }
            return try source.read(at: base + offset, count: count)
        }
        var walk = JPEGSegments()
        var offset: UInt64 = 2
        for _ in 0..<maxSegments {
            // A marker is 0xFF, any number of 0xFF fill bytes, then the code.
            var head = try bytes(at: offset, count: 2)
            guard head.count == 2 else { walk.problem = "the file ends before the image data"; break }
            if head[0] != 0xFF {
                // Some writers leave stray bytes between segments; exiftool skips to
                // the next 0xFF, and so do we, within a bound.
                guard let resumed = try nextMarker(after: offset, bytes: bytes) else {
                    walk.problem = "expected a JPEG marker at offset \(offset) but found data"
                    break
                }
                walk.warnings.append("skipped \(resumed - offset) stray bytes at offset \(offset)")
                offset = resumed
                head = try bytes(at: offset, count: 2)
                guard head.count == 2 else { walk.problem = "the file ends before the image data"; break }
            }
            var fill = 0
            while head.count == 2 && head[1] == 0xFF && fill < 65_536 {
                offset += 1
                fill += 1
                head = try bytes(at: offset, count: 2)
            }
            guard head.count == 2 else { walk.problem = "the file ends before the image data"; break }
            let marker = head[1]
            offset += 2
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7:
                continue  // markers without a length
            case 0xD9, 0xDA:
                walk.endMarker = marker
                return walk
            default:
                break
            }
            let lengthBytes = try bytes(at: offset, count: 2)
            guard lengthBytes.count == 2 else { walk.problem = "the file ends inside a segment header"; break }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2 else { walk.problem = "a JPEG segment at offset \(offset) has an impossible length \(length)"; break }
            let segment = JPEGSegment(marker: marker, payloadOffset: base + offset + 2, payloadLength: length - 2)
            walk.segments.append(segment)
            if offset + UInt64(length) > size {
                // Kept: a cut-off file often still holds its EXIF.
                walk.problem = "a JPEG segment at offset \(offset) runs past the end of the file"
                break
            }
            offset += UInt64(length)
        }
        return walk
    }

    /// The offset of the next 0xFF that starts a header marker, looking at most 64 KiB
    /// ahead. Stuffed bytes (FF 00), fill bytes and restart markers (FF D0–D7) are passed
    /// over: restart markers live only inside scan data, and a walk that strayed into a
    /// scan must not hop from one to the next through the whole picture.
    private static func nextMarker(after offset: UInt64, bytes: (UInt64, Int) throws -> [UInt8]) throws -> UInt64? {
        let window = try bytes(offset, 65_536)
        var i = 0
        while i + 1 < window.count {
            if window[i] == 0xFF {
                let code = window[i + 1]
                if code != 0, code != 0xFF, !(0xD0...0xD7).contains(code) { return offset + UInt64(i) }
            }
            i += 1
        }
        return nil
    }

    // MARK: Questions

    /// The first APP1 segment holding EXIF, as the range of its TIFF block (after
    /// `Exif\0\0`) in the source, cut at the end of the source.
    ///
    /// - Throws: `MetadataError.io` when a read fails.
    public func exifBlock(in source: ByteSource) throws -> Range<UInt64>? {
        for segment in segments where segment.marker == 0xE1 && segment.payloadLength > Self.exifSignature.count {
            guard try source.read(at: segment.payloadOffset, count: Self.exifSignature.count) == Self.exifSignature else { continue }
            let start = segment.payloadOffset + UInt64(Self.exifSignature.count)
            let end = min(source.size, segment.payloadOffset + UInt64(segment.payloadLength))
            return start < end ? start..<end : nil
        }
        return nil
    }

    /// Whether an Adobe APP14 segment is present: Photoshop's CMYK JPEGs store their
    /// channels inverted and announce it there.
    ///
    /// - Throws: `MetadataError.io` when a read fails.
    public func hasAdobeSegment(in source: ByteSource) throws -> Bool {
        for segment in segments where segment.marker == 0xEE && segment.payloadLength >= Self.adobeSignature.count {
            if try source.read(at: segment.payloadOffset, count: Self.adobeSignature.count) == Self.adobeSignature { return true }
        }
        return false
    }
}
