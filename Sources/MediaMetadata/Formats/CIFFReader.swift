/// Reads Canon's CIFF heaps: the CRW raw (`HEAPCCDR`) and the `HEAPJPGM` block that
/// early Canon PowerShots wrote into a JPEG's APP0 segment instead of EXIF.
///
/// A heap is a run of bytes whose last 4 bytes point at its record table: a 2-byte
/// count, then 10-byte records (tag, size, offset into the heap). Records whose tag
/// type is a subdirectory are heaps of their own, nested inside their parent.
enum CIFFReader {
    /// Nested heaps deeper than this are not followed (real files nest 3 deep).
    static let maxDepth = 8
    /// At most this many records are looked at in one heap, and in one file.
    static let maxRecordsPerHeap = 1024
    static let maxRecordsPerFile = 8192
    /// Text records longer than this are read only in part.
    static let maxTextBytes = 256

    /// What the index uses from a CIFF heap.
    struct Facts: Equatable {
        var make: String?
        var model: String?
        var pixelWidth: Int?
        var pixelHeight: Int?
        var captureDate: CaptureDate?
        var warnings: [String] = []
    }

    // Record tag ids (the tag without its location and type bits, 0x3FFF).
    private static let makeModelTag: UInt16 = 0x080A
    private static let imageInfoTag: UInt16 = 0x1810
    private static let timeStampTag: UInt16 = 0x180E

    /// Reads a CRW raw.
    ///
    /// - Throws: `MetadataError` when the CIFF header or the root heap's record table
    ///   is missing.
    static func read(_ source: ByteSource) throws -> ContainerReading {
        let facts = try self.facts(in: source)
        var metadata = MediaMetadata(format: .crw)
        apply(facts, to: &metadata)
        return ContainerReading(metadata: metadata)
    }

    /// Fills the still-empty fields of `metadata` from `facts`.
    static func apply(_ facts: Facts, to metadata: inout MediaMetadata) {
        metadata.warnings.append(contentsOf: facts.warnings)
        if metadata.make == nil { metadata.make = facts.make }
        if metadata.model == nil { metadata.model = facts.model }
        if metadata.pixelWidth == nil, metadata.pixelHeight == nil,
           let width = facts.pixelWidth, let height = facts.pixelHeight {
            metadata.pixelWidth = width
            metadata.pixelHeight = height
        }
        if metadata.captureDate == nil, let date = facts.captureDate {
            metadata.captureDate = date
            metadata.captureDateSource = .ciffTimeStamp
        }
    }

    /// Whether `bytes` start a CIFF header: byte order, header length, `HEAP` and a
    /// 4-letter kind (`CCDR` in a CRW, `JPGM` in a JPEG).
    static func hasHeader(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 14 && ((bytes[0] == 0x49 && bytes[1] == 0x49) || (bytes[0] == 0x4D && bytes[1] == 0x4D))
            && Array(bytes[6..<10]) == Array("HEAP".utf8)
    }

    /// The facts of the CIFF structure that starts at offset 0 of `source` and fills it.
    ///
    /// - Throws: `MetadataError` when there is no CIFF header or the root heap's
    ///   record table lies outside the file.
    static func facts(in source: ByteSource) throws -> Facts {
        let header = try source.read(at: 0, count: 14)
        guard hasHeader(header) else { throw MetadataError.malformed("no CIFF header (II or MM, then HEAP)") }
        let littleEndian = header[0] == 0x49
        let headerLength = UInt64(TIFFDirectoryWalker.u32(header, 2, littleEndian))
        guard headerLength >= 14, headerLength + 6 <= source.size else {
            throw MetadataError.malformed("the CIFF header length (\(headerLength)) leaves no room for a heap")
        }
        var walk = HeapWalk(source: source, littleEndian: littleEndian)
        guard try walk.readHeap(start: headerLength, length: source.size - headerLength, depth: 0) else {
            throw MetadataError.malformed("the CIFF root heap's record table lies outside the file")
        }
        return walk.facts
    }

    /// One walk over nested heaps, counting records against the file-wide bound.
    private struct HeapWalk {
        let source: ByteSource
        let littleEndian: Bool
        var facts = Facts()
        var recordsSeen = 0

