import ChildProcesses
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A shell command, its standard output and error collected (up to 32 MB each).
private func shell(_ script: String, _ arguments: [String] = []) -> ChildProcess {
    var child = ChildProcess(executable: "/bin/sh", arguments: ["-c", script, "sh"] + arguments)
    child.standardOutput = .collect(limit: 32 << 20)
    child.standardError = .collect(limit: 32 << 20)
    return child
}

/// This process's open descriptors.
private func openDescriptors() throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))
}

@Suite("ChildProcess: how a child ends")
struct ChildProcessEndingTests {
    @Test("an exit status comes back as it was given; 0 is success")
    func exitStatus() throws {
        let three = try shell("exit 3").run()
        #expect(three.termination == .exited(3) && three.exitStatus == 3 && !three.succeeded)
        #expect(try ChildProcess(executable: "/bin/true", arguments: []).run().succeeded)
        #expect(try ChildProcess(executable: "false", arguments: []).run().exitStatus == 1, "a bare name is found on PATH")
    }

    @Test("a child killed by a signal has no exit status; a shell would report 128 + the signal")
    func killedBySignal() throws {
        let outcome = try shell("kill -TERM $$; sleep 5").run(timeoutSeconds: 30)
        #expect(outcome.termination == .signalled(SIGTERM))
        #expect(outcome.exitStatus == nil && outcome.shellStatus == 128 + SIGTERM && !outcome.timedOut)
    }

    @Test("a child that outlives its timeout is killed with SIGKILL, soon after the timeout")
    func timeout() throws {
        let started = Date()
        let outcome = try ChildProcess(executable: "/bin/sleep", arguments: ["30"]).run(timeoutSeconds: 0.3)
        #expect(outcome.timedOut && outcome.termination == .signalled(SIGKILL) && outcome.exitStatus == nil)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test("a missing program, or one on no PATH, is an error naming it")
    func missingExecutable() throws {
        #expect(throws: ChildProcessError(executable: "/nonexistent/tool", reason: "No such file or directory")) {
            try ChildProcess(executable: "/nonexistent/tool", arguments: ["x"]).run()
        }
        do {
            _ = try ChildProcess(executable: "no-such-program-here", arguments: []).run()
            Issue.record("started a program that does not exist")
        } catch let error as ChildProcessError {
            #expect(error.description == "cannot start no-such-program-here: No such file or directory")
        }
    }

    @Test("its CPU time and peak memory come back with its exit")
    func resourceUsage() throws {
        let outcome = try shell("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done").run(timeoutSeconds: 60)
        #expect(outcome.succeeded && outcome.cpuSeconds > 0.01 && outcome.peakResidentBytes > 100_000,
                "\(outcome.cpuSeconds) s, \(outcome.peakResidentBytes) bytes")
    }
}

@Suite("ChildProcess: standard streams")
struct ChildProcessStreamTests {
    @Test("10 MB on standard output and 10 MB on standard error at once are both read whole (no deadlock)")
    func largeOutputAndErrorAtOnce() throws {
        let outcome = try shell("yes error | head -c 10000000 >&2 & yes output | head -c 10000000; wait")
            .run(timeoutSeconds: 120)
        #expect(outcome.succeeded && !outcome.timedOut)
        #expect(outcome.standardOutput.count == 10_000_000 && outcome.standardError.count == 10_000_000)
        #expect(outcome.standardOutput.starts(with: Array("output\noutput\n".utf8)))
        #expect(outcome.standardError.starts(with: Array("error\nerror\n".utf8)))
    }

    @Test("more output than the limit stops the child, keeping the limit's worth")
    func outputLimit() throws {
        var child = ChildProcess(executable: "/usr/bin/head", arguments: ["-c", "50000000", "/dev/zero"])
        child.standardOutput = .collect(limit: 1000)
        let outcome = try child.run(timeoutSeconds: 60)
        #expect(outcome.outputTooLarge && !outcome.timedOut && outcome.exitStatus == nil)
        #expect(outcome.standardOutput == [UInt8](repeating: 0, count: 1000))
    }

    @Test("consumed output comes in pieces, in order, whole; the limit still stops the child; nothing is collected")
    func consumedOutput() throws {
        var child = shell("seq 1 200000")
        child.standardOutput = .collect(limit: 32 << 20)
        var consumed: [UInt8] = [], pieces = 0
        let outcome = try child.run(timeoutSeconds: 60) { piece in consumed += piece; pieces += 1 }
        let expected = (1...200_000).map(String.init).joined(separator: "\n") + "\n"
        #expect(outcome.succeeded && outcome.standardOutput.isEmpty && pieces >= 1)
        #expect(consumed == Array(expected.utf8))

        var flood = ChildProcess(executable: "/usr/bin/head", arguments: ["-c", "50000000", "/dev/zero"])
        flood.standardOutput = .collect(limit: 100_000)
        var floodCount = 0
        let stopped = try flood.run(timeoutSeconds: 60) { floodCount += $0.count }
        #expect(stopped.outputTooLarge && floodCount <= 100_000)

        var uncollected = ChildProcess(executable: "/bin/true", arguments: [])
        uncollected.standardOutput = .null
        #expect(throws: ChildProcessError.self) { try uncollected.run { _ in } }
    }

