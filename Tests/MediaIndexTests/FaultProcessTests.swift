import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex
#if canImport(Glibc)
import Glibc
#endif

/// Index runs of the real binary, killed, doubled and watched from outside.
@Suite("Faults: index processes", .serialized,
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"),
       .enabled(if: FaultSupport.binary != nil, "build first: swift build (no .build/debug/mediaindex found)"))
struct FaultProcessTests {
    static let treeSize = 2_000

    @Test("kill -9 at 10 random points: integrity ok, identifiers kept, no committed row lost, the next run completes")
    func killedRuns() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: Self.treeSize)
        let library = LibraryLocation(directory: folder.file("library"))
        let arguments = ["index", "--library", library.directory, "--batch-size", "16", "--quiet", root]
        // How long a whole run takes here, to aim the kills inside one.
        let calibration = LibraryLocation(directory: folder.file("calibration"))
        let clock = ContinuousClock()
        let calibrationStart = clock.now
        let full = try FaultSupport.run(["index", "--library", calibration.directory, "--batch-size", "16", "--quiet", root], in: folder)
        try #require(full.status == 0, "\(full.stderr)")
        let runMicroseconds = max(50_000, Int((clock.now - calibrationStart) / .microseconds(1)))

        var random = SplitMix64(seed: 7)
        var committedSoFar: [String: String] = [:]
        var killsDuringRun = 0
        for trial in 0..<10 {
            // After the first trial every file gets a new mtime, so each run re-reads (updates) them all.
            if trial > 0 { FaultSupport.touchAll(under: root, seconds: 1_000_000 + trial) }
            let child = try FaultSupport.spawn(arguments.map { Array($0.utf8) }, stdout: "/dev/null",
                                             stderr: folder.file("trial\(trial).err"))
            let delay = 20_000 + Int(random.next() % UInt64(runMicroseconds * 8 / 10))
            usleep(UInt32(delay))
            child.send(SIGKILL)
            let status = FaultSupport.wait(child)
            if status == 128 + SIGKILL { killsDuringRun += 1 } else { #expect(status == 0, "trial \(trial) exited \(status)") }
            guard FileManager.default.fileExists(atPath: library.databasePath) else { continue }
            #expect(try FaultSupport.integrityCheck(library) == "ok", "trial \(trial)")
            let committed = try FaultSupport.committed(library)
            for (path, identifier) in committedSoFar {
                #expect(committed[path] == identifier, "trial \(trial): \(path) lost or changed identifier")
            }
            committedSoFar = committed
            print("kill trial \(trial): killed after \(delay / 1000) ms, \(committed.count) files committed")
        }
        let final = try FaultSupport.run(arguments, in: folder)
        #expect(final.status == 0, "\(final.stderr)")
        #expect(try FaultSupport.integrityCheck(library) == "ok")
        let committed = try FaultSupport.committed(library)
        #expect(try FaultSupport.fileCount(library) == Self.treeSize)
        #expect(committed.count == (try FaultSupport.committed(calibration)).count)
        for (path, identifier) in committedSoFar { #expect(committed[path] == identifier, "\(path) changed identifier") }
        #expect(killsDuringRun >= 5, "most kills should land during a run, not after it")
        print("kill -9: full run \(runMicroseconds / 1000) ms; \(killsDuringRun) of 10 kills landed mid-run; \(committedSoFar.count) files were committed before the last kill")
    }

    @Test("a second index run exits 75 at once; with --wait it waits and completes")
    func twoRunsAtOnce() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: Self.treeSize)
        let library = LibraryLocation(directory: folder.file("library"))
        let arguments = ["index", "--library", library.directory, "--batch-size", "16", "--quiet", root]
        let first = try FaultSupport.spawn(arguments.map { Array($0.utf8) }, stdout: "/dev/null", stderr: "/dev/null")
        // Wait for the first run to hold the lock (it writes its pid into index.lock).
        var waited = 0
        while ((try? String(contentsOfFile: library.lockPath, encoding: .utf8)) ?? "").isEmpty && waited < 10_000 {
            usleep(10_000); waited += 10
        }
        let clock = ContinuousClock()
        let start = clock.now
        let second = try FaultSupport.run(arguments, in: folder)
        let elapsed = clock.now - start
        #expect(second.status == 75)
        #expect(second.stderr.contains("Error:") && second.stderr.contains("\(first.processID)"), "\(second.stderr)")
        #expect(elapsed < .seconds(3), "the second run took \(elapsed) to give up")
        let waiting = try FaultSupport.run(arguments + ["--wait"], in: folder)
        #expect(waiting.status == 0, "\(waiting.stderr)")
        #expect(FaultSupport.wait(first) == 0)
        #expect(try FaultSupport.fileCount(library) == Self.treeSize)
    }

    @Test("an index run never holds more than 64 open files")
    func boundedOpenFiles() throws {
        let folder = TemporaryFolder()
        let root = folder.file("photos")
        try FaultSupport.makeTree(at: root, count: Self.treeSize)
        let library = LibraryLocation(directory: folder.file("library"))
        let child = try FaultSupport.spawn(["index", "--library", library.directory, "--quiet", root].map { Array($0.utf8) },
                                           stdout: "/dev/null", stderr: "/dev/null")
        var peak = 0
        var samples = 0
        while child.isRunning {
            if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.processID)/fd") {
                peak = max(peak, entries.count)
                samples += 1
            }
            usleep(2_000)
        }
        #expect(samples > 10)
        #expect(peak < 64, "peak \(peak) open files")
        print("open files: peak \(peak) over \(samples) samples of a \(Self.treeSize)-file run")
    }

    @Test("show with a malformed identifier or garbage gives a clear error, never a crash")
    func malformedIdentifiers() throws {
        let folder = TemporaryFolder()
        let library = folder.file("library")
        _ = try MediaLibrary(location: LibraryLocation(directory: library))
        let garbage: [[UInt8]] = [Array("zzzzzzzzzzzzz".utf8), Array("".utf8), [0xFF, 0xFE, 0x00 + 1], Array("'; DROP TABLE assets; --".utf8),
                                  Array(repeating: UInt8(ascii: "a"), count: 5000), Array("../../etc/passwd".utf8), Array("%00%ff".utf8)]
        for key in garbage {
            let result = try FaultSupport.run([Array("show".utf8), Array("--library".utf8), Array(library.utf8), key], in: folder)
            #expect(result.status == 1 || result.status == 64, "show \(key.prefix(20)): exit \(result.status)")
            #expect(result.stderr.hasPrefix("Error:"), "\(result.stderr)")
        }
        #expect(try FaultSupport.integrityCheck(LibraryLocation(directory: library)) == "ok")
    }
}
