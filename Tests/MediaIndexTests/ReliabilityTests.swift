import CorpusSupport
import Foundation
import MediaThumbnails
import Testing
@testable import MediaIndex

// Issue 13: reliability and security defects found by attacking the index.

/// A tmpfs of a chosen size, mounted for one test (needs root), unmounted when released.
final class TinyDisk {
    let path: String

    /// Whether tiny disks can be mounted here (root only).
    static var isAvailable: Bool { geteuid() == 0 }
    static let unavailableMessage = "mounting a tmpfs needs root"

    init(kilobytes: Int) throws {
        path = NSTemporaryDirectory() + "mediaindex-tinydisk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "tmpfs", path])
    }

    /// Gives the disk more room, keeping its files.
    func grow(toKilobytes kilobytes: Int) throws {
        try Self.mount(["-o", "remount,size=\(kilobytes)k", path])
    }

    /// Makes the disk read-only, or writable again.
    func setReadOnly(_ readOnly: Bool) throws {
        try Self.mount(["-o", "remount,\(readOnly ? "ro" : "rw")", path])
    }

    deinit {
        try? Self.mount(["-o", "remount,rw", path])
        _ = try? Self.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }

    private static func mount(_ arguments: [String]) throws {
        let status = try run("/bin/mount", arguments)
        guard status == 0 else { throw LibraryError.io("mount \(arguments.joined(separator: " ")) exited \(status)") }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        try ExternalTool.outcome(executable, arguments).shellStatus
    }
}

/// Writes `bytes` at a path given as bytes (a name that need not be UTF-8).
private func write(_ bytes: [UInt8], toPathBytes path: [UInt8]) throws {
    let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
        open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    }
    guard fd >= 0 else { throw LibraryError.io("cannot create \(String(decoding: path, as: UTF8.self))") }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
        let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { throw LibraryError.io("cannot write") }
        written += n
    }
}

private func corpusBytes(_ relative: String) throws -> [UInt8] {
    let media = try #require(Corpus.media)
    return [UInt8](try #require(FileManager.default.contents(atPath: media.path + "/" + relative)))
}

private let heic = "photoprism/assets/examples/iphone_7.heic"

@Suite("Thumbnails of files whose names are not UTF-8", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct NonUTF8ThumbnailTests {
    @Test("an image, a HEIC and a video under Latin-1 names get thumbnails, the video's path reaching ffmpeg as bytes")
    func latin1Names() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // "café", "été", "déjà" in Latin-1: é is the single byte 0xE9, invalid as UTF-8.
        let names: [(bytes: [UInt8], source: String)] = [
            (Array("caf".utf8) + [0xE9] + Array(".jpg".utf8), ThumbnailTestFiles.jpegA),
            ([0xE9] + Array("t".utf8) + [0xE9] + Array(".heic".utf8), heic),
            (Array("d".utf8) + [0xE9] + Array("j".utf8) + [0xE0] + Array(".mp4".utf8), ThumbnailTestFiles.video),
        ]
        for name in names { try write(try corpusBytes(name.source), toPathBytes: Array((root + "/").utf8) + name.bytes) }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(root)])
        let cache = ThumbnailCache(path: folder.file("cache"))
        let cached = try library.with(cache)
        let assets = try library.assets()
        try #require(assets.count == 3)
        for asset in assets {
            let path = try #require(asset.primaryResource?.path)
            #expect(!path.isValidUTF8)
            if asset.mediaType == .video && !ThumbnailGenerator.canMakeVideoThumbnails {
                #expect(!Corpus.isCI, "ffmpeg is not installed: scripts/install-dependencies --test installs it")
                continue
            }
            let made = try cached.blocking.thumbnail(for: asset, size: 128)
            #expect(cache.validFileSize(at: made.path) != nil, "\(path.displayString)")
        }
        #expect(try library.blocking.thumbnailFailures().isEmpty)
    }
}

