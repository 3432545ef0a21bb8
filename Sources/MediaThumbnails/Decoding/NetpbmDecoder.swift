/// Decodes Netpbm images as the Netpbm specifications define them: PBM (`P1` plain, `P4`
/// raw), PGM (`P2`, `P5`), PPM (`P3`, `P6`), with any maxval up to 65535 (two big-endian
/// bytes a sample above 255), and PAM (`P7`: `WIDTH`, `HEIGHT`, `DEPTH` 1–4, `MAXVAL`,
/// `TUPLTYPE`, `ENDHDR`; depth 2 and 4 carry alpha). Only the first image of a file with
/// several is read. Rows are shrunk into the thumbnail band by band (`BandShrinker`).
///
/// Every number comes from the file: a header that lies gives an error, a raster that ends
/// early a partial picture (the rest black) with a warning.
enum NetpbmDecoder {
    struct Decoded {
        var image: PixelBuffer
        var size: (width: Int, height: Int)
        var warnings: [String]
    }

    /// Rows decoded per band.
    static let bandRows = 64

    static func fail(_ reason: String) -> ThumbnailError { .decodeFailed("the Netpbm image \(reason)") }

    /// Decodes `data` into a picture of about the thumbnail's size.
    ///
    /// - Throws: `ThumbnailError.imageTooLarge` from the header, `.decodeFailed` for a
    ///   header that is not a Netpbm one.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, request: ThumbnailRequest, pixelLimit: Int) throws -> Decoded {
        guard data.count >= 3, data[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(data[1]) else {
            throw fail("does not start with P1 to P7")
        }
        let kind = Int(data[1] - UInt8(ascii: "0"))
        var reader = Reader(data: data, position: 2)
        var width = 0, height = 0, depth = 1, maxval = 1
        if kind == 7 {
            (width, height, depth, maxval) = try reader.pamHeader()
        } else {
            width = try reader.number()
            height = try reader.number()
            if kind != 1 && kind != 4 { maxval = try reader.number() }
            depth = kind == 3 || kind == 6 ? 3 : 1
            // One whitespace character separates a raw raster from the header.
            if kind >= 4 { reader.position += 1 }
        }
        guard width > 0, height > 0 else { throw fail("declares an empty picture (\(width)×\(height))") }
        guard (1...65535).contains(maxval) else { throw fail("declares a maxval of \(maxval), outside 1 to 65535") }
        guard (1...4).contains(depth) else { throw fail("declares a depth of \(depth), not 1 to 4") }
        guard width <= pixelLimit, height <= pixelLimit, width * height <= pixelLimit else {
            throw ThumbnailError.imageTooLarge(width: width, height: height, limit: pixelLimit)
        }
        let hasAlpha = depth == 2 || depth == 4
        let channels = hasAlpha ? 4 : 3
        let target = ThumbnailGeometry.scaledSize(width: width, height: height, request: request)
        var shrinker = BandShrinker(width: width, height: height, target: target, channels: channels)
        let bytesPerSample = maxval > 255 ? 2 : 1
        let plain = kind <= 3
        var band = [UInt8](repeating: 0, count: width * bandRows * channels)
        var ended = false
        var y = 0
        while y < height {
            let rows = min(bandRows, height - y)
            for r in 0..<rows {
                for x in 0..<width {
                    let o = (r * width + x) * channels
                    if ended { for c in 0..<channels { band[o + c] = c == 3 ? 255 : 0 }; continue }
                    if kind == 1 || kind == 4 {
                        // PBM: 1 is black. Raw rows are packed, most significant bit first.
                        let bit: Int?
                        if kind == 1 { bit = reader.plainBit() } else {
                            let at = reader.position + x / 8
                            bit = at < data.count ? Int(data[at] >> (7 - UInt8(x % 8))) & 1 : nil
                        }
                        guard let bit else { ended = true; band[o] = 0; band[o + 1] = 0; band[o + 2] = 0; continue }
                        let value: UInt8 = bit == 1 ? 0 : 255
                        band[o] = value; band[o + 1] = value; band[o + 2] = value
                        continue
                    }
                    var samples = (0, 0, 0, maxval)
                    for d in 0..<depth {
                        let sample = plain ? reader.plainNumber() : reader.rawSample(bytes: bytesPerSample)
                        guard let sample else { ended = true; break }
                        switch (depth, d) {
                        case (1, _), (2, 0): samples = (sample, sample, sample, maxval)
                        case (2, 1), (4, 3): samples.3 = sample
                        case (_, 0): samples.0 = sample
                        case (_, 1): samples.1 = sample
                        default: samples.2 = sample
                        }
                    }
                    if ended { for c in 0..<channels { band[o + c] = c == 3 ? 255 : 0 }; continue }
                    func scaled(_ v: Int) -> UInt8 { UInt8((min(v, maxval) * 255 + maxval / 2) / maxval) }
                    band[o] = scaled(samples.0); band[o + 1] = scaled(samples.1); band[o + 2] = scaled(samples.2)
                    if hasAlpha { band[o + 3] = scaled(samples.3) }
                }
                if kind == 4 && !ended { reader.position += (width + 7) / 8 }
            }
            band.withUnsafeBytes {
                shrinker.add($0, y: y, width: width, rows: rows, rowBytes: width * channels, sourceChannels: channels)
            }
            y += rows
        }
        let warnings = ended ? ["the Netpbm raster ends early; the rest is black"] : []
        return Decoded(image: shrinker.image, size: (width, height), warnings: warnings)
    }

