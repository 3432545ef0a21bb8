import Foundation
import Testing
@testable import MediaIndex

/// Which files an index run pairs again: those it wrote, and those of earlier runs that
/// were killed after committing batches but before pairing them.
@Suite("Files touched by an index run")
struct TouchedSinceTests {
    private func library() throws -> (TemporaryFolder, MediaLibrary) {
        let folder = TemporaryFolder()
        return (folder, try MediaLibrary(location: LibraryLocation(directory: folder.file("library"))))
    }

    private func addRun(_ startedAt: Double, status: String, db: DatabaseConnection) throws -> Int64 {
        try db.execute("INSERT INTO index_runs (started_at, status) VALUES (?, ?)", [startedAt, status])
        return db.lastInsertedRowID
    }

    @Test("after a completed run, a run's files are those since its own start (less two seconds)")
    func afterCompletedRun() throws {
        let (_, library) = try library()
        try library.requireWriter().write { db in
            _ = try addRun(1_000, status: "completed", db: db)
            let current = try addRun(2_000, status: "running", db: db)
            #expect(try IndexRunLog(db: db).touchedSince(current) == 1_998)
        }
    }

    @Test("after killed runs, a run also takes the files of every run since the last completed one")
    func afterKilledRuns() throws {
        let (_, library) = try library()
        try library.requireWriter().write { db in
            _ = try addRun(1_000, status: "completed", db: db)
            _ = try addRun(1_500, status: "interrupted", db: db)
            _ = try addRun(1_700, status: "interrupted", db: db)
            let current = try addRun(2_000, status: "running", db: db)
            #expect(try IndexRunLog(db: db).touchedSince(current) == 1_498)
        }
    }

    @Test("a first run that follows only killed runs takes everything they wrote")
    func onlyKilledRunsBefore() throws {
        let (_, library) = try library()
        try library.requireWriter().write { db in
            _ = try addRun(1_200, status: "interrupted", db: db)
            let current = try addRun(2_000, status: "running", db: db)
            #expect(try IndexRunLog(db: db).touchedSince(current) == 1_198)
        }
    }
}
