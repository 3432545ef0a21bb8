import ChildProcesses
import Foundation
import MediaIndex
import MediaThumbnails

/// Renditions (docs/renditions.md): a compatible JPEG from a 12 MP iPhone HEIC, cold (a new
/// cache each run) against `vips copy` to a JPEG of the same quality, and from the cache;
/// then a 1080p HEVC clip (made with ffmpeg) converted to H.264 against real time.
enum RenditionBenchmark {
    static let heic = "exiv2-test-data/test/data/2021-02-13-1929.heic"

    static func run(media: String, work: String, runs: Int) throws -> [Row] {
        let root = work + "/renditions-root"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try? FileManager.default.copyItem(atPath: media + "/" + heic, toPath: root + "/IMG_1929.HEIC")
        var rows: [Row] = []
        var cold: [Double] = [], coldCPU: [Double] = [], hits: [Double] = []
        for run in 0..<runs {
            let library = try MediaLibrary(location: LibraryLocation(directory: work + "/renditions-library"),
                                           cache: ThumbnailCache(directory: URL(fileURLWithPath: work + "/renditions-cache-\(run)")))
            if run == 0 { _ = try library.blocking.index(roots: [PathBytes(root)]) }
            var options = FetchOptions.everyAsset
            options.limit = 1
            guard let asset = try library.blocking.fetchAssets(options).assets.first else { throw BenchmarkError("the HEIC did not index") }
            var start = DispatchTime.now()
            let cpu = CPUTime.ownAndChildrenSeconds
            _ = try library.blocking.compatiblePhoto(for: asset)
            cold.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
            coldCPU.append((CPUTime.ownAndChildrenSeconds - cpu) * 1000)
            for _ in 0..<20 {
                start = DispatchTime.now()
                let hit = try library.blocking.compatiblePhoto(for: asset)
                _ = FileManager.default.contents(atPath: hit.path)  // the bytes read, as a server sends them
                hits.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
            }
        }
        var vips: [Double] = [], vipsCPU: [Double] = []
        if ProcessRunner.exists("vips") {
            for _ in 0..<runs {
                let start = DispatchTime.now()
                let made = try ProcessRunner.measure(["vips", "copy", root + "/IMG_1929.HEIC", work + "/vips.jpg[Q=92]"])
                vips.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
                vipsCPU.append(made.cpuSeconds * 1000)
            }
        }
        let ours = Figure(values: cold), reference = Figure(values: vips)
        let cpu = Figure(values: coldCPU).median, referenceCPU = Figure(values: vipsCPU).median
        rows.append(Row(measurement: "compatible JPEG, 12 MP HEIC, cold", ours: String(format: "%.0f ms (CPU %.0f ms)", ours.median, cpu),
                        reference: vips.isEmpty ? "vips not installed" : String(format: "vips copy %.0f ms (CPU %.0f ms)", reference.median, referenceCPU),
                        ratio: vips.isEmpty ? "-" : String(format: "%.2f×", reference.median / ours.median), target: "≤ 400 ms",
                        json: ["coldMs": ours.median, "coldCPUMs": cpu, "vipsMs": vips.isEmpty ? NSNull() : reference.median,
                               "vipsCPUMs": vips.isEmpty ? NSNull() : referenceCPU]))
        let hit = Figure(values: hits)
        rows.append(Row(measurement: "compatible JPEG from the cache", ours: String(format: "%.2f ms (p max %.2f)", hit.median, hit.max),
                        reference: "-", ratio: "-", target: "≤ 5 ms", json: ["cachedMs": hit.median]))
        rows += try corpusRows(media: media, work: work)
        rows.append(try videoRow(work: work))
        return rows
    }

