import CorpusSupport
import Foundation
@testable import MediaMetadata
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Every corpus file, corrupted deterministically (truncations, flipped header bytes,
/// size fields set to 0, all ones and past the end), read through `MetadataReader`.
@Suite("Corrupted corpus files", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct CorruptionTests {
    /// One read must finish in this time: 100 ms optimised. Debug builds under a full
    /// parallel test run measured up to 200 ms on one 2.5 MB JPEG whose APP1 length was
    /// set to 0xFFFF (see docs/robustness.md), so debug gets 300 ms.
    #if DEBUG
    static let timeLimit: Duration = .milliseconds(300)
    #else
    static let timeLimit: Duration = .milliseconds(100)
    #endif
    /// Peak resident memory may grow at most this much over a whole folder's pass.
    static let memoryGrowthLimitBytes = 512 * 1024 * 1024

    /// The corpus's top-level folders: one test case each, so they run in parallel.
    static let folders: [String] = Array(Set(Corpus.allMediaPaths.compactMap { $0.split(separator: "/").first.map(String.init) })).sorted()

    @Test("every mutation of every corpus file returns or throws MetadataError, quickly, in bounded memory",
          arguments: folders)
    func mutatedCorpus(folder: String) throws {
        let media = try #require(Corpus.media)
        let paths = Corpus.allMediaPaths.filter { $0.hasPrefix(folder + "/") }
        let rssBefore = Self.peakResidentBytes()
        var mutated = 0
        var slowest: (name: String, duration: Duration) = ("", .zero)
        for relative in paths {
            guard let data = FileManager.default.contents(atPath: media.path + "/" + relative) else { continue }
            for mutation in CorpusMutations.mutations(of: Array(data), seed: CorpusMutations.seed(for: relative)) {
                mutated += 1
                var duration = Self.timedRead(mutation.bytes, label: "\(relative), \(mutation.name)")
                if duration > Self.timeLimit {
                    // Once more, to tell a slow reader from a busy machine.
                    duration = min(duration, Self.timedRead(mutation.bytes, label: "\(relative), \(mutation.name)"))
                }
                #expect(duration < Self.timeLimit, "\(relative), \(mutation.name): took \(duration)")
                if duration > slowest.duration { slowest = ("\(relative), \(mutation.name)", duration) }
            }
        }
        let growth = Self.peakResidentBytes() - rssBefore
        #expect(growth < Self.memoryGrowthLimitBytes, "peak memory grew by \(growth / 1_048_576) MiB")
        print("corruption \(folder): \(paths.count) files, \(mutated) mutants, slowest \(slowest.duration) (\(slowest.name)), peak RSS +\(growth / 1_048_576) MiB")
    }

    /// Reads a mutant; any thrown error must be a `MetadataError`.
    private static func timedRead(_ bytes: [UInt8], label: String) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try MetadataReader.read(MemoryByteSource(bytes))
        } catch is MetadataError {
        } catch {
            Issue.record("\(label): threw \(error), not a MetadataError")
        }
        return clock.now - start
    }

    /// The process's peak resident set (`getrusage`, kilobytes on Linux).
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }

    @Test("the mutation set covers truncation, flipped bytes and lying size fields")
    func mutationKinds() {
        // An ISO-BMFF head: ftyp box then a moov box.
        var bytes: [UInt8] = [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0]
        bytes += [0, 0, 0, 8] + Array("moov".utf8)
        let names = CorpusMutations.mutations(of: bytes, seed: 1).map(\.name)
        #expect(names.contains("truncated at 8"))
        #expect(names.filter { $0.hasPrefix("flipped") }.count == 3)
        #expect(names.contains("size field at 0 set to all ones"))
        #expect(names.contains("size field at 16 set to past the end"))
        let allOnes = CorpusMutations.mutations(of: bytes, seed: 1).first { $0.name == "size field at 16 set to all ones" }
        #expect(allOnes?.bytes[16..<20] == [0xFF, 0xFF, 0xFF, 0xFF])
    }
}
