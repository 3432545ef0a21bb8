#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The files an index run reads (new, or changed since their row), in path order, as
/// `IndexDiff` found them.
///
/// The first `heldLimit` are held in memory; the rest are written, in order, to a
/// temporary file in the library's folder (unlinked as soon as it is made, so nothing
/// is left behind, even by a killed run) and read back a batch at a time. So a first
/// index of a million files holds a few thousand of them, not a million.
///
/// The identity plan sets fingerprints by index (`setFingerprint`); those of written-out
/// files are kept beside the file (a few bytes each, and only for files the plan read).
final class ToReadList: @unchecked Sendable {
    /// Files held in memory before the rest are written out.
    static let defaultHeldLimit = 8192

    /// Files in the list.
    private(set) var count = 0
    private var held: [Indexer.Work] = []
    private let heldLimit: Int
    private let spillFolder: String
    private var spill: SpillFile?
    /// Fingerprints set by the plan for files written out, by index.
    private var spilledFingerprints: [Int: ContentFingerprint] = [:]

    /// - Parameter spillFolder: where the temporary file goes (the library's folder).
    init(spillFolder: String, heldLimit: Int = ToReadList.defaultHeldLimit) {
        self.spillFolder = spillFolder
        self.heldLimit = heldLimit
    }

    /// Adds `work` at the end (the diff adds in path order).
    func append(_ work: Indexer.Work) {
        defer { count += 1 }
        if held.count < heldLimit || !spillIfPossible() {
            held.append(work)
            return
        }
        spill!.write(work)
    }

    /// Whether files past the held ones go to the temporary file (made now if need be;
    /// when it cannot be made, they stay in memory).
    private func spillIfPossible() -> Bool {
        if spill == nil, held.count == heldLimit { spill = SpillFile(folder: spillFolder) }
        return spill != nil && held.count >= heldLimit
    }

    /// Records the fingerprint the plan computed for the file at `index`.
    func setFingerprint(_ fingerprint: ContentFingerprint?, at index: Int) {
        if index < held.count {
            held[index].fingerprint = fingerprint
        } else {
            spilledFingerprints[index] = fingerprint
        }
    }

    /// Reads the list from the start, in order.
    func makeReader() -> Reader { Reader(list: self) }

    /// Calls `body` with consecutive slices of the list, at most `size` files each, with
    /// the index of each slice's first file.
    func forEachChunk(size: Int = 1024, _ body: (_ start: Int, _ works: [Indexer.Work]) throws -> Void) rethrows {
        var reader = makeReader()
        while reader.position < count {
            let start = reader.position
            try body(start, reader.next(size))
        }
    }

    /// A pass over the list in order.
    struct Reader {
        let list: ToReadList
        /// Index of the next file given.
        private(set) var position = 0
        private var spillReader: SpillFile.Reader?

        init(list: ToReadList) {
            self.list = list
            spillReader = list.spill?.makeReader()
        }

        /// The next `count` files (fewer at the end).
        mutating func next(_ count: Int) -> [Indexer.Work] {
            let end = min(position + count, list.count)
            var works: [Indexer.Work] = []
            works.reserveCapacity(end - position)
            while position < end {
                if position < list.held.count {
                    works.append(list.held[position])
                } else if var work = spillReader?.next() {
                    work.fingerprint = list.spilledFingerprints[position]
                    works.append(work)
                } else {
                    break
                }
                position += 1
            }
            return works
        }
    }
}

/// An unlinked temporary file of works, written in order then read back in order.
private final class SpillFile {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var written = 0
    private static let flushSize = 1 << 20

    /// Nil when no temporary file can be made in `folder`.
    init?(folder: String) {
        var template = Array((folder + "/index-run-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        // Close-on-exec: ffmpeg, run for video frames, must not inherit it.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.flushSize + 4096)
    }

    deinit { close(descriptor) }

    func write(_ work: Indexer.Work) {
        var out = SpillEncoder(buffer: buffer)
        buffer = []
        out.encode(work)
        buffer = out.buffer
        if buffer.count >= Self.flushSize { flush() }
    }

    /// Writes out what is buffered. A failed write (a full disk) keeps the bytes in memory.
    private func flush() {
        let done = buffer.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let result = pwrite(descriptor, raw.baseAddress! + offset, raw.count - offset, off_t(written + offset))
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { return false }
                offset += result
            }
            return true
        }
        guard done else { return }
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    func makeReader() -> Reader {
        flush()
        return Reader(file: self)
    }

    /// Reads the works back from the start: those written out, then those still buffered.
    struct Reader {
        let file: SpillFile
        private var chunk: [UInt8] = []
        private var chunkOffset = 0
        private var fileOffset = 0
        private var inBuffer = false

        init(file: SpillFile) { self.file = file }

        mutating func next() -> Indexer.Work? {
            while true {
                if chunkOffset < chunk.count {
                    var input = SpillDecoder(bytes: chunk, offset: chunkOffset)
                    if let work = input.decode() {
                        chunkOffset = input.offset
                        return work
                    }
                }
                // The chunk ends inside a work (or is used up): read on from where it stopped.
                guard refill() else { return nil }
            }
        }

        private mutating func refill() -> Bool {
            let leftover = Array(chunk[chunkOffset...])
            chunkOffset = 0
            if fileOffset < file.written {
                let size = min(SpillFile.flushSize, file.written - fileOffset)
                var bytes = [UInt8](repeating: 0, count: size)
                let got = bytes.withUnsafeMutableBytes { raw -> Int in
                    var total = 0
                    while total < size {
                        let result = pread(file.descriptor, raw.baseAddress! + total, size - total, off_t(fileOffset + total))
                        if result < 0 && errno == EINTR { continue }
                        guard result > 0 else { break }
                        total += result
                    }
                    return total
                }
                guard got > 0 else { return false }
                fileOffset += got
                chunk = leftover + bytes[..<got]
                return true
            }
            guard !inBuffer, !file.buffer.isEmpty else { return false }
            inBuffer = true
            chunk = leftover + file.buffer
            return true
        }
    }
}

/// A work as bytes: its root, `lstat`, path and row (when it has one).
private struct SpillEncoder {
    var buffer: [UInt8]

