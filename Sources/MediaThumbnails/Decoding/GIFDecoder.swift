import MediaMetadata

/// Decodes the first frame of a GIF with a small bounded LZW decoder of our own
/// (no GIF library in the dependency set).
///
/// Every loop is bounded by the input length or the frame's pixel count; a frame whose
/// data ends early keeps what was decoded (the rest stays transparent).
enum GIFDecoder {
    /// Blocks read before the first image; real files have a handful of extensions.
    static let maxBlocks = 4096

    static func decodeFirstFrame(_ data: UnsafeBufferPointer<UInt8>, pixelLimit: Int) throws -> PixelBuffer {
        guard data.count >= 13, data[0] == 0x47, data[1] == 0x49, data[2] == 0x46, data[3] == 0x38 else {
            throw ThumbnailError.decodeFailed("the GIF signature is missing")
        }
        func u16(_ at: Int) -> Int { at + 1 < data.count ? Int(data[at]) | Int(data[at + 1]) << 8 : 0 }
        var screenWidth = u16(6), screenHeight = u16(8)
        let screenFlags = data[10]
        var position = 13
        var globalTable: Range<Int>?
        if screenFlags & 0x80 != 0 {
            let length = 3 << (Int(screenFlags & 7) + 1)
            globalTable = position..<min(data.count, position + length)
            position += length
        }
        var transparentIndex: Int?

        /// Skips data sub-blocks starting at `at`; returns the offset after the terminator.
        func skipSubBlocks(_ at: Int) -> Int {
            var p = at
            while p < data.count {
                let length = Int(data[p])
                p += 1 + length
                if length == 0 { break }
            }
            return p
        }

        for _ in 0..<maxBlocks {
            guard position < data.count else { break }
            switch data[position] {
            case 0x21:  // extension
                guard position + 1 < data.count else { break }
                if data[position + 1] == 0xF9, position + 6 < data.count, data[position + 2] >= 4 {
                    transparentIndex = data[position + 3] & 1 != 0 ? Int(data[position + 6]) : nil
                }
                position = skipSubBlocks(position + 2)
            case 0x2C:  // image descriptor
                guard position + 10 <= data.count else { throw ThumbnailError.decodeFailed("the GIF ends inside an image descriptor") }
                let left = u16(position + 1), top = u16(position + 3)
                let width = u16(position + 5), height = u16(position + 7)
                let flags = data[position + 9]
                position += 10
                var table = globalTable
                if flags & 0x80 != 0 {
                    let length = 3 << (Int(flags & 7) + 1)
                    table = position..<min(data.count, position + length)
                    position += length
                }
                if screenWidth == 0 || screenHeight == 0 { screenWidth = left + width; screenHeight = top + height }
                guard width > 0, height > 0, screenWidth > 0, screenHeight > 0 else {
                    throw ThumbnailError.decodeFailed("the GIF's first image is empty")
                }
                guard screenWidth * screenHeight <= pixelLimit, width * height <= pixelLimit else {
                    throw ThumbnailError.imageTooLarge(width: max(screenWidth, width), height: max(screenHeight, height), limit: pixelLimit)
                }
                guard let palette = table, position < data.count else {
                    throw ThumbnailError.decodeFailed("the GIF has no colour table")
                }
                let minimumCodeSize = Int(data[position])
                guard (1...11).contains(minimumCodeSize) else {
                    throw ThumbnailError.decodeFailed("the GIF's LZW code size \(minimumCodeSize) is invalid")
                }
                // Gather the sub-blocks into one stream.
                var stream: [UInt8] = []
                var p = position + 1
                while p < data.count {
                    let length = Int(data[p])
                    if length == 0 { break }
                    let end = min(data.count, p + 1 + length)
                    stream.append(contentsOf: data[(p + 1)..<end])
                    p = end
                }
                let indices = lzwDecode(stream, minimumCodeSize: minimumCodeSize, pixelCount: width * height)
                return compose(indices: indices, frame: (left, top, width, height), interlaced: flags & 0x40 != 0,
                               screen: (screenWidth, screenHeight), palette: data[palette], transparent: transparentIndex)
            case 0x3B:
                // A GIF with a screen but no image shows as that screen, transparent.
                guard screenWidth > 0, screenHeight > 0, screenWidth * screenHeight <= pixelLimit else {
                    throw ThumbnailError.decodeFailed("the GIF ends before its first image")
                }
                return PixelBuffer(width: screenWidth, height: screenHeight, channels: 4)
            default:
                throw ThumbnailError.decodeFailed("the GIF has an unknown block 0x\(String(data[position], radix: 16)) at offset \(position)")
            }
        }
        throw ThumbnailError.decodeFailed("the GIF has no image")
    }

