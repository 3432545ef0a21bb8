/// Decodes BZZ, DjVu's general-purpose compression (DjVu v3 specification, appendix
/// "BZZ coding"; used for `ANTz` annotations, `TXTz` text, `DIRM` directories): blocks
/// of a Burrows–Wheeler transform whose symbols are coded with a quasi move-to-front
/// list, each bit decoded by the ZP adaptive binary arithmetic coder.
///
/// Every loop is bounded by the block size, which is capped by `maxOutput`; input that
/// runs out, an impossible marker or a broken permutation give nil, never a trap.
struct BZZDecoder {
    /// The ZP coder's adaptation table (the DjVu specification's, 251 states): the
    /// probability of the less probable symbol, the threshold for moving up after a more
    /// probable symbol, and the next state after a more or a less probable symbol.
    static let probability: [UInt32] = [
        0x8000, 0x8000, 0x8000, 0x6BBD, 0x6BBD, 0x5D45, 0x5D45, 0x51B9, 0x51B9, 0x4813,
        0x4813, 0x3FD5, 0x3FD5, 0x38B1, 0x38B1, 0x3275, 0x3275, 0x2CFD, 0x2CFD, 0x2825,
        0x2825, 0x23AB, 0x23AB, 0x1F87, 0x1F87, 0x1BBB, 0x1BBB, 0x1845, 0x1845, 0x1523,
        0x1523, 0x1253, 0x1253, 0x0FCF, 0x0FCF, 0x0D95, 0x0D95, 0x0B9D, 0x0B9D, 0x09E3,
        0x09E3, 0x0861, 0x0861, 0x0711, 0x0711, 0x05F1, 0x05F1, 0x04F9, 0x04F9, 0x0425,
        0x0425, 0x0371, 0x0371, 0x02D9, 0x02D9, 0x0259, 0x0259, 0x01ED, 0x01ED, 0x0193,
        0x0193, 0x0149, 0x0149, 0x010B, 0x010B, 0x00D5, 0x00D5, 0x00A5, 0x00A5, 0x007B,
        0x007B, 0x0057, 0x0057, 0x003B, 0x003B, 0x0023, 0x0023, 0x0013, 0x0013, 0x0007,
        0x0007, 0x0001, 0x0001, 0x5695, 0x24EE, 0x8000, 0x0D30, 0x481A, 0x0481, 0x3579,
        0x017A, 0x24EF, 0x007B, 0x1978, 0x0028, 0x10CA, 0x000D, 0x0B5D, 0x0034, 0x078A,
        0x00A0, 0x050F, 0x0117, 0x0358, 0x01EA, 0x0234, 0x0144, 0x0173, 0x0234, 0x00F5,
        0x0353, 0x00A1, 0x05C5, 0x011A, 0x03CF, 0x01AA, 0x0285, 0x0286, 0x01AB, 0x03D3,
        0x011A, 0x05C5, 0x00BA, 0x08AD, 0x007A, 0x0CCC, 0x01EB, 0x1302, 0x02E6, 0x1B81,
        0x045E, 0x24EF, 0x0690, 0x2865, 0x09DE, 0x3987, 0x0DC8, 0x2C99, 0x10CA, 0x3B5F,
        0x0B5D, 0x5695, 0x078A, 0x8000, 0x050F, 0x24EE, 0x0358, 0x0D30, 0x0234, 0x0481,
        0x0173, 0x017A, 0x00F5, 0x007B, 0x00A1, 0x0028, 0x011A, 0x000D, 0x01AA, 0x0034,
        0x0286, 0x00A0, 0x03D3, 0x0117, 0x05C5, 0x01EA, 0x08AD, 0x0144, 0x0CCC, 0x0234,
        0x1302, 0x0353, 0x1B81, 0x05C5, 0x24EF, 0x03CF, 0x2B74, 0x0285, 0x201D, 0x01AB,
        0x1715, 0x011A, 0x0FB7, 0x00BA, 0x0A67, 0x01EB, 0x06E7, 0x02E6, 0x0496, 0x045E,
        0x030D, 0x0690, 0x0206, 0x09DE, 0x0155, 0x0DC8, 0x00E1, 0x2B74, 0x0094, 0x201D,
        0x0188, 0x1715, 0x0252, 0x0FB7, 0x0383, 0x0A67, 0x0547, 0x06E7, 0x07E2, 0x0496,
        0x0BC0, 0x030D, 0x1178, 0x0206, 0x19DA, 0x0155, 0x24EF, 0x00E1, 0x320E, 0x0094,
        0x432A, 0x0188, 0x447D, 0x0252, 0x5ECE, 0x0383, 0x8000, 0x0547, 0x481A, 0x07E2,
        0x3579, 0x0BC0, 0x24EF, 0x1178, 0x1978, 0x19DA, 0x2865, 0x24EF, 0x3987, 0x320E,
        0x2C99, 0x432A, 0x3B5F, 0x447D, 0x5695, 0x5ECE, 0x8000, 0x8000, 0x5695, 0x481A,
        0x481A,
    ]
    static let threshold: [UInt32] = [
        0x0000, 0x0000, 0x0000, 0x10A5, 0x10A5, 0x1F28, 0x1F28, 0x2BD3, 0x2BD3, 0x36E3,
        0x36E3, 0x408C, 0x408C, 0x48FD, 0x48FD, 0x505D, 0x505D, 0x56D0, 0x56D0, 0x5C71,
        0x5C71, 0x615B, 0x615B, 0x65A5, 0x65A5, 0x6962, 0x6962, 0x6CA2, 0x6CA2, 0x6F74,
        0x6F74, 0x71E6, 0x71E6, 0x7404, 0x7404, 0x75D6, 0x75D6, 0x7768, 0x7768, 0x78C2,
        0x78C2, 0x79EA, 0x79EA, 0x7AE7, 0x7AE7, 0x7BBE, 0x7BBE, 0x7C75, 0x7C75, 0x7D0F,
        0x7D0F, 0x7D91, 0x7D91, 0x7DFE, 0x7DFE, 0x7E5A, 0x7E5A, 0x7EA6, 0x7EA6, 0x7EE6,
        0x7EE6, 0x7F1A, 0x7F1A, 0x7F45, 0x7F45, 0x7F6B, 0x7F6B, 0x7F8D, 0x7F8D, 0x7FAA,
        0x7FAA, 0x7FC3, 0x7FC3, 0x7FD7, 0x7FD7, 0x7FE7, 0x7FE7, 0x7FF2, 0x7FF2, 0x7FFA,
        0x7FFA, 0x7FFF, 0x7FFF, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000,
    ]
    static let next: [UInt8] = [
        84, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,
        34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
        50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65,
        66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81,
        82, 81, 82, 9, 86, 5, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97,
        82, 99, 76, 101, 70, 103, 66, 105, 106, 107, 66, 109, 60, 111, 56, 69,
        114, 65, 116, 61, 118, 57, 120, 53, 122, 49, 124, 43, 72, 39, 60, 33,
        56, 29, 52, 23, 48, 23, 42, 137, 38, 21, 140, 15, 142, 9, 144, 141,
        146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 70, 157, 66, 81, 62, 75,
        58, 69, 54, 65, 50, 167, 44, 65, 40, 59, 34, 55, 30, 175, 24, 177,
        178, 179, 180, 181, 182, 183, 184, 69, 186, 59, 188, 55, 190, 51, 192, 47,
        194, 41, 196, 37, 198, 199, 72, 201, 62, 203, 58, 205, 54, 207, 50, 209,
        46, 211, 40, 213, 36, 215, 30, 217, 26, 219, 20, 71, 14, 61, 14, 57,
        8, 53, 228, 49, 230, 45, 232, 39, 234, 35, 138, 29, 24, 25, 240, 19,
        22, 13, 16, 13, 10, 7, 244, 249, 10, 89, 230,
    ]
    static let nextAfterLPS: [UInt8] = [
        145, 4, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
        14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
        30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
        46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
        62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77,
        78, 79, 80, 85, 226, 6, 176, 143, 138, 141, 112, 135, 104, 133, 100, 129,
        98, 127, 72, 125, 102, 123, 60, 121, 110, 119, 108, 117, 54, 115, 48, 113,
        134, 59, 132, 55, 130, 51, 128, 47, 126, 41, 62, 37, 66, 31, 54, 25,
        50, 131, 46, 17, 40, 15, 136, 7, 32, 139, 172, 9, 170, 85, 168, 248,
        166, 247, 164, 197, 162, 95, 160, 173, 158, 165, 156, 161, 60, 159, 56, 71,
        52, 163, 48, 59, 42, 171, 38, 169, 32, 53, 26, 47, 174, 193, 18, 191,
        222, 189, 218, 187, 216, 185, 214, 61, 212, 53, 210, 49, 208, 45, 206, 39,
        204, 195, 202, 31, 200, 243, 64, 239, 56, 237, 52, 235, 48, 233, 44, 231,
        38, 229, 34, 227, 28, 225, 22, 223, 16, 221, 220, 63, 8, 55, 224, 51,
        2, 47, 87, 43, 246, 37, 244, 33, 238, 27, 236, 21, 16, 15, 8, 241,
        242, 7, 10, 245, 2, 1, 83, 250, 2, 143, 246,
    ]

