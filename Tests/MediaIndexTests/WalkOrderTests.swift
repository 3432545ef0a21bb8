import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// Makes a file or folder at a path given as bytes (names need not be UTF-8).
private func make(_ path: [UInt8], folder: Bool = false) throws {
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    if folder {
        try #require(cPath.withUnsafeBufferPointer { mkdir($0.baseAddress!, 0o755) } == 0)
        return
    }
    let fd = cPath.withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    try #require(fd >= 0, "cannot create \(String(decoding: path, as: UTF8.self))")
    _ = write(fd, "x", 1)
    close(fd)
}

/// Every file a walk of `root` gives, in the order given.
private func walkAll(_ root: String) -> (paths: [[UInt8]], walk: FileWalker.Walk) {
    var walk = FileWalker().walk(PathBytes(root))
    var paths: [[UInt8]] = []
    while let entry = walk.next() { paths.append(entry.path.bytes) }
    return (paths, walk)
}

@Suite("Walk in path order")
struct WalkOrderTests {
    @Test("a walk gives every file once, in byte order of its whole path, whatever the folders' names")
    func byteOrder() throws {
        let folder = TemporaryFolder()
        let root = Array(folder.file("tree").utf8)
        func at(_ relative: [UInt8]) -> [UInt8] { root + [UInt8(ascii: "/")] + relative }
        // `-` (0x2D) and `.` (0x2E) sort before `/` (0x2F), `0` (0x30) after it, 0xFF after every
        // ASCII byte: a folder's files are not all before or after its sub-folders' files.
        let folders: [[UInt8]] = [[], Array("a".utf8), Array("a/a".utf8), Array("a-".utf8), Array("b".utf8) + [0xFF],
                                  Array("B".utf8), Array("a/a/deep".utf8)]
        let files: [[UInt8]] = [
            Array("a-b".utf8), Array("a.b".utf8), Array("a0".utf8), Array("a/x".utf8), Array("a/a-z".utf8),
            Array("a/a/y".utf8), Array("a/a/deep/z".utf8), Array("a/a0".utf8), Array("a-/q".utf8),
            Array("b".utf8) + [0xFF] + Array("/inside".utf8), Array("b".utf8), Array("b".utf8) + [0xFE],
            Array("B/upper".utf8), Array("c".utf8),
        ]
        for relative in folders { try make(relative.isEmpty ? root : at(relative), folder: true) }
        for relative in files { try make(at(relative)) }

        let (paths, walk) = walkAll(String(decoding: root, as: UTF8.self))
        // The order `memcmp` gives, shorter first on a common prefix (as SQLite orders BLOBs).
        let expected = files.map(at).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(paths == expected)
        #expect(walk.unreadableFolders.isEmpty)
    }

    @Test("links are counted and never followed (a loop ends), special and hidden files are counted, never given")
    func linksAndSpecialFiles() throws {
        let folder = TemporaryFolder()
        let root = folder.file("tree")
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try make(Array((root + "/sub/photo.jpg").utf8))
        try make(Array((root + "/.hidden").utf8))
        #expect(symlink(root, root + "/sub/loop") == 0)
        #expect(symlink(root + "/sub/photo.jpg", root + "/link.jpg") == 0)
        #expect(mkfifo(root + "/pipe", 0o644) == 0)

        let (paths, walk) = walkAll(root)
        #expect(paths == [Array((root + "/sub/photo.jpg").utf8)])
        #expect(walk.skippedSymlinks == 2 && walk.skippedHidden == 1 && walk.skippedSpecial == 1)
        #expect(walk.specialFiles.map(\.path) == [PathBytes(root + "/pipe")])
        #expect(walk.specialFiles.first?.kind == "a named pipe (FIFO)")
    }

    @Test("a root that does not exist is an unreadable folder with the system's reason, and gives no file")
    func missingRoot() {
        let folder = TemporaryFolder()
        let (paths, walk) = walkAll(folder.file("absent"))
        #expect(paths.isEmpty)
        #expect(walk.unreadableFolders.map(\.path) == [PathBytes(folder.file("absent"))])
        #expect(walk.unreadableFolders.first?.reason == "No such file or directory")
    }

