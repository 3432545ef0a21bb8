import ChildProcesses
import Foundation
import MediaMetadata

extension HEIFDirectDecoder {
    /// The grid's tiles as one HEVC Annex-B stream: the parameter sets of the tiles' shared
    /// `hvcC`, then each tile's NAL units, each after a start code. Every tile is an IDR
    /// picture, so a decoder outputs them in order, one frame each.
    ///
    /// - Parameter tiles: the pieces to put in the stream, by index (every one by default).
    /// - Throws: `Unsupported` when the tiles differ in size or configuration.
    func annexBStream(tiles: Range<Int>? = nil) throws -> [UInt8] {
        guard codec == .hevc, let first = pieces.first,
              pieces.allSatisfy({ $0.width == first.width && $0.height == first.height }) else { throw Unsupported() }
        let configurations = pieces.map { items.properties(of: $0.item).first(where: { $0.type == "hvcC" })?.payload }
        guard let config = configurations[0], configurations.allSatisfy({ $0 == config }) else { throw Unsupported() }
        let startCode: [UInt8] = [0, 0, 0, 1]
        var stream: [UInt8] = []
        // hvcC (ISO/IEC 14496-15 §8.3.3.1): 22 bytes of profile fields, then arrays of
        // parameter-set NAL units, each with a 16-bit length.
        let lengthSize = try config.withUnsafeBufferPointer { payload in
            var reader = BigEndianReader(payload, 0..<payload.count)
            try reader.skip(21)
            let lengthSize = Int(try reader.uint(1) & 3) + 1
            for _ in 0..<Int(try reader.uint(1)) {
                try reader.skip(1)
                for _ in 0..<Int(try reader.uint(2)) {
                    stream += startCode
                    stream += payload[try reader.take(Int(try reader.uint(2)))]
                }
            }
            return lengthSize
        }
        for piece in pieces[tiles ?? pieces.indices] {
            for range in try items.fileRanges(of: piece.item, fileSize: UInt64(file.count)) {
                var data = BigEndianReader(file, Int(range.lowerBound)..<Int(range.upperBound))
                while !data.isAtEnd {
                    let unit = try data.take(Int(try data.uint(lengthSize)))
                    stream += startCode
                    stream += file[unit]
                }
            }
        }
        return stream
    }
}

