import ChildProcesses
import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// The built `mediaindex` binary and raw-byte subprocesses, for the fault tests.
enum FaultSupport {
    /// `.build/debug/mediaindex` beside the test bundle, else under the package root.
    static let binary: String? = {
        let beside = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("mediaindex").path
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for candidate in [beside, packageRoot.appendingPathComponent(".build/debug/mediaindex").path]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }()

    static var isRoot: Bool { getuid() == 0 }

    /// Starts the binary with raw-byte arguments; stdout and stderr go to files (created
    /// or emptied). The child has none of the test process's other descriptors (sockets and
    /// files of suites running beside it): its open files are its own.
    static func spawn(_ arguments: [[UInt8]], stdout: String, stderr: String) throws -> RunningChildProcess {
        guard let binary else { throw FaultTestError("build first: swift build (no .build/debug/mediaindex)") }
        let output = open(stdout, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let errors = open(stderr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(output); close(errors) }
        guard output >= 0, errors >= 0 else { throw FaultTestError("cannot write \(stdout) or \(stderr)") }
        var child = ChildProcess(executable: binary, argumentBytes: arguments)
        child.standardOutput = .fileDescriptor(output)
        child.standardError = .fileDescriptor(errors)
        return try child.start()
    }

    /// The exit code, or 128 + signal, of a child.
    static func wait(_ child: RunningChildProcess) -> Int32 {
        child.wait().shellStatus
    }

    /// Runs the binary to completion.
    static func run(_ arguments: [[UInt8]], in folder: TemporaryFolder) throws -> (status: Int32, stdout: String, stderr: String) {
        let out = folder.file("stdout-\(UUID().uuidString)"), err = folder.file("stderr-\(UUID().uuidString)")
        let status = wait(try spawn(arguments, stdout: out, stderr: err))
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    static func run(_ arguments: [String], in folder: TemporaryFolder) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(arguments.map { Array($0.utf8) }, in: folder)
    }

    /// Runs the built binary as the user `nobody` (uid and gid 65534) through
    /// `setpriv`, or returns nil when there is no setpriv. For tests running as root,
    /// to whom file modes mean nothing.
    static func runAsNobody(_ arguments: [String], in folder: TemporaryFolder) throws
        -> (status: Int32, stdout: String, stderr: String)? {
        let setpriv = "/usr/bin/setpriv"
        guard let binary, FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
        let outcome = try ExternalTool.outcome(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments)
        return (outcome.shellStatus, outcome.standardOutputText, outcome.standardErrorText)
    }

    /// Small corpus files (a few of each common kind) to copy into test trees.
    static let smallCorpusFiles: [String] = {
        guard let media = Corpus.media else { return [] }
        var picked: [String: Int] = [:]
        return Corpus.allMediaPaths.filter { relative in
            let ext = (relative as NSString).pathExtension.lowercased()
            guard ["jpg", "png", "gif", "heic", "webp", "mov", "mp4", "tif"].contains(ext),
                  !relative.contains("fuzz"), !relative.contains("corrupt"),
                  let size = (try? FileManager.default.attributesOfItem(atPath: media.path + "/" + relative))?[.size] as? Int,
                  size < 60_000, picked[ext, default: 0] < 4,
                  // Only files we read cleanly, so every copy becomes an asset.
                  let data = FileManager.default.contents(atPath: media.path + "/" + relative),
                  (try? MetadataReader.read(MemoryByteSource(Array(data)))) != nil else { return false }
            picked[ext, default: 0] += 1
            return true
        }
    }()

    /// Writes `count` copies of the small corpus files into `root`, 100 per folder.
    /// Each copy gets a distinct trailing byte pattern, so each is its own content.
    static func makeTree(at root: String, count: Int) throws {
        let media = try #require(Corpus.media)
        let sources = try smallCorpusFiles.map { relative in
            (ext: (relative as NSString).pathExtension.lowercased(),
             bytes: try #require(FileManager.default.contents(atPath: media.path + "/" + relative)))
        }
        try #require(!sources.isEmpty)
        for index in 0..<count {
            let folder = root + "/d\(index / 100)"
            if index % 100 == 0 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            let source = sources[index % sources.count]
            var bytes = Array(source.bytes)
            withUnsafeBytes(of: UInt64(index).littleEndian) { bytes.append(contentsOf: $0) }
            try writeFile(folder + "/f\(index).\(source.ext)", bytes)
        }
    }

    /// Writes a file with plain POSIX calls (much cheaper than Foundation for many small files).
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FaultTestError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard write(fd, bytes, bytes.count) == bytes.count else { throw FaultTestError("cannot write \(path)") }
    }

    /// `path -> identifier` of every file committed as media.
    static func committed(_ library: LibraryLocation) throws -> [String: String] {
        let db = try DatabaseConnection(path: library.databasePath, readOnly: true)
        var result: [String: String] = [:]
        for row in try db.rows("SELECT f.path, a.identifier FROM files f JOIN assets a ON a.id = f.asset_id") {
            result[String(decoding: row.blob("path") ?? [], as: UTF8.self)] = row.string("identifier")
        }
        return result
    }

    /// Rows of `files`, whatever their status.
    static func fileCount(_ library: LibraryLocation) throws -> Int {
        try DatabaseConnection(path: library.databasePath, readOnly: true).scalarInt("SELECT count(*) FROM files") ?? -1
    }

    /// Sets every file's mtime to `seconds`, so the next run re-reads them all.
    static func touchAll(under root: String, seconds: Int) {
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, root + "/" + relative, &times, 0)
        }
    }

    static func integrityCheck(_ library: LibraryLocation) throws -> String? {
        let db = try DatabaseConnection(path: library.databasePath, readOnly: true)
        return try db.row("PRAGMA integrity_check")?.string("integrity_check")
    }
}

struct FaultTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