    @Test("the files to read come back from the temporary file in order, with their rows and fingerprints, and leave no file")
    func toReadListRoundTrip() throws {
        let folder = TemporaryFolder()
        let list = ToReadList(spillFolder: folder.path, heldLimit: 2)
        var works: [Indexer.Work] = []
        for index in 0..<7 {
            let path = PathBytes(Array("/photos/\(index)-".utf8) + [0xFF, 0x00 + UInt8(index)])
            let stat = FileStat(size: Int64(index * 1000), modificationNanoseconds: 1_700_000_000_123_456_789 + Int64(index),
                                inode: UInt64.max - UInt64(index), device: 2049)
            var work = Indexer.Work(entry: FileWalker.Entry(path: path, stat: stat), rootID: Int64(index % 2 + 1))
            if index % 3 == 1 {
                work.known = FileRecord.Known(
                    id: Int64(100 + index), rootID: 1, path: path,
                    stat: FileStat(size: -1, modificationNanoseconds: 5, inode: 7, device: 0),
                    status: index == 4 ? .media : nil, assetID: index == 4 ? 42 : nil,
                    fingerprint: index == 4 ? "00ff:1234" : nil, role: index == 4 ? .pairedVideo : nil)
            }
            works.append(work)
            list.append(work)
        }
        let fingerprint = ContentFingerprint(size: 3000, hash: 0xDEAD_BEEF)
        list.setFingerprint(fingerprint, at: 1)
        list.setFingerprint(fingerprint, at: 5)
        works[1].fingerprint = fingerprint
        works[5].fingerprint = fingerprint
        // Written out and unlinked at once: nothing in the folder, even while the list lives.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)

        for pass in 0..<2 {
            var back: [Indexer.Work] = []
            list.forEachChunk(size: 3) { start, chunk in
                #expect(start == back.count)
                back += chunk
            }
            #expect(back.count == works.count, "pass \(pass)")
            for (got, sent) in zip(back, works) {
                #expect(got.entry.path == sent.entry.path && got.entry.stat == sent.entry.stat && got.rootID == sent.rootID)
                #expect(got.fingerprint == sent.fingerprint)
                #expect(got.known?.id == sent.known?.id && got.known?.rootID == sent.known?.rootID)
                #expect(got.known?.stat == sent.known?.stat && got.known?.path == sent.known?.path)
                #expect(got.known?.status == sent.known?.status && got.known?.assetID == sent.known?.assetID)
                #expect(got.known?.fingerprint == sent.known?.fingerprint && got.known?.role == sent.known?.role)
            }
        }
    }
}

private let jpegA = "ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg"
private let jpegB = "ianare-exif-samples/jpg/Canon_40D.jpg"
private let jpegC = "immich-test-assets/albums/nature/tanners_ridge.jpg"

@Suite("Index run with the files to read on disk", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ToReadSpillTests {
    /// What a run did, without its timings.
    private func counts(_ s: IndexSummary) -> [Int] {
        [s.scanned, s.added, s.updated, s.moved, s.removed, s.unchanged, s.failed, s.skipped, s.opened, s.paired]
    }

    /// Each asset's identifier by the path of its primary file.
    private func identifiers(_ library: MediaLibrary, root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for asset in try library.assets() {
            for resource in asset.resources { result[resource.path.displayString] = asset.id.rawValue }
        }
        return result
    }

    /// The same runs on a library holding one file to read in memory and on one holding all.
    private func runs(held: Int) throws -> (summaries: [[Int]], identifiers: [[String: String]], scratch: ScratchLibrary) {
        let scratch = try ScratchLibrary()
        for copy in 0..<4 {
            try scratch.add(jpegA, as: "\(copy)/a.jpg")
            try scratch.add(jpegB, as: "\(copy)/b.jpg")
            try FileManager.default.createDirectory(atPath: scratch.root + "/\(copy)-notes", withIntermediateDirectories: true)
            try Data("not a picture".utf8).write(to: URL(fileURLWithPath: scratch.root + "/\(copy)-notes/readme.txt"))
        }
        var options = MediaLibrary.IndexOptions()
        options.heldFilesToRead = held
        options.batchSize = 3
        let library = try scratch.open()
        var summaries: [[Int]] = [], identifiers: [[String: String]] = []
        func index(_ roots: [PathBytes] = []) throws {
            summaries.append(counts(try library.blocking.index(roots: roots, options: options)))
            identifiers.append(try self.identifiers(library, root: scratch.root))
        }
        try index([PathBytes(scratch.root)])
        try index()
        // A move, an edit in place, a new file, a removal: identifiers follow content.
        try scratch.move("0/a.jpg", to: "9/moved.jpg")
        Thread.sleep(forTimeInterval: 0.01)
        try scratch.edit("1/b.jpg")
        try scratch.add(jpegC, as: "2/c.jpg")
        try scratch.remove("3/b.jpg")
        try index()
        return (summaries, identifiers, scratch)
    }

    @Test("a run whose files to read wait on disk makes the same library as one holding them all")
    func sameAsInMemory() throws {
        let onDisk = try runs(held: 1)
        let inMemory = try runs(held: 1000)
        #expect(onDisk.summaries == inMemory.summaries)
        // 8 JPEGs and 4 text files: all read at first, none the second time.
        #expect(onDisk.summaries[0] == [12, 8, 0, 0, 0, 0, 0, 4, 12, 0])
        #expect(onDisk.summaries[1][5] == 12 && onDisk.summaries[1][8] == 0)
        // The third: the move kept its asset, the edit kept its own, one new, one removed.
        #expect(onDisk.summaries[2][3] == 1 && onDisk.summaries[2][1] == 1 && onDisk.summaries[2][4] == 1)
        let root = onDisk.scratch.root
        #expect(onDisk.identifiers[2][root + "/9/moved.jpg"] == onDisk.identifiers[0][root + "/0/a.jpg"])
        #expect(onDisk.identifiers[2][root + "/1/b.jpg"] == onDisk.identifiers[0][root + "/1/b.jpg"])
        #expect(onDisk.identifiers[2][root + "/3/b.jpg"] == nil && onDisk.identifiers[2][root + "/2/c.jpg"] != nil)
        #expect(onDisk.identifiers.map(\.count) == inMemory.identifiers.map(\.count))
        // Nothing is left in the library's folder but its own files.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: onDisk.scratch.location.directory)
            .filter { $0.hasPrefix("index-run-") }
        #expect(leftovers.isEmpty)
    }
}
