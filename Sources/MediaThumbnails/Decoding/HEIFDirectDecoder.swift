import Foundation
import MediaMetadata
import Synchronization

/// Decodes a HEIF primary image coded as HEVC or AV1 — one picture, or a grid of tiles —
/// with libde265 or dav1d directly, shrinking each decoded picture into the thumbnail
/// before the next.
///
/// Why: through libheif 1.15, a 50-megapixel picture existed three times at once
/// (libde265's 4:2:0 picture, our plugin's full-resolution copy, libheif's assembled grid
/// or rotated copy), 300 MB at peak. Here only libde265's picture of one tile exists at full
/// size, chroma stays at its own resolution, and irot/imir are applied to the thumbnail.
/// AVIF likewise (see `Dav1dLibrary`): a 10-bit 4:4:4 picture of 20 megapixels peaked at
/// 525 MB through libheif.
/// Files this does not handle (clap, alpha, overlays, other codecs) throw `Unsupported`
/// before any decoding, and go through libheif.
// Read-only once made; `file` is the caller's buffer, alive for the whole decode, which
// its tile workers only read.
struct HEIFDirectDecoder: @unchecked Sendable {
    struct Unsupported: Error {}

    /// The codec of the primary image's pictures.
    enum Codec: String {
        case hevc = "hvc1"
        case av1 = "av01"
    }

    /// One HEVC picture to decode and where it goes in the full picture.
    struct Piece {
        var item: UInt32
        var x: Int, y: Int
        /// Its `ispe` size.
        var width: Int, height: Int
    }

    let items: HEIFItems
    let file: UnsafeBufferPointer<UInt8>
    let codec: Codec
    /// The coded picture's size, before irot/imir.
    let width: Int, height: Int
    let pieces: [Piece]
    /// The EXIF orientation that the primary item's irot/imir amount to.
    let orientation: Int
    /// The largest picture decoded at once, in pixels.
    let largestPiece: Int

    /// Reads how the primary image (or the item `chosen`: a thumbnail item) is built;
    /// throws `Unsupported` for what this does not handle.
    init(_ file: UnsafeBufferPointer<UInt8>, item chosen: UInt32? = nil) throws {
        let source = BufferByteSource(file)
        guard let items = try? HEIFItems.read(source), let primary = chosen ?? items.primaryID,
              let item = items.items[primary], !item.isProtected else { throw Unsupported() }
        let firstPicture = item.type == "grid" ? items.referenced(from: primary, by: "dimg").first.flatMap { items.items[$0] } : item
        guard let codec = firstPicture.flatMap({ Codec(rawValue: $0.type) }) else { throw Unsupported() }
        switch codec {
        case .hevc: guard LibDe265.shared != nil else { throw Unsupported() }
        case .av1: guard Dav1dLibrary.shared != nil else { throw Unsupported() }
        }
        self.codec = codec
        self.items = items
        self.file = file
        guard !items.properties(of: primary).contains(where: { $0.type == "clap" || $0.type == "auxC" }) else {
            throw Unsupported()
        }
        orientation = items.orientation(of: primary)

        func piece(_ id: UInt32, x: Int, y: Int) throws -> Piece {
            guard items.items[id]?.type == codec.rawValue, let size = items.spatialExtent(of: id),
                  size.width <= 1 << 16, size.height <= 1 << 16 else { throw Unsupported() }
            return Piece(item: id, x: x, y: y, width: size.width, height: size.height)
        }
        switch item.type {
        case codec.rawValue:
            let only = try piece(primary, x: 0, y: 0)
            width = only.width; height = only.height
            pieces = [only]
            largestPiece = width * height
        case "grid":
            guard let grid = items.grid(primary, source: source) else { throw Unsupported() }
            width = grid.width; height = grid.height
            let tiles = items.referenced(from: primary, by: "dimg")
            guard tiles.count == grid.rows * grid.columns else { throw Unsupported() }
            // Tiles are placed as libheif places them: each row advances by each tile's ispe width.
            var pieces: [Piece] = []
            var y = 0
            for row in 0..<grid.rows {
                var x = 0, rowHeight = 0
                for column in 0..<grid.columns {
                    let tile = try piece(tiles[row * grid.columns + column], x: x, y: y)
                    pieces.append(tile)
                    x += tile.width
                    rowHeight = tile.height
                }
                y += rowHeight
            }
            self.pieces = pieces
            largestPiece = pieces.map { $0.width * $0.height }.max() ?? 0
        default:
            throw Unsupported()
        }
        guard width > 0, height > 0 else { throw Unsupported() }
    }

