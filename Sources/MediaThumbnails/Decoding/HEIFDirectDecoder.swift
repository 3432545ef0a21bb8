/// Decodes a HEIF primary image coded as HEVC — one picture, or a grid of tiles — with
/// libde265 directly, shrinking each decoded picture into the thumbnail before the next.
///
/// Why: through libheif 1.15, a 50-megapixel picture existed three times at once
/// (libde265's 4:2:0 picture, our plugin's full-resolution copy, libheif's assembled grid
/// or rotated copy), 300 MB at peak. Here only libde265's picture of one tile exists at full
/// size, chroma stays at its own resolution, and irot/imir are applied to the thumbnail.
/// Files this does not handle (clap, alpha, overlays, other codecs) throw `Unsupported`
/// before any decoding, and go through libheif.
struct HEIFDirectDecoder {
    struct Unsupported: Error {}

    /// One HEVC picture to decode and where it goes in the full picture.
    struct Piece {
        var item: UInt32
        var x: Int, y: Int
    }

    let items: HEIFItems
    /// The coded picture's size, before irot/imir.
    let width: Int, height: Int
    let pieces: [Piece]
    /// EXIF orientations (2–8) that libheif's irot/imir amount to, in the file's order.
    let orientations: [Int]
    /// Whether the displayed picture is the coded one turned a quarter.
    let swapsAxes: Bool
    /// The largest picture decoded at once, in pixels.
    let largestPiece: Int

    /// Reads how the primary image is built; throws `Unsupported` for what this does not handle.
    init(_ file: UnsafeBufferPointer<UInt8>) throws {
        guard LibDe265.shared != nil else { throw Unsupported() }
        let items = try HEIFItems(file)
        self.items = items
        let primary = items.primary
        guard let item = items.items[primary] else { throw Unsupported() }

        var orientations: [Int] = []
        var quarterTurns = 0
        for property in items.properties(of: primary) {
            var reader = HEIFItems.Reader(file: file, range: property.payload)
            switch property.type {
            case "irot":
                let turns = Int(try reader.u8() & 3)
                quarterTurns += turns
                if turns != 0 { orientations.append([1, 8, 3, 6][turns]) }
            case "imir":
                orientations.append(try reader.u8() & 1 == 0 ? 2 : 4)  // vertical axis: left-right; horizontal: top-bottom
            case "clap", "auxC": throw Unsupported()
            default: break
            }
        }
        self.orientations = orientations
        swapsAxes = quarterTurns % 2 == 1

        switch item.type {
        case "hvc1":
            let size = try Self.spatialExtent(of: primary, in: items)
            width = size.width; height = size.height
            pieces = [Piece(item: primary, x: 0, y: 0)]
            largestPiece = width * height
        case "grid":
            let data = try items.dataRanges(of: primary)
            guard let range = data.first, data.count == 1 else { throw Unsupported() }
            var reader = HEIFItems.Reader(file: file, range: range)
            let version = try reader.u8(), flags = try reader.u8()
            guard version == 0 else { throw Unsupported() }
            let rows = Int(try reader.u8()) + 1, columns = Int(try reader.u8()) + 1
            let fieldBytes = flags & 1 != 0 ? 4 : 2
            width = Int(try reader.uint(fieldBytes)); height = Int(try reader.uint(fieldBytes))
            guard let tiles = items.derivedFrom[primary], tiles.count == rows * columns else { throw Unsupported() }
            // Tiles are placed as libheif places them: each row advances by each tile's ispe width.
            var pieces: [Piece] = []
            var largest = 0
            var y = 0
            for row in 0..<rows {
                var x = 0, rowHeight = 0
                for column in 0..<columns {
                    let tile = tiles[row * columns + column]
                    guard items.items[tile]?.type == "hvc1" else { throw Unsupported() }
                    let size = try Self.spatialExtent(of: tile, in: items)
                    pieces.append(Piece(item: tile, x: x, y: y))
                    largest = max(largest, size.width * size.height)
                    x += size.width
                    rowHeight = size.height
                }
                y += rowHeight
            }
            self.pieces = pieces
            largestPiece = largest
        default:
            throw Unsupported()
        }
        guard width > 0, height > 0 else { throw Unsupported() }
    }

    /// The displayed size (after irot).
    var displayedSize: (width: Int, height: Int) { swapsAxes ? (height, width) : (width, height) }

    static func spatialExtent(of item: UInt32, in items: HEIFItems) throws -> (width: Int, height: Int) {
        guard let ispe = items.properties(of: item).first(where: { $0.type == "ispe" }) else { throw Unsupported() }
        var reader = HEIFItems.Reader(file: items.file, range: ispe.payload)
        try reader.skip(4)
        let width = Int(try reader.u32()), height = Int(try reader.u32())
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16 else { throw Unsupported() }
        return (width, height)
    }

