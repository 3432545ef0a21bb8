// mediaindex-bench: MediaIndex against the reference tools, side by side in one run.
//
//   swift build -c release --product mediaindex && swift run -c release mediaindex-bench [--files N] [--runs R]
//
// Builds its own inputs from the shared corpus, prints a table and writes JSON, and
// removes what it made. See README.md, "Performance".
import Foundation
import MediaIndex

struct Options {
    var files = 10_000
    var runs = 3
    var queryAssets = 1_000_000
    /// `--search-assets N`: the search benchmark's library size (0: skipped).
    var searchAssets = 1_000_000
    /// `--only-search`: only the search rows.
    var onlySearch = false
    /// `--search-library DIR`: the search benchmark's library, seeded there once and used
    /// again by later runs (without the upkeep rows).
    var searchLibrary: String?
    var thumbnailFiles = 500
    var jsonPath = "benchmark-results.json"
    var corpus: String?
    var mediaindex: String?
    var keep = false
    var watchFiles = 1_000
    var watchInterval = 0.05
    var watchBurst = 10_000
    var onlyWatch = false
    var serveAssets = 1_000_000
    var serveRequests = 200
    var onlyServe = false
    /// `--only-picker`: only the web picker in Chromium, on `--picker-assets` seeded assets.
    var onlyPicker = false
    var pickerAssets = 100_000
    /// `--only-duplicates`: only issue 33's rows (grouping, its memory, the hash's cost).
    var onlyDuplicates = false
    /// How many perceptual hashes the grouping benchmark groups.
    var duplicateHashes = 1_000_000
    /// `--only-thumbnails`: only the thumbnail rows (both tools, every kind, and peak memory).
    var onlyThumbnails = false
    /// `--only-renditions`: only the rendition rows (compatible JPEG cold and cached, HEVC → H.264).
    var onlyRenditions = false
    /// `--scale`: only the scale benchmark, at these sizes.
    var scale = false
    var scaleFiles = [100_000, 1_000_000]
    /// `--scale`: the query targets on a library of this many assets (0: skipped)…
    var scaleAssets = 10_000_000
    /// …in this many folder albums.
    var scaleFolders = 100_000
    /// `--query-library DIR`: the scale queries' library, kept and used again when seeded
    /// with the same sizes.
    var queryLibrary: String?
    /// `--only-places N`: only the places look-ups, N points.
    var placesLookups = 0

    init(_ arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            func value() throws -> String {
                guard let v = iterator.next() else { throw BenchmarkError("\(argument) needs a value") }
                return v
            }
            switch argument {
            case "--files": files = Int(try value()) ?? files
            case "--runs": runs = max(1, Int(try value()) ?? runs)
            case "--query-assets": queryAssets = max(0, Int(try value()) ?? queryAssets)
            case "--search-assets": searchAssets = max(0, Int(try value()) ?? searchAssets)
            case "--only-search": onlySearch = true
            case "--search-library": searchLibrary = try value()
            case "--thumbnail-files": thumbnailFiles = max(0, Int(try value()) ?? thumbnailFiles)
            case "--json": jsonPath = try value()
            case "--corpus": corpus = try value()
            case "--mediaindex": mediaindex = try value()
            case "--keep": keep = true
            case "--watch-files": watchFiles = max(0, Int(try value()) ?? watchFiles)
            case "--watch-interval": watchInterval = max(0, Double(try value()) ?? watchInterval)
            case "--watch-burst": watchBurst = max(0, Int(try value()) ?? watchBurst)
            case "--only-watch": onlyWatch = true
            case "--serve-assets": serveAssets = max(0, Int(try value()) ?? serveAssets)
            case "--serve-requests": serveRequests = max(1, Int(try value()) ?? serveRequests)
            case "--only-serve": onlyServe = true
            case "--only-picker": onlyPicker = true
            case "--picker-assets": pickerAssets = max(0, Int(try value()) ?? pickerAssets)
            case "--only-thumbnails": onlyThumbnails = true
            case "--only-renditions": onlyRenditions = true
            case "--only-duplicates": onlyDuplicates = true
            case "--duplicate-hashes": duplicateHashes = max(2, Int(try value()) ?? duplicateHashes)
            case "--scale": scale = true
            case "--scale-files":
                scale = true
                scaleFiles = try value().split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            case "--scale-assets":
                scale = true
                scaleAssets = max(0, Int(try value()) ?? scaleAssets)
            case "--scale-folders": scaleFolders = max(1, Int(try value()) ?? scaleFolders)
            case "--query-library": queryLibrary = try value()
            case "--only-places": placesLookups = max(1, Int(try value()) ?? 1_000_000)
            case "-h", "--help":
                print("usage: mediaindex-bench [--files N] [--runs R] [--thumbnail-files N] [--query-assets N] [--search-assets N] [--only-search] [--search-library DIR] [--json PATH] [--corpus DIR] [--mediaindex BINARY] [--keep] [--watch-files N] [--watch-interval SECONDS] [--watch-burst N] [--only-watch] [--serve-assets N] [--serve-requests N] [--only-serve] [--only-picker] [--picker-assets N] [--only-thumbnails] [--only-renditions] [--only-duplicates] [--duplicate-hashes N] [--scale] [--scale-files N,N…|none] [--scale-assets N] [--scale-folders N] [--query-library DIR] [--only-places N]")
                exit(0)
            default: throw BenchmarkError("unknown argument \(argument)")
            }
        }
    }
}

