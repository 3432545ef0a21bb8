import Foundation
import MediaThumbnails
#if canImport(Glibc)
import Glibc
#endif

/// The folder of cached thumbnails: one file per (asset, revision, size, mode, format),
/// named by a hash of that key, never by the user's file name.
///
/// Layout: `DIR/<library>/ab/<hash>.jpg`, where `<library>` is a hash of the library
/// folder's path, so two libraries sharing one cache never collect each other's files,
/// and `ab` is the hash's first two digits: 256 folders, made once, where two levels
/// (`ab/cd`) made a new folder for nearly every thumbnail of a first build. Files of
/// that older layout are still walked, so trims and sweeps remove them.
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
        filePaths(hash: key.hash, fileExtension: key.request.format.fileExtension, library: library).current
    }

    /// Where a thumbnail named `hash` lives (`current`, one fan-out level: `ab/`), and
    /// where the older two-level layout put it (`olderLayout`, `ab/cd/`): a sweep removes
    /// both.
    func filePaths(hash: String, fileExtension: String,
                   library: LibraryLocation) -> (current: String, olderLayout: String) {
        let folder = folder(for: library), name = "\(hash).\(fileExtension)"
        return ("\(folder)/\(hash.prefix(2))/\(name)", "\(folder)/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(name)")
    }

    // MARK: Reading

    /// The byte count of the file at `path` if it is a whole thumbnail: not empty, a JPEG
    /// that ends with its end-of-image marker, a WebP whose RIFF size matches the file.
    /// Anything else (a file cut short by a crash or a full disk, a symbolic link) is nil
    /// and is remade.
    func validFileSize(at path: String) -> Int64? {
        guard let (folder, name) = try? CacheDirectory.parent(of: path, in: folderPath, create: false) else { return nil }
        let fd = openat(folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
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
        guard let (folder, name) = try? CacheDirectory.parent(of: path, in: folderPath, create: false) else { return }
        var info = stat()
        guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        if time(nil) - info.st_mtim.tv_sec < 60 { return }
        _ = utimensat(folder.descriptor, name, nil, AT_SYMLINK_NOFOLLOW)  // nil: both times become now
    }

    // MARK: Writing

    /// Writes `data` at `path` through a temporary file in the same folder and a rename,
    /// so the path never holds part of a file. Two writers of the same key both succeed;
    /// the later rename wins with an identical file. Every folder on the way is opened
    /// relative to the one before with `O_NOFOLLOW`, so no planted link is followed.
    ///
    /// - Throws: `LibraryError.cacheDiskFull` when the disk is full,
    ///   `LibraryError.unsafeCacheFolder` for a folder that cannot be trusted,
    ///   `LibraryError.io` when the folder cannot be made.
    func store(_ data: [UInt8], at path: String) throws {
        guard let (folder, name) = try CacheDirectory.parent(of: path, in: folderPath, create: true) else {
            throw LibraryError.io("cannot create the thumbnail folder of \(path)")
        }
        let temporary = "\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = openat(folder.descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            if CacheDirectory.isDiskFull(code) { throw LibraryError.cacheDiskFull(path: folder.path) }
            throw LibraryError.io("cannot write a thumbnail in \(folder.path): \(systemErrorMessage(code))")
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
        if failure != 0 || renameat(folder.descriptor, temporary, folder.descriptor, name) != 0 {
            let code = failure != 0 ? failure : errno
            unlinkat(folder.descriptor, temporary, 0)
            if CacheDirectory.isDiskFull(code) { throw LibraryError.cacheDiskFull(path: path) }
            throw LibraryError.io("cannot write the thumbnail \(path): \(systemErrorMessage(code))")
        }
    }

    /// Removes the cached file at `path`, never through a symbolic link; whether it was removed.
    @discardableResult
    func removeFile(at path: String) -> Bool {
        guard let (folder, name) = try? CacheDirectory.parent(of: path, in: folderPath, create: false) else { return false }
        return unlinkat(folder.descriptor, name, 0) == 0
    }

    /// Creates (owner-only) or opens the cache folder and checks it can be trusted.
    ///
    /// - Throws: `LibraryError.unsafeCacheFolder`, `.cacheDiskFull`, `.io`.
    public func prepare() throws {
        _ = try CacheDirectory.openRoot(folderPath, create: true)
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
    /// cache names them are ever touched, and symbolic links are never followed.
    @discardableResult
    public func trim() -> TrimResult {
        guard let root = try? CacheDirectory.openRoot(folderPath, create: false) else { return TrimResult() }
        var entries = walk(root, depth: 0)
        var result = TrimResult()
        result.bytesBefore = entries.reduce(0) { $0 + $1.bytes }
        result.bytesAfter = result.bytesBefore
        guard result.bytesBefore > sizeLimit else { return result }
        let target = Int64(Double(sizeLimit) * min(1, max(0, trimFraction)))
        entries.sort { $0.lastUsed < $1.lastUsed }
        for entry in entries where result.bytesAfter > target {
            if removeFile(at: entry.path) || errno == ENOENT {
                result.bytesAfter -= entry.bytes
                result.filesRemoved += 1
            }
        }
        return result
    }

    /// Every thumbnail in one library's folder.
    func entries(of library: LibraryLocation) -> [Entry] {
        let name = (folder(for: library) as NSString).lastPathComponent
        guard let root = try? CacheDirectory.openRoot(folderPath, create: false),
              let folder = try? root.subfolder(name, create: false) else { return [] }
        return walk(folder, depth: 1)
    }

    /// Walks `DIR/<library>/ab/` (depth 0 is DIR), and the older layout's `ab/cd/`,
    /// collecting thumbnail files and removing stale temporary files. Entries are
    /// `lstat`ed and folders opened with `O_NOFOLLOW`: a symbolic link is skipped,
    /// whatever it points to.
    private func walk(_ folder: CacheDirectory, depth: Int) -> [Entry] {
        var result: [Entry] = []
        let now = Int64(time(nil))
        for (name, info) in folder.entries() {
            let path = folder.path + "/" + name
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            // Folders: the library's (16 digits), the fan-out's (2), and below a fan-out
            // folder only the older layout's second level (2).
            if depth < 2 || (depth == 2 && isFolder) {
                let expectedLength = depth == 0 ? 16 : 2
                guard name.utf8.count == expectedLength, ThumbnailKey.isHex(name), isFolder,
                      let child = try? folder.subfolder(name, create: false) else { continue }
                result += walk(child, depth: depth + 1)
                continue
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let parts = name.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].utf8.count == 16, ThumbnailKey.isHex(String(parts[0])) else { continue }
            if parts[1].hasPrefix("jpg.tmp-") || parts[1].hasPrefix("webp.tmp-") {
                if now - Int64(info.st_mtim.tv_sec) > 3600 { unlinkat(folder.descriptor, name, 0) }
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
