import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a places file was refused. Each case reads as one sentence naming the file.
public enum PlacesFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// No file at the path.
    case missing(path: String)
    /// The file could not be opened or mapped.
    case unreadable(path: String, reason: String)
    /// The file does not start with the places magic: some other file.
    case foreign(path: String)
    /// The file is a places file of a format this build does not read.
    case unsupportedFormat(path: String, version: UInt32)
    /// The file is a places file whose structure or checksum is wrong.
    case damaged(path: String, reason: String)

    public var description: String {
        switch self {
        case .missing(let path):
            return "There is no places data file at \(path); places are off until it is installed."
        case .unreadable(let path, let reason):
            return "The places data file \(path) could not be read: \(reason)."
        case .foreign(let path):
            return "\(path) is not a MediaIndex places data file (its first bytes are not MIPLACES); it was refused."
        case .unsupportedFormat(let path, let version):
            return "The places data file \(path) has format \(version), which this MediaIndex does not read "
                + "(it reads format \(PlacesFile.formatVersion)); rebuild it with scripts/install-places-data."
        case .damaged(let path, let reason):
            return "The places data file \(path) is damaged (\(reason)); it was refused."
        }
    }
}

/// A places data file mapped into memory: its named sections, checked once on open.
///
/// The layout (little-endian), written by `scripts/build-places-data.py`:
/// `MIPLACES`, u32 format, u32 section count, then per section a 4-byte tag, u32 zero, u64 offset
/// and u64 length; then a u64 checksum of the body (`Σ word[i]·(2i+1) mod 2⁶⁴` over its 64-bit
/// words), then the sections, each padded to 8 bytes.
final class PlacesFile: @unchecked Sendable {
    // @unchecked: the mapping is read-only (PROT_READ) and never changes after init.
    static let formatVersion: UInt32 = 1
    static let magic = Array("MIPLACES".utf8)

    let path: String
    let base: UnsafeRawPointer
    let size: Int
    private(set) var sections: [String: Range<Int>] = [:]

