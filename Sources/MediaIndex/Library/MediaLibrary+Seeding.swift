import Foundation
import MediaMetadata

extension MediaLibrary {
    /// Adds `count` synthetic assets, each with one file row under `folderCount` made-up
    /// folders of a made-up root, through the same asset and file statements an index
    /// run uses (so triggers and indexes do the same work).
    ///
    /// For benchmarks and scale tests: the paths do not exist, and the next index run
    /// of that root would remove them. `batchSize` rows are committed per transaction.
    package func seedSyntheticAssets(count: Int, folderCount: Int = 10_000, batchSize: Int = 1_000,
                                    startingAt first: Int = 0, deferIndexes: Bool = false,
                                    describe: Bool = false) throws {
        if deferIndexes {
            // A bulk load: the rows go through the same statements and triggers, and the
            // secondary indexes are built once at the end (a sort, not a million inserts).
            let writer = try requireWriter()
            let indexes = try writer.write { db in
                try db.rows("""
                    SELECT name, sql FROM sqlite_master
                    WHERE type = 'index' AND tbl_name IN ('assets', 'files') AND sql IS NOT NULL
                    """).compactMap { row in row.string("name").flatMap { n in row.string("sql").map { (n, $0) } } }
            }
            try writer.write { db in for (name, _) in indexes { try db.execute("DROP INDEX \(name)") } }
            defer {
                try? writer.write { db in for (_, sql) in indexes { try db.execute(sql) } }
                try? writer.write { db in try SearchTextIndex.tidy(db, changed: count) }
                // The index builds went through the WAL; copy them into the database and
                // empty it, so readers do not look up every page in a large WAL.
                try? writer.write { db in _ = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)") }
            }
            try seedSyntheticAssets(count: count, folderCount: folderCount, batchSize: batchSize, startingAt: first,
                                    describe: describe)
            return
        }
        let writer = try requireWriter()
        let root = PathBytes("/synthetic-library")
        var generator = SyntheticRandom(seed: UInt64(first) &+ 0x5EED)
        var made = 0
        let rootID = try writer.write { db in
            try RootStore(db: db).insertIfMissing(root, now: Date().timeIntervalSince1970)
        }
        while made < count {
            let batch = min(batchSize, count - made)
            try writer.transaction { db in
                let now = Date().timeIntervalSince1970
                for offset in 0..<batch {
                    let n = first + made + offset
                    let isVideo = generator.next() % 10 == 0
                    var metadata = MediaMetadata(format: isVideo ? .quickTime : .jpeg)
                    metadata.pixelWidth = isVideo ? 1920 : 4032
                    metadata.pixelHeight = isVideo ? 1080 : 3024
                    // Ten years of pictures, a few seconds apart, some in bursts of equal times.
                    let taken = 1_400_000_000 + Double(generator.next() % 315_000_000)
                    metadata.captureDate = CaptureDate(timestamp: taken, utcOffsetSeconds: 3600)
                    metadata.make = ["Apple", "Google", "Canon", "SONY"][Int(generator.next() % 4)]
                    metadata.model = metadata.make.map { $0 + " Model " + String(generator.next() % 5) }
                    if isVideo { metadata.durationSeconds = Double(generator.next() % 600) / 10 }
                    if generator.next() % 4 == 0 {
                        metadata.location = GeoLocation(latitude: Double(generator.next() % 18_000) / 100 - 90,
                                                        longitude: Double(generator.next() % 36_000) / 100 - 180)
                    }
                    if describe { metadata.descriptive = Self.syntheticDescription(n) }
                    let name = (generator.next() % 50 == 0 ? "Screenshot_" : "IMG_") + String(n) + (isVideo ? ".MOV" : ".JPG")
                    let folder = "/synthetic-library/\(n % folderCount / 100)/\(n % folderCount)"
                    var hasher = XXHash64(seed: UInt64(n))
                    hasher.update(Array(name.utf8))
                    let fingerprint = ContentFingerprint(size: UInt64(n), hash: hasher.finalize())
                    let assetID = try AssetStore(db: db).insert(
                        AssetRecord.MetadataValues(metadata, fileName: name),
                        identifier: AssetIdentifierFactory.identifier(for: fingerprint),
                        fingerprint: fingerprint.description, now: now)
                    let stat = FileStat(size: Int64(2_000_000 + n % 1000), modificationNanoseconds: Int64(n),
                                        inode: UInt64(n), device: 0)
                    try FileStore(db: db).upsert(FileStore.Write(
                        rootID: rootID, entry: FileWalker.Entry(path: PathBytes(folder + "/" + name), stat: stat),
                        status: .media, format: metadata.format, fingerprint: fingerprint.description,
                        assetID: assetID, role: FileRole(primaryFor: metadata.format)), now: now)
                }
            }
            made += batch
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood): small, fast and deterministic, for made-up data.
private struct SyntheticRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension MediaLibrary {
    /// Ten keywords (some common, most rare, a tenth of them paths) and a caption for
    /// synthetic asset `n`, the same for the same `n`: what `describe:` seeds.
    static func syntheticDescription(_ n: Int) -> DescriptiveMetadata {
        let words = ["beach", "dog", "family", "sunset", "mountain", "city", "food", "party", "snow", "forest"]
        var random = SyntheticRandom(seed: UInt64(n) &+ 0xD35C_0000)
        func keyword() -> String {
            // Skewed: the product of two uniform draws makes low numbers common.
            let index = Int(random.next() % 1000) * Int(random.next() % 1000) / 1000
            let word = words[index % words.count] + (index < words.count ? "" : String(index / words.count))
            return index % 10 == 7 ? "Places|" + word.capitalized : word
        }
        let keywords = DescriptiveMetadata.keywordSet((0..<10).map { _ in keyword() })
        let caption = "A day at the \(words[Int(random.next() % 10)]) with the \(words[Int(random.next() % 10)])"
        return DescriptiveMetadata(keywords: keywords, caption: caption)
    }
}
