import Foundation
import Synchronization
import Testing
@testable import MediaIndex

@Suite("The library's WAL beside readers that never pause")
struct WALCheckpointTests {
    /// A writer committing back to back while two readers run queries one after another
    /// without a pause: some reader always holds an older snapshot, so SQLite's passive
    /// checkpoint never copies the whole WAL back and the WAL never starts over.
    private static func busyRun(_ folder: TemporaryFolder, restartPages: Int32) throws -> Int {
        let path = folder.file("wal.sqlite")
        let writer = try DatabaseConnection(path: path, readOnly: false, create: true)
        BackgroundCheckpoint.installRestarting(on: writer, restartPages: restartPages)
        try writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
        let stop = StopSignal()
        let readers = (0..<2).map { _ in
            Thread { [path] in
                guard let reader = try? DatabaseConnection(path: path, readOnly: true) else { return }
                while !stop.isSet {
                    _ = try? reader.inTransaction(immediate: false) {
                        try reader.scalarInt("SELECT count(*) FROM t WHERE length(body) > 0")
                    }
                }
            }
        }
        readers.forEach { $0.start() }
        defer { stop.set() }
        var largest = 0
        let wal = path + "-wal"
        for batch in 0..<400 {
            try writer.inTransaction {
                for row in 0..<16 {
                    try writer.execute("INSERT INTO t (id, body) VALUES (?, randomblob(4000))", [batch * 16 + row])
                }
            }
            largest = max(largest, (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0)
        }
        return largest
    }

    /// A flag the test sets and its reader threads read.
    private final class StopSignal: Sendable {
        private let flag = Mutex(false)
        var isSet: Bool { flag.withLock { $0 } }
        func set() { flag.withLock { $0 = true } }
    }

    @Test("past its restart size the WAL starts over, so it stays within about twice that size")
    func bounded() throws {
        let folder = TemporaryFolder()
        let restartPages: Int32 = 1_500
        let largest = try Self.busyRun(folder, restartPages: restartPages)
        // 400 commits of 16 rows of 4 kB: without the restart (SQLite's passive checkpoint
        // alone) this WAL grew to 30.5 MB, all of it, in three runs of three; with it, 6–9 MB.
        #expect(largest < 2 * Int(restartPages) * 4096 + 1_000_000, "largest WAL \(largest) bytes")
    }

    @Test("a new library's writer restarts its WAL")
    func installedOnTheLibrary() throws {
        let folder = TemporaryFolder()
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        let installed = try library.requireWriter().write { db in db.hookContext is BackgroundCheckpoint }
        #expect(installed)
    }
}
