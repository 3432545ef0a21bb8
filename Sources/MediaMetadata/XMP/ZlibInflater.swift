/// A small, bounded zlib (RFC 1950/1951) decoder for compressed metadata text:
/// PNG `zTXt`/`iTXt` chunks carrying EXIF or XMP.
///
/// Foundation on Linux offers no zlib API, and metadata chunks are small, so a plain
/// decoder written after the RFC (in the manner of zlib's `puff.c`) is enough. The
/// output is capped; malformed input returns nil. The Adler-32 checksum is not checked.
enum ZlibInflater {
    static func inflate(_ input: [UInt8], limit: Int) -> [UInt8]? {
        guard input.count >= 2 else { return nil }
        let cmf = input[0], flg = input[1]
        guard cmf & 0x0F == 8, (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0, flg & 0x20 == 0 else { return nil }
        var state = InflateState(input: input, position: 2, limit: limit)
        return state.run() ? state.output : (state.output.isEmpty ? nil : state.output)
    }
}

private struct Huffman {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int] = []

    init?(lengths: ArraySlice<Int>) {
        symbols = [Int](repeating: 0, count: lengths.count)
        for l in lengths { counts[l] += 1 }
        if counts[0] == lengths.count { return nil }
        var left = 1
        for len in 1..<16 {
            left <<= 1
            left -= counts[len]
            if left < 0 { return nil }  // over-subscribed
        }
        var offsets = [Int](repeating: 0, count: 16)
        for len in 1..<15 { offsets[len + 1] = offsets[len] + counts[len] }
        for (symbol, l) in lengths.enumerated() where l != 0 {
            symbols[offsets[l]] = symbol
            offsets[l] += 1
        }
        counts[0] = 0
    }
}

private struct InflateState {
    var reader: LSBFirstBitReader
    let limit: Int
    var output: [UInt8] = []
    var failed: Bool { reader.ranPastEnd }

    init(input: [UInt8], position: Int, limit: Int) {
        reader = LSBFirstBitReader(input, position: position)
        self.limit = limit
    }

    mutating func bits(_ need: Int) -> Int { reader.bits(need) }

    mutating func decode(_ h: Huffman) -> Int {
        var code = 0, first = 0, index = 0
        for len in 1..<16 {
            code |= bits(1)
            if failed { return -1 }
            let count = h.counts[len]
            if code - count < first { return h.symbols[index + (code - first)] }
            index += count
            first += count
            first <<= 1
            code <<= 1
        }
        return -1
    }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// Returns true when the final block ended cleanly.
    mutating func run() -> Bool {
        var blocks = 0
        while true {
            blocks += 1
            guard blocks < 100_000 else { return false }
            let last = bits(1)
            let type = bits(2)
            if failed { return false }
            switch type {
            case 0:
                reader.alignToByte()
                guard let header = reader.takeBytes(4) else { return false }
                let len = Int(header[header.startIndex]) | Int(header[header.startIndex + 1]) << 8
                let nlen = Int(header[header.startIndex + 2]) | Int(header[header.startIndex + 3]) << 8
                guard len == (~nlen & 0xFFFF), let stored = reader.takeBytes(len) else { return false }
                let room = limit - output.count
                output.append(contentsOf: stored.prefix(room))
                if len > room { return false }
            case 1:
                var lengths = [Int](repeating: 8, count: 288)
                for i in 144..<256 { lengths[i] = 9 }
                for i in 256..<280 { lengths[i] = 7 }
                guard let lit = Huffman(lengths: lengths[...]),
                      let dist = Huffman(lengths: [Int](repeating: 5, count: 30)[...]) else { return false }
                guard codes(lit, dist) else { return false }
            case 2:
                guard dynamicBlock() else { return false }
            default:
                return false
            }
            if last == 1 { return true }
        }
    }

    mutating func dynamicBlock() -> Bool {
        let nlen = bits(5) + 257, ndist = bits(5) + 1, ncode = bits(4) + 4
        if failed || nlen > 286 || ndist > 30 { return false }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var lengths = [Int](repeating: 0, count: 320)
        for i in 0..<ncode { lengths[order[i]] = bits(3) }
        guard !failed, let lencode = Huffman(lengths: lengths[0..<19]) else { return false }
        var index = 0
        while index < nlen + ndist {
            var symbol = decode(lencode)
            if symbol < 0 { return false }
            if symbol < 16 {
                lengths[index] = symbol; index += 1
            } else {
                var len = 0
                if symbol == 16 {
                    guard index > 0 else { return false }
                    len = lengths[index - 1]
                    symbol = 3 + bits(2)
                } else if symbol == 17 {
                    symbol = 3 + bits(3)
                } else {
                    symbol = 11 + bits(7)
                }
                if failed || index + symbol > nlen + ndist { return false }
                for _ in 0..<symbol { lengths[index] = len; index += 1 }
            }
        }
        guard lengths[256] != 0,
              let lit = Huffman(lengths: lengths[0..<nlen]),
              let dist = Huffman(lengths: lengths[nlen..<(nlen + ndist)]) else { return false }
        return codes(lit, dist)
    }

    mutating func codes(_ lit: Huffman, _ dist: Huffman) -> Bool {
        while true {
            let symbol = decode(lit)
            if symbol < 0 { return false }
            if symbol < 256 {
                guard output.count < limit else { return false }
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return true
            } else {
                let s = symbol - 257
                guard s < 29 else { return false }
                let length = Self.lengthBase[s] + bits(Self.lengthExtra[s])
                let d = decode(dist)
                guard d >= 0, d < 30 else { return false }
                let distance = Self.distanceBase[d] + bits(Self.distanceExtra[d])
                if failed || distance > output.count { return false }
                guard output.count + length <= limit else { return false }
                let start = output.count - distance
                for i in 0..<length { output.append(output[start + i]) }
            }
        }
    }
}
