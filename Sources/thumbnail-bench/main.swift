// Benchmarks MediaThumbnails against `vipsthumbnail` on the corpus JPEGs, HEICs, TIFFs,
// PNGs, WebPs and AVIFs (and measures BMP and JPEG XL on our side).
//
//     swift run -c release --scratch-path /tmp/build-thumbs-release thumbnail-bench [--size 256] [--runs 3] [--min-files 200]
//     thumbnail-bench --peak-of FILE [--size 256]
//     thumbnail-bench --compatible-of FILE [--runs 3]
//
// `--peak-of` makes one thumbnail of FILE in this fresh process and prints
// `WIDTHxHEIGHT VmHWM-KB` (the thumbnail's size and the process's peak resident memory, from
// /proc/self/status), or `failed: REASON`; the memory tests run it as a child process.
// `--compatible-of` makes FILE's compatible JPEG (`ThumbnailGenerator.compatibleImage`) `--runs`
// times in this process and prints each run's wall time and CPU time (with children: ffmpeg).
//
// Both tools make the same thumbnails of the same files in the same run; vipsthumbnail
// gets all files in one process, ours runs on all cores as the indexer does. Page caches
// are dropped before each timed run when the process may (root); otherwise both run warm.
import ChildProcesses
import Foundation
import MediaMetadata
import MediaThumbnails

#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var size = 256
    var runs = 3
    var minFiles = 200
    var verbose = false
    /// Only this kind ("JPEG", "HEIC", "TIFF", "PNG", "WEBP", "AVIF", "BMP", "JXL"), when given.
    var only: String?
    /// Only files whose path contains this, when given.
    var match: String?
    /// Skip vipsthumbnail (for profiling our side alone).
    var noVips = false
    /// Thumbnail only this file and print its size and the process's peak memory.
    var peakOf: String?
    /// Make this file's compatible JPEG `runs` times and print the times.
    var compatibleOf: String?
    var corpus = ProcessInfo.processInfo.environment["MEDIAINDEX_CORPUS"] ?? "../shared/corpus"

    init(_ arguments: [String]) {
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? arguments[i + 1] : ""
            switch arguments[i] {
            case "--size": size = Int(value) ?? size; i += 1
            case "--runs": runs = max(1, Int(value) ?? runs); i += 1
            case "--min-files": minFiles = Int(value) ?? minFiles; i += 1
            case "--corpus": corpus = value; i += 1
            case "--verbose": verbose = true
            case "--only": only = value.uppercased(); i += 1
            case "--match": match = value; i += 1
            case "--no-vips": noVips = true
            case "--peak-of": peakOf = value; i += 1
            case "--compatible-of": compatibleOf = value; i += 1
            default: break
            }
            i += 1
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let request = ThumbnailRequest(maxPixelSize: options.size)

/// The process's peak resident memory in KB (`VmHWM` of /proc/self/status), or -1.
func peakResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

if let file = options.compatibleOf {
    for run in 1...options.runs {
        let start = DispatchTime.now(), cpu = CPUTime.ownAndChildrenSeconds
        do {
            let made = try ThumbnailGenerator.compatibleImage(ofFileAtBytes: Array(file.utf8))
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
            print(String(format: "run %d: %.1f ms (CPU %.1f ms), %dx%d, %d bytes", run, ms, (CPUTime.ownAndChildrenSeconds - cpu) * 1000,
                         made.width, made.height, made.data.count))
        } catch {
            print("failed: \(error)")
            exit(1)
        }
    }
    exit(0)
}

if let file = options.peakOf {
    do {
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: file, request: request)
        print("\(thumbnail.width)x\(thumbnail.height) \(peakResidentKilobytes())")
        exit(0)
    } catch {
        print("failed: \(error)")
        exit(1)
    }
}

/// Corpus files of the given formats that our generator thumbnails without error.
func collect(_ formats: Set<MediaFormat>) -> [String] {
    let media = URL(fileURLWithPath: options.corpus).appendingPathComponent("media")
    guard let walker = FileManager.default.enumerator(at: media, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
    var found: [String] = []
    for case let url as URL in walker {
        if let match = options.match, !url.path.contains(match) { continue }
        guard let source = try? FileByteSource(path: url.path),
              let format = try? MetadataReader.detectFormat(source), formats.contains(format),
              (try? ThumbnailGenerator.thumbnail(ofFileAt: url.path, request: request)) != nil else { continue }
        found.append(url.path)
    }
    return found.sorted()
}

func repeated(_ files: [String], toAtLeast count: Int) -> [String] {
    guard !files.isEmpty else { return [] }
    var list = files
    while list.count < count { list += files }
    return list
}

func dropCaches() -> Bool {
    sync()
    guard let handle = fopen("/proc/sys/vm/drop_caches", "w") else { return false }
    defer { fclose(handle) }
    return fputs("3\n", handle) >= 0
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Our thumbnails of `files` on all cores, each written to `directory`; returns seconds.
func runOurs(_ files: [String], into directory: String) -> (seconds: Double, failures: Int) {
    let failures = UnsafeMutablePointer<Int>.allocate(capacity: files.count)
    failures.initialize(repeating: 0, count: files.count)
    defer { failures.deallocate() }
    let start = now()
    let failurePointer = UncheckedPointer(failures)
    DispatchQueue.concurrentPerform(iterations: files.count) { index in
        do {
            let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: files[index], request: request)
            let path = "\(directory)/\(index).jpg"
            if let handle = fopen(path, "wb") {
                _ = thumbnail.data.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, handle) }
                fclose(handle)
            }
        } catch {
            failurePointer.pointer[index] = 1
        }
    }
    let seconds = now() - start
    return (seconds, (0..<files.count).reduce(0) { $0 + failures[$1] })
}

