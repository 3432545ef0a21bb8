import Foundation
import Testing
@testable import MediaIndex

/// Writes `contents` at a path given as bytes (names need not be UTF-8).
private func writeFile(_ path: [UInt8], _ contents: [UInt8]) throws {
    let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
        open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    try #require(fd >= 0, "cannot create \(String(decoding: path, as: UTF8.self))")
    defer { close(fd) }
    _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

@Suite("Index run phases")
struct IndexRunTests {
    /// Names whose byte order differs from any per-folder listing: `-` (0x2D) and `.`
    /// (0x2E) sort before `/` (0x2F), and 0xFF after every ASCII byte.
    static let trickyNames: [[UInt8]] = [
        Array("a".utf8), Array("a-b".utf8), Array("a.b".utf8), Array("b".utf8) + [0xFF], Array("b".utf8),
        Array("a/x".utf8), Array("a/y".utf8), Array("c".utf8),
    ]

    @Test("the diff matches every recorded file whatever its bytes: a second run finds all unchanged, then one gone and one new")
    func diffMergesInByteOrder() throws {
        let folder = TemporaryFolder()
        let root = Array(folder.file("tree").utf8)
        try FileManager.default.createDirectory(atPath: folder.file("tree/a"), withIntermediateDirectories: true)
        // Files that are not media: each is a row (status ignored), so the diff must match each.
        for name in Self.trickyNames where name != Array("a".utf8) {
            try writeFile(root + [UInt8(ascii: "/")] + name, Array("not a picture".utf8))
        }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let first = try library.blocking.index(roots: [PathBytes(root)])
        #expect(first.scanned == 7 && first.skipped == 7)

        let second = try library.blocking.index()
        #expect(second.unchanged == 7 && second.opened == 0 && second.removed == 0)

        // One goes, one comes: only they are read or removed.
        #expect(unlink(String(decoding: root, as: UTF8.self) + "/a.b") == 0)
        try writeFile(root + Array("/a,b".utf8), Array("new".utf8))
        let third = try library.blocking.index()
        #expect(third.unchanged == 6)
        #expect(third.opened == 1 && third.skipped == 1)
        #expect(third.removed == 1)
    }

    @Test("a run says how long each phase took, and the phases add up to no more than the run")
    func timings() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("tree"), withIntermediateDirectories: true)
        for index in 0..<20 { try writeFile(Array(folder.file("tree/file-\(index).txt").utf8), Array("text".utf8)) }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let summary = try library.blocking.index(roots: [PathBytes(folder.file("tree"))])
        let t = summary.timings
        let phases = [t.walk, t.diff, t.read, t.write, t.pair, t.finish]
        #expect(phases.allSatisfy { $0 >= 0 && $0.isFinite })
        #expect(t.walk > 0 && t.write > 0 && t.finish > 0)
        #expect(phases.reduce(0, +) <= summary.elapsedSeconds + 0.001)
    }

    @Test("stored roles, statuses and pairing rules are the strings older libraries and the JSON hold")
    func storedStrings() {
        // As docs/json.md's asset shape documents them (`resources[].type`, `pairingRule`) and migration 0001 checks.
        #expect(FileRole.allCases.map(\.rawValue) == ["photo", "video", "pairedVideo", "alternatePhoto", "sidecar",
                                                      "fullSizePhoto", "fullSizeVideo", "fullSizePairedVideo", "adjustmentData",
                                                      "takeoutMetadata", "takeoutAlbumMetadata"])
        #expect(FileStatus.allCases.map(\.rawValue) == ["media", "error", "ignored"])
        #expect(PairingRule.allCases.map(\.rawValue) == ["contentIdentifier", "sameStemShortMovie", "motionPhoto",
                                                         "rawPlusJpeg"])
        #expect(FileRole.sqlList(FileRole.primaries) == "('photo', 'video')")
    }

    @Test("the folder and stem key of a path: one split for pairing, sidecars and the asset's file columns")
    func fileNameKey() {
        let key = FileNameKey(PathBytes("/photos/2024/IMG_0001.JPG"))
        #expect(key.folder == Array("/photos/2024".utf8) && key.parentBytes == key.folder)
        #expect(key.stemKey == "img_0001" && key.fileName == "IMG_0001.JPG" && key.lowercasedName == "img_0001.jpg")
        let top = FileNameKey(PathBytes("/.hidden"))
        #expect(top.folder == Array("/".utf8) && top.parentBytes == [] && top.stemKey == ".hidden")
        #expect(FileNameKey(PathBytes("/p/IMG_1.JPG.xmp")).stemKey == "img_1.jpg")
    }
}