    /// The ZP decoder's registers (specification: `a`, `code`, `fence`, the bit buffer).
    private var bytes: [UInt8]
    private var position = 0
    private var a: UInt32 = 0
    private var code: UInt32 = 0
    private var fence: UInt32 = 0
    private var buffer: UInt32 = 0
    private var bitsInBuffer = 0
    /// Bytes of 0xFF still allowed past the end of the input before the stream is exhausted.
    private var padding = 25
    private(set) var exhausted = false
    /// The coding contexts of the symbol decoder, kept across blocks.
    private var contexts = [UInt8](repeating: 0, count: 300)

    /// How many leading one bits each byte has.
    private static let leadingOnes: [Int] = (0..<256).map { value in
        var count = 0, v = value
        while v & 0x80 != 0 { count += 1; v = (v << 1) & 0xFF }
        return count
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.count >= 2 {
            code = UInt32(bytes[0]) << 8 | UInt32(bytes[1]); position = 2
        } else if bytes.count == 1 {
            code = UInt32(bytes[0]) << 8 | 0xFF; position = 1
        } else {
            code = 0xFFFF
        }
        fence = min(code, 0x7FFF)
    }

    /// Decodes every block of `bytes`; nil when the data is damaged or decodes to more
    /// than `maxOutput` bytes.
    static func decode(_ bytes: [UInt8], maxOutput: Int) -> [UInt8]? {
        var decoder = BZZDecoder(bytes)
        var output: [UInt8] = []
        while true {
            guard let block = decoder.decodeBlock(maxSize: maxOutput - output.count) else { return nil }
            if block.isEmpty { return output }
            output += block
        }
    }

