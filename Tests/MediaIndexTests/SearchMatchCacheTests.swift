import Foundation
import Synchronization
import Testing
@testable import MediaIndex

/// Match sets kept between statements: each answer equals the text index's own at the
/// state the reader sees, whether the set was read whole, brought up to date from the
/// writer's changes, or used as kept.
@Suite("Search match sets kept between statements")
struct SearchMatchCacheTests {
    /// 2000 synthetic assets with ten keywords and a caption each (`sunset` is in most).
    static func seeded() throws -> SyntheticLibrary {
        let lib = try SyntheticLibrary()
        try lib.library.seedSyntheticAssets(count: 2000, batchSize: 500, describe: true)
        return lib
    }

    /// The cache's answer for `match` on a reader, with the text index's own answer at the same state.
    static func lookUp(_ match: String, _ lib: SyntheticLibrary)
        throws -> (outcome: SearchMatchCache.Outcome, same: Bool, count: Int) {
        try lib.library.read { db in
            let (set, outcome) = try SearchMatchCache.shared.lookUp(match, db: db.handle)
            let found = Set(try db.rows("SELECT rowid FROM asset_text WHERE asset_text MATCH ?", [match])
                .compactMap { $0.int64("rowid") })
            let newest = try db.scalarInt("SELECT max(id) FROM assets") ?? 0
            let held = Set((0...Int64(newest + 100)).filter { set.contains($0) })
            return (outcome, held == found, found.count)
        }
    }

    static func write(_ lib: SyntheticLibrary, _ sql: String) throws {
        try lib.library.requireWriter().write { db in try db.execute(sql) }
    }

    /// `match`'s kept capture order on a reader, how it was found, and whether it equals its
    /// matches' ids as SQL sorts them.
    static func captureOrder(_ match: String, _ lib: SyntheticLibrary)
        throws -> (outcome: SearchMatchCache.Outcome, same: Bool, count: Int) {
        try lib.library.read { db in
            let (keys, outcome) = try SearchMatchCache.shared.captureOrder(match, db: db.handle)
            let sorted = try db.rows("""
                SELECT a.id FROM assets a WHERE a.id IN (SELECT rowid FROM asset_text WHERE asset_text MATCH ?)
                ORDER BY a.capture_sort, a.id
                """, [match]).compactMap { $0.int64("id") }
            return (outcome, keys.map(\.id) == sorted, sorted.count)
        }
    }

    @Test("a kept capture order follows assets re-dated, re-worded, removed and added, reading only their keys")
    func captureOrderKept() throws {
        let lib = try Self.seeded()
        let first = try Self.captureOrder("\"sunset\"", lib)
        #expect(first.outcome == .readWhole && first.same && first.count > 500)
        #expect(try Self.captureOrder("\"sunset\"", lib) == (.kept, true, first.count))
        // Moved to either end of the order, and undated.
        try Self.write(lib, "UPDATE assets SET creation_timestamp = 1 WHERE id IN (SELECT id FROM assets ORDER BY id DESC LIMIT 3)")
        try Self.write(lib, "UPDATE assets SET creation_timestamp = 4e9 WHERE id IN (SELECT id FROM assets ORDER BY id LIMIT 3)")
        try Self.write(lib, "UPDATE assets SET creation_timestamp = NULL WHERE id = 10")
        let redated = try Self.captureOrder("\"sunset\"", lib)
        #expect(redated.outcome == .updated && redated.same)
        // Words that gain and lose the word, an asset removed, new assets.
        try Self.write(lib, "UPDATE assets SET caption = 'a sunset at sea', keyword_key = NULL WHERE id IN (20, 21, 22)")
        try Self.write(lib, "UPDATE assets SET caption = 'the harbour', keyword_key = NULL WHERE id IN (30, 31, 32)")
        try Self.write(lib, "DELETE FROM files WHERE asset_id = 40; DELETE FROM assets WHERE id = 40")
        try lib.library.seedSyntheticAssets(count: 50, batchSize: 50, startingAt: 2000, describe: true)
        let later = try Self.captureOrder("\"sunset\"", lib)
        #expect(later.outcome == .updated && later.same && later.count != first.count)
    }

    @Test("a set read once is kept while nothing changes, and only new assets are asked about after a bulk")
    func keptAndAdded() throws {
        let lib = try Self.seeded()
        let first = try Self.lookUp("\"sunset\"", lib)
        #expect(first.outcome == .readWhole && first.same && first.count > 500)
        #expect(try Self.lookUp("\"sunset\"", lib) == (.kept, true, first.count))
        try lib.library.seedSyntheticAssets(count: 100, batchSize: 50, startingAt: 2000, describe: true)
        let added = try Self.lookUp("\"sunset\"", lib)
        #expect(added.outcome == .updated && added.same && added.count > first.count)
    }

