import Foundation
import MediaThumbnails
#if canImport(Glibc)
import Glibc
#endif

/// The folder of one library's renditions (compatible JPEGs and H.264 movies), beside
/// its thumbnails in the cache: `<cache>/renditions/<library>/<key>.jpg|.mp4`. A file
/// appears whole or not at all (written under a temporary name, then renamed); its
/// modification time is its last use; `trim()` removes the least recently used files
/// beyond `sizeLimit`.
public struct RenditionCache: Sendable {
    /// 4 GiB.
    public static let defaultSizeLimit: Int64 = 4 << 30
    /// The cache folder the rendition folders live in (the thumbnail cache's).
    let rootPath: String
    /// This library's folder.
    public let folderPath: String
    /// The most bytes kept; `trim()` goes down to 80 % of it.
    public var sizeLimit: Int64

    /// The renditions of `library` inside the thumbnail cache `cache`.
    public init(cache: ThumbnailCache, library: LibraryLocation, sizeLimit: Int64 = RenditionCache.defaultSizeLimit) {
        rootPath = cache.folderPath
        let name = (cache.folder(for: library) as NSString).lastPathComponent
        folderPath = cache.folderPath + "/renditions/" + name
        self.sizeLimit = sizeLimit
    }

    /// Where the rendition named `key` lives (whether or not it exists yet).
    public func path(key: String, fileExtension: String) -> String { "\(folderPath)/\(key).\(fileExtension)" }

    /// The folder, opened without following a symbolic link anywhere below the cache.
    ///
    /// - Throws: `LibraryError.unsafeCacheFolder`, `.cacheDiskFull`, `.io`.
    func folder(create: Bool) throws -> CacheDirectory? {
        try CacheDirectory.parent(of: folderPath + "/x", in: rootPath, create: create)?.0
    }

    /// The byte count of the finished rendition `key`, marked as just used; nil when
    /// it is not there (or empty, or not a regular file).
    public func cachedSize(key: String, fileExtension: String) -> Int64? {
        guard let folder = try? folder(create: false) else { return nil }
        let name = "\(key).\(fileExtension)"
        var info = stat()
        guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              info.st_size > 0 else { return nil }
        if time(nil) - info.st_mtim.tv_sec >= 60 { _ = utimensat(folder.descriptor, name, nil, AT_SYMLINK_NOFOLLOW) }
        return Int64(info.st_size)
    }

    /// Writes a rendition whole (temporary file, then rename).
    ///
    /// - Throws: `LibraryError.cacheDiskFull`, `.unsafeCacheFolder`, `.io`.
    public func store(_ data: [UInt8], key: String, fileExtension: String) throws {
        try ThumbnailCache(path: rootPath).store(data, at: path(key: key, fileExtension: fileExtension))
    }

    /// A fresh temporary name in the folder for a writer that is not this process's
    /// code (ffmpeg), and the folder's descriptor to rename it with. Temporary names
    /// contain `.tmp-`, so a rendition is never served from one.
    func temporaryPath(key: String, fileExtension: String) throws -> String {
        guard (try folder(create: true)) != nil else { throw LibraryError.io("cannot create \(folderPath)") }
        return "\(folderPath)/\(key).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).\(fileExtension)"
    }

    /// Moves a finished temporary file into place as `key`.
    ///
    /// - Throws: `LibraryError.io`.
    func publish(temporary: String, key: String, fileExtension: String) throws {
        guard let folder = try folder(create: true) else { throw LibraryError.io("cannot open \(folderPath)") }
        let name = (temporary as NSString).lastPathComponent
        if renameat(folder.descriptor, name, folder.descriptor, "\(key).\(fileExtension)") != 0 {
            let code = errno
            unlinkat(folder.descriptor, name, 0)
            throw LibraryError.io("cannot store the rendition \(key): \(systemErrorMessage(code))")
        }
    }

    /// Removes a temporary file (never through a symbolic link).
    func discard(temporary: String) {
        guard let folder = try? folder(create: false) else { return }
        unlinkat(folder.descriptor, (temporary as NSString).lastPathComponent, 0)
    }

    /// Removes the least recently used renditions until 80 % of `sizeLimit` is left,
    /// when the folder holds more than `sizeLimit`; temporary files older than a day
    /// (a killed writer's) go too, and those of no running writer are never served.
    /// Only regular files are touched.
    ///
    /// - Returns: how many renditions were removed.
    @discardableResult
    public func trim() -> Int {
        guard let folder = try? folder(create: false) else { return 0 }
        let now = Int64(time(nil))
        var files: [(name: String, bytes: Int64, used: Int64)] = []
        for (name, info) in folder.entries() where (info.st_mode & S_IFMT) == S_IFREG {
            if name.contains(".tmp-") {
                if now - Int64(info.st_mtim.tv_sec) > 86_400 { unlinkat(folder.descriptor, name, 0) }
                continue
            }
            guard name.hasSuffix(".jpg") || name.hasSuffix(".mp4") else { continue }
            files.append((name, Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)))
        }
        var total = files.reduce(0) { $0 + $1.bytes }
        guard total > sizeLimit else { return 0 }
        var removed = 0
        for file in files.sorted(by: { $0.used < $1.used }) where total > sizeLimit * 4 / 5 {
            if unlinkat(folder.descriptor, file.name, 0) == 0 {
                total -= file.bytes
                removed += 1
            }
        }
        return removed
    }
}
