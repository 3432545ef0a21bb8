import CorpusSupport
import Foundation
import MediaMetadata
import Synchronization
import Testing
@testable import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// Hostile trees, files changing under the scan, a full disk, odd names.
@Suite("Faults: files and the database", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FaultFileTests {
    private func rows(_ library: MediaLibrary, _ sql: String) throws -> [Row] {
        try library.read { db in try db.rows(sql) }
    }

    @Test("readers querying during an index run are never blocked long and never see half a batch")
    func queriesDuringIndexRun() throws {
        let folder = TemporaryFolder()
        try FaultSupport.makeTree(at: folder.file("photos"), count: 1_000)
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        var batched = MediaLibrary.IndexOptions()
        batched.batchSize = 16
        let options = batched
        let photos = PathBytes(folder.file("photos"))
        // A plain thread: the cooperative pool may be busy with other suites.
        let finished = FinishedFlag()
        let outcome = Mutex<Result<IndexSummary, any Error>?>(nil)
        Thread {
            let result = Result { try library.blocking.index(roots: [photos], options: options) }
            outcome.withLock { $0 = result }
            finished.set()
        }.start()
        var reads = 0
        var slowest: Duration = .zero
        var inconsistent = 0
        let clock = ContinuousClock()
        repeat {
            let start = clock.now
            let counts = try library.read { db in
                try db.row("""
                    SELECT (SELECT count(*) FROM files WHERE status = 'media') AS media,
                           (SELECT count(DISTINCT asset_id) FROM files WHERE status = 'media') AS referenced,
                           (SELECT count(*) FROM assets) AS assets
                    """)
            }
            slowest = max(slowest, clock.now - start)
            reads += 1
            let referenced = counts?.int("referenced") ?? -1
            if referenced != counts?.int("assets") || (counts?.int("media") ?? 0) < referenced { inconsistent += 1 }
            usleep(500)
        } while !finished.isSet
        let summary = try #require(outcome.withLock { $0 }).get()
        #expect(summary.added == 1_000)
        #expect(reads > 20, "the reads should overlap the run")
        #expect(inconsistent == 0, "\(inconsistent) of \(reads) reads saw files and assets disagree")
        #expect(slowest < .milliseconds(250), "slowest read \(slowest)")
        print("queries during index: \(reads) reads, slowest \(slowest), \(inconsistent) inconsistent")
    }

    @Test("mode 000 files and folders are errors and the run goes on (under root, checked by running as nobody)")
    func unreadableFiles() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 20)
        // The second file of the tree, whatever kind the corpus gave it.
        let unreadable = try #require(try FileManager.default.contentsOfDirectory(atPath: root + "/d0")
            .first { $0.hasPrefix("f1.") }.map { root + "/d0/" + $0 })
        chmod(unreadable, 0)
        try FileManager.default.createDirectory(atPath: root + "/locked", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/d0/f0.jpg", toPath: root + "/locked/x.jpg")
        chmod(root + "/locked", 0)
        defer { chmod(root + "/locked", 0o755) }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let summary = try library.blocking.index(roots: [PathBytes(root)])
        if FaultSupport.isRoot {
            // Root reads mode 000 anyway: the run completes with everything read, and the
            // real check runs the built binary as `nobody`, for whom mode 000 is a wall.
            #expect(summary.added == 21)
            chmod(folder.path, 0o755)
            let home = folder.file("nobody")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            chmod(home, 0o777)
            let asNobody = { (arguments: [String]) in
                try FaultSupport.runAsNobody(arguments + ["--library", home + "/library"], in: folder)
            }
            guard let help = try FaultSupport.runAsNobody(["--help"], in: folder), help.status == 0 else {
                print("unreadable files: running as root and `nobody` cannot run \(FaultSupport.binary ?? "the binary") "
                      + "(setpriv missing or the build folder is private); checked only that the run completes")
                return
            }
            let run = try #require(try asNobody(["index", "--quiet", "--cache", home + "/cache", root]))
            #expect(run.status == 0, "\(run.stderr)")
            let errors = try #require(try asNobody(["errors", "--json"]))
            #expect(errors.stdout.contains(unreadable), "\(errors.stdout)")
            #expect(errors.stdout.contains(root + "/locked"), "\(errors.stdout)")
            let stats = try #require(try asNobody(["stats", "--json"]))
            print("unreadable files, indexed as nobody: \(errors.stdout.count) bytes of errors; stats: \(stats.stdout.prefix(200))")
        } else {
            let errors = try library.blocking.errors().map(\.path.displayString)
            #expect(errors.contains(unreadable))
            #expect(errors.contains(root + "/locked"))
            #expect(summary.added == 19)
        }
    }

    @Test("a FIFO or device swapped in after the walk is an error, not a blocked open")
    func fifoIsNotOpenedBlocking() throws {
        let folder = TemporaryFolder()
        let fifo = folder.file("clip.mov")
        try #require(mkfifo(fifo, 0o644) == 0)
        // The walk skips special files; the read of a stale entry must not block.
        var info = stat()
        try #require(lstat(fifo, &info) == 0)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = FileReader.read(FileWalker.Entry(path: PathBytes(fifo), stat: FileStat(info)), beneath: nil)
        #expect(clock.now - start < .seconds(1))
        guard case .failed(let message) = outcome else { Issue.record("expected an error, got \(outcome)"); return }
        #expect(message.contains("not a regular file"))
        // And an index of the folder skips it, counted as skipped with its reason (issue 13).
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let summary = try library.blocking.index(roots: [PathBytes(folder.path)])
        #expect(summary.scanned == 1 && summary.skipped == 1)
        #expect(summary.specialFiles.map(\.reason) == ["a named pipe (FIFO), not a regular file: never opened"])
    }

    @Test("symlink loops and links out of the root are not followed")
    func symlinks() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 5)
        let outside = folder.file("outside")
        try FaultSupport.makeTree(at: outside, count: 3)
        symlink(".", root + "/loop")
        symlink("../d0", root + "/d0/parent-loop")
        symlink(outside, root + "/outside-folder")
        symlink(outside + "/d0/f0.jpg", root + "/outside-file.jpg")
        symlink(root + "/missing.jpg", root + "/dangling.jpg")
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let summary = try library.blocking.index(roots: [PathBytes(root)])
        #expect(summary.scanned == 5)
        let paths = try rows(library, "SELECT path FROM files").map { String(decoding: $0.blob("path") ?? [], as: UTF8.self) }
        #expect(paths.allSatisfy { $0.hasPrefix(root + "/d0/f") }, "\(paths)")
    }

    @Test("files deleted, replaced and growing during the scan: the run completes and the next one records the final state")
    func filesChangingDuringScan() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 200)
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        var options = MediaLibrary.IndexOptions()
        options.batchSize = 16
        let otherKind = try #require(try FileManager.default.contentsOfDirectory(atPath: root + "/d0").sorted()
            .first { !$0.hasSuffix(".jpg") })
        let replacement = try #require(FileManager.default.contents(atPath: root + "/d0/" + otherKind))
        let later = try FileManager.default.contentsOfDirectory(atPath: root + "/d1").sorted().map { root + "/d1/" + $0 }
        let (deleted, replaced, grower) = (later[0], later[1], later[later.count - 1])
        let changed = ChangeOnce {
            // After the first batch is committed, change files not yet read (paths sort d1 after d0).
            unlink(deleted)
            _ = try? replacement.write(to: URL(fileURLWithPath: replaced))  // other content, maybe another format
            if let handle = FileHandle(forWritingAtPath: grower) {
                handle.seekToEndOfFile(); handle.write(Data(repeating: 7, count: 4096)); handle.closeFile()
            }
        }
        let first = try library.blocking.index(roots: [PathBytes(root)], options: options) { progress in
            if progress.phase == .reading { changed.run() }
        }
        #expect(first.scanned == 200)
        #expect(first.added + first.failed + first.updated == 200)
        // Growing again after the run: the next run must pick up the final size.
        if let handle = FileHandle(forWritingAtPath: grower) {
            handle.seekToEndOfFile(); handle.write(Data(repeating: 9, count: 1000)); handle.closeFile()
        }
        let second = try library.blocking.index()
        #expect(second.removed >= 1)
        let recorded = try rows(library, "SELECT path, size, status FROM files")
        #expect(recorded.count == 199)
        for row in recorded {
            let path = String(decoding: row.blob("path") ?? [], as: UTF8.self)
            let actual = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            #expect(row.int("size") == actual, "\(path): recorded \(row.int("size") ?? -1), on disk \(actual ?? -1)")
            #expect(row.string("status") == "media", "\(path)")
        }
        let third = try library.blocking.index()
        #expect(third.opened == 0)
    }

    @Test("a folder of many files (MEDIAINDEX_STRESS_FILES, default 20,000) indexes, and re-indexes opening nothing")
    func largeFolder() throws {
        let count = Int(ProcessInfo.processInfo.environment["MEDIAINDEX_STRESS_FILES"] ?? "") ?? 20_000
        let folder = TemporaryFolder()
        let root = folder.file("many")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // One flat folder of tiny distinct GIFs, the cheapest media to write.
        let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0] + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B]
        for index in 0..<count {
            var bytes = gif
            withUnsafeBytes(of: UInt64(index).littleEndian) { bytes.append(contentsOf: $0) }
            try FaultSupport.writeFile(root + "/img\(index).gif", bytes)
        }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let clock = ContinuousClock()
        let start = clock.now
        let first = try library.blocking.index(roots: [PathBytes(root)])
        let firstTime = clock.now - start
        #expect(first.scanned == count)
        #expect(first.added == count, "failed \(first.failed), skipped \(first.skipped)")
        let again = clock.now
        let second = try library.blocking.index()
        #expect(second.opened == 0 && second.unchanged == count)
        print("large folder: \(count) files indexed in \(firstTime), re-indexed in \(clock.now - again)")
    }

    @Test("a 10 GB sparse .mov is not read whole")
    func sparseHugeMovie() throws {
        let folder = TemporaryFolder()
        let root = folder.file("videos")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // All zeros, and a real movie head followed by ten gigabytes of holes.
        let media = try #require(Corpus.media)
        let movie = try #require(FaultSupport.smallCorpusFiles.first { $0.lowercased().hasSuffix(".mov") || $0.lowercased().hasSuffix(".mp4") })
        let head = try #require(FileManager.default.contents(atPath: media.path + "/" + movie))
        try Data().write(to: URL(fileURLWithPath: root + "/zeros.mov"))
        try head.prefix(4096).write(to: URL(fileURLWithPath: root + "/head.mov"))
        for name in ["zeros.mov", "head.mov"] { #expect(truncate(root + "/" + name, 10 << 30) == 0) }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let clock = ContinuousClock()
        let start = clock.now
        let summary = try library.blocking.index(roots: [PathBytes(root)])
        let elapsed = clock.now - start
        #expect(summary.scanned == 2)
        #expect(summary.added + summary.failed == 2)
        #expect(elapsed < .seconds(2), "indexing two 10 GB sparse files took \(elapsed)")
        print("sparse 10 GB .mov: indexed in \(elapsed); errors: \(try library.blocking.errors().map(\.message))")
    }

    @Test("a full disk (max_page_count) fails with a clear error, corrupts nothing, and the next run works")
    func diskFull() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 400)
        let location = LibraryLocation(directory: folder.file("library"))
        let library = try MediaLibrary(location: location)
        let pages = try library.read { db in try db.scalarInt("PRAGMA page_count") } ?? 0
        var options = MediaLibrary.IndexOptions()
        options.batchSize = 16
        options.maxPageCount = pages + 8
        #expect {
            try library.blocking.index(roots: [PathBytes(root)], options: options)
        } throws: { error in
            "\(error)".contains("full")
        }
        #expect(try FaultSupport.integrityCheck(location) == "ok")
        let committed = try FaultSupport.committed(location)
        let summary = try library.blocking.index()
        #expect(summary.added + committed.count == 400, "added \(summary.added) after \(committed.count) committed")
        #expect(try FaultSupport.committed(location).count == 400)
        #expect(try FaultSupport.integrityCheck(location) == "ok")
        for (path, identifier) in committed { #expect(try FaultSupport.committed(location)[path] == identifier) }
    }

    @Test("names with non-UTF-8 bytes, newlines, a leading dash, 255 bytes, NFC/NFD twins are indexed, shown and resolvable")
    func oddNames() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 1)
        let source = try #require(FileManager.default.contents(atPath: root + "/d0/f0.jpg"))
        let names: [[UInt8]] = [
            Array("caf".utf8) + [0xE9] + Array(".jpg".utf8),               // Latin-1 é: not UTF-8
            [0xFF, 0xFE] + Array(".jpg".utf8),
            Array("two\nlines.jpg".utf8),
            Array("-rf.jpg".utf8),
            Array(repeating: UInt8(ascii: "x"), count: 251) + Array(".jpg".utf8),  // 255 bytes
            Array("caf\u{E9}-twin.jpg".utf8),                                       // NFC
            Array("cafe\u{301}-twin.jpg".utf8),                                     // NFD
        ]
        var paths: [PathBytes] = []
        for (index, name) in names.enumerated() {
            let path = PathBytes(root).appending(name)
            var bytes = Array(source)
            bytes.append(UInt8(index))  // distinct contents
            let written = path.withCString { pointer -> Bool in
                let fd = open(pointer, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                guard fd >= 0 else { return false }
                defer { close(fd) }
                return write(fd, bytes, bytes.count) == bytes.count
            }
            #expect(written, "cannot create \(name)")
            paths.append(path)
        }
        let location = LibraryLocation(directory: folder.file("library"))
        let library = try MediaLibrary(location: location)
        let summary = try library.blocking.index(roots: [PathBytes(root)])
        #expect(summary.added == names.count + 1)
        var identifiers = Set<String>()
        for path in paths {
            let asset = try library.blocking.asset(path: path)
            #expect(asset != nil, "\(path.displayString) not resolvable")
            guard let asset else { continue }
            identifiers.insert(asset.id.rawValue)
            #expect(try library.blocking.asset(id: asset.id)?.resources.first?.path == path)
            if FaultSupport.binary != nil {
                let shown = try FaultSupport.run([Array("show".utf8), Array("--library".utf8), Array(location.directory.utf8),
                                                  path.bytes], in: folder)
                #expect(shown.status == 0, "show \(path.displayString): \(shown.stderr)")
                #expect(shown.stdout.contains(asset.id.rawValue))
            }
        }
        #expect(identifiers.count == names.count, "the twins and the odd names are distinct assets")
    }
}

/// Runs a closure once, from whichever thread calls first.
private final class ChangeOnce: Sendable {
    private let done = Mutex(false)
    private let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    func run() {
        let first = done.withLock { done in defer { done = true }; return !done }
        if first { body() }
    }
}

private final class FinishedFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
