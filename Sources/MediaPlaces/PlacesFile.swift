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
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw PlacesFileError.missing(path: path) }
            throw PlacesFileError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw PlacesFileError.unreadable(path: path, reason: "it is not a regular file")
        }
        size = Int(status.st_size)
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
        guard (0..<8).allSatisfy({ base.load(fromByteOffset: $0, as: UInt8.self) == Self.magic[$0] }) else {
            throw PlacesFileError.foreign(path: path)
        }
        let format = u32(at: 8)
        guard format == Self.formatVersion else { throw PlacesFileError.unsupportedFormat(path: path, version: format) }
        let count = Int(u32(at: 12))
        guard count > 0, count < 64, 16 + count * 24 + 8 <= size else {
            throw PlacesFileError.damaged(path: path, reason: "its section table is cut short")
        }
        var bodyStart = Int.max
        for index in 0..<count {
            let entry = 16 + index * 24
            let tagBytes = (0..<4).map { base.load(fromByteOffset: entry + $0, as: UInt8.self) }
            let offset = Int(clamping: u64(at: entry + 8)), length = Int(clamping: u64(at: entry + 16))
            guard offset % 8 == 0, offset <= size, length <= size - offset else {
                throw PlacesFileError.damaged(path: path, reason: "a section lies outside the file")
            }
            sections[String(decoding: tagBytes, as: UTF8.self)] = offset..<(offset + length)
            bodyStart = min(bodyStart, offset)
        }
        try verifyChecksum(bodyStart: bodyStart, stored: u64(at: bodyStart - 8))
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