/// One line of the results table.
struct Row {
    var measurement: String
    var ours: String
    var reference: String
    var ratio: String
    var target: String
    var json: [String: Any]
}

func formatRate(_ files: Int, _ figure: Figure) -> String {
    String(format: "%.0f files/s (%.2f–%.2f s)", Double(files) / figure.median, figure.min, figure.max)
}

func mebibytes(_ bytes: Int) -> String { String(format: "%.0f MB", Double(bytes) / 1e6) }

func run() throws {
    let options = try Options(CommandLine.arguments)
    if options.placesLookups > 0 {
        let rows = try PlacesBenchmark.run(lookups: options.placesLookups)
        printTable(rows)
        try writeResults(rows, options: options, files: 0)
        return
    }
    let executableFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    let mediaindex = options.mediaindex ?? executableFolder + "/mediaindex"
    guard FileManager.default.isExecutableFile(atPath: mediaindex) else {
        throw BenchmarkError("\(mediaindex) not found: build it first with 'swift build -c release --product mediaindex'")
    }
    let corpus = options.corpus ?? ProcessInfo.processInfo.environment["MEDIAINDEX_CORPUS"]
        ?? FileManager.default.currentDirectoryPath + "/../shared/corpus"
    let media = corpus + "/media"
    guard FileManager.default.fileExists(atPath: media) else { throw BenchmarkError("no corpus at \(corpus)") }

    let work = NSTemporaryDirectory() + "mediaindex-bench-\(getpid())"
    defer {
        if options.keep { print("Kept \(work)") } else { try? FileManager.default.removeItem(atPath: work) }
    }
    let watchRows = { try WatchBenchmark.run(mediaindex: mediaindex, media: media, work: work, files: options.watchFiles,
                                             interval: options.watchInterval, burst: options.watchBurst) }
    let serveRows = { try ServeBenchmark.run(mediaindex: mediaindex, media: media, work: work, assets: options.serveAssets,
                                             requestsPerClient: options.serveRequests) }
    if options.onlyWatch {
        printTable(try watchRows())
        return
    }
    if options.onlySearch {
        let rows = try SearchBenchmark.run(work: work, runs: options.runs, assets: options.searchAssets,
                                              library: options.searchLibrary, media: media)
        printTable(rows)
        try writeResults(rows, options: options, files: 0)
        return
    }
    if options.onlyServe {
        printTable(try serveRows())
        return
    }
    let pickerRows = { try PickerBenchmark.run(mediaindex: mediaindex, work: work, assets: options.pickerAssets, runs: options.runs) }
    if options.onlyPicker {
        let rows = try pickerRows()
        printTable(rows)
        try writeResults(rows, options: options, files: 0)
        return
    }
    let duplicateRows = {
        try DuplicateBenchmark.run(executable: CommandLine.arguments[0], media: media, hashes: options.duplicateHashes,
                                   runs: options.runs)
    }
    if options.onlyDuplicates {
        let rows = try duplicateRows()
        printTable(rows)
        try writeResults(rows, options: options, files: options.duplicateHashes)
        return
    }
    if options.onlyRenditions {
        let rows = try RenditionBenchmark.run(media: media, work: work, runs: options.runs)
        printTable(rows)
        try writeResults(rows, options: options, files: 1)
        return
    }
    if options.onlyThumbnails {
        let rows = try ThumbnailBenchmark.run(mediaindex: mediaindex, media: media, work: work, runs: options.runs,
                                              filesPerKind: options.thumbnailFiles)
        printTable(rows)
        try writeResults(rows, options: options, files: options.thumbnailFiles)
        return
    }
    if options.scale {
        var rows = try ScaleBenchmark.run(mediaindex: mediaindex, media: media, work: work, sizes: options.scaleFiles,
                                          runs: options.runs, keepLast: options.keep)
        if options.scaleAssets > 0 {
            let library = options.queryLibrary ?? work + "/scale-query-library"
            rows += try QueryBenchmark.run(work: work, runs: options.runs, assets: options.scaleAssets,
                                           folders: options.scaleFolders, libraryPath: library, sizeRows: true)
            let firstPaint = try FirstPaint.measure(mediaindex: mediaindex, library: library)
            rows.append(FirstPaint.row(firstPaint, assets: options.scaleAssets))
        }
        printTable(rows)
        try writeResults(rows, options: options, files: options.scaleFiles.max() ?? 0)
        return
    }
    let tree = work + "/tree"
    print("Building a tree of \(options.files) files from \(media)…")
    let fileCount = try TreeBuilder.build(from: media, into: tree, count: options.files)
    var rows: [Row] = []

    // 1. Cold index against exiftool.
    var ourIndex: [Double] = [], ourIndexRSS = 0
    for run in 0..<options.runs {
        let library = work + "/library-\(run)"
        let m = try ProcessRunner.measure([mediaindex, "index", "--quiet", "--library", library, tree])
        guard m.exitCode == 0 else { throw BenchmarkError("mediaindex index failed with \(m.exitCode)") }
        ourIndex.append(m.seconds)
        ourIndexRSS = max(ourIndexRSS, m.peakResidentBytes)
        if run > 0 { try? FileManager.default.removeItem(atPath: library) }
    }
    var exiftool: [Double] = []
    if ProcessRunner.exists("exiftool") {
        for _ in 0..<options.runs {
            let m = try ProcessRunner.measure(["exiftool", "-fast2", "-json", "-r", "-ext", "*", tree])
            exiftool.append(m.seconds)
        }
    }
    let ourFigure = Figure(values: ourIndex), exifFigure = Figure(values: exiftool)
    rows.append(Row(
        measurement: "cold index, \(fileCount) files",
        ours: formatRate(fileCount, ourFigure),
        reference: exiftool.isEmpty ? "exiftool not installed" : "exiftool -fast2: " + formatRate(fileCount, exifFigure),
        ratio: exiftool.isEmpty ? "-" : String(format: "%.1f×", exifFigure.median / ourFigure.median),
        target: "≥ 50×",
        json: ["ours_seconds": ourIndex, "exiftool_seconds": exiftool, "files": fileCount]))

    // 2. Re-index with nothing changed, against find.
    var reindex: [Double] = [], reindexRSS = 0
    for _ in 0..<options.runs {
        let m = try ProcessRunner.measure([mediaindex, "index", "--quiet", "--library", work + "/library-0"])
        reindex.append(m.seconds)
        reindexRSS = max(reindexRSS, m.peakResidentBytes)
    }
    var find: [Double] = []
    for _ in 0..<options.runs {
        find.append(try ProcessRunner.measure(["find", tree, "-type", "f", "-printf", "%s %T@ %i\\n"]).seconds)
    }
    let reFigure = Figure(values: reindex), findFigure = Figure(values: find)
    rows.append(Row(
        measurement: "re-index, nothing changed",
        ours: String(format: "%.3f s (%.3f–%.3f)", reFigure.median, reFigure.min, reFigure.max),
        reference: String(format: "find -printf: %.3f s", findFigure.median),
        ratio: String(format: "%.1f× find's time", reFigure.median / findFigure.median),
        target: "≤ 1.5×",
        json: ["ours_seconds": reindex, "find_seconds": find]))

    rows.append(Row(
        measurement: "peak memory, index \(fileCount) files", ours: mebibytes(ourIndexRSS),
        reference: "re-index: " + mebibytes(reindexRSS), ratio: "-", target: "≤ 250 MB (see --scale)",
        json: ["index_peak_bytes": ourIndexRSS, "reindex_peak_bytes": reindexRSS]))

    rows += try ThumbnailBenchmark.run(mediaindex: mediaindex, media: media, work: work, runs: options.runs,
                                       filesPerKind: options.thumbnailFiles)
    rows += try duplicateRows()
    rows += try QueryBenchmark.run(work: work, runs: options.runs, assets: options.queryAssets)
    if options.queryAssets > 0 {
        // A picker's first screen on the query benchmark's library, from a new process.
        let firstPaint = try FirstPaint.measure(mediaindex: mediaindex, library: work + "/query-library")
        rows.append(FirstPaint.row(firstPaint, assets: options.queryAssets))
    }
    rows += try SearchBenchmark.run(work: work, runs: options.runs, assets: options.searchAssets,
                                    library: options.searchLibrary, media: media)
    rows += try watchRows()
    rows += try serveRows()
    rows += try pickerRows()

    printTable(rows)
    try writeResults(rows, options: options, files: fileCount)
}