@Suite("A thumbnail cache that cannot be redirected")
struct CacheSymlinkTests {
    private static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 20) + [0xFF, 0xD9]

    @Test("a symbolic link planted at the library's folder in the cache is refused, and nothing is written through it")
    func plantedLibraryFolder() throws {
        let folder = TemporaryFolder()
        let cache = ThumbnailCache(path: folder.file("cache"))
        let library = LibraryLocation(directory: folder.file("library"))
        let outside = folder.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try cache.prepare()
        #expect(symlink(outside, cache.folder(for: library)) == 0)
        let key = ThumbnailKey(identifier: "a", revision: 1, sourceBytes: 1, request: ThumbnailRequest())
        let path = cache.path(for: key, library: library)
        #expect(throws: LibraryError.self) { try cache.store(Self.jpeg, at: path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(cache.validFileSize(at: path) == nil)
    }

    @Test("the sweep never follows a link: a file outside the cache survives --gc")
    func sweepKeepsOutsideFiles() throws {
        let folder = TemporaryFolder()
        let cache = ThumbnailCache(path: folder.file("cache"))
        let location = LibraryLocation(directory: folder.file("library"))
        let library = try MediaLibrary(location: location)
        // Outside: a folder shaped like a cache shard, with a file named like a thumbnail.
        let outside = folder.file("outside")
        let victimName = "0123456789abcdef.jpg"
        try FileManager.default.createDirectory(atPath: outside + "/cd", withIntermediateDirectories: true)
        try Data(Self.jpeg).write(to: URL(fileURLWithPath: outside + "/cd/" + victimName))
        try Data(Self.jpeg).write(to: URL(fileURLWithPath: outside + "/" + victimName))
        ThumbnailTestFiles.age(outside + "/cd/" + victimName, secondsAgo: 7200)
        ThumbnailTestFiles.age(outside + "/" + victimName, secondsAgo: 7200)
        // Inside: a shard folder that is a link, and thumbnails that are links (in the
        // layout of today and in the older two-level one).
        let libraryFolder = cache.folder(for: location)
        try FileManager.default.createDirectory(atPath: libraryFolder + "/ab/cd", withIntermediateDirectories: true)
        #expect(symlink(outside, libraryFolder + "/01") == 0)
        #expect(symlink(outside + "/" + victimName, libraryFolder + "/ab/cd/" + victimName) == 0)
        #expect(symlink(outside + "/" + victimName, libraryFolder + "/ab/" + victimName) == 0)
        var small = cache
        small.sizeLimit = 0
        let collection = try library.with(small).blocking.collectThumbnailGarbage(removeStrays: true)
        #expect(collection.filesRemoved == 0)
        #expect(FileManager.default.fileExists(atPath: outside + "/cd/" + victimName))
        #expect(FileManager.default.fileExists(atPath: outside + "/" + victimName))
    }

    @Test("a cache folder that group or others can write to, or that another user owns, is refused and left as it is")
    func untrustedCacheFolder() throws {
        let folder = TemporaryFolder()
        let directory = folder.file("cache")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(directory, 0o777) == 0)
        let cache = ThumbnailCache(path: directory)
        do {
            try cache.prepare()
            Issue.record("a 0777 cache folder was accepted")
        } catch let error as LibraryError {
            #expect(error.description.contains("group or others may write to it (mode 777)"), "\(error)")
        }
        var info = stat()
        #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o777)
        #expect(throws: LibraryError.self) {
            try cache.store(Self.jpeg, at: directory + "/0123456789abcdef/01/23/0123456789abcdef.jpg")
        }
        guard geteuid() == 0 else { return }
        #expect(chmod(directory, 0o700) == 0 && chown(directory, 65534, 65534) == 0)
        #expect(throws: LibraryError.self) { try cache.prepare() }
    }
}

@Suite("A full disk", .enabled(if: TinyDisk.isAvailable, "\(TinyDisk.unavailableMessage)"))
struct FullDiskTests {
    @Test("making thumbnails on a full cache disk says so, stops, and records no asset as failed",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func fullCache() throws {
        let folder = TemporaryFolder()
        let photos = folder.file("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        let bytes = try corpusBytes(ThumbnailTestFiles.jpegA)
        for index in 0..<20 { try Data(bytes + [UInt8(index)]).write(to: URL(fileURLWithPath: "\(photos)/\(index).jpg")) }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(photos)])
        let disk = try TinyDisk(kilobytes: 64)
        let cache = ThumbnailCache(path: disk.file("cache"))
        var options = ThumbnailBuildOptions()
        options.sizes = [1024]
        options.threads = 1
        do {
            _ = try library.with(cache).blocking.buildThumbnails(options)
            Issue.record("the build did not report the full disk")
        } catch let error as LibraryError {
            guard case .cacheDiskFull = error else { Issue.record("\(error)"); return }
            #expect(error.description.hasPrefix("the thumbnail cache's disk is full"))
        }
        #expect(try library.blocking.thumbnailFailures().isEmpty)
        // With room again, the same build makes them all.
        try disk.grow(toKilobytes: 16 * 1024)
        let summary = try library.with(cache).blocking.buildThumbnails(options)
        #expect(summary.failed == 0 && summary.made + summary.cached == 20)
    }

