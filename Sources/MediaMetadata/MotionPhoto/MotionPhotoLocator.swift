/// Finds the MP4 appended to a motion photo and reads its duration in place.
///
/// Every candidate position comes from the file's own statements (XMP lengths and
/// offsets, Samsung's trailer directory, a HEIC `mpvd` box) and is accepted only when
/// an `ftyp` box starts there: no byte scanning, a few bounded reads.
public enum MotionPhotoLocator {
    /// Samsung's trailer directory is a few hundred bytes; larger claims are lies.
    static let maxTrailerDirectoryBytes = 64 * 1024
    static let maxTrailerEntries = 64
    static let maxTopLevelBoxes = 256

    /// The motion photo video of a still image, or nil when it has none.
    ///
    /// Never throws: an unreadable candidate is skipped; a file that says it is a motion
    /// photo but whose video cannot be found gets a warning in `warnings`.
    public static func locate(in source: ByteSource, format: MediaFormat, xmp: XMPProperties?,
                              warnings: inout [String]) -> MotionPhotoInfo? {
        guard format.mediaType == .image, !format.isRaw else { return nil }
        let size = source.size
        var candidates: [(offset: UInt64, length: UInt64, by: MotionPhotoInfo.Locator)] = []
        var timestamp: Int64?
        var declared = false
        // Samsung's own records first: they give the MP4's exact length, where the XMP
        // directory's last item also spans the trailer that follows the video.
        if [.heic, .heif, .avif].contains(format), let box = samsungBoxCandidate(source) {
            candidates.append((box.offset, box.length, .samsungBox))
        }
        if let trailer = samsungTrailerCandidate(source) {
            candidates.append((trailer.offset, trailer.length, .samsungTrailer))
        }
        if let xmp {
            let vendorOffset = xmp.value(namespace: XMPNamespace.gCamera, localName: "MotionPhotoOffset")
                .flatMap { Int64($0.trimmingSpacesAndNULs()) }
            declared = xmp.isMotionPhoto || vendorOffset != nil
            if declared {
                timestamp = xmp.motionPhotoPresentationTimestampUs ?? xmp.microVideoPresentationTimestampUs
                if let fromDirectory = containerDirectoryCandidate(xmp.containerItems, size: size) {
                    candidates.append((fromDirectory.offset, fromDirectory.length, .containerDirectory))
                }
                for (value, locator) in [(xmp.microVideoOffset, MotionPhotoInfo.Locator.microVideoOffset),
                                         (vendorOffset, .motionPhotoOffset)] {
                    if let fromEnd = value, fromEnd > 0, UInt64(fromEnd) < size {
                        candidates.append((size - UInt64(fromEnd), UInt64(fromEnd), locator))
                    }
                }
            }
        }
        for candidate in candidates where startsWithFileType(source, at: candidate.offset) {
            var info = MotionPhotoInfo(videoOffset: candidate.offset, videoLength: candidate.length,
                                       videoOffsetFromEnd: size - candidate.offset,
                                       presentationTimestampUs: timestamp, locatedBy: candidate.by)
            let slice = ByteSourceSlice(source, offset: candidate.offset, length: candidate.length)
            info.videoDurationSeconds = (try? ISOBMFFReader.read(slice, format: .mp4))?.metadata.durationSeconds
            return info
        }
        if declared {
            warnings.append("the XMP marks a motion photo, but no embedded video was found where it says")
        }
        return nil
    }

    /// Items after the primary are stored at the end of the file, in order: walking
    /// them backwards from the end gives each one's start.
    static func containerDirectoryCandidate(_ items: [XMPContainerItem], size: UInt64) -> (offset: UInt64, length: UInt64)? {
        guard items.count >= 2 else { return nil }
        var end = size
        for item in items.dropFirst().reversed() {
            guard let length = item.length, length > 0, UInt64(length) <= end else { return nil }
            let start = end - UInt64(length)
            if item.semantic == "MotionPhoto" || (item.mime ?? "").hasPrefix("video/") {
                return (start, UInt64(length))
            }
            let padding = UInt64(max(0, item.padding ?? 0))
            guard padding <= start else { return nil }
            end = start - padding
        }
        return nil
    }

