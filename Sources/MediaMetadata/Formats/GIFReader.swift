/// Reads a GIF's screen size, counts its frames and finds its XMP packet.
///
/// Counting frames means walking every block, including the image data's sub-blocks
/// (one length byte each), so the file is read front to back in 64 KiB pieces; the
/// walk stops after `maxFrames` frames or at the end of the file.
public enum GIFReader {
    /// Frames beyond this are not counted.
    public static let maxFrames = 100_000
    private static let xmpApplication = Array("XMP DataXMP".utf8)

    /// Reads the facts a GIF's blocks state.
    ///
    /// - Throws: `MetadataError` when the header or the logical screen descriptor is
    ///   missing. A GIF cut short is read as far as it goes, with a warning.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        var input = GIFBufferedInput(source: source)
        guard let header = input.take(13), header.count == 13 else {
            throw MetadataError.truncated("the GIF ends before its logical screen descriptor")
        }
        let magic = String(decoding: header[0..<6], as: UTF8.self)
        guard magic == "GIF87a" || magic == "GIF89a" else {
            throw MetadataError.malformed("the GIF signature is missing")
        }
        var metadata = MediaMetadata(format: .gif)
        let width = Int(header[6]) | Int(header[7]) << 8
        let height = Int(header[8]) | Int(header[9]) << 8
        if width > 0, height > 0 { metadata.pixelWidth = width; metadata.pixelHeight = height }
        var reading = ContainerReading(metadata: metadata)

        let packed = header[10]
        if packed & 0x80 != 0 { input.skip(3 << (Int(packed & 0x07) + 1)) }

        var frames = 0
        var problem: String?
        walk: while true {
            guard let introducer = input.byte() else {
                problem = "the GIF ends before its trailer"
                break
            }
            switch introducer {
            case 0x3B:  // trailer
                break walk
            case 0x21:  // extension
                guard let label = input.byte() else { problem = "the GIF ends inside an extension"; break walk }
                if label == 0xFF, reading.xmp == nil, let first = input.peek(12), first.first == 11,
                   Array(first[1...]) == xmpApplication {
                    input.skip(12)
                    // XMP's text is stored raw: its bytes double as sub-block lengths, and a
                    // 258-byte "magic trailer" makes ordinary decoders skip it correctly.
                    let start = input.offset
                    guard input.skipSubBlocks() else { problem = "the GIF ends inside its XMP block"; break walk }
                    let end = input.offset
                    let count = Int(min(UInt64(XMPReader.maxPacketBytes), end - start))
                    if var raw = try? source.read(at: start, count: count) {
                        // The trailer (01 FF FE … 00) holds a '>' byte itself: cut it off first.
                        if let trailer = raw.indices.first(where: { i in
                            i + 2 < raw.count && raw[i] == 0x01 && raw[i + 1] == 0xFF && raw[i + 2] == 0xFE
                        }) {
                            raw.removeSubrange(trailer...)
                        }
                        if let close = raw.lastIndex(of: UInt8(ascii: ">")) { reading.xmp = Array(raw[...close]) }
                    }
                } else if !input.skipSubBlocks() {
                    problem = "the GIF ends inside an extension"
                    break walk
                }
            case 0x2C:  // image descriptor
                guard let descriptor = input.take(9), descriptor.count == 9 else {
                    problem = "the GIF ends inside an image descriptor"
                    break walk
                }
                if descriptor[8] & 0x80 != 0 { input.skip(3 << (Int(descriptor[8] & 0x07) + 1)) }
                guard input.byte() != nil, input.skipSubBlocks() else {  // LZW minimum code size, data
                    problem = "the GIF ends inside the data of frame \(frames + 1)"
                    frames += 1
                    break walk
                }
                frames += 1
                if frames >= maxFrames {
                    reading.metadata.warnings.append("the GIF has at least \(maxFrames) frames; counting stopped there")
                    break walk
                }
            default:
                problem = "the GIF has an unknown block 0x\(String(introducer, radix: 16)) at offset \(input.offset - 1)"
                break walk
            }
        }
        if let error = input.error { throw error }
        if let problem { reading.metadata.warnings.append(problem) }
        reading.metadata.frameCount = frames
        reading.metadata.isAnimated = frames > 1
        return reading
    }
}

/// Sequential reads over a byte source through a 64 KiB window.
struct GIFBufferedInput {
    let source: ByteSource
    private var window: [UInt8] = []
    private var windowStart: UInt64 = 0
    private(set) var offset: UInt64 = 0
    private(set) var error: MetadataError?
    static let windowSize = 64 << 10

    init(source: ByteSource) { self.source = source }

    private mutating func fill() -> Bool {
        guard error == nil, offset < source.size else { return false }
        do {
            window = try source.read(at: offset, count: Self.windowSize)
            windowStart = offset
        } catch let e as MetadataError {
            error = e; return false
        } catch {
            self.error = .io("cannot read the GIF: \(error)"); return false
        }
        return !window.isEmpty
    }

    private mutating func available() -> Bool {
        if offset >= windowStart, offset < windowStart + UInt64(window.count) { return true }
        return fill()
    }

    mutating func byte() -> UInt8? {
        guard available() else { return nil }
        let b = window[Int(offset - windowStart)]
        offset += 1
        return b
    }

    /// Up to `count` bytes (fewer at the end of the source), consumed.
    mutating func take(_ count: Int) -> [UInt8]? {
        guard let bytes = peek(count) else { return nil }
        offset += UInt64(bytes.count)
        return bytes
    }

    /// Up to `count` bytes, not consumed; count is small (a header).
    mutating func peek(_ count: Int) -> [UInt8]? {
        guard available() else { return nil }
        let local = Int(offset - windowStart)
        if local + count <= window.count { return Array(window[local..<(local + count)]) }
        guard let bytes = try? source.read(at: offset, count: count), !bytes.isEmpty else { return nil }
        return bytes
    }

    mutating func skip(_ count: Int) { offset += UInt64(max(0, count)) }

    /// Skips a chain of sub-blocks up to and including its zero terminator; false when
    /// the source ends first. Every step advances at least one byte.
    mutating func skipSubBlocks() -> Bool {
        while let length = byte() {
            if length == 0 { return true }
            offset += UInt64(length)
        }
        return false
    }
}
