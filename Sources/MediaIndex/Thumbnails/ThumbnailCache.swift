import Foundation
import MediaThumbnails
#if canImport(Glibc)
import Glibc
#endif

/// The folder of cached thumbnails: one file per (asset, revision, size, mode, format),
/// named by a hash of that key, never by the user's file name.
///
/// Layout: `DIR/<library>/ab/cd/<hash>.jpg`, where `<library>` is a hash of the library
/// folder's path, so two libraries sharing one cache never collect each other's files.
/// Files are written to a temporary name in their folder and renamed into place, so a
/// reader sees a whole file or none; a file's modification time is its last use, and
/// `trim()` removes the least recently used down to `trimFraction` of `sizeLimit`.
/// The folder may be deleted at any time: thumbnails are remade on demand.
public struct ThumbnailCache: Sendable, Equatable {
    /// 2 GiB.
    public static let defaultSizeLimit: Int64 = 2 << 30

    /// The cache folder.
    public var directory: URL { URL(fileURLWithPath: folderPath, isDirectory: true) }
    /// The cache folder's absolute path.
    let folderPath: String
    /// The cache trims itself when its files take more than this many bytes.
    public var sizeLimit: Int64
    /// A trim removes the least recently used files until this fraction of the limit is left.
    public var trimFraction: Double = 0.8

    /// A cache in the folder at `directory` (created, owner-only, when first written).
    public init(directory: URL, sizeLimit: Int64 = ThumbnailCache.defaultSizeLimit) {
        self.init(path: directory.path, sizeLimit: sizeLimit)
    }

    init(path: String, sizeLimit: Int64 = ThumbnailCache.defaultSizeLimit) {
        self.folderPath = LibraryLocation.absolute(path)
        self.sizeLimit = max(0, sizeLimit)
    }