    @Test("creating a library on a full disk fails with a sentence, and the next run on a freed disk completes")
    func fullLibraryDisk() throws {
        // Small enough that creation fails part-way through the migrations.
        let disk = try TinyDisk(kilobytes: Self.creationFailingSize)
        let location = LibraryLocation(directory: disk.file("library"))
        do {
            _ = try MediaLibrary(location: location)
            Issue.record("creating a library on a \(Self.creationFailingSize) KB disk succeeded")
        } catch let error as LibraryError {
            #expect(error.description.contains("is full; free some space"), "\(error)")
        }
        try disk.grow(toKilobytes: 16 * 1024)
        let library = try MediaLibrary(location: location)
        #expect(try library.blocking.statistics().schemaVersion == DatabaseMigrator().latestVersion)
    }

    /// Measured: the migrations need more than this.
    static let creationFailingSize = 96
}

@Suite("Refusing foreign databases")
struct ForeignDatabaseTests {
    @Test("another application's user-state.sqlite beside a valid library is refused and left untouched")
    func foreignUserState() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("library"))
        _ = try MediaLibrary(location: location)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location.userStatePath + suffix) }
        do {
            let foreign = try DatabaseConnection(path: location.userStatePath, readOnly: false, create: true)
            try foreign.execute("PRAGMA journal_mode = DELETE")
            try foreign.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')")
        }
        let before = FileManager.default.contents(atPath: location.userStatePath)
        for mode in [MediaLibrary.AccessMode.create, .readOnly] {
            do {
                _ = try MediaLibrary(location: location, mode: mode)
                Issue.record("a foreign user-state.sqlite was adopted (\(mode))")
            } catch let error as LibraryError {
                #expect(error.description == "\(location.userStatePath) is not a MediaIndex library (it is a SQLite database of another application); it was left untouched")
            }
        }
        #expect(FileManager.default.contents(atPath: location.userStatePath) == before)
    }

    @Test("a user state written by an earlier MediaIndex, before stores were stamped, is still accepted")
    func legacyUserState() throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("library"))
        _ = try MediaLibrary(location: location)
        do {
            let store = try DatabaseConnection(path: location.userStatePath, readOnly: false)
            try store.execute("PRAGMA application_id = 0")
        }
        let library = try MediaLibrary(location: location)
        #expect(try library.blocking.statistics().assets == 0)
    }
}

@Suite("Database failures read as sentences")
struct DatabaseSentenceTests {
    @Test("each SQLite failure a user meets says what failed and what to do")
    func sentences() {
        let cantOpen = LibraryError.database(DatabaseError(extendedCode: 14, message: "unable to open database file",
                                                            path: "/srv/lib/library.sqlite"))
        #expect(cantOpen.description.hasPrefix("cannot open /srv/lib/library.sqlite: the folder /srv/lib must be readable and writable"))
        let readOnly = LibraryError.database(DatabaseError(extendedCode: 8, message: "attempt to write a readonly database",
                                                            path: "/srv/lib/user-state.sqlite"))
        #expect(readOnly.description.hasPrefix("cannot write to /srv/lib/user-state.sqlite: it or its folder /srv/lib is read-only"))
        #expect(!readOnly.description.hasPrefix("SQLite error"))
    }