    /// Maps the file at `path` and checks its magic, format, section table and checksum.
    /// - Throws: `PlacesFileError`. Wraps `open(2)`, `fstat(2)` and `mmap(2)`.
    init(path: String) throws {
        self.path = path
        let (descriptor, size) = try Self.openRegularFile(path: path)
        defer { close(descriptor) }
        self.size = size
        guard size >= 24 else { throw PlacesFileError.foreign(path: path) }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw PlacesFileError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        base = UnsafeRawPointer(mapped)
        do {
            try readHeader()
        } catch {
            munmap(UnsafeMutableRawPointer(mutating: base), size)
            throw error
        }
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), size)
    }

    private func readHeader() throws {
        let table = try Self.sectionTable(UnsafeRawBufferPointer(start: base, count: size), fileSize: size, path: path)
        sections = table.sections
        try verifyChecksum(bodyStart: table.bodyStart, stored: u64(at: table.bodyStart - 8))
    }

    /// The largest header a file of this format has: magic, format, count, 63 section entries, checksum.
    static let largestHeader = 16 + 63 * 24 + 8

    /// Checks the magic, the format and the section table in `header`, the first bytes of a
    /// file of `size` bytes (all of them, or at least `largestHeader`), without reading the body.
    /// - Returns: the sections by tag, and where the body starts (after the checksum).
    /// - Throws: `PlacesFileError` (`foreign`, `unsupportedFormat`, `damaged`).
    static func sectionTable(_ header: UnsafeRawBufferPointer, fileSize size: Int,
                             path: String) throws -> (sections: [String: Range<Int>], bodyStart: Int) {
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: header.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: header.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        guard header.count >= 24, header.prefix(8).elementsEqual(magic) else { throw PlacesFileError.foreign(path: path) }
        let format = u32(8)
        guard format == formatVersion else { throw PlacesFileError.unsupportedFormat(path: path, version: format) }
        let count = Int(u32(12))
        guard count > 0, count < 64, 16 + count * 24 + 8 <= min(size, header.count) else {
            throw PlacesFileError.damaged(path: path, reason: "its section table is cut short")
        }
        var sections: [String: Range<Int>] = [:]
        var bodyStart = Int.max
        for index in 0..<count {
            let entry = 16 + index * 24
            let tag = String(decoding: header[entry..<(entry + 4)], as: UTF8.self)
            let offset = Int(clamping: u64(entry + 8)), length = Int(clamping: u64(entry + 16))
            guard offset % 8 == 0, offset <= size, length <= size - offset else {
                throw PlacesFileError.damaged(path: path, reason: "a section lies outside the file")
            }
            sections[tag] = offset..<(offset + length)
            bodyStart = min(bodyStart, offset)
        }
        return (sections, bodyStart)
    }

    /// Opens the file at `path` for reading, refusing anything but a regular file.
    /// - Returns: the open descriptor (the caller closes it) and the file's size.
    /// - Throws: `PlacesFileError.missing` when nothing is there, `.unreadable` otherwise.
    /// Wraps `open(2)` and `fstat(2)`.
    private static func openRegularFile(path: String) throws -> (descriptor: Int32, size: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw PlacesFileError.missing(path: path) }
            throw PlacesFileError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw PlacesFileError.unreadable(path: path, reason: "it is not a regular file")
        }
        return (descriptor, Int(status.st_size))
    }

    /// Checks the file at `path` as `init(path:)` does, but its header alone: it is there, a
    /// regular file, and its magic, format and section table are right. Its body (checksum,
    /// tables) is not read: a file damaged past its header passes here and is refused on open.
    /// - Throws: `PlacesFileError`. Wraps `open(2)`, `fstat(2)` and `pread(2)`.
    static func checkHeader(path: String) throws {
        let (descriptor, size) = try openRegularFile(path: path)
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: min(size, largestHeader))
        var filled = 0
        while filled < header.count {
            let read = header.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled, off_t(filled))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                throw PlacesFileError.unreadable(path: path, reason: read < 0 ? String(cString: strerror(errno)) : "it ended early")
            }
            filled += read
        }
        _ = try header.withUnsafeBytes { try sectionTable($0, fileSize: size, path: path) }
    }

    private func verifyChecksum(bodyStart: Int, stored: UInt64) throws {
        guard bodyStart >= 16 + 8, (size - bodyStart) % 8 == 0 else {
            throw PlacesFileError.damaged(path: path, reason: "its length is not whole 8-byte words")
        }
        var sum: UInt64 = 0
        var factor: UInt64 = 1
        var offset = bodyStart
        while offset < size {
            sum &+= base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) &* factor
            factor &+= 2
            offset += 8
        }
        guard sum == stored else { throw PlacesFileError.damaged(path: path, reason: "its checksum does not match") }
    }

    func u32(at offset: Int) -> UInt32 { UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    func u64(at offset: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    func u16(at offset: Int) -> UInt16 { UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    func i32(at offset: Int) -> Int32 { Int32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: Int32.self)) }

    /// The byte range of a section the format requires.
    /// - Throws: `PlacesFileError.damaged` when it is absent.
    func section(_ tag: String) throws -> Range<Int> {
        guard let range = sections[tag] else {
            throw PlacesFileError.damaged(path: path, reason: "its \(tag) section is missing")
        }
        return range
    }

    /// A section read as UTF-8 text.
    func text(_ tag: String) throws -> String {
        let range = try section(tag)
        let bytes = UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PlacesFileError.damaged(path: path, reason: "its \(tag) section is not UTF-8")
        }
        return text
    }

    /// UTF-8 bytes at an absolute offset, or nil when they are not inside the file.
    func string(at offset: Int, length: Int) -> String? {
        guard offset >= 0, length >= 0, offset <= size - length else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: base + offset, count: length), as: UTF8.self)
    }
}