/// A pointer shared by concurrentPerform's iterations; each writes only its own slot.
struct UncheckedPointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Int>
    init(_ pointer: UnsafeMutablePointer<Int>) { self.pointer = pointer }
}

/// One vipsthumbnail process over all `files`; returns seconds.
func runVips(_ files: [String], into directory: String) -> Double? {
    let vips = ChildProcess(executable: "/usr/bin/vipsthumbnail",
                            arguments: ["-s", String(options.size), "-o", "\(directory)/%s.jpg"] + files)
    let start = now()
    guard (try? vips.run()) != nil else { return nil }
    return now() - start
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

let scratch = "/tmp/thumbnail-bench"
try? FileManager.default.removeItem(atPath: scratch)
try FileManager.default.createDirectory(atPath: "\(scratch)/ours", withIntermediateDirectories: true)
try FileManager.default.createDirectory(atPath: "\(scratch)/vips", withIntermediateDirectories: true)
let hasVips = !options.noVips && FileManager.default.isExecutableFile(atPath: "/usr/bin/vipsthumbnail")
let cold = dropCaches()
print("thumbnail-bench: size \(options.size), \(options.runs) runs, \(ProcessInfo.processInfo.activeProcessorCount) cores, caches \(cold ? "dropped before each run (cold)" : "not droppable here (warm for both)")")

let kinds: [(String, Set<MediaFormat>)] = [
    ("JPEG", [.jpeg]), ("HEIC", [.heic, .heif]), ("TIFF", [.tiff]), ("PNG", [.png]), ("WEBP", [.webp]), ("AVIF", [.avif]),
    ("BMP", [.bmp]), ("JXL", [.jpegXL]),
]
for (name, formats) in kinds {
    if let only = options.only, only != name { continue }
    let distinct = collect(formats)
    let files = repeated(distinct, toAtLeast: options.minFiles)
    if options.verbose {
        // One file at a time: where the time goes, and which path each took.
        for file in distinct {
            let start = now()
            let result = try? ThumbnailGenerator.thumbnail(ofFileAt: file, request: request)
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            print(String(format: "%7.1f ms  %5d MB  ", (now() - start) * 1000, usage.ru_maxrss / 1024)
                  + "\(result.map { "\($0.path)" } ?? "failed")  \(file)")
        }
    }
    guard !files.isEmpty else { print("\(name): no files"); continue }
    var ours: [Double] = [], vips: [Double] = []
    // CPU time per file does not depend on how many cores the other builders leave free.
    var oursCPU: [Double] = [], vipsCPU: [Double] = []
    var failures = 0
    for _ in 0..<options.runs {
        _ = dropCaches()
        let cpuBefore = CPUTime.ownSeconds
        let run = runOurs(files, into: "\(scratch)/ours")
        oursCPU.append(CPUTime.ownSeconds - cpuBefore)
        ours.append(run.seconds)
        failures = run.failures
        if hasVips {
            _ = dropCaches()
            let childBefore = CPUTime.childrenSeconds
            if let seconds = runVips(files, into: "\(scratch)/vips") {
                vips.append(seconds)
                vipsCPU.append(CPUTime.childrenSeconds - childBefore)
            }
        }
    }
    let oursRate = Double(files.count) / median(ours)
    var line = "\(name): \(files.count) files (\(distinct.count) distinct); ours \(String(format: "%.1f", oursRate)) files/s (median \(String(format: "%.3f", median(ours))) s, \(failures) failed)"
    if !vips.isEmpty {
        let vipsRate = Double(files.count) / median(vips)
        line += "; vipsthumbnail \(String(format: "%.1f", vipsRate)) files/s (median \(String(format: "%.3f", median(vips))) s); ratio \(String(format: "%.2f", oursRate / vipsRate))×"
    } else {
        line += "; vipsthumbnail not installed (apt-get install libvips-tools)"
    }
    print(line)
    if !vipsCPU.isEmpty {
        let oursPerFile = median(oursCPU) / Double(files.count) * 1000, vipsPerFile = median(vipsCPU) / Double(files.count) * 1000
        print("\(name) CPU per file: ours \(String(format: "%.2f", oursPerFile)) ms, vipsthumbnail \(String(format: "%.2f", vipsPerFile)) ms; ratio \(String(format: "%.2f", vipsPerFile / oursPerFile))×")
    }
}

var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
var children = rusage()
getrusage(RUSAGE_CHILDREN.rawValue, &children)
print("peak resident memory (ours, this process): \(usage.ru_maxrss / 1024) MB; vipsthumbnail (largest run): \(children.ru_maxrss / 1024) MB")