    /// A 10 s 1080p HEVC clip converted with the rendition's ffmpeg arguments: seconds of
    /// video per second of work.
    static func videoRow(work: String) throws -> Row {
        guard VideoTranscoder.isAvailable else {
            return Row(measurement: "1080p HEVC → H.264", ours: "-", reference: "ffmpeg not installed", ratio: "-", target: "≥ 2× real time", json: [:])
        }
        let clip = work + "/hevc-1080p.mp4"
        let made = try ProcessRunner.measure(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                              "testsrc2=s=1920x1080:d=10:r=30", "-f", "lavfi", "-i", "sine=d=10",
                                              "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                                              "-tag:v", "hvc1", "-c:a", "aac", clip])
        guard made.exitCode == 0 else { throw BenchmarkError("ffmpeg could not make the HEVC clip") }
        let start = DispatchTime.now()
        let cpuBefore = CPUTime.childrenSeconds
        try VideoTranscoder.transcode(pathBytes: Array(clip.utf8), output: work + "/h264.mp4", progress: work + "/progress", colour: nil)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        // On a loaded machine the wall time says little; ffmpeg's CPU time over the cores says what a free machine gives.
        let cpu = CPUTime.childrenSeconds - cpuBefore
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        return Row(measurement: "1080p30 HEVC → H.264 (\(VideoTranscoder.preset)), 10 s clip",
                   ours: String(format: "%.1f s (CPU %.1f s)", seconds, cpu), reference: "10 s of video",
                   ratio: String(format: "%.2f× real time (%.2f× by CPU on %.0f cores)", 10 / seconds, 10 / (cpu / cores), cores),
                   target: "≥ 2× real time", json: ["transcodeSeconds": seconds, "speed": 10 / seconds, "cpuSeconds": cpu])
    }
}

extension RenditionBenchmark {
    /// The corpus's other 12 MP HEVC-grid HEICs (iPhones with and without irot, iOS 17, a Samsung).
    static let otherHEICs = [
        "exiv2-test-data/test/data/IMG_3578.heic",
        "ente-test-fixtures/ml/indexing/v1/files/IMG_8606_rotate_90_cw_contains_text.HEIC",
        "osxphotos/tests/test-images/IMG_3092.heic",
        "photoprism/assets/examples/iphone_7.heic",
        "immich-test-assets/formats/motionphoto/samsung-one-ui-6.heic",
    ]

    /// One cold compatible JPEG of each of `otherHEICs`, beside `vips copy` of the same file.
    static func corpusRows(media: String, work: String) throws -> [Row] {
        let root = work + "/renditions-corpus"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for relative in otherHEICs {
            try? FileManager.default.copyItem(atPath: media + "/" + relative,
                                              toPath: root + "/" + (relative as NSString).lastPathComponent)
        }
        let library = try MediaLibrary(location: LibraryLocation(directory: work + "/renditions-corpus-library"),
                                       cache: ThumbnailCache(directory: URL(fileURLWithPath: work + "/renditions-corpus-cache")))
        _ = try library.blocking.index(roots: [PathBytes(root)])
        var rows: [Row] = []
        for asset in try library.blocking.fetchAssets(FetchOptions.everyAsset).assets {
            guard let file = asset.primaryResource?.path.displayString else { continue }
            let start = DispatchTime.now(), cpu = CPUTime.ownAndChildrenSeconds
            _ = try library.blocking.compatiblePhoto(for: asset)
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
            let cpuMs = (CPUTime.ownAndChildrenSeconds - cpu) * 1000
            var reference = "vips not installed", ratio = "-"
            if ProcessRunner.exists("vips") {
                let vipsStart = DispatchTime.now()
                let made = try ProcessRunner.measure(["vips", "copy", file, work + "/vips-corpus.jpg[Q=92]"])
                let vipsMs = Double(DispatchTime.now().uptimeNanoseconds - vipsStart.uptimeNanoseconds) / 1e6
                reference = String(format: "vips copy %.0f ms (CPU %.0f ms)", vipsMs, made.cpuSeconds * 1000)
                ratio = String(format: "%.2f×", vipsMs / ms)
            }
            rows.append(Row(measurement: "compatible JPEG, \((file as NSString).lastPathComponent), cold",
                            ours: String(format: "%.0f ms (CPU %.0f ms)", ms, cpuMs), reference: reference, ratio: ratio,
                            target: "≤ 400 ms", json: ["coldMs": ms, "coldCPUMs": cpuMs]))
        }
        return rows
    }
}