    /// A cursor over the header tokens and the raster.
    struct Reader {
        let data: UnsafeBufferPointer<UInt8>
        var position: Int

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

        /// Skips whitespace and `#` comments (to the end of their line).
        mutating func skipSpace() {
            while position < data.count {
                if Self.isSpace(data[position]) { position += 1 } else if data[position] == UInt8(ascii: "#") {
                    while position < data.count && data[position] != 0x0A && data[position] != 0x0D { position += 1 }
                } else { return }
            }
        }

        /// A header number; at most nine digits (no Netpbm size or maxval needs more).
        mutating func number() throws -> Int {
            guard let value = plainNumber() else { throw NetpbmDecoder.fail("header is cut short or holds a non-number") }
            return value
        }

        /// A decimal number of a plain raster, nil at the end or on anything else.
        mutating func plainNumber() -> Int? {
            skipSpace()
            var value = 0, digits = 0
            while position < data.count, (0x30...0x39).contains(data[position]) {
                guard digits < 9 else { return nil }
                value = value * 10 + Int(data[position] - 0x30)
                digits += 1
                position += 1
            }
            return digits > 0 ? value : nil
        }

        /// One `0` or `1` of a plain PBM raster (digits need no space between them).
        mutating func plainBit() -> Int? {
            skipSpace()
            guard position < data.count, data[position] == 0x30 || data[position] == 0x31 else { return nil }
            defer { position += 1 }
            return Int(data[position] - 0x30)
        }

        /// One raw sample of one or two (big-endian) bytes.
        mutating func rawSample(bytes: Int) -> Int? {
            guard position + bytes <= data.count else { return nil }
            defer { position += bytes }
            return bytes == 1 ? Int(data[position]) : Int(data[position]) << 8 | Int(data[position + 1])
        }

        /// The PAM header's lines up to `ENDHDR` and the newline after it.
        mutating func pamHeader() throws -> (width: Int, height: Int, depth: Int, maxval: Int) {
            var fields: [String: Int] = [:]
            var lines = 0
            while position < data.count, lines < 256 {
                lines += 1
                var line: [UInt8] = []
                while position < data.count && data[position] != 0x0A {
                    if line.count < 256 { line.append(data[position]) }
                    position += 1
                }
                position += 1
                let words = line.split(whereSeparator: Self.isSpace).map { String(decoding: $0, as: UTF8.self) }
                guard let key = words.first, !key.hasPrefix("#") else { continue }
                if key == "ENDHDR" {
                    guard let w = fields["WIDTH"], let h = fields["HEIGHT"], let d = fields["DEPTH"], let m = fields["MAXVAL"] else {
                        throw NetpbmDecoder.fail("PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL")
                    }
                    return (w, h, d, m)
                }
                if ["WIDTH", "HEIGHT", "DEPTH", "MAXVAL"].contains(key) {
                    guard words.count == 2, words[1].count <= 9, let value = Int(words[1]) else {
                        throw NetpbmDecoder.fail("PAM header's \(key) is not a number")
                    }
                    fields[key] = value
                }
            }
            throw NetpbmDecoder.fail("PAM header has no ENDHDR")
        }
    }
}
