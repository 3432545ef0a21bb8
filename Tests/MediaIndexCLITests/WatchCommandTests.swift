import Foundation
import MediaIndex
import Testing
@testable import MediaIndexCLI

@Suite("mediaindex watch")
struct WatchCommandTests {
    func parse(_ arguments: [String]) throws -> WatchCommand {
        guard case .run(let command) = try CommandParser(root: MediaIndexCommand.self).parse(["watch"] + arguments),
              let watch = command as? WatchCommand else {
            throw ValidationError("not a watch command")
        }
        return watch
    }

    @Test("options become the watcher's configuration; the thumbnail cache is never watched")
    func configuration() throws {
        let watch = try parse(["--quiet-period", "0.5", "--max-delay", "2", "--poll-interval", "300",
                               "--batch-size", "64", "--cache", "/tmp/thumbs", "/tmp/photos"])
        let configuration = watch.watcherConfiguration(cache: ThumbnailCache(directory: URL(fileURLWithPath: "/tmp/thumbs")))
        #expect(configuration.quietPeriod == 0.5)
        #expect(configuration.maximumDelay == 2)
        #expect(configuration.pollInterval == 300)
        #expect(configuration.batchSize == 64)
        #expect(configuration.roots == [PathBytes("/tmp/photos")])
        #expect(configuration.excludedFolders == [PathBytes("/tmp/thumbs")])
        let defaults = try parse([]).watcherConfiguration(cache: ThumbnailCache(directory: URL(fileURLWithPath: "/tmp/thumbs")))
        #expect(defaults.quietPeriod == 1 && defaults.maximumDelay == 1.5 && defaults.pollInterval == 60)
        #expect(defaults.roots.isEmpty, "no root given: every registered root")
    }

    @Test("refuses delays that cannot work, before any work")
    func validation() {
        #expect(throws: UsageError.self) { try parse(["--max-delay", "0.5", "--quiet-period", "1"]) }
        #expect(throws: UsageError.self) { try parse(["--poll-interval", "0"]) }
        #expect(throws: UsageError.self) { try parse(["--quiet-period", "0"]) }
        #expect(throws: UsageError.self) { try parse(["--size", "128"]) }
    }

    @Test("a library with no roots is a usage error with the command to run")
    func noRoots() async throws {
        let library = NSTemporaryDirectory() + "mediaindex-watch-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: library) }
        let (code, _, errors) = await mediaindex(["watch"], library: library)
        #expect(code == 64)
        #expect(errors.contains("mediaindex watch ~/Pictures"))
    }

    @Test("the systemd user unit runs mediaindex serve, stops it with SIGTERM and does not restart on 64 or 75")
    func systemdUnit() throws {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let unit = try String(contentsOf: packageRoot.appendingPathComponent("systemd/mediaindex.service"), encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        #expect(lines.contains("ExecStart=%h/.local/bin/mediaindex serve"))
        #expect(lines.contains("KillSignal=SIGTERM"))
        #expect(lines.contains("RestartPreventExitStatus=64 \(WatchCommand.alreadyWatchedExitCode)"))
        #expect(lines.contains("WantedBy=default.target"))
        // Hardened: the photos (the whole file system, home included) read-only but for the
        // library and cache, no privileges to gain, a /tmp of its own.
        for line in ["ProtectSystem=strict", "ProtectHome=read-only", "NoNewPrivileges=yes", "PrivateTmp=yes",
                     "ReadWritePaths=-%h/.local/share/mediaindex -%h/.cache/mediaindex"] {
            #expect(lines.contains(line), "\(line)")
        }
        let package = try String(contentsOf: packageRoot.appendingPathComponent("scripts/package"), encoding: .utf8)
        #expect(package.contains("systemd/mediaindex.service"), "the Debian package ships this unit")
        let guide = try String(contentsOf: packageRoot.appendingPathComponent("docs/watch-and-serve.md"), encoding: .utf8)
        #expect(guide.contains("systemctl --user enable --now mediaindex"))
    }
}