    /// Whether the displayed picture is the coded one turned a quarter.
    var swapsAxes: Bool { orientation >= 5 }

    /// The displayed size (after irot).
    var displayedSize: (width: Int, height: Int) { swapsAxes ? (height, width) : (width, height) }

    /// How many threads decode a grid's tiles at once: one per core (at most four), and
    /// never more than there are pieces. A single picture decodes on the calling thread.
    var workers: Int { max(1, min(pieces.count, Self.maximumWorkers)) }

    static let maximumWorkers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))

    /// What one worker made of its share of the pieces.
    struct Partial {
        var accumulator: TileAccumulator
        var monochrome = false
        /// The conversion as the first piece's stream declares it, when this worker decoded it.
        var conversion: YCbCrConversion?
    }

    /// Decodes every piece into a thumbnail of `target` (the displayed picture's thumbnail size).
    ///
    /// A grid's tiles are independent HEVC pictures: `workers` threads decode them, each
    /// into its own thumbnail-sized sums (area averaging is a sum of each tile's share), added
    /// together at the end. A file's last tiles then do not leave the other cores idle, and
    /// one thumbnail asked for alone (a picker scrolling) takes all cores.
    ///
    /// - Parameter skipLoopFilters: skip deblocking and SAO, and round deeper samples to
    ///   8 bits first, as `HEVCDecoderPlugin` does for a picture shrunk 4× or more.
    func decode(target: (width: Int, height: Int), skipLoopFilters: Bool, conversion: YCbCrConversion) throws -> PixelBuffer {
        let coded = swapsAxes ? (width: target.height, height: target.width) : target
        let workers = self.workers
        let partials: [Result<Partial, Error>]
        if workers == 1 {
            partials = [Result { try decodePieces(worker: 0, of: 1, coded: coded, skipLoopFilters: skipLoopFilters) }]
        } else {
            let results = Mutex<[Result<Partial, Error>?]>(Array(repeating: nil, count: workers))
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let result = Result {
                    try decodePieces(worker: worker, of: workers, coded: coded, skipLoopFilters: skipLoopFilters)
                }
                results.withLock { $0[worker] = result }
            }
            partials = results.withLock { $0.compactMap { $0 } }
        }
        var accumulator: TileAccumulator?
        var monochrome = false
        var conversion = conversion
        for partial in partials {
            let part = try partial.get()
            if accumulator == nil { accumulator = part.accumulator } else { accumulator?.add(part.accumulator) }
            monochrome = monochrome || part.monochrome
            if let resolved = part.conversion, conversion.followsBitstream { conversion = resolved }
        }
        guard var accumulator else { throw Unsupported() }
        if monochrome {
            accumulator.fill(channel: 1, with: 128)
            accumulator.fill(channel: 2, with: 128)
        }
        let planes = accumulator.planes
        let image = conversion.rgb(y: planes[0], cb: planes[1], cr: planes[2],
                                   width: accumulator.targetWidth, height: accumulator.targetHeight)
        return image.oriented(orientation)
    }

    /// Decodes pieces `worker`, `worker + workers`, … into thumbnail-sized sums.
    private func decodePieces(worker: Int, of workers: Int, coded: (width: Int, height: Int),
                              skipLoopFilters: Bool) throws -> Partial {
        var partial = Partial(accumulator: TileAccumulator(width: width, height: height, targetWidth: coded.width,
                                                           targetHeight: coded.height, channels: 3))
        if codec == .av1 {
            // A single picture decodes on every core; a grid's tiles on one each.
            let threads = workers == 1 && pieces.count == 1 ? Self.maximumWorkers : 1
            for index in stride(from: worker, to: pieces.count, by: workers) {
                try addAV1Picture(pieces[index], to: &partial, threads: threads, skipLoopFilters: skipLoopFilters)
            }
            return partial
        }
        guard let library = LibDe265.shared else { throw Unsupported() }
        for index in stride(from: worker, to: pieces.count, by: workers) {
            let piece = pieces[index]
            try withPicture(of: piece.item, library: library, skipLoopFilters: skipLoopFilters) { picture in
                let chroma = library.chromaFormat(picture)
                let lumaWidth = Int(library.imageWidth(picture, 0)), lumaHeight = Int(library.imageHeight(picture, 0))
                let bits = Int(library.bitsPerPixel(picture, 0))
                guard lumaWidth == piece.width, lumaHeight == piece.height, (8...16).contains(bits),
                      (0...3).contains(chroma) else { throw Unsupported() }
                let monochrome = chroma == LibDe265.chromaMono
                partial.monochrome = partial.monochrome || monochrome
                if index == 0 { partial.conversion = YCbCrConversion.undeclared.resolved(library: library, picture: picture) }
                for channel in 0..<(monochrome ? 1 : 3) {
                    let c = Int32(channel)
                    let w = Int(library.imageWidth(picture, c)), h = Int(library.imageHeight(picture, c))
                    var stride: Int32 = 0
                    guard w > 0, h > 0, w <= lumaWidth, h <= lumaHeight, library.bitsPerPixel(picture, c) == bits,
                          let plane = library.imagePlane(picture, c, &stride),
                          Int(stride) >= w * (bits > 8 ? 2 : 1) else { throw Unsupported() }
                    let samples: TileAccumulator.Samples = bits == 8 ? .bytes
                        : (skipLoopFilters ? .wideRoundedTo8(bits: bits) : .wide(bits: bits))
                    partial.accumulator.add(UnsafeRawPointer(plane), samplesWide: w, samplesHigh: h, rowBytes: Int(stride),
                                            samples: samples, originX: piece.x, originY: piece.y,
                                            extentWidth: lumaWidth, extentHeight: lumaHeight, channel: channel)
                }
            }
        }
        return partial
    }

    /// Decodes one hvc1 item with libde265 on this thread and hands its picture to `body`;
    /// libde265's picture and tables are freed on return.
    func withPicture(of item: UInt32, library: LibDe265, skipLoopFilters: Bool,
                             _ body: (LibDe265.Picture) throws -> Void) throws {
        guard let base = file.baseAddress,
              let config = items.properties(of: item).first(where: { $0.type == "hvcC" }),
              let ranges = try? items.fileRanges(of: item, fileSize: UInt64(file.count)) else { throw Unsupported() }
        guard let context = library.newDecoder() else { throw ThumbnailError.decodeFailed("libde265 could not start a decoder") }
        defer { _ = library.freeDecoder(context) }
        if skipLoopFilters {
            library.setParameterBool(context, LibDe265.parameterDisableDeblocking, 1)
            library.setParameterBool(context, LibDe265.parameterDisableSAO, 1)
        }
        // hvcC (ISO/IEC 14496-15 §8.3.3.1): 22 bytes of profile fields, then arrays of
        // parameter-set NAL units, each with a 16-bit length.
        let lengthSize = try config.payload.withUnsafeBufferPointer { payload in
            var reader = BigEndianReader(payload, 0..<payload.count)
            try reader.skip(21)
            let lengthSize = Int(try reader.uint(1) & 3) + 1
            let arrays = Int(try reader.uint(1))
            for _ in 0..<arrays {
                try reader.skip(1)
                for _ in 0..<Int(try reader.uint(2)) {
                    let unit = try reader.take(Int(try reader.uint(2)))
                    guard let start = payload.baseAddress else { throw Unsupported() }
                    _ = library.pushNAL(context, start + unit.lowerBound, Int32(unit.count), 0, nil)
                }
            }
            return lengthSize
        }
        for range in ranges {
            // NAL units do not cross extents in the files cameras write; one that does fails here.
            var data = BigEndianReader(file, Int(range.lowerBound)..<Int(range.upperBound))
            while !data.isAtEnd {
                let length = try data.uint(lengthSize)
                guard length <= UInt64(Int32.max) else { throw Unsupported() }
                let unit = try data.take(Int(length))
                _ = library.pushNAL(context, base + unit.lowerBound, Int32(unit.count), 0, nil)
            }
        }
        var decoded = false
        try library.decodePictures(context) { picture in
            try body(picture)
            decoded = true
            return false
        }
        guard decoded else { throw ThumbnailError.decodeFailed("libde265 produced no picture") }
    }
}

/// Big-endian reads within a range of a buffer; running past it throws `Unsupported`.
struct BigEndianReader {
    let buffer: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    let end: Int

    init(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        self.buffer = buffer
        let clamped = range.clamped(to: 0..<buffer.count)
        position = clamped.lowerBound
        end = clamped.upperBound
    }

    var isAtEnd: Bool { position >= end }

    /// The next `count` bytes' range in the buffer.
    mutating func take(_ count: Int) throws -> Range<Int> {
        guard count >= 0, count <= end - position else { throw HEIFDirectDecoder.Unsupported() }
        defer { position += count }
        return position..<(position + count)
    }

    mutating func skip(_ count: Int) throws { _ = try take(count) }

    mutating func uint(_ bytes: Int) throws -> UInt64 {
        guard bytes <= 8 else { throw HEIFDirectDecoder.Unsupported() }
        return try take(bytes).reduce(0) { $0 << 8 | UInt64(buffer[$1]) }
    }
}
