import ChildProcesses
import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// `mediaindex watch` as a process: signals, exit codes, the log.
@Suite("mediaindex watch process", .serialized,
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"),
       .enabled(if: FaultSupport.binary != nil, "build first: swift build (no .build/debug/mediaindex found)"))
struct WatchProcessTests {
    /// Starts `mediaindex watch` on a library and waits for its startup run's log line.
    func startWatch(_ folder: TemporaryFolder, log: String) throws -> RunningChildProcess {
        let watcher = try FaultSupport.spawn(["watch", "--library", folder.file("lib"), "--cache", folder.file("cache"),
                                          "--quiet-period", "0.2", "--max-delay", "0.4"].map { Array($0.utf8) },
                                             stdout: folder.file("watch.out"), stderr: log)
        #expect(eventually { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("(startup)") == true },
                "the startup run was logged")
        return watcher
    }

    @Test("SIGTERM during a run lets it commit, exits 0, and leaves no unfinished run")
    func sigterm() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root + "/seed", count: 10)
        #expect(try FaultSupport.run(["index", "--quiet", "--library", folder.file("lib"), root], in: folder).status == 0)
        let log = folder.file("watch.err")
        let watcher = try startWatch(folder, log: log)
        try FaultSupport.makeTree(at: root + "/new", count: 1_000)
        // Runs follow each other while the files arrive: one is under way now.
        watcher.send(SIGTERM)
        let status = FaultSupport.wait(watcher)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "exit status \(status); log:\n\(text)")
        #expect(text.contains("SIGTERM: stopping"))
        #expect(text.hasSuffix("watch: stopped\n"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let unfinished = try library.read { db in try db.scalarInt("SELECT count(*) FROM index_runs WHERE status != 'completed'") }
        #expect(unfinished == 0, "every run the watcher began was completed and committed")
        // What it had not read yet is found by the next run; nothing is read twice.
        try library.blocking.index()
        #expect(try library.blocking.statistics().assets == 1_010)
    }

    @Test("a second watch on the same library exits 75 naming the first")
    func secondWatcher() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 3)
        #expect(try FaultSupport.run(["index", "--quiet", "--library", folder.file("lib"), root], in: folder).status == 0)
        let watcher = try startWatch(folder, log: folder.file("watch.err"))
        let second = try FaultSupport.run(["watch", "--library", folder.file("lib")], in: folder)
        #expect(second.status == 75)
        #expect(second.stderr.contains("already being watched (pid \(watcher.processID))"))
        watcher.send(SIGINT)
        #expect(FaultSupport.wait(watcher) == 0)
    }

    @Test("between the watcher's runs, a cron index runs at once")
    func cronBetweenRuns() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: 3)
        #expect(try FaultSupport.run(["index", "--quiet", "--library", folder.file("lib"), root], in: folder).status == 0)
        let watcher = try startWatch(folder, log: folder.file("watch.err"))
        #expect(try FaultSupport.run(["index", "--quiet", "--library", folder.file("lib")], in: folder).status == 0)
        watcher.send(SIGTERM)
        #expect(FaultSupport.wait(watcher) == 0)
    }
}
