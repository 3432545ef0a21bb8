import Foundation
@testable import MediaMetadata
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("BeneathRoot")
struct BeneathRootTests {
    /// A root holding `real/a.jpg`, `linked -> <outside>`, `real/link.jpg -> a.jpg` and
    /// `real/up -> ..`, with `<outside>/a.jpg` beside it.
    private func layout() throws -> (root: String, outside: String) {
        let base = NSTemporaryDirectory() + "beneath-root-" + UUID().uuidString
        let root = base + "/root", outside = base + "/outside"
        for folder in [root + "/real", outside] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        FileManager.default.createFile(atPath: root + "/real/a.jpg", contents: Data("inside".utf8))
        FileManager.default.createFile(atPath: outside + "/a.jpg", contents: Data("outside".utf8))
        try FileManager.default.createSymbolicLink(atPath: root + "/linked", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: root + "/real/link.jpg", withDestinationPath: "a.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/real/up", withDestinationPath: "..")
        return (root, outside)
    }

    private func contents(_ path: String, beneath root: String) throws -> String {
        let source = try FileByteSource(pathBytes: Array(path.utf8), beneath: Array(root.utf8))
        return String(decoding: try source.read(at: 0, count: 64), as: UTF8.self)
    }

    @Test("a file below the root opens; its path may repeat slashes and name the current folder")
    func inside() throws {
        let (root, _) = try layout()
        #expect(try contents(root + "/real/a.jpg", beneath: root) == "inside")
        #expect(try contents(root + "//real/./a.jpg", beneath: root + "/") == "inside")
    }

    @Test("a symbolic link to a folder anywhere below the root refuses the open, though the plain open follows it")
    func linkedFolder() throws {
        let (root, _) = try layout()
        #expect(throws: BeneathRoot.Failure.symbolicLink(path: root + "/linked/a.jpg", component: "linked")) {
            _ = try BeneathRoot.open(Array((root + "/linked/a.jpg").utf8), beneath: Array(root.utf8), flags: O_RDONLY)
        }
        #expect(throws: BeneathRoot.Failure.self) {
            _ = try BeneathRoot.open(Array((root + "/real/up/linked/a.jpg").utf8), beneath: Array(root.utf8), flags: O_RDONLY)
        }
        // What the old single open(O_NOFOLLOW) did: only the last component was checked.
        let plain = try FileByteSource(pathBytes: Array((root + "/linked/a.jpg").utf8))
        #expect(String(decoding: try plain.read(at: 0, count: 64), as: UTF8.self) == "outside")
    }

    @Test("a symbolic link as the file itself, .., a path outside the root or the root itself is refused")
    func refusals() throws {
        let (root, outside) = try layout()
        let rootBytes = Array(root.utf8)
        #expect(throws: BeneathRoot.Failure.symbolicLink(path: root + "/real/link.jpg", component: "real/link.jpg")) {
            _ = try BeneathRoot.open(Array((root + "/real/link.jpg").utf8), beneath: rootBytes, flags: O_RDONLY)
        }
        for path in [root + "/real/../real/a.jpg", outside + "/a.jpg", root + "x/real/a.jpg", root, root + "/"] {
            #expect(throws: BeneathRoot.Failure.outsideRoot(path: path, root: root), "\(path)") {
                _ = try BeneathRoot.open(Array(path.utf8), beneath: rootBytes, flags: O_RDONLY)
            }
        }
        #expect(throws: BeneathRoot.Failure.system(path: root + "/real/missing.jpg", code: ENOENT)) {
            _ = try BeneathRoot.open(Array((root + "/real/missing.jpg").utf8), beneath: rootBytes, flags: O_RDONLY)
        }
    }
}
