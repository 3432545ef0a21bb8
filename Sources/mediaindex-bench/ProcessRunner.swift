import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One finished child process: wall time, CPU time (user and system, all threads) and peak resident memory.
struct ProcessMeasurement {
    var seconds: Double
    var peakResidentBytes: Int
    var exitCode: Int32
    var cpuSeconds: Double = 0
}

/// Runs commands with `posix_spawn` and measures them with `wait4`'s resource usage.
enum ProcessRunner {
    /// Runs `arguments[0]` (searched on PATH) with output discarded (or sent to `outputPath`).
    static func measure(_ arguments: [String], outputPath: String = "/dev/null",
                        environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProcessMeasurement {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now()
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard result == 0 else {
            throw BenchmarkError("cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let exited = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ProcessMeasurement(seconds: seconds, peakResidentBytes: Int(usage.ru_maxrss) * 1024, exitCode: exited,
                                  cpuSeconds: cpuSeconds(usage))
    }

    /// User and system time of a resource usage, in seconds.
    static func cpuSeconds(_ usage: rusage) -> Double {
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds used so far by this process (`RUSAGE_SELF`) or its waited-for children.
    static func cpuSeconds(children: Bool) -> Double {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        return cpuSeconds(usage)
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
