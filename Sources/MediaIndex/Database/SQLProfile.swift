import CSQLite
import Foundation

/// A developer's view of where a connection's time goes: with `MEDIAINDEX_SQL_PROFILE`
/// set in the environment, every statement that finishes writes its running time and
/// its SQL (parameters expanded, cut at 4,000 characters) to standard error, one line each.
/// Off, it costs nothing: no hook is installed.
enum SQLProfile {
    /// Whether the environment asks for the profile, read once.
    static let isOn = ProcessInfo.processInfo.environment["MEDIAINDEX_SQL_PROFILE"] != nil

    /// Installs the profile hook on `handle` when `isOn`.
    static func install(on handle: OpaquePointer) {
        guard isOn else { return }
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_PROFILE), { _, _, statement, nanoseconds in
            guard let statement, let nanoseconds else { return 0 }
            let elapsed = Double(nanoseconds.load(as: Int64.self)) / 1e6
            let expanded = sqlite3_expanded_sql(OpaquePointer(statement))
            let sql = expanded.map { String(cString: $0) } ?? "?"
            sqlite3_free(expanded)
            let line = String(format: "sql %.3f ms: ", elapsed) + String(sql.prefix(4_000)).replacingOccurrences(of: "\n", with: " ") + "\n"
            FileHandle.standardError.write(Data(line.utf8))
            return 0
        }, nil)
    }
}