    @Test("assets whose words change or that are removed are asked again, and a removed newest id taken again is read")
    func touchedAndRemoved() throws {
        let lib = try Self.seeded()
        _ = try Self.lookUp("\"sunset\"", lib)
        try Self.write(lib, "UPDATE assets SET caption = 'a sunset at sea', keyword_key = NULL WHERE id IN (SELECT id FROM assets ORDER BY id LIMIT 5)")
        try Self.write(lib, "UPDATE assets SET caption = 'the harbour', keyword_key = NULL WHERE id IN (SELECT id FROM assets ORDER BY id LIMIT 5 OFFSET 5)")
        let changed = try Self.lookUp("\"sunset\"", lib)
        #expect(changed.outcome == .updated && changed.same)
        // The newest asset, found by the word, removed; the next one added takes its id, without the word.
        try Self.write(lib, "UPDATE assets SET caption = 'sunset' WHERE id = (SELECT max(id) FROM assets)")
        #expect(try Self.lookUp("\"sunset\"", lib).same)
        try Self.write(lib, """
            DELETE FROM files WHERE asset_id = (SELECT max(id) FROM assets);
            DELETE FROM assets WHERE id = (SELECT max(id) FROM assets);
            """)
        try lib.library.seedSyntheticAssets(count: 1, batchSize: 1, startingAt: 1999, describe: false)
        let retaken = try Self.lookUp("\"sunset\"", lib)
        #expect(retaken.outcome == .updated && retaken.same)
        let newest = try lib.library.read { db in try db.scalarInt("SELECT max(id) FROM assets") ?? 0 }
        #expect(newest == 2000, "the removed asset's id was taken again")
    }

    @Test("a prefix is brought up to date as any query; more changed assets than are worth asking again are read whole")
    func prefixAndReadWhole() throws {
        let lib = try Self.seeded()
        _ = try Self.lookUp("\"sun\"*", lib)
        _ = try Self.lookUp("\"sunset\"", lib)
        try lib.library.seedSyntheticAssets(count: 10, batchSize: 10, startingAt: 2000, describe: true)
        try Self.write(lib, "UPDATE assets SET caption = 'sunny harbour', keyword_key = NULL WHERE id IN (3, 4, 5)")
        let prefix = try Self.lookUp("\"sun\"*", lib)
        #expect(prefix.outcome == .updated && prefix.same)
        // A sixteenth of the library (at least 256) is the most brought up to date.
        try Self.write(lib, "UPDATE assets SET caption = 'harbour', keyword_key = NULL WHERE id % 5 = 1")
        let many = try Self.lookUp("\"sunset\"", lib)
        #expect(many.outcome == .readWhole && many.same)
    }

    @Test("a reader at an earlier state than a kept set reads its own, and the writer's transaction never uses the cache")
    func earlierStateAndWriter() throws {
        let lib = try Self.seeded()
        _ = try Self.lookUp("\"sunset\"", lib)
        let before = try lib.library.read { db in try db.scalarInt("SELECT max(id) FROM assets") ?? 0 }
        // A reader holds its transaction while the writer adds assets and another reader
        // keeps the later set.
        let started = DispatchSemaphore(value: 0), written = DispatchSemaphore(value: 0)
        let early = Mutex<(SearchMatchCache.Outcome, Bool)?>(nil)
        let library = lib.library
        let thread = Thread {
            try? library.read { db in
                _ = try db.scalarInt("SELECT count(*) FROM assets")
                started.signal()
                written.wait()
                let (set, outcome) = try SearchMatchCache.shared.lookUp("\"sunset\"", db: db.handle)
                let found = Set(try db.rows("SELECT rowid FROM asset_text WHERE asset_text MATCH ?", ["\"sunset\""])
                    .compactMap { $0.int64("rowid") })
                early.withLock { $0 = (outcome, Set((0...Int64(before + 500)).filter { set.contains($0) }) == found) }
            }
        }
        thread.start()
        started.wait()
        try lib.library.seedSyntheticAssets(count: 200, batchSize: 100, startingAt: 2000, describe: true)
        #expect(try Self.lookUp("\"sunset\"", lib).outcome == .updated)
        written.signal()
        while early.withLock({ $0 == nil }) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(early.withLock { $0 }! == (.readWhole, true))
        let writers = try lib.library.requireWriter().write { db in
            try SearchMatchCache.shared.lookUp("\"sunset\"", db: db.handle).outcome
        }
        #expect(writers == .readWhole)
    }
}