    @Test("collectLast keeps the end of a long error stream")
    func lastBytesOfError() throws {
        var child = shell("seq 1 100000 >&2")
        child.standardError = .collectLast(bytes: 12)
        let outcome = try child.run(timeoutSeconds: 60)
        #expect(outcome.standardErrorText == "99999\n100000\n".suffix(12).description)
    }

    @Test("standard input from bytes: 5 MB through cat come back exactly; a child that reads none is no crash")
    func inputBytes() throws {
        let input = (0..<5_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        var cat = ChildProcess(executable: "/usr/bin/cat", arguments: [])
        cat.standardInput = .bytes(input)
        cat.standardOutput = .collect(limit: 6_000_000)
        let outcome = try cat.run(timeoutSeconds: 120)
        #expect(outcome.succeeded && outcome.standardOutput == input)

        var deaf = ChildProcess(executable: "/bin/true", arguments: [])
        deaf.standardInput = .bytes(input)
        #expect(try deaf.run(timeoutSeconds: 60).succeeded)
    }

    @Test("standard input from a file descriptor, standard output to one")
    func fileDescriptors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-fd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("line one\nline two\n".utf8).write(to: URL(fileURLWithPath: folder + "/in"))
        let input = open(folder + "/in", O_RDONLY | O_CLOEXEC)
        let output = open(folder + "/out", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(input); close(output) }
        var child = ChildProcess(executable: "/usr/bin/tr", arguments: ["a-z", "A-Z"])
        child.standardInput = .fileDescriptor(input)
        child.standardOutput = .fileDescriptor(output)
        #expect(try child.run(timeoutSeconds: 60).succeeded)
        #expect(try String(contentsOfFile: folder + "/out", encoding: .utf8) == "LINE ONE\nLINE TWO\n")
    }
}

@Suite("ChildProcess: arguments, environment, directory")
struct ChildProcessSetupTests {
    @Test("argument bytes that are not UTF-8 reach the child exactly")
    func nonUTF8Arguments() throws {
        let name: [UInt8] = [0x70, 0xE9, 0x2E, 0x6A, 0x70, 0x67, 0xFF, 0xFE, 0x80, 0x20, 0x0A]  // "pé.jpg" in Latin-1, then junk
        var child = ChildProcess(executable: "/usr/bin/printf", argumentBytes: [Array("%s|%s".utf8), name, []])
        child.standardOutput = .collect(limit: 1000)
        let outcome = try child.run(timeoutSeconds: 60)
        #expect(outcome.succeeded && outcome.standardOutput == name + [UInt8(ascii: "|")])
    }

    @Test("the environment: inherited, added to (replacing a variable of the same name), or replaced")
    func environment() throws {
        func variables(_ environment: ChildProcess.Environment) throws -> [String] {
            var child = ChildProcess(executable: "/usr/bin/env", arguments: [])
            child.environment = environment
            child.standardOutput = .collect(limit: 1 << 20)
            return try child.run(timeoutSeconds: 60).standardOutputText.split(separator: "\n").map(String.init)
        }
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(try variables(.inherit).contains("PATH=" + path))
        let added = try variables(.inheritAdding(["PATH": "/only/here", "CHILD_PROCESS_TEST": "a b=c"]))
        #expect(added.contains("CHILD_PROCESS_TEST=a b=c"))
        #expect(added.filter { $0.hasPrefix("PATH=") } == ["PATH=/only/here"])
        #expect(added.count == (try variables(.inherit)).count + 1)
        #expect(try variables(.replace(["ONLY": "this"])) == ["ONLY=this"])
    }

    @Test("the working directory: the child starts there; a missing one is an error naming it")
    func workingDirectory() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-cwd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var child = ChildProcess(executable: "/usr/bin/pwd", arguments: ["-P"])
        child.workingDirectory = folder
        child.standardOutput = .collect(limit: 4096)
        let real = try #require(realpath(folder, nil))
        defer { free(real) }
        #expect(try child.run(timeoutSeconds: 60).standardOutputText == String(cString: real) + "\n")

        child.workingDirectory = folder + "/missing"
        do {
            _ = try child.run()
            Issue.record("started in a directory that does not exist")
        } catch let error as ChildProcessError {
            #expect(error.description.contains(folder + "/missing"), "\(error)")
        }
    }
}