    /// One block: its size (24 bits, pass-through), the estimation speed, the symbols,
    /// then the inverse Burrows–Wheeler transform. Empty at the end of the stream.
    mutating func decodeBlock(maxSize: Int) -> [UInt8]? {
        var n = 1
        while n < 1 << 24 { n = n << 1 | passThroughBit() }
        guard !exhausted else { return nil }
        let size = n - (1 << 24)
        if size == 0 { return [] }
        guard size <= maxSize + 1 else { return nil }  // the block holds one marker byte
        var speed = 0
        if passThroughBit() == 1 { speed = 1 + passThroughBit() }

        var list = [UInt8]((0...255).map { UInt8($0) })
        var frequency = [UInt32](repeating: 0, count: 4)
        var increment: UInt32 = 4
        var rank = 3
        var marker = -1
        var symbols = [UInt8](repeating: 0, count: size)
        for i in 0..<size {
            var decodedRank: Int?
            let first = min(2, rank)
            // Ranks 0 and 1 have a context each, chosen by the previous rank.
            if bit(first) == 1 { decodedRank = 0 }
            else if bit(3 + first) == 1 { decodedRank = 1 }
            else {
                // Ranks 2–3, 4–7 … 128–255: a flag per range, then the offset in it.
                var base = 6, rangeStart = 2
                for width in 1..<8 {
                    if bit(base) == 1 {
                        var offset = 1
                        while offset < 1 << width { offset = offset << 1 | bit(base + offset) }
                        decodedRank = rangeStart + offset - (1 << width)
                        break
                    }
                    base += rangeStart
                    rangeStart <<= 1
                }
            }
            if exhausted { return nil }
            guard let r = decodedRank else {
                // No rank: the end-of-block marker of the transform.
                marker = i
                rank = 256
                continue
            }
            rank = r
            let symbol = list[r]
            symbols[i] = symbol
            // Move the symbol towards the front by its empirical frequency.
            increment &+= increment >> UInt32(speed)
            if increment > 0x1000_0000 {
                increment >>= 24
                for k in 0..<4 { frequency[k] >>= 24 }
            }
            var weight = increment
            if r < 4 { weight &+= frequency[r] }
            var k = r
            while k >= 4 { list[k] = list[k - 1]; k -= 1 }
            while k > 0, weight >= frequency[k - 1] {
                list[k] = list[k - 1]
                frequency[k] = frequency[k - 1]
                k -= 1
            }
            list[k] = symbol
            frequency[k] = weight
        }
        return Self.inverseTransform(symbols, marker: marker)
    }

