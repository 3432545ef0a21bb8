import CorpusSupport
import Foundation
import MediaIndex
import MediaMetadata

extension MediaLibrary {
    /// Adds `count` synthetic assets, each with one file row under `folderCount` made-up
    /// folders of a made-up root, through the same asset and file statements an index
    /// run uses (so triggers and indexes do the same work).
    ///
    /// For benchmarks and scale tests: the paths do not exist, and the next index run
    /// of that root would remove them. `batchSize` rows are committed per transaction;
    /// with `deferIndexes` the secondary indexes are built once at the end.
    package func seedSyntheticAssets(count: Int, folderCount: Int = 10_000, batchSize: Int = 1_000,
                                     startingAt first: Int = 0, deferIndexes: Bool = false,
                                     describe: Bool = false) throws {
        if deferIndexes {
            try withSecondaryIndexesDeferred {
                try seedSyntheticAssets(count: count, folderCount: folderCount, batchSize: batchSize,
                                        startingAt: first, describe: describe)
            }
            return
        }
        var generator = SplitMix64(seed: UInt64(first) &+ 0x5EED)
        var made = 0
        while made < count {
            let batch = min(batchSize, count - made)
            let files = (0..<batch).map { offset in
                Self.syntheticFile(first + made + offset, folderCount: folderCount, describe: describe,
                                   generator: &generator)
            }
            try insertSeededFiles(files, root: PathBytes("/synthetic-library"))
            made += batch
        }
    }

    /// Synthetic asset `n`: a photo or (one in ten) a video, ten years of capture times
    /// with bursts, four makes, a position on one in four.
    private static func syntheticFile(_ n: Int, folderCount: Int, describe: Bool,
                                      generator: inout SplitMix64) -> SeededFile {
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
        if describe { metadata.descriptive = syntheticDescription(n) }
        let name = (generator.next() % 50 == 0 ? "Screenshot_" : "IMG_") + String(n) + (isVideo ? ".MOV" : ".JPG")
        let folder = "/synthetic-library/\(n % folderCount / 100)/\(n % folderCount)"
        var hasher = XXHash64(seed: UInt64(n))
        hasher.update(Array(name.utf8))
        let stat = FileStat(size: Int64(2_000_000 + n % 1000), modificationNanoseconds: Int64(n),
                            inode: UInt64(n), device: 0)
        return SeededFile(metadata: metadata, path: PathBytes(folder + "/" + name),
                          fingerprint: ContentFingerprint(size: UInt64(n), hash: hasher.finalize()), stat: stat)
    }

    /// Ten keywords (some common, most rare, a tenth of them paths) and a caption for
    /// synthetic asset `n`, the same for the same `n`: what `describe:` seeds.
    static func syntheticDescription(_ n: Int) -> DescriptiveMetadata {
        let words = ["beach", "dog", "family", "sunset", "mountain", "city", "food", "party", "snow", "forest"]
        var random = SplitMix64(seed: UInt64(n) &+ 0xD35C_0000)
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
