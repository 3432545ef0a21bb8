import ChildProcesses
import Foundation
import MediaMetadata

/// Extracts one video frame with the `ffmpeg` program, which applies the display matrix
/// (autorotate) itself. The product never requires ffmpeg: without it, videos report
/// `ThumbnailError.needsFFmpeg` and everything else works.
enum VideoFrameExtractor {
    /// How long one extraction may take before ffmpeg is stopped.
    static let timeoutSeconds: Double = 30
    /// The largest frame read back (a PPM header's size is checked against it).
    static let maxFrameBytes = 256 << 20

    /// The `ffmpeg` executable on `PATH`, or nil.
    static let ffmpegPath: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
            .split(separator: ":")
        for directory in directories {
            let candidate = "\(directory)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// Frames that versions before the pipe wrote to the temporary folder and a kill left
    /// there (readable by everyone), removed once per process at the first extraction.
    static let leftoversRemoved: Int = removeLeftoverFrames(in: NSTemporaryDirectory())

    /// Removes this user's `mediaindex-frame-<UUID>.ppm` regular files from `folder`, and
    /// nothing else (`lstat(2)`: never a link, never another user's file).
    ///
    /// - Returns: how many were removed.
    @discardableResult
    static func removeLeftoverFrames(in folder: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix("mediaindex-frame-") && name.hasSuffix(".ppm") {
            let middle = name.dropFirst("mediaindex-frame-".count).dropLast(".ppm".count)
            guard UUID(uuidString: String(middle)) != nil else { continue }
            let path = (folder as NSString).appendingPathComponent(name)
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid() else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// The time to take the poster frame from: the live-photo still time when known,
    /// else about 10 % in, at most 1 s.
    static func posterTime(stillTime: Double?, duration: Double?) -> Double {
        if let stillTime, stillTime.isFinite, stillTime >= 0 { return stillTime }
        if let duration, duration.isFinite, duration > 0 { return min(1, duration * 0.1) }
        return 1
    }

    /// One RGB frame of the video at `path`, at `seconds`, its longer (`.fit`) or shorter
    /// (`.fill`) side at most twice the request, so our area averaging does the last step.
    ///
    /// Falls back to the first frame when the video is shorter than `seconds`.
    /// - Throws: `ThumbnailError.needsFFmpeg`, `.decodeFailed` with ffmpeg's last words.
    /// - Parameter colour: the video's colour as its container declares it; an HDR one (PQ
    ///   or HLG) is tone-mapped to SDR (`toneMapping(_:)`) when ffmpeg has the filters.
    static func frame(pathBytes path: [UInt8], seconds: Double, request: ThumbnailRequest,
                      colour: CodedVideoColour? = nil) throws -> (image: PixelBuffer, seconds: Double) {
        guard let ffmpeg = ffmpegPath else { throw ThumbnailError.needsFFmpeg }
        _ = leftoversRemoved
        let toneMap = colour.flatMap(toneMapping)
        func attempt(_ seconds: Double) throws -> PixelBuffer {
            guard let toneMap else { return try run(ffmpeg: ffmpeg, path: path, seconds: seconds, request: request, prefix: "") }
            do {
                return try run(ffmpeg: ffmpeg, path: path, seconds: seconds, request: request, prefix: toneMap + ",")
            } catch ThumbnailError.decodeFailed {
                // zscale refuses some tag combinations: the frame as it is beats none.
                return try run(ffmpeg: ffmpeg, path: path, seconds: seconds, request: request, prefix: "")
            }
        }
        do {
            return (try attempt(seconds), seconds)
        } catch let error as ThumbnailError where seconds > 0 {
            if case .decodeFailed = error {
                return (try attempt(0), 0)
            }
            throw error
        }
    }

    /// Whether this ffmpeg has the `zscale` (libzimg) and `tonemap` filters: a graph naming
    /// them is built over a blank source (it may fail later, on the blank's missing colour
    /// tags, but not with "No such filter").
    static let canToneMap: Bool = {
        guard let ffmpeg = ffmpegPath else { return false }
        let arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "nullsrc=s=16x16:d=0.04",
                         "-vf", "zscale,tonemap", "-frames:v", "1", "-f", "null", "-"].map { Array($0.utf8) }
        var probe = ChildProcess(executable: ffmpeg, argumentBytes: arguments)
        probe.standardError = .collectLast(bytes: 65_536)
        guard let outcome = try? probe.run(timeoutSeconds: timeoutSeconds), !outcome.timedOut else { return false }
        return !outcome.standardErrorText.contains("No such filter")
    }()

    /// The filters that tone-map an HDR frame to SDR sRGB, as HEIF and AVIF images are
    /// (`ColourSpace`): linear light with 203 cd/m² (BT.2408's reference white; HLG's 75 %
    /// signal) as 1, BT.2020 (or the declared primaries) to BT.709's, values above 0.75
    /// rolled off towards white (`mobius`), then sRGB's curve. Nil for SDR, for primaries or
    /// matrices zscale cannot name, and when ffmpeg lacks the filters.
    static func toneMapping(_ colour: CodedVideoColour) -> String? {
        let transfers = [16: "smpte2084", 18: "arib-std-b67"]
        let primaries = [1: "bt709", 9: "bt2020", 11: "smpte431", 12: "smpte432", 2: "bt2020"]
        let matrices = [1: "bt709", 9: "2020_ncl", 10: "2020_cl", 2: "2020_ncl"]
        guard let transfer = transfers[colour.transfer], let primary = primaries[colour.primaries],
              let matrix = matrices[colour.matrix], canToneMap else { return nil }
        return "zscale=tin=\(transfer):pin=\(primary):min=\(matrix):t=linear:npl=203,format=gbrpf32le,"
            + "zscale=p=bt709,tonemap=tonemap=mobius:param=0.75:desat=0,zscale=t=iec61966-2-1:m=bt709:r=pc,format=gbrp"
    }

    private static func run(ffmpeg: String, path: [UInt8], seconds: Double, request: ThumbnailRequest,
                            prefix: String) throws -> PixelBuffer {
        let bound = request.maxPixelSize * 2
        let comparison = request.mode == .fit ? "gte" : "lte"
        // Sized by the displayed width, `iw*sar` (ffmpeg's `sar` is the pixel aspect, 1 when
        // unknown), so anamorphic video (DV, HDV, DVD: 720×576 shown as 1024×576) comes out
        // in the shape players show, its pixels made square (`setsar=1`).
        let shown = "(iw*sar)"
        let scale = "scale=w='if(\(comparison)(\(shown),ih),min(\(shown),\(bound)),max(1,oh*\(shown)/ih))'"
            + ":h='if(\(comparison)(\(shown),ih),max(1,ow*ih/\(shown)),min(ih,\(bound)))',setsar=1"
        // The path's own bytes, behind `file:` so a name is never read as another protocol.
        let input = Array("file:".utf8) + path
        let arguments: [[UInt8]] = [["-nostdin", "-hide_banner", "-loglevel", "error",
                                      "-ss", String(format: "%.3f", seconds), "-i"].map { Array($0.utf8) }, [input],
                                     ["-frames:v", "1", "-an", "-vf", prefix + scale,
                                      "-f", "image2pipe", "-c:v", "ppm", "-pix_fmt", "rgb24", "pipe:1"].map { Array($0.utf8) }]
            .flatMap { $0 }
        // The frame comes back through a pipe: no file holds it, so a kill leaves nothing behind.
        var extraction = ChildProcess(executable: ffmpeg, argumentBytes: arguments)
        extraction.standardOutput = .collect(limit: maxFrameBytes + 64)
        extraction.standardError = .collectLast(bytes: 65_536)
        let outcome: ChildProcess.Outcome
        do { outcome = try extraction.run(timeoutSeconds: timeoutSeconds) } catch {
            throw ThumbnailError.decodeFailed("\(error)")
        }
        if outcome.timedOut {
            throw ThumbnailError.decodeFailed("ffmpeg took longer than \(Int(timeoutSeconds)) s and was stopped")
        }
        if outcome.outputTooLarge {
            throw ThumbnailError.decodeFailed("ffmpeg's frame is larger than \(maxFrameBytes >> 20) MB and was refused")
        }
        let data = outcome.standardOutput
        guard outcome.exitStatus == 0, !data.isEmpty else {
            let lastLine = String(decoding: outcome.standardError, as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? "no frame was produced"
            throw ThumbnailError.decodeFailed("ffmpeg: \(lastLine)")
        }
        return try parsePPM(data)
    }

    /// Parses a binary PPM (`P6`, maxval 255) as ffmpeg writes it.
    static func parsePPM(_ bytes: [UInt8]) throws -> PixelBuffer {
        var fields: [Int] = []
        var i = 2
        guard bytes.count > 2, bytes[0] == 0x50, bytes[1] == 0x36 else {
            throw ThumbnailError.decodeFailed("ffmpeg did not write a PPM frame")
        }
        while fields.count < 3 && i < bytes.count && i < 256 {
            if bytes[i] == 0x23 { while i < bytes.count && bytes[i] != 0x0A { i += 1 } }  // comment
            var value = 0, digits = 0
            while i < bytes.count, (0x30...0x39).contains(bytes[i]), digits < 9 {
                value = value * 10 + Int(bytes[i] - 0x30); digits += 1; i += 1
            }
            if digits > 0 { fields.append(value) } else { i += 1 }
        }
        i += 1  // the single whitespace after maxval
        guard fields.count == 3, fields[0] > 0, fields[1] > 0, fields[2] == 255 else {
            throw ThumbnailError.decodeFailed("ffmpeg wrote an unexpected PPM header")
        }
        let count = fields[0] * fields[1] * 3
        guard count <= maxFrameBytes, i + count <= bytes.count else {
            throw ThumbnailError.decodeFailed("ffmpeg's frame is cut short")
        }
        return PixelBuffer(width: fields[0], height: fields[1], channels: 3, pixels: Array(bytes[i..<(i + count)]))
    }
}