    mutating func encode(_ work: Indexer.Work) {
        int(work.rootID)
        stat(work.entry.stat)
        bytes(work.entry.path.bytes)
        if let row = work.known {
            buffer.append(1)
            int(row.id)
            int(row.rootID)
            stat(row.stat)
            string(row.status?.rawValue)
            optionalInt(row.assetID)
            string(row.fingerprint)
            string(row.role?.rawValue)
        } else {
            buffer.append(0)
        }
    }

    private mutating func int(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) } }
    private mutating func stat(_ stat: FileStat) {
        int(stat.size)
        int(stat.modificationNanoseconds)
        int(Int64(bitPattern: stat.inode))
        int(Int64(bitPattern: stat.device))
    }
    private mutating func bytes(_ value: [UInt8]) {
        int(Int64(value.count))
        buffer.append(contentsOf: value)
    }
    private mutating func optionalInt(_ value: Int64?) {
        if let value { buffer.append(1); int(value) } else { buffer.append(0) }
    }
    private mutating func string(_ value: String?) {
        if let value { buffer.append(1); bytes(Array(value.utf8)) } else { buffer.append(0) }
    }
}

/// Reads back what `SpillEncoder` wrote; nil (and `offset` unchanged) when the bytes end inside a work.
private struct SpillDecoder {
    let bytes: [UInt8]
    var offset: Int

    mutating func decode() -> Indexer.Work? {
        let start = offset
        guard let work = work() else {
            offset = start
            return nil
        }
        return work
    }

    private mutating func work() -> Indexer.Work? {
        guard let rootID = int(), let fileStat = stat(), let path = byteArray(), let hasRow = byte() else { return nil }
        var work = Indexer.Work(entry: FileWalker.Entry(path: PathBytes(path), stat: fileStat), rootID: rootID)
        if hasRow == 1 {
            guard let id = int(), let rowRootID = int(), let rowStat = stat(), let status = string(),
                  let assetID = optionalInt(), let fingerprint = string(), let role = string() else { return nil }
            work.known = FileRecord.Known(id: id, rootID: rowRootID, path: work.entry.path, stat: rowStat,
                                          status: FileStatus(stored: status), assetID: assetID,
                                          fingerprint: fingerprint, role: FileRole(stored: role))
        }
        return work
    }

    private mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }
    private mutating func int() -> Int64? {
        guard offset + 8 <= bytes.count else { return nil }
        var value: Int64 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            bytes.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + 8])) }
        }
        offset += 8
        return Int64(littleEndian: value)
    }
    private mutating func stat() -> FileStat? {
        guard let size = int(), let mtime = int(), let inode = int(), let device = int() else { return nil }
        return FileStat(size: size, modificationNanoseconds: mtime, inode: UInt64(bitPattern: inode),
                        device: UInt64(bitPattern: device))
    }
    private mutating func byteArray() -> [UInt8]? {
        guard let count = int(), count >= 0, offset + Int(count) <= bytes.count else { return nil }
        defer { offset += Int(count) }
        return Array(bytes[offset..<offset + Int(count)])
    }
    /// `.some(nil)` for a stored nil; nil when the bytes end.
    private mutating func optionalInt() -> Int64?? {
        guard let flag = byte() else { return nil }
        if flag == 0 { return .some(nil) }
        guard let value = int() else { return nil }
        return .some(value)
    }
    private mutating func string() -> String?? {
        guard let flag = byte() else { return nil }
        if flag == 0 { return .some(nil) }
        guard let value = byteArray() else { return nil }
        return .some(String(decoding: value, as: UTF8.self))
    }
}