extension HEIFDirectDecoder {
    /// Decodes the tiles `tiles` with the `ffmpeg` program from `annexBStream(tiles:)` (its
    /// HEVC decoder is SIMD, on `threads` threads) and copies each frame into its upright place
    /// in `planes` as it comes out of the pipe, while ffmpeg decodes the next ones.
    ///
    /// - Returns: the conversion of the stream as ffmpeg describes it (range, matrix).
    /// - Throws: `Unsupported` when ffmpeg cannot be run, fails, or hands back anything but
    ///   one 8-bit 4:2:0 frame per tile; the caller then decodes those tiles with libde265.
    func decodeTilesWithFFmpeg(_ ffmpeg: String, tiles: Range<Int>, threads: Int, into planes: SharedPlanes,
                               placements: (luma: UprightPlacement, chroma: UprightPlacement)) throws -> YCbCrConversion {
        guard decodesFullPicture, let tile = pieces.first, !tiles.isEmpty else { throw Unsupported() }
        let input = try Self.unlinkedFile(holding: try annexBStream(tiles: tiles))
        defer { close(input) }
        let placer = FramePlacer(planes: planes, placements: placements, tile: (tile.width, tile.height),
                                 origins: pieces[tiles].map { ($0.x, $0.y) })
        let arguments = ["-nostdin", "-hide_banner", "-loglevel", "info", "-threads", String(threads), "-f", "hevc",
                         "-i", "pipe:0", "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "pipe:1"]
        var process = ChildProcess(executable: ffmpeg, arguments: arguments)
        process.standardInput = .fileDescriptor(input)
        process.standardOutput = .collect(limit: placer.frameBytes * tiles.count)
        process.standardError = .collectLast(bytes: 65_536)
        guard let outcome = try? process.run(timeoutSeconds: 60, consumingOutput: { placer.take($0) }),
              outcome.exitStatus == 0, placer.placedAll,
              let described = Self.streamDescription(outcome.standardError) else { throw Unsupported() }
        return described
    }

    /// A temporary file holding `bytes`, already unlinked, positioned at its start.
    static func unlinkedFile(holding bytes: [UInt8]) throws -> Int32 {
        var template = Array((NSTemporaryDirectory() + "/mediaindex-hevc-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw Unsupported() }
        unlink(template)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBufferPointer { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { close(descriptor); throw Unsupported() }
            written += count
        }
        lseek(descriptor, 0, SEEK_SET)
        return descriptor
    }

    /// The YCbCr conversion of the HEVC stream as ffmpeg's input line describes it
    /// (`Video: hevc (Main), yuvj420p(pc, smpte170m/smpte432/bt709), 512x512`): its range
    /// and matrix; nil unless the frames are 8-bit 4:2:0.
    static func streamDescription(_ standardError: [UInt8]) -> YCbCrConversion? {
        let text = String(decoding: standardError, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Video: hevc") }),
              let format = line.range(of: #"yuvj?420p(\([^)]*\))?[,\s]"#, options: .regularExpression) else { return nil }
        let description = line[format].dropLast()
        let details = description.firstIndex(of: "(").map { description[description.index(after: $0)...].dropLast() } ?? ""
        let fields = details.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let fullRange = description.hasPrefix("yuvj") || fields.first == "pc"
        let matrix = fields.count > 1 ? String(fields[1].split(separator: "/").first ?? "") : ""
        // The matrices other than BT.601's (`bt470bg`, `smpte170m`), ffmpeg's names; anything
        // else there (`unknown`, or no colour at all: `progressive`) is BT.601, as libde265 takes it.
        let codes = ["gbr": 0, "bt709": 1, "fcc": 4, "smpte240m": 7, "ycgco": 8, "bt2020nc": 9, "bt2020c": 10,
                     "smpte2085": 11, "chroma-derived-nc": 12, "chroma-derived-c": 13, "ictcp": 14]
        guard let code = codes[matrix] else { return YCbCrConversion(kr: 0.299, kb: 0.114, fullRange: fullRange) }
        return YCbCrConversion(matrixCoefficients: code, fullRange: fullRange)
    }
}

/// Puts raw 4:2:0 frames (Y, then Cb, then Cr, rows packed), one per tile in the order of
/// `origins`, into their upright places in shared planes as the bytes come, in pieces of any size.
private final class FramePlacer {
    let frameBytes: Int
    private let planes: SharedPlanes
    private let tile: (width: Int, height: Int)
    private let origins: [(x: Int, y: Int)]
    private let placements: (luma: UprightPlacement, chroma: UprightPlacement)
    private var frame: [UInt8]
    private var filled = 0
    private var placed = 0

    /// Whether every tile's frame came, whole.
    var placedAll: Bool { placed == origins.count && filled == 0 }

    /// A placer of frames of `tile`'s size at `origins` (coded positions) into `planes`,
    /// whose parts at those tiles it alone writes.
    init(planes: SharedPlanes, placements: (luma: UprightPlacement, chroma: UprightPlacement),
         tile: (width: Int, height: Int), origins: [(x: Int, y: Int)]) {
        self.planes = planes
        self.placements = placements
        self.tile = tile
        self.origins = origins
        frameBytes = tile.width * tile.height + 2 * (tile.width / 2) * (tile.height / 2)
        frame = [UInt8](repeating: 0, count: frameBytes)
    }

    /// Takes the next bytes of the output; each frame completed is placed.
    func take(_ bytes: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        while offset < bytes.count, placed < origins.count {
            let count = min(bytes.count - offset, frameBytes - filled)
            frame.withUnsafeMutableBufferPointer { target in
                (target.baseAddress! + filled).update(from: bytes.baseAddress! + offset, count: count)
            }
            filled += count
            offset += count
            if filled == frameBytes {
                placeFrame(at: origins[placed])
                placed += 1
                filled = 0
            }
        }
    }

    private func placeFrame(at origin: (x: Int, y: Int)) {
        let lumaBytes = tile.width * tile.height, chromaWidth = tile.width / 2, chromaBytes = chromaWidth * (tile.height / 2)
        let chromaOrigin = (origin.x / 2, origin.y / 2)
        frame.withUnsafeBufferPointer { frame in
            let source = frame.baseAddress!
            placements.luma.place(source, stride: tile.width, width: tile.width, height: tile.height, at: origin,
                                  into: planes.y)
            placements.chroma.place(source + lumaBytes, stride: chromaWidth, width: chromaWidth, height: tile.height / 2,
                                    at: chromaOrigin, into: planes.cb)
            placements.chroma.place(source + lumaBytes + chromaBytes, stride: chromaWidth, width: chromaWidth,
                                    height: tile.height / 2, at: chromaOrigin, into: planes.cr)
        }
    }
}