    @Test("a query racing the library's creation says the library is being created")
    func racingCreation() async throws {
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("library"))
        _ = try MediaLibrary(location: location)
        // What a reader sees while another process has created user-state.sqlite but not its tables yet.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location.userStatePath + suffix) }
        FileManager.default.createFile(atPath: location.userStatePath, contents: Data())
        let library = try MediaLibrary(location: location, mode: .readOnly)
        do {
            _ = try await library.fetchAssets(FetchOptions())
            Issue.record("the query succeeded")
        } catch let error as LibraryError {
            #expect(error.description.contains("another process may be creating it right now; try again in a moment"), "\(error)")
        }
    }

    @Test("favorite on a read-only library says the library is read-only",
          .enabled(if: TinyDisk.isAvailable, "\(TinyDisk.unavailableMessage)"))
    func readOnlyLibrary() async throws {
        let disk = try TinyDisk(kilobytes: 16 * 1024)
        let location = LibraryLocation(directory: disk.file("library"))
        do { _ = try MediaLibrary(location: location) }
        try disk.setReadOnly(true)
        do {
            let library = try MediaLibrary(location: location)
            try await library.setFavorite(true, for: ["0000000000000"])
            Issue.record("a write to a read-only library succeeded")
        } catch let error as LibraryError {
            #expect(error.description.contains("read-only") || error.description.contains("must be readable and writable"), "\(error)")
            #expect(!error.description.hasPrefix("SQLite error"))
        }
    }
}