/// Writes the rows as JSON to `--json`'s path.
func writeResults(_ rows: [Row], options: Options, files: Int) throws {
    let document: [String: Any] = [
        "date": ISO8601DateFormatter().string(from: Date()),
        "machine": machineDescription(),
        "files": files,
        "runs": options.runs,
        "results": Dictionary(uniqueKeysWithValues: rows.map { ($0.measurement, $0.json) }),
    ]
    let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: options.jsonPath))
    print("\nWritten to \(options.jsonPath)")
}

func printTable(_ rows: [Row]) {
    let headers = ["measurement", "MediaIndex", "reference", "ratio", "target"]
    let cells = rows.map { [$0.measurement, $0.ours, $0.reference, $0.ratio, $0.target] }
    let widths = headers.indices.map { column in
        max(headers[column].count, cells.map { $0[column].count }.max() ?? 0)
    }
    func line(_ values: [String]) -> String {
        "| " + values.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
            .joined(separator: " | ") + " |"
    }
    print("")
    print(line(headers))
    print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
    for row in cells { print(line(row)) }
    print("\nMachine: \(machineDescription())")
}

func machineDescription() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "" } ?? "?"
    let memory = ProcessInfo.processInfo.physicalMemory / 1_000_000_000
    return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GB"
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--duplicates-child",
   let count = Int(CommandLine.arguments[2]) {
    DuplicateBenchmark.child(hashes: count)
    exit(0)
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--duplicates-lookup-child",
   let count = Int(CommandLine.arguments[2]) {
    DuplicateBenchmark.lookupChild(hashes: count)
    exit(0)
}
do {
    try run()
} catch {
    FileHandle.standardError.write(Data("mediaindex-bench: \(error)\n".utf8))
    exit(1)
}
