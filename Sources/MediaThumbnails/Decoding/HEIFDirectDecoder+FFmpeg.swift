import Foundation
import MediaMetadata

extension HEIFDirectDecoder {
    /// The grid's tiles as one HEVC Annex-B stream: the parameter sets of the tiles' shared
    /// `hvcC`, then each tile's NAL units, each after a start code. Every tile is an IDR
    /// picture, so a decoder outputs them in order, one frame each.
    ///
    /// - Throws: `Unsupported` when the tiles differ in size or configuration.
    func annexBStream() throws -> [UInt8] {
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
        for piece in pieces {
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
    /// The coded picture (before irot/imir) at full size as 8-bit 4:2:0, decoded by the
    /// `ffmpeg` program from `annexBStream` (its HEVC decoder is SIMD and decodes frames
    /// on every core), the frames copied into place.
    ///
    /// - Parameter conversion: the file's declared conversion; an undeclared one is taken
    ///   from the stream as ffmpeg describes it (range, matrix).
    /// - Throws: `Unsupported` when ffmpeg cannot be run, fails, or hands back anything but
    ///   one 8-bit 4:2:0 frame per tile; the caller then decodes with libde265.
    func fullPictureWithFFmpeg(_ ffmpeg: String, conversion: YCbCrConversion) throws -> YCbCr420 {
        guard decodesFullPicture, let tile = pieces.first else { throw Unsupported() }
        let stream = try annexBStream()
        let input = try Self.unlinkedFile(holding: stream)
        defer { close(input) }
        let lumaBytes = tile.width * tile.height, chromaBytes = (tile.width / 2) * (tile.height / 2)
        let frameBytes = lumaBytes + 2 * chromaBytes
        let arguments = ["-nostdin", "-hide_banner", "-loglevel", "info", "-f", "hevc", "-i", "pipe:0", "-map", "0:v:0",
                         "-fps_mode", "passthrough", "-f", "rawvideo", "pipe:1"]
        let process = ChildProcess(executable: ffmpeg, arguments: arguments.map { Array($0.utf8) },
                                   standardOutputLimit: frameBytes * pieces.count, standardInput: input)
        guard let outcome = try? process.run(timeoutSeconds: 60), outcome.exitStatus == 0,
              outcome.standardOutput.count == frameBytes * pieces.count,
              let described = Self.streamDescription(outcome.standardError) else { throw Unsupported() }
        var picture = YCbCr420(width: width, height: height, conversion: conversion)
        if conversion.followsBitstream { picture.conversion = described }
        outcome.standardOutput.withUnsafeBufferPointer { frames in
            for (index, piece) in pieces.enumerated() {
                let frame = frames.baseAddress! + index * frameBytes
                picture.y.place(frame, width: tile.width, height: tile.height, at: (piece.x, piece.y), planeWidth: width)
                let chroma = (piece.x / 2, piece.y / 2), chromaWidth = picture.chromaWidth
                picture.cb.place(frame + lumaBytes, width: tile.width / 2, height: tile.height / 2, at: chroma,
                                 planeWidth: chromaWidth)
                picture.cr.place(frame + lumaBytes + chromaBytes, width: tile.width / 2, height: tile.height / 2, at: chroma,
                                 planeWidth: chromaWidth)
            }
        }
        return picture
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

extension [UInt8] {
    /// Copies a `width` × `height` block (rows packed) to `at` in this plane of `planeWidth`
    /// columns, cut at the plane's right and bottom edges.
    mutating func place(_ block: UnsafePointer<UInt8>, width: Int, height: Int, at origin: (x: Int, y: Int), planeWidth: Int) {
        let planeHeight = count / Swift.max(1, planeWidth)
        let columns = Swift.min(width, planeWidth - origin.x), rows = Swift.min(height, planeHeight - origin.y)
        guard columns > 0, rows > 0 else { return }
        withUnsafeMutableBufferPointer { plane in
            for row in 0..<rows {
                (plane.baseAddress! + (origin.y + row) * planeWidth + origin.x).update(from: block + row * width, count: columns)
            }
        }
    }
}