    /// The cache folder given, else `$MEDIAINDEX_CACHE`, else `$XDG_CACHE_HOME/mediaindex`
    /// (`~/.cache/mediaindex`).
    public static func resolve(explicit: String?,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> ThumbnailCache {
        if let explicit, !explicit.isEmpty { return ThumbnailCache(path: explicit) }
        if let fromEnvironment = environment["MEDIAINDEX_CACHE"], !fromEnvironment.isEmpty {
            return ThumbnailCache(path: fromEnvironment)
        }
        let cacheHome = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
        return ThumbnailCache(path: cacheHome + "/mediaindex")
    }

    /// The cache the environment names (see `resolve(explicit:environment:)`).
    public static var `default`: ThumbnailCache { resolve(explicit: nil) }

    // MARK: Paths

    /// The folder holding one library's thumbnails.
    public func folder(for library: LibraryLocation) -> String {
        folderPath + "/" + ThumbnailKey.hex(XXHash64.hash(Array(library.directory.utf8), seed: 0x4D49_4458))
    }

    /// Where the thumbnail for `key` lives (whether or not it exists yet).
    public func path(for key: ThumbnailKey, library: LibraryLocation) -> String {
        let name = key.hash
        let a = name.prefix(2), b = name.dropFirst(2).prefix(2)
        return "\(folder(for: library))/\(a)/\(b)/\(name).\(key.request.format.fileExtension)"
    }

    // MARK: Reading

    /// The byte count of the file at `path` if it is a whole thumbnail: not empty, a JPEG
    /// that ends with its end-of-image marker, a WebP whose RIFF size matches the file.
    /// Anything else (a file cut short by a crash or a full disk) is nil and is remade.
    func validFileSize(at path: String) -> Int64? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size >= 12 else { return nil }
        let size = Int64(info.st_size)
        var head = [UInt8](repeating: 0, count: 12)
        var tail = [UInt8](repeating: 0, count: 2)
        guard pread(fd, &head, 12, 0) == 12, pread(fd, &tail, 2, off_t(size - 2)) == 2 else { return nil }
        if head[0] == 0xFF && head[1] == 0xD8 {
            return tail == [0xFF, 0xD9] ? size : nil
        }
        if head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8) {
            let riffSize = Int64(head[4]) | Int64(head[5]) << 8 | Int64(head[6]) << 16 | Int64(head[7]) << 24
            return riffSize + 8 == size ? size : nil
        }
        return nil
    }

    /// Marks the file as just used (its modification time is its last access), unless it
    /// was marked within the last minute: a grid scrolling back and forth costs no writes.
    func markUsed(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if time(nil) - info.st_mtim.tv_sec < 60 { return }
        _ = utimensat(AT_FDCWD, path, nil, 0)  // nil: both times become now
    }

    // MARK: Writing

    /// Writes `data` at `path` through a temporary file in the same folder and a rename,
    /// so the path never holds part of a file. Two writers of the same key both succeed;
    /// the later rename wins with an identical file.
    ///
    /// - Throws: `LibraryError.io` when the folder cannot be made or the disk is full.
    func store(_ data: [UInt8], at path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try makeFolder(folder)
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw LibraryError.io("cannot write a thumbnail in \(folder): \(systemErrorMessage(errno))")
        }
        var written = 0
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            while written < buffer.count {
                let n = write(fd, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if n < 0 { if errno == EINTR { continue }; failure = errno; return }
                written += n
            }
        }
        close(fd)
        if failure != 0 || rename(temporary, path) != 0 {
            let code = failure != 0 ? failure : errno
            unlink(temporary)
            throw LibraryError.io("cannot write the thumbnail \(path): \(systemErrorMessage(code))")
        }
    }

    /// Creates `folder` and its parents, each owner-only.
    private func makeFolder(_ folder: String) throws {
        var info = stat()
        if stat(folder, &info) == 0 { return }
        do {
            if !FileManager.default.fileExists(atPath: folderPath) {
                try FileManager.default.createDirectory(atPath: folderPath, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            // Another process may have made it meanwhile.
            if stat(folder, &info) == 0 { return }
            throw LibraryError.io("cannot create the thumbnail folder \(folder): \(error.localizedDescription)")
        }
    }

    // MARK: Sweeping

    /// One cached file found by a walk.
    struct Entry {
        var path: String
        var hash: String
        var bytes: Int64
        var lastUsed: Int64  // ns
    }

    /// What a trim did.
    public struct TrimResult: Sendable, Equatable {
        /// Bytes of thumbnails before the trim.
        public var bytesBefore: Int64 = 0
        /// Bytes of thumbnails after it.
        public var bytesAfter: Int64 = 0
        /// Files it removed.
        public var filesRemoved = 0
    }

    /// Removes the least recently used thumbnails until the cache holds at most
    /// `trimFraction` of `sizeLimit`, when it holds more than `sizeLimit`. Temporary
    /// files older than an hour (a crashed writer's) go too. Only files named as this
    /// cache names them are ever touched.
    @discardableResult
    public func trim() -> TrimResult {
        var entries = walk(folderPath, depth: 0)
        var result = TrimResult()
        result.bytesBefore = entries.reduce(0) { $0 + $1.bytes }
        result.bytesAfter = result.bytesBefore
        guard result.bytesBefore > sizeLimit else { return result }
        let target = Int64(Double(sizeLimit) * min(1, max(0, trimFraction)))
        entries.sort { $0.lastUsed < $1.lastUsed }
        for entry in entries where result.bytesAfter > target {
            if unlink(entry.path) == 0 || errno == ENOENT {
                result.bytesAfter -= entry.bytes
                result.filesRemoved += 1
            }
        }
        return result
    }

    /// Every thumbnail in one library's folder.
    func entries(of library: LibraryLocation) -> [Entry] {
        walk(folder(for: library), depth: 1)
    }

    /// Walks `DIR/<library>/ab/cd/` (depth 0 is DIR), collecting thumbnail files and
    /// removing stale temporary files.
    private func walk(_ folder: String, depth: Int) -> [Entry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var result: [Entry] = []
        let now = Int64(time(nil))
        for name in names {
            let path = folder + "/" + name
            if depth < 3 {
                let expectedLength = depth == 0 ? 16 : 2
                guard name.utf8.count == expectedLength, ThumbnailKey.isHex(name) else { continue }
                result += walk(path, depth: depth + 1)
                continue
            }
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let parts = name.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].utf8.count == 16, ThumbnailKey.isHex(String(parts[0])) else { continue }
            if parts[1].hasPrefix("jpg.tmp-") || parts[1].hasPrefix("webp.tmp-") {
                if now - Int64(info.st_mtim.tv_sec) > 3600 { unlink(path) }
                continue
            }
            guard parts[1] == "jpg" || parts[1] == "webp" else { continue }
            result.append(Entry(path: path, hash: String(parts[0]), bytes: Int64(info.st_size),
                                lastUsed: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)))
        }
        return result
    }
}

/// What one cached thumbnail is of: an asset at one revision, its primary file's size,
/// and the request. Hashed into the file's name.
public struct ThumbnailKey: Hashable, Sendable {
    /// The asset's identifier.
    public var identifier: String
    /// The asset's revision.
    public var revision: Int
    /// The primary resource's byte count: a pairing change that swaps the primary file
    /// (a RAW gaining its JPEG) makes a new key even when the revision stays.
    public var sourceBytes: Int64
    /// Size, mode and format.
    public var request: ThumbnailRequest

    /// A key from its parts.
    public init(identifier: String, revision: Int, sourceBytes: Int64, request: ThumbnailRequest) {
        self.identifier = identifier
        self.revision = revision
        self.sourceBytes = sourceBytes
        self.request = request
    }

    /// `jpeg` or `webp`, as the state table records it.
    public var formatName: String {
        switch request.format {
        case .jpeg: return "jpeg"
        case .webp: return "webp"
        }
    }

    /// 16 hex digits: XXH64 of the key's fields.
    public var hash: String {
        let quality: Int
        switch request.format {
        case .jpeg(let q), .webp(let q): quality = q
        }
        let text = "v1|\(identifier)|\(revision)|\(sourceBytes)|\(request.maxPixelSize)|\(request.mode.rawValue)|\(formatName)|\(quality)"
        return Self.hex(XXHash64.hash(Array(text.utf8)))
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func isHex(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