    /// Undoes the Burrows–Wheeler transform: `marker` is the position of the end of the
    /// text; the result has one byte fewer than the block.
    static func inverseTransform(_ symbols: [UInt8], marker: Int) -> [UInt8]? {
        let size = symbols.count
        guard marker >= 1, marker < size else { return nil }
        var counts = [Int](repeating: 0, count: 256)
        var links = [Int](repeating: 0, count: size)
        for i in 0..<size where i != marker {
            let c = Int(symbols[i])
            links[i] = counts[c]
            counts[c] += 1
        }
        var starts = [Int](repeating: 0, count: 256)
        var total = 1
        for c in 0..<256 { starts[c] = total; total += counts[c] }
        var output = [UInt8](repeating: 0, count: size - 1)
        var i = 0
        var last = size - 1
        while last > 0 {
            guard i >= 0, i < size else { return nil }
            let c = symbols[i]
            last -= 1
            output[last] = c
            i = starts[Int(c)] + links[i]
        }
        return i == marker ? output : nil
    }

    // MARK: The ZP decoder

    /// A bit decoded with the adaptive context `contexts[index]`, whose state it updates.
    private mutating func bit(_ index: Int) -> Int {
        var context = contexts[index]
        let state = Int(context)
        let z = a + Self.probability[state]
        if z <= fence { a = z; return state & 1 }
        let bit = decode(z: z, context: &context)
        contexts[index] = context
        return bit
    }

    /// A bit with probability one half, no context.
    private mutating func passThroughBit() -> Int {
        var none: UInt8 = 0
        return decode(z: 0x8000 + (a >> 1), context: &none, adaptive: false)
    }

    private mutating func decode(z zIn: UInt32, context: inout UInt8, adaptive: Bool = true) -> Int {
        if bitsInBuffer < 16 {
            while bitsInBuffer <= 24 {
                let byte: UInt8
                if position < bytes.count {
                    byte = bytes[position]; position += 1
                } else {
                    byte = 0xFF
                    padding -= 1
                    if padding < 1 { exhausted = true; return 0 }
                }
                buffer = buffer << 8 | UInt32(byte)
                bitsInBuffer += 8
            }
        }
        let state = Int(context)
        var z = zIn
        var bit = 0
        if adaptive {
            bit = state & 1
            // Keeps the interval from reversing.
            let limit = 0x6000 + ((z + a) >> 2)
            if z > limit { z = limit }
        }
        if z > code {
            // The less probable symbol.
            bit ^= 1
            let complement = 0x10000 - z
            let newA = a + complement
            code += complement
            if adaptive { context = Self.nextAfterLPS[state] }
            let shift = newA >= 0xFF00 ? Self.leadingOnes[Int(newA & 0xFF)] + 8 : Self.leadingOnes[Int((newA >> 8) & 0xFF)]
            bitsInBuffer -= shift
            guard bitsInBuffer >= 0 else { exhausted = true; return 0 }
            a = (newA << UInt32(shift)) & 0xFFFF
            code = ((code << UInt32(shift)) & 0xFFFF) | ((buffer >> UInt32(bitsInBuffer)) & ((1 << UInt32(shift)) - 1))
        } else {
            if adaptive, a >= Self.threshold[state] { context = Self.next[state] }
            bitsInBuffer -= 1
            a = (z << 1) & 0xFFFF
            code = ((code << 1) & 0xFFFF) | ((buffer >> UInt32(bitsInBuffer)) & 1)
        }
        fence = min(code, 0x7FFF)
        return bit
    }
}