        /// Reads the heap at `start`; false when its record table is unreadable.
        mutating func readHeap(start: UInt64, length: UInt64, depth: Int) throws -> Bool {
            guard length >= 6 else { return false }
            let end = start + length
            let pointer = try source.read(at: end - 4, count: 4)
            guard pointer.count == 4 else { return false }
            let tableOffset = UInt64(TIFFDirectoryWalker.u32(pointer, 0, littleEndian))
            // The table sits inside the heap, before the pointer to it.
            guard tableOffset + 2 <= length - 4 else { return false }
            let tableStart = start + tableOffset
            let countBytes = try source.read(at: tableStart, count: 2)
            guard countBytes.count == 2 else { return false }
            let declared = Int(TIFFDirectoryWalker.u16(countBytes, 0, littleEndian))
            let room = Int((end - 4 - (tableStart + 2)) / 10)
            let count = min(declared, room, CIFFReader.maxRecordsPerHeap)
            if count < declared {
                facts.warnings.append("a CIFF heap claims \(declared) records but holds room for \(min(room, CIFFReader.maxRecordsPerHeap)); the rest were ignored")
            }
            let table = try source.read(at: tableStart + 2, count: count * 10)
            for index in 0..<(table.count / 10) {
                recordsSeen += 1
                guard recordsSeen <= CIFFReader.maxRecordsPerFile else {
                    facts.warnings.append("the CIFF structure has more than \(CIFFReader.maxRecordsPerFile) records; the rest were not read")
                    return true
                }
                let p = index * 10
                let tag = TIFFDirectoryWalker.u16(table, p, littleEndian)
                let size = UInt64(TIFFDirectoryWalker.u32(table, p + 2, littleEndian))
                let offset = UInt64(TIFFDirectoryWalker.u32(table, p + 6, littleEndian))
                let inRecord = tag & 0xC000 == 0x4000
                let kind = tag & 0x3800
                let id = tag & 0x3FFF
                if kind == 0x2800 || kind == 0x3000 {
                    // A nested heap: it must lie inside this one (offsets count from its start).
                    guard !inRecord, depth + 1 < CIFFReader.maxDepth, offset + size <= length - 4, size >= 6 else { continue }
                    _ = try readHeap(start: start + offset, length: size, depth: depth + 1)
                    continue
                }
                guard id == CIFFReader.makeModelTag || id == CIFFReader.imageInfoTag || id == CIFFReader.timeStampTag else { continue }
                let value: [UInt8]
                if inRecord {
                    value = Array(table[(p + 2)..<(p + 10)])  // the 8 bytes of size and offset
                } else {
                    guard offset + size <= length - 4 else {
                        facts.warnings.append("a CIFF record (tag 0x\(String(id, radix: 16))) points outside its heap")
                        continue
                    }
                    value = try source.read(at: start + offset, count: Int(min(size, UInt64(CIFFReader.maxTextBytes))))
                }
                record(id, value)
            }
            return true
        }

        mutating func record(_ id: UInt16, _ value: [UInt8]) {
            switch id {
            case CIFFReader.makeModelTag where facts.make == nil:
                // exiftool reads the make as a 6-byte field ("Canon\0") and the model
                // after it; the record is two NUL-terminated strings in practice.
                facts.make = text(value.prefix(6))
                facts.model = text(value.dropFirst(6))
            case CIFFReader.imageInfoTag where facts.pixelWidth == nil:
                guard value.count >= 8 else { return }
                let width = Int(Int32(bitPattern: TIFFDirectoryWalker.u32(value, 0, littleEndian)))
                let height = Int(Int32(bitPattern: TIFFDirectoryWalker.u32(value, 4, littleEndian)))
                if width > 0, height > 0 {
                    facts.pixelWidth = width
                    facts.pixelHeight = height
                }
            case CIFFReader.timeStampTag where facts.captureDate == nil:
                // Seconds since 1970 of the camera's clock: local time, zone unknown.
                guard value.count >= 4 else { return }
                let seconds = TIFFDirectoryWalker.u32(value, 0, littleEndian)
                if seconds > 0 { facts.captureDate = CaptureDate(timestamp: Double(seconds), utcOffsetSeconds: nil) }
            default:
                break
            }
        }

        private func text(_ bytes: ArraySlice<UInt8>) -> String? {
            let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
            let result = ExifValue.decodeLeniently(bytes[bytes.startIndex..<end]).trimmingSpacesAndNULs()
            return result.isEmpty ? nil : result
        }
    }
}