    /// Variable-length-code LZW as GIF uses it; stops at the end code, at bad codes, or
    /// once `pixelCount` indices are out.
    static func lzwDecode(_ stream: [UInt8], minimumCodeSize: Int, pixelCount: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize, end = clear + 1
        var prefix = [UInt16](repeating: 0, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        for i in 0..<min(clear, 256) { suffix[i] = UInt8(i) }
        var stack = [UInt8](repeating: 0, count: 4097)
        var output = [UInt8](repeating: 0, count: pixelCount)
        var written = 0
        var codeSize = minimumCodeSize + 1, next = clear + 2
        var old = -1, first: UInt8 = 0
        var reader = LSBFirstBitReader(stream)
        while written < pixelCount {
            var code = reader.bits(codeSize)
            if reader.ranPastEnd { return output }
            if code == clear {
                codeSize = minimumCodeSize + 1; next = clear + 2; old = -1
                continue
            }
            if code == end { break }
            if old == -1 {
                guard code < clear else { break }
                output[written] = suffix[code]; written += 1
                old = code; first = suffix[code]
                continue
            }
            let incoming = code
            var depth = 0
            if code >= next {
                guard code == next else { break }  // a code from the future: corrupt
                stack[depth] = first; depth += 1
                code = old
            }
            while code >= clear && depth < 4096 {
                stack[depth] = suffix[code]; depth += 1
                code = Int(prefix[code])
            }
            guard code < clear else { break }
            first = suffix[code]
            stack[depth] = first; depth += 1
            if next < 4096 {
                prefix[next] = UInt16(old); suffix[next] = first; next += 1
                if next == 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
            old = incoming
            while depth > 0 && written < pixelCount {
                depth -= 1
                output[written] = stack[depth]; written += 1
            }
        }
        return output
    }

    /// The frame's palette indices placed on a transparent canvas of the screen's size.
    private static func compose(indices: [UInt8], frame: (left: Int, top: Int, width: Int, height: Int), interlaced: Bool,
                                screen: (width: Int, height: Int), palette: Slice<UnsafeBufferPointer<UInt8>>,
                                transparent: Int?) -> PixelBuffer {
        var canvas = PixelBuffer(width: screen.width, height: screen.height, channels: 4)
        let colours = Array(palette)
        // Interlaced rows arrive in four passes: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
        var rowOrder: [Int] = []
        if interlaced {
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] { rowOrder += Array(stride(from: start, to: frame.height, by: step)) }
        } else {
            rowOrder = Array(0..<frame.height)
        }
        canvas.pixels.withUnsafeMutableBufferPointer { out in
            for (sourceRow, y) in rowOrder.enumerated() {
                let canvasY = frame.top + y
                guard canvasY < screen.height else { continue }
                for x in 0..<frame.width {
                    let canvasX = frame.left + x
                    guard canvasX < screen.width else { break }
                    let index = Int(indices[sourceRow * frame.width + x])
                    if index == transparent || index * 3 + 2 >= colours.count { continue }
                    let o = (canvasY * screen.width + canvasX) * 4
                    out[o] = colours[index * 3]; out[o + 1] = colours[index * 3 + 1]
                    out[o + 2] = colours[index * 3 + 2]; out[o + 3] = 255
                }
            }
        }
        return canvas
    }
}