@Suite("Special files and the last run")
struct SkippedAndLastRunTests {
    @Test("a FIFO, a socket and a device named like media are skipped, each with its reason")
    func specialFiles() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(mkfifo(root + "/fifo.jpg", 0o644) == 0)
        #expect(mknod(root + "/socket.mov", S_IFSOCK | 0o644, 0) == 0)
        let device = geteuid() == 0 && mknod(root + "/device.heic", S_IFCHR | 0o644, dev_t((1 << 8) | 3)) == 0
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let summary = try library.blocking.index(roots: [PathBytes(root)])
        var expected = [
            SkippedFile(path: PathBytes(root + "/fifo.jpg"), reason: "a named pipe (FIFO), not a regular file: never opened"),
            SkippedFile(path: PathBytes(root + "/socket.mov"), reason: "a socket, not a regular file: never opened"),
        ]
        if device {
            expected.insert(SkippedFile(path: PathBytes(root + "/device.heic"),
                                        reason: "a character device, not a regular file: never opened"), at: 0)
        }
        #expect(summary.specialFiles == expected)
        #expect(summary.skipped == expected.count && summary.scanned == expected.count)
        #expect(try library.blocking.statistics().lastRun?.specialFiles == expected)
    }

    @Test("stats' last run is the run's own summary, moves included", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func lastRunMoves() throws {
        let folder = TemporaryFolder()
        let copies = try ThumbnailTestFiles.copy([ThumbnailTestFiles.jpegA, ThumbnailTestFiles.jpegB], into: folder.file("photos"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(folder.file("photos"))])
        try FileManager.default.createDirectory(atPath: folder.file("photos/moved"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: copies[0], toPath: folder.file("photos/moved/renamed.jpg"))
        let second = try library.blocking.index()
        #expect(second.moved == 1)
        #expect(try library.blocking.statistics().lastRun == second)
    }
}

@Suite("User-state writes during an index run",
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"),
       .enabled(if: FaultSupport.binary != nil, "build first: swift build (no .build/debug/mediaindex)"))
struct UserStateDuringIndexTests {
    @Test("100 favorites, hides and album edits made while another process indexes: none fails, none waits 100 ms")
    func writesDuringIndexRun() throws {
        // Synchronous throughout: an await could resume late while other suites hold the
        // shared pool, and the run would end before the writes begin.
        let folder = TemporaryFolder()
        let location = LibraryLocation(directory: folder.file("library"))
        try FaultSupport.makeTree(at: folder.file("first"), count: 20)
        let library = try MediaLibrary(location: location)
        try library.blocking.index(roots: [PathBytes(folder.file("first"))])
        let ids = try library.assets().map(\.id)
        try #require(ids.count == 20)
        let album = try library.blocking.createAlbum(title: "During the run")
        let big = folder.file("big")
        try FaultSupport.makeTree(at: big, count: 8000)

        // Another process indexes, in small batches: many write transactions.
        let arguments = ["index", "--quiet", "--batch-size", "4", "--library", location.directory, big]
        let child = try FaultSupport.spawn(arguments.map { Array($0.utf8) }, stdout: folder.file("out"), stderr: folder.file("err"))
        // Wait until it commits its first batches.
        let clock = ContinuousClock()
        let startedBy = clock.now + .seconds(60)
        while clock.now < startedBy {
            let committed = try library.read { db in
                try db.scalarInt("SELECT count(*) FROM files f JOIN roots r ON r.id = f.root_id WHERE r.path = ?",
                                 [Array(big.utf8)]) ?? 0
            }
            if committed > 0 { break }
            usleep(20_000)
        }

        var failures: [String] = []
        var slowest = Duration.zero
        var exited = false
        for index in 0..<100 {
            // Only writes made while the run goes on count.
            if !child.isRunning { exited = true; break }
            // Every other write from a freshly opened library, as a separate `mediaindex favorite` would.
            let writer = index % 2 == 0 ? library : try MediaLibrary(location: location)
            let id = ids[index % ids.count]
            let start = clock.now
            do {
                switch index % 4 {
                // Synchronous calls: the time measured is the write's, not a wait for the
                // shared pool to resume this task while other suites hold its threads.
                case 0: try writer.blocking.setFavorite(index % 8 == 0, for: [id])
                case 1: try writer.blocking.setHidden(index % 8 == 1, for: [id])
                case 2: _ = try writer.blocking.addAssets([id], toAlbum: album.id)
                default: try writer.blocking.removeAssets([id], fromAlbum: album.id)
                }
            } catch {
                failures.append("write \(index): \(error)")
            }
            slowest = max(slowest, clock.now - start)
        }
        let stillRunning = !exited && child.isRunning
        let exit = child.wait().shellStatus
        #expect(exit == 0, "\((try? String(contentsOfFile: folder.file("err"), encoding: .utf8)) ?? "")")
        #expect(stillRunning, "the index run ended before the 100 writes did; the test proves nothing")
        #expect(failures.isEmpty, "\(failures)")
        #expect(slowest < .milliseconds(100), "the slowest user-state write took \(slowest)")
    }
}

/// Copies of corpus files at the given relative paths under `root`, each made its own
/// content by a trailing byte.
private func tree(_ files: [(source: String, name: String)], at root: String) throws {
    for (index, file) in files.enumerated() {
        let target = root + "/" + file.name
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try write(try corpusBytes(file.source) + [UInt8(index)], toPathBytes: Array(target.utf8))
    }
}

@Suite("Album titles")
struct AlbumTitleTests {
    @Test("titles are unique case aside: a second create is refused naming the album that has the title")
    func uniqueTitles() async throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let first = try await library.createAlbum(title: "Summer 2024")
        await #expect(throws: AssetQueryError.albumTitleTaken(title: "Summer 2024", albumID: first.id)) {
            try await library.createAlbum(title: " summer 2024 ")
        }
        let other = try await library.createAlbum(title: "Winter")
        await #expect(throws: AssetQueryError.albumTitleTaken(title: "Summer 2024", albumID: first.id)) {
            try await library.renameAlbum(other.id, to: "SUMMER 2024")
        }
        try await library.renameAlbum(try await library.userAlbumID(named: "summer 2024"), to: "Summer 2024 (Brittany)")
        #expect(try await library.fetchAlbums().filter { $0.kind == .user }.map(\.title) == ["Summer 2024 (Brittany)", "Winter"])
    }

    @Test("an ambiguous title, from before titles were unique, names every album that has it")
    func ambiguousTitles() async throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let first = try await library.createAlbum(title: "Trip")
        try library.userStateWriter!.write { db in
            try db.execute("INSERT INTO userstate.albums (identifier, title, created_at, modified_at) VALUES ('zzzzzzzzzzzzz', 'trip', 9e9, 9e9)")
        }
        let expected = AssetQueryError.ambiguousAlbumTitle(title: "TRIP", albumIDs: [first.id, "user.zzzzzzzzzzzzz"])
        await #expect(throws: expected) { try await library.albumScope(named: "TRIP") }
        await #expect(throws: expected) { try await library.userAlbumID(named: "TRIP") }
        #expect(expected.description == "2 albums are titled TRIP: \(first.id), user.zzzzzzzzzzzzz; name the album by its id")
    }
}

