import ChildProcesses
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One finished child process: wall time, CPU time (user and system, all threads) and peak resident memory.
struct ChildMeasurement {
    var seconds: Double
    var peakResidentBytes: Int
    var exitCode: Int32
    var cpuSeconds: Double = 0
}

/// Runs commands as child processes (ChildProcesses) and measures them with `wait4`'s resource usage.
enum ProcessRunner {
    /// Runs `arguments[0]` (searched on PATH) with output discarded (or sent to `outputPath`);
    /// its exit code is 128 + the signal when a signal killed it.
    static func measure(_ arguments: [String], outputPath: String = "/dev/null") throws -> ChildMeasurement {
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw BenchmarkError("cannot write \(outputPath): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        var child = ChildProcess(executable: arguments[0], arguments: Array(arguments.dropFirst()))
        child.standardOutput = .fileDescriptor(output)
        let start = DispatchTime.now()
        let outcome: ChildProcess.Outcome
        do { outcome = try child.run() } catch { throw BenchmarkError("\(error)") }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return ChildMeasurement(seconds: seconds, peakResidentBytes: outcome.peakResidentBytes, exitCode: outcome.shellStatus,
                                cpuSeconds: outcome.cpuSeconds)
    }

    /// Whether a program is on PATH.
    static func exists(_ program: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Median, minimum and maximum of several runs.
struct Figure {
    var values: [Double]
    var median: Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted.count % 2 == 1 ? sorted[sorted.count / 2]
            : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }
}
