/// Writes bit fields most significant bit first, as video headers are coded: fixed-width
/// values and unsigned Exp-Golomb codes (H.264 `ue(v)`), for hand-built test headers.
struct BitWriter {
    private(set) var bits: [Int] = []

    /// `value`'s low `count` bits.
    mutating func put(_ value: Int, _ count: Int) {
        for i in (0..<count).reversed() { bits.append((value >> i) & 1) }
    }

    /// `value` as an unsigned Exp-Golomb code.
    mutating func ue(_ value: Int) {
        let code = value + 1
        let length = Int.bitWidth - code.leadingZeroBitCount
        put(0, length - 1)
        put(code, length)
    }

    /// The bits written, padded with zeros to whole bytes.
    var bytes: [UInt8] {
        var padded = bits
        while padded.count % 8 != 0 { padded.append(0) }
        return stride(from: 0, to: padded.count, by: 8).map { i in UInt8(padded[i..<(i + 8)].reduce(0) { $0 << 1 | $1 }) }
    }
}