@Suite("Camera names")
struct CameraNameTests {
    @Test("known makes get their usual names and a repeated make leaves the model")
    func normalisation() {
        #expect(CameraNames.make("NIKON CORPORATION") == "Nikon")
        #expect(CameraNames.make("OLYMPUS IMAGING CORP.") == "Olympus")
        #expect(CameraNames.make("samsung") == "Samsung")
        #expect(CameraNames.make(" Leica Camera AG ") == "Leica")
        #expect(CameraNames.make("Zeiss Ikon") == "Zeiss Ikon")
        #expect(CameraNames.make("  ") == nil)
        #expect(CameraNames.model("Canon EOS 6D", make: "Canon") == "EOS 6D")
        #expect(CameraNames.model("NIKON D750", make: "NIKON CORPORATION") == "D750")
        #expect(CameraNames.model("KODAK DC290 ZOOM DIGITAL CAMERA", make: "EASTMAN KODAK COMPANY") == "DC290 ZOOM DIGITAL CAMERA")
        #expect(CameraNames.model("E-M1", make: "OLYMPUS IMAGING CORP.") == "E-M1")
        #expect(CameraNames.model("Canon", make: "Canon") == "Canon")
    }

    @Test("--make and --model match the normalised names, case aside; cameras() counts them",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func matching() async throws {
        let folder = TemporaryFolder()
        let files = ["exiftool-t-images/t/images/NikonD2Hs.jpg", "exiftool-t-images/t/images/Nikon.jpg",
                     "exiv2-test-data/test/data/exiv2-bug876.jpg", "exiftool-t-images/t/images/OlympusE1.jpg"]
        try tree(files.enumerated().map { ($1, "p/\($0).jpg") }, at: folder.file("photos"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(folder.file("photos"))])
        func models(_ change: (inout FetchOptions) -> Void) async throws -> [String] {
            var options = FetchOptions()
            change(&options)
            return try await library.fetchAssets(options).assets.compactMap(\.model).sorted()
        }
        let reference = files.map { (Corpus.exiftool[$0]?["IFD0:Make"]?.string, Corpus.exiftool[$0]?["IFD0:Model"]?.string) }
        #expect(reference[0].0 == "NIKON CORPORATION" && reference[1].0 == "NIKON")
        #expect(try await models { $0.make = "nikon" } == [reference[0].1, reference[1].1].compactMap { $0 }.sorted())
        #expect(try await models { $0.model = "eos 6d" } == ["Canon EOS 6D"])
        #expect(try await models { $0.model = "Canon EOS 6D" } == ["Canon EOS 6D"])
        #expect(try await models { $0.make = "Olympus"; $0.model = "e-1" } == ["E-1"])
        let assets = try await library.fetchAssets(FetchOptions()).assets
        let canon = try #require(assets.first { $0.model == "Canon EOS 6D" })
        #expect(canon.make == "Canon" && canon.cameraMake == "Canon" && canon.cameraModel == "EOS 6D")
        let cameras = try await library.cameras()
        #expect(cameras.map(\.make) == ["Nikon", "Canon", "Olympus"])
        #expect(cameras.first?.count == 2)
        #expect(cameras.first?.models.map(\.model).sorted { ($0 ?? "") < ($1 ?? "") } == ["D2Hs", "E775"])
    }
}

@Suite("Folder albums with their subfolders", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct RecursiveFolderAlbumTests {
    @Test("AlbumScope.folder(_, recursive: true) covers the subfolders; the album list reports both counts")
    func recursive() async throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        let jpeg = ThumbnailTestFiles.jpegA
        try tree([(jpeg, "2024/a.jpg"), (jpeg, "2024/june/b.jpg"), (jpeg, "2024/june/week1/c.jpg"),
                  (jpeg, "2024/july/d.jpg"), (jpeg, "2025/e.jpg")], at: root)
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(root)])
        func count(_ scope: AlbumScope) async throws -> Int {
            var options = FetchOptions()
            options.album = scope
            return try await library.fetchAssets(options).assets.count
        }
        let year = PathBytes(try MediaLibrary.resolveRoot(PathBytes(root)).displayString + "/2024")
        #expect(try await count(.folder(year)) == 1)
        #expect(try await count(.folder(year, recursive: true)) == 4)
        #expect(try await library.countAssets({ var o = FetchOptions(); o.album = .folder(year, recursive: true); return o }()).total == 4)
        let albums = try await library.fetchAlbums().filter { $0.kind == .folder }
        let byPath = Dictionary(uniqueKeysWithValues: albums.compactMap { album in album.path.map { ($0.displayString, album) } })
        #expect(byPath[year.displayString]?.count == 1)
        #expect(byPath[year.displayString]?.countWithSubfolders == 4)
        #expect(byPath[year.displayString + "/june"]?.countWithSubfolders == 2)
        #expect(byPath[year.displayString + "/july"]?.countWithSubfolders == 1)
        // A folder holding only folders is no album, but can be asked for with its subfolders.
        let top = try MediaLibrary.resolveRoot(PathBytes(root)).displayString
        let scope = try await library.albumScope(named: top, recursive: true)
        #expect(try await count(scope) == 5)
        await #expect(throws: AssetQueryError.self) { try await library.albumScope(named: "favorites", recursive: true) }
    }
}

