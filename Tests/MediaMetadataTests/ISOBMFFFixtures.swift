@testable import MediaMetadata

/// Builds small ISO-BMFF files in memory, honest or hostile, for tests.
enum ISOBMFFFixture {
    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * $0)) & 0xFF) } }
    static func be32(_ v: Int32) -> [UInt8] { be32(Int(UInt32(bitPattern: v))) }
    static func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * UInt64($0))) & 0xFF) } }
    static func fourCC(_ text: String) -> [UInt8] {
        Array(text.unicodeScalars.map { UInt8($0.value & 0xFF) }.prefix(4))
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(8 + payload.count) + fourCC(type) + payload
    }

    static func fullBox(_ type: String, version: UInt8 = 0, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + Array(be32(flags).suffix(3)) + payload)
    }

    static func ftyp(_ brand: String) -> [UInt8] { box("ftyp", fourCC(brand) + be32(0) + fourCC(brand)) }

    static let identityMatrix: [Int32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]
    static let clockwiseMatrix: [Int32] = [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x4000_0000]

    static func mvhd(timescale: Int, duration: Int, created: Int = 0) -> [UInt8] {
        fullBox("mvhd", be32(created) + be32(created) + be32(timescale) + be32(duration)
                + be32(0x10000) + be16(0x100) + [UInt8](repeating: 0, count: 10)
                + identityMatrix.flatMap { be32($0) } + [UInt8](repeating: 0, count: 24) + be32(2))
    }

    /// - Parameter entryBoxes: boxes inside the visual sample entry, after its fixed fields (`pasp` …).
    static func videoTrak(matrix: [Int32], codec: String = "avc1", width: Int, height: Int,
                          timescale: Int, frames: Int, delta: Int, handler: String = "vide",
                          entryBoxes: [UInt8] = []) -> [UInt8] {
        let tkhd = fullBox("tkhd", flags: 3, be32(0) + be32(0) + be32(1) + be32(0) + be32(frames * delta)
                           + [UInt8](repeating: 0, count: 8) + be16(0) + be16(0) + be16(0) + be16(0)
                           + matrix.flatMap { be32($0) } + be32(width << 16) + be32(height << 16))
        let mdhd = fullBox("mdhd", be32(0) + be32(0) + be32(timescale) + be32(frames * delta) + be16(0x55C4) + be16(0))
        let hdlr = fullBox("hdlr", be32(0) + fourCC(handler) + [UInt8](repeating: 0, count: 12) + [0])
        let entry = box(codec, [UInt8](repeating: 0, count: 6) + be16(1) + [UInt8](repeating: 0, count: 16)
                        + be16(width) + be16(height) + be32(0x480000) + be32(0x480000) + be32(0) + be16(1)
                        + [UInt8](repeating: 0, count: 32) + be16(24) + be16(0xFFFF) + entryBoxes)
        let stsd = fullBox("stsd", be32(1) + entry)
        let stts = fullBox("stts", be32(1) + be32(frames) + be32(delta))
        return box("trak", tkhd + box("mdia", mdhd + hdlr + box("minf", box("stbl", stsd + stts))))
    }

    static func soundTrak() -> [UInt8] {
        let hdlr = fullBox("hdlr", be32(0) + fourCC("soun") + [UInt8](repeating: 0, count: 12) + [0])
        return box("trak", box("mdia", hdlr))
    }

    /// QuickTime `meta` (no version field) with `keys` and `ilst` text values.
    static func keyedMeta(_ entries: [(String, String)]) -> [UInt8] {
        let hdlr = fullBox("hdlr", be32(0) + fourCC("mdta") + [UInt8](repeating: 0, count: 12) + [0])
        let keys = fullBox("keys", be32(entries.count) + entries.flatMap { box("mdta", Array($0.0.utf8)) })
        var items: [UInt8] = []
        for (index, entry) in entries.enumerated() {
            let data = box("data", be32(1) + be32(0) + Array(entry.1.utf8))
            items += be32(8 + data.count) + be32(index + 1) + data
        }
        return box("meta", hdlr + keys + box("ilst", items))
    }

    /// A portrait phone movie: 1920×1080 coded, rotated 90° clockwise, 2.5 s at 30 fps, with Apple keys.
    static func phoneMovie() -> [UInt8] {
        let moov = box("moov", mvhd(timescale: 600, duration: 1500, created: 3_786_000_000)
                       + videoTrak(matrix: clockwiseMatrix, width: 1920, height: 1080, timescale: 30, frames: 75, delta: 1)
                       + soundTrak()
                       + keyedMeta([("com.apple.quicktime.creationdate", "2023-11-01T15:11:17+0100"),
                                    ("com.apple.quicktime.location.ISO6709", "+48.8584+002.2945+035.000/"),
                                    ("com.apple.quicktime.make", "Apple"),
                                    ("com.apple.quicktime.content.identifier", "5B2CA818-E2D8-6F65-05F3-19E79B95F323")]))
        return ftyp("qt  ") + moov + box("mdat", [UInt8](repeating: 0, count: 64))
    }

    /// A HEIF `meta` box from parts.
    static func heifMeta(items: [(id: Int, type: String, contentType: String?)], iloc: [UInt8],
                         properties: [[UInt8]], associations: [(id: Int, indexes: [Int])],
                         references: [[UInt8]] = [], primary: Int = 1) -> [UInt8] {
        let hdlr = fullBox("hdlr", be32(0) + fourCC("pict") + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = fullBox("pitm", be16(primary))
        let infes = items.flatMap { item in
            fullBox("infe", version: 2, be16(item.id) + be16(0) + fourCC(item.type) + [0]
                    + (item.contentType.map { Array($0.utf8) + [0] } ?? []))
        }
        let iinf = fullBox("iinf", be16(items.count) + infes)
        let ipma = fullBox("ipma", be32(associations.count) + associations.flatMap { a in
            be16(a.id) + [UInt8(a.indexes.count)] + a.indexes.map { UInt8($0) }
        })
        let iprp = box("iprp", box("ipco", properties.flatMap { $0 }) + ipma)
        let iref = references.isEmpty ? [] : fullBox("iref", references.flatMap { $0 })
        return fullBox("meta", hdlr + pitm + iinf + iloc + iprp + iref)
    }

    static func ispe(_ width: Int, _ height: Int) -> [UInt8] { fullBox("ispe", be32(width) + be32(height)) }
    static func irot(_ turns: Int) -> [UInt8] { box("irot", [UInt8(turns)]) }
    static func imir(_ axis: Int) -> [UInt8] { box("imir", [UInt8(axis)]) }
    static func auxC(_ urn: String) -> [UInt8] { fullBox("auxC", Array(urn.utf8) + [0]) }
    static func reference(_ type: String, from: Int, to: [Int]) -> [UInt8] {
        box(type, be16(from) + be16(to.count) + to.flatMap { be16($0) })
    }

    /// `iloc` version 0 with 4-byte offsets and lengths: (id, offset, length) per item.
    static func iloc(_ entries: [(id: Int, offset: Int, length: Int)]) -> [UInt8] {
        fullBox("iloc", [0x44, 0x00] + be16(entries.count) + entries.flatMap { e in
            be16(e.id) + be16(0) + be16(1) + be32(e.offset) + be32(e.length)
        })
    }
}

/// A byte source that counts what is read, over a virtual file whose middle is zeros.
final class CountingByteSource: ByteSource {
    let head: [UInt8]
    let tail: [UInt8]
    let size: UInt64
    private(set) var bytesRead = 0

    init(head: [UInt8], zeros: UInt64, tail: [UInt8]) {
        self.head = head
        self.tail = tail
        self.size = UInt64(head.count) + zeros + UInt64(tail.count)
    }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let end = min(size, offset + UInt64(count))
        let tailStart = size - UInt64(tail.count)
        var out: [UInt8] = []
        out.reserveCapacity(Int(end - offset))
        var position = offset
        while position < end {
            if position < UInt64(head.count) {
                out.append(head[Int(position)])
            } else if position >= tailStart {
                out.append(tail[Int(position - tailStart)])
            } else {
                // Jump through the zero run in one step.
                let run = min(end, tailStart) - position
                out.append(contentsOf: [UInt8](repeating: 0, count: Int(run)))
                position += run
                continue
            }
            position += 1
        }
        bytesRead += out.count
        return out
    }
}
