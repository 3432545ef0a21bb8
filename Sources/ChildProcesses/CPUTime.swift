#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user plus system), in seconds, read with `getrusage(2)`: what the benchmarks
/// quote beside wall time, for this process and for the programs it has run.
public enum CPUTime {
    /// The seconds of CPU this process has used so far.
    public static var ownSeconds: Double { seconds(RUSAGE_SELF) }
    /// The seconds of CPU used by this process's children that have been waited for.
    public static var childrenSeconds: Double { seconds(RUSAGE_CHILDREN) }
    /// Both: the CPU of work this process did itself or had a program do (ffmpeg, say).
    public static var ownAndChildrenSeconds: Double { ownSeconds + childrenSeconds }

    /// User plus system time of a resource usage (`getrusage(2)`, `wait4(2)`).
    public static func seconds(_ usage: rusage) -> Double {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func seconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return seconds(usage)
    }
}