@Suite("ChildProcess: descriptors and signals", .serialized)
struct ChildProcessHygieneTests {
    @Test("the child has only its three standard streams, even when this process holds one without O_CLOEXEC")
    func childDescriptors() throws {
        let leaky = open("/dev/null", O_RDONLY)  // no O_CLOEXEC, as careless code would open it
        defer { close(leaky) }
        var child = ChildProcess(executable: "/usr/bin/ls", arguments: ["/proc/self/fd"])
        child.standardOutput = .collect(limit: 4096)
        // ls's own descriptor for the directory it lists is the 3.
        #expect(try child.run(timeoutSeconds: 60).standardOutputText == "0\n1\n2\n3\n")
    }

    @Test("200 runs leave this process with the descriptors it had (give or take other suites' files)")
    func noLeakedDescriptors() throws {
        let before = try openDescriptors()
        for index in 0..<200 {
            var child = shell("echo out; echo err >&2; read line; echo $line")
            child.standardInput = index % 2 == 0 ? .bytes(Array("in\n".utf8)) : .null
            let outcome = try child.run(timeoutSeconds: 60)
            #expect(outcome.succeeded && outcome.standardOutput.starts(with: Array("out\n".utf8)))
        }
        _ = try? ChildProcess(executable: "/nonexistent", arguments: []).run(timeoutSeconds: 1)
        // Suites running beside this one open and close files meanwhile; a leak of even one
        // descriptor a run would be 200.
        let after = try openDescriptors()
        #expect(after.subtracting(before).count < 50, "\(after.count) descriptors open after, \(before.count) before")
    }

    @Test("200 spawns in a row, all of them ending well")
    func manySpawns() throws {
        var statuses: [Int32?] = []
        for index in 0..<200 {
            var child = ChildProcess(executable: "/usr/bin/printf", arguments: ["%s", String(index)])
            child.standardOutput = .collect(limit: 64)
            child.standardError = .collectLast(bytes: 64)
            let outcome = try child.run(timeoutSeconds: 60)
            #expect(outcome.standardOutputText == String(index))
            statuses.append(outcome.exitStatus)
        }
        #expect(statuses == Array(repeating: 0, count: 200))
    }

    @Test("the child starts with no blocked signal, whatever this thread blocks")
    func defaultSignals() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR2)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        // grep reads its own mask: a shell's would show the signals dash blocks around a fork.
        var grep = ChildProcess(executable: "/usr/bin/grep", arguments: ["SigBlk", "/proc/self/status"])
        grep.standardOutput = .collect(limit: 4096)
        let outcome = try grep.run(timeoutSeconds: 60)
        #expect(outcome.standardOutputText == "SigBlk:\t0000000000000000\n")
    }
}

@Suite("RunningChildProcess: start, then signal or wait")
struct RunningChildProcessTests {
    @Test("a started child runs until terminated; then it is reaped and signals go nowhere")
    func startAndTerminate() throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"]).start()
        #expect(child.isRunning)
        let outcome = child.terminate()
        #expect(outcome.termination == .signalled(SIGTERM) && !outcome.timedOut)
        #expect(!child.isRunning)
        child.send(SIGKILL)
        #expect(child.wait() == outcome)
    }

    @Test("a wait with a timeout kills a child that does not end; one that ends gives its status")
    func waitWithTimeout() throws {
        let endless = try ChildProcess(executable: "/bin/sleep", arguments: ["30"]).start()
        let outcome = endless.wait(timeoutSeconds: 0.5)
        #expect(outcome.timedOut && outcome.termination == .signalled(SIGKILL))
        #expect(try shell("exit 7").withStreams(.null).start().wait(timeoutSeconds: 30).exitStatus == 7)
    }

    @Test("its output goes to a log file while it runs; collected streams are refused")
    func logFile() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-log-\(UUID().uuidString)").path
        let fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(fd); unlink(log) }
        var child = shell("echo started; sleep 30")
        child.standardOutput = .fileDescriptor(fd)
        child.standardError = .fileDescriptor(fd)
        let running = try child.start()
        let deadline = Date().addingTimeInterval(30)
        while (try? String(contentsOfFile: log, encoding: .utf8)) != "started\n" && Date() < deadline { usleep(10_000) }
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "started\n")
        running.send(SIGKILL)
        #expect(running.wait().termination == .signalled(SIGKILL))
        #expect(throws: ChildProcessError.self) { try shell("true").start() }
    }
}

extension ChildProcess {
    /// The same child with both output streams sent to `output`.
    fileprivate func withStreams(_ output: Output) -> ChildProcess {
        var child = self
        child.standardOutput = output
        child.standardError = output
        return child
    }
}