@Suite("Paper cuts of the library")
struct LibraryPaperCutTests {
    @Test("an unclosed parenthesis is reported at its own column")
    func unclosedParenthesis() {
        #expect(throws: MediaFilterParseError(column: 1, message: "expected ')' to close the '(' at column 1, but the expression ends")) {
            try MediaFilter(parsing: "(images")
        }
        #expect(throws: MediaFilterParseError(column: 10, message: "expected ')' to close the '(' at column 10, but the expression ends")) {
            try MediaFilter(parsing: "images & (videos | livePhotos")
        }
    }

    @Test("a token newer than any change is not called expired")
    func futureToken() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let current = try library.blocking.currentChangeToken()
        do {
            _ = try library.blocking.changes(since: 99_999)
            Issue.record("a future token was answered")
        } catch let error as LibraryError {
            #expect(error == .changeTokenFromTheFuture(token: 99_999, current: current))
            #expect(!error.description.contains("expired"))
        }
    }

    @Test("pairing's updates name their fields, and a first run reports no update of what it inserted",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func pairingUpdates() throws {
        let scratch = PairingTree()
        try scratch.copy("synthetic/raw-jpeg/IMG_7008.JPG", to: "r/IMG_7008.jpg")
        try scratch.copy("synthetic/raw-jpeg/IMG_7008.DNG", to: "r/IMG_7008.DNG")
        let library = try MediaLibrary(location: scratch.library)
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let first = try library.blocking.changes(since: 0).changes
        let inserted = Set(first.filter { $0.kind == .inserted }.map(\.id))
        #expect(!inserted.isEmpty)
        #expect(first.filter { $0.kind == .updated && inserted.contains($0.id) }.isEmpty, "\(first)")
        #expect(first.allSatisfy { $0.kind != .updated || !$0.fields.isEmpty }, "\(first)")

        // The RAW leaves and comes back: the JPEG's asset is updated, naming what changed.
        let token = try library.blocking.currentChangeToken()
        try scratch.remove("r/IMG_7008.DNG")
        try library.blocking.index()
        try scratch.copy("synthetic/raw-jpeg/IMG_7008.DNG", to: "r/IMG_7008.DNG")
        try library.blocking.index()
        let later = try library.blocking.changes(since: token).changes.filter { $0.kind == .updated }
        #expect(!later.isEmpty)
        #expect(later.allSatisfy { !$0.fields.isEmpty && Set($0.fields.map(\.rawValue)).isSubset(of: ["mediaSubtypes", "pairingRule", "burstRepresentative"]) },
                "\(later)")
    }

    @Test("add counts only the assets it added; move says where they landed", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func addAndMoveCounts() async throws {
        let folder = TemporaryFolder()
        try tree([(ThumbnailTestFiles.jpegA, "a.jpg"), (ThumbnailTestFiles.jpegB, "b.jpg")], at: folder.file("photos"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        try library.blocking.index(roots: [PathBytes(folder.file("photos"))])
        let ids = try library.assets().map(\.id)
        let album = try await library.createAlbum(title: "Two")
        #expect(try await library.addAssets(ids, toAlbum: album.id) == 2)
        #expect(try await library.addAssets([ids[0]], toAlbum: album.id) == 0)
        #expect(try await library.moveAssets([ids[0]], inAlbum: album.id, to: 99) == 1)
    }
}