    /// Samsung's trailer: `… SEFH dir … <u32 LE dir length> SEFT`. Each directory entry
    /// points back from `SEFH` to a record `<u16 pad><u16 type><u32 LE name length><name><data>`.
    /// In JPEGs the `MotionPhoto_Data` record's data is the MP4; in HEICs it is `mpv2`
    /// followed by the video's big-endian offset and length.
    static func samsungTrailerCandidate(_ source: ByteSource) -> (offset: UInt64, length: UInt64)? {
        let size = source.size
        guard size > 16, let tail = try? source.readExactly(at: size - 8, count: 8),
              Array(tail[4..<8]) == Array("SEFT".utf8) else { return nil }
        let directoryLength = UInt64(littleEndian32(tail, 0))
        guard directoryLength >= 12, directoryLength <= UInt64(maxTrailerDirectoryBytes),
              directoryLength <= size - 8 else { return nil }
        let directoryStart = size - 8 - directoryLength
        guard let directory = try? source.readExactly(at: directoryStart, count: Int(directoryLength)),
              Array(directory[0..<4]) == Array("SEFH".utf8) else { return nil }
        let count = min(Int(littleEndian32(directory, 8)), (directory.count - 12) / 12, maxTrailerEntries)
        for index in 0..<max(0, count) {
            let entry = 12 + index * 12
            let back = UInt64(littleEndian32(directory, entry + 4))
            let recordLength = UInt64(littleEndian32(directory, entry + 8))
            guard back > 0, back <= directoryStart, recordLength >= 8 else { continue }
            let recordStart = directoryStart - back
            guard let header = try? source.readExactly(at: recordStart, count: 8) else { continue }
            let nameLength = UInt64(littleEndian32(header, 4))
            guard nameLength == 16, recordLength >= 8 + nameLength,
                  let name = try? source.readExactly(at: recordStart + 8, count: Int(nameLength)),
                  String(decoding: name, as: UTF8.self) == "MotionPhoto_Data" else { continue }
            let dataStart = recordStart + 8 + nameLength
            let dataLength = min(recordLength - 8 - nameLength, size - dataStart)
            if dataLength == 12, let reference = try? source.readExactly(at: dataStart, count: 12),
               Array(reference[0..<4]) == Array("mpv2".utf8) {
                let offset = UInt64(bigEndian32(reference, 4)), length = UInt64(bigEndian32(reference, 8))
                guard offset < size, length <= size - offset else { return nil }
                return (offset, length)
            }
            return (dataStart, dataLength)
        }
        return nil
    }

    /// Samsung One UI 6 HEICs keep the video in a top-level `mpvd` box.
    static func samsungBoxCandidate(_ source: ByteSource) -> (offset: UInt64, length: UInt64)? {
        var position: UInt64 = 0
        for _ in 0..<maxTopLevelBoxes {
            guard position + 8 <= source.size, let header = try? source.readExactly(at: position, count: 8) else { return nil }
            var boxSize = UInt64(bigEndian32(header, 0))
            var headerLength: UInt64 = 8
            if boxSize == 1 {
                guard let large = try? source.readExactly(at: position + 8, count: 8) else { return nil }
                boxSize = large.reduce(0) { $0 << 8 | UInt64($1) }
                headerLength = 16
            } else if boxSize == 0 {
                boxSize = source.size - position
            }
            guard boxSize >= headerLength, boxSize <= source.size - position else { return nil }
            if Array(header[4..<8]) == Array("mpvd".utf8) {
                return (position + headerLength, boxSize - headerLength)
            }
            position += boxSize
        }
        return nil
    }

    static func startsWithFileType(_ source: ByteSource, at offset: UInt64) -> Bool {
        guard let bytes = try? source.readExactly(at: offset, count: 8) else { return false }
        return Array(bytes[4..<8]) == Array("ftyp".utf8)
    }

    private static func littleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