    /// Decodes every piece into a thumbnail of `target` (the displayed picture's thumbnail size).
    ///
    /// - Parameter skipLoopFilters: skip deblocking and SAO, and round deeper samples to
    ///   8 bits first, as `HEVCDecoderPlugin` does for a picture shrunk 4× or more.
    func decode(target: (width: Int, height: Int), skipLoopFilters: Bool, conversion: YCbCrConversion) throws -> PixelBuffer {
        guard let library = LibDe265.shared else { throw Unsupported() }
        let coded = swapsAxes ? (width: target.height, height: target.width) : target
        var accumulator = TileAccumulator(width: width, height: height, targetWidth: coded.width,
                                          targetHeight: coded.height, channels: 3)
        var monochrome = false
        var conversion = conversion
        for piece in pieces {
            let expected = try Self.spatialExtent(of: piece.item, in: items)
            try withPicture(of: piece.item, library: library, skipLoopFilters: skipLoopFilters) { picture in
                let chroma = library.chromaFormat(picture)
                let lumaWidth = Int(library.imageWidth(picture, 0)), lumaHeight = Int(library.imageHeight(picture, 0))
                let bits = Int(library.bitsPerPixel(picture, 0))
                guard lumaWidth == expected.width, lumaHeight == expected.height, (8...16).contains(bits),
                      (0...3).contains(chroma) else { throw Unsupported() }
                monochrome = chroma == LibDe265.chromaMono
                if piece.item == pieces[0].item { conversion = conversion.resolved(library: library, picture: picture) }
                for channel in 0..<(monochrome ? 1 : 3) {
                    let c = Int32(channel)
                    let w = Int(library.imageWidth(picture, c)), h = Int(library.imageHeight(picture, c))
                    var stride: Int32 = 0
                    guard w > 0, h > 0, w <= lumaWidth, h <= lumaHeight, library.bitsPerPixel(picture, c) == bits,
                          let plane = library.imagePlane(picture, c, &stride),
                          Int(stride) >= w * (bits > 8 ? 2 : 1) else { throw Unsupported() }
                    let samples: TileAccumulator.Samples = bits == 8 ? .bytes
                        : (skipLoopFilters ? .wideRoundedTo8(bits: bits) : .wide(bits: bits))
                    accumulator.add(UnsafeRawPointer(plane), samplesWide: w, samplesHigh: h, rowBytes: Int(stride),
                                    samples: samples, originX: piece.x, originY: piece.y,
                                    extentWidth: lumaWidth, extentHeight: lumaHeight, channel: channel)
                }
            }
        }
        if monochrome {
            accumulator.fill(channel: 1, with: 128)
            accumulator.fill(channel: 2, with: 128)
        }
        let planes = accumulator.planes
        var image = conversion.rgb(y: planes[0], cb: planes[1], cr: planes[2],
                                   width: accumulator.targetWidth, height: accumulator.targetHeight)
        for orientation in orientations { image = image.oriented(orientation) }
        return image
    }

    /// Decodes one hvc1 item with libde265 on this thread and hands its picture to `body`;
    /// libde265's picture and tables are freed on return.
    private func withPicture(of item: UInt32, library: LibDe265, skipLoopFilters: Bool,
                             _ body: (LibDe265.Picture) throws -> Void) throws {
        guard let base = items.file.baseAddress,
              let config = items.properties(of: item).first(where: { $0.type == "hvcC" }) else { throw Unsupported() }
        // hvcC: 22 bytes of profile fields, then arrays of parameter-set NAL units.
        var reader = HEIFItems.Reader(file: items.file, range: config.payload)
        try reader.skip(21)
        let lengthSize = Int(try reader.u8() & 3) + 1
        let arrays = Int(try reader.u8())
        guard let context = library.newDecoder() else { throw ThumbnailError.decodeFailed("libde265 could not start a decoder") }
        defer { _ = library.freeDecoder(context) }
        if skipLoopFilters {
            library.setParameterBool(context, LibDe265.parameterDisableDeblocking, 1)
            library.setParameterBool(context, LibDe265.parameterDisableSAO, 1)
        }
        for _ in 0..<arrays {
            try reader.skip(1)
            let count = Int(try reader.u16())
            for _ in 0..<count {
                let length = Int(try reader.u16())
                let start = config.payload.lowerBound + reader.offset
                try reader.skip(length)
                _ = library.pushNAL(context, base + start, Int32(length), 0, nil)
            }
        }
        for extent in try items.dataRanges(of: item) {
            // NAL units do not cross extents in the files cameras write; one that does fails here.
            var data = HEIFItems.Reader(file: items.file, range: extent)
            guard data.range.count == extent.count else { throw Unsupported() }
            while data.offset < extent.count {
                let length = Int(try data.uint(lengthSize))
                guard length <= Int(Int32.max) else { throw Unsupported() }
                let start = extent.lowerBound + data.offset
                try data.skip(length)
                _ = library.pushNAL(context, base + start, Int32(length), 0, nil)
            }
        }
        _ = library.flushData(context)
        var more: Int32 = 1
        var steps = 0
        // An image item is one picture; the bound only guards against a decoder that never finishes.
        while more != 0 && steps < 1_000_000 {
            steps += 1
            more = 0
            guard library.decode(context, &more) == LibDe265.ok else { break }
            if let picture = library.getNextPicture(context) {
                defer { library.releaseNextPicture(context) }
                try body(picture)
                return
            }
        }
        throw ThumbnailError.decodeFailed("libde265 produced no picture")
    }
}
