import CDav1d
import MediaMetadata

extension HEIFDirectDecoder {
    /// How one AV1 picture is stored, from its `av1C` box (AV1-ISOBMFF §2.3.3).
    struct AV1Layout {
        /// Bytes per sample (2 above 8 bits).
        var bytesPerSample: Int
        var monochrome: Bool
        var subsamplingX: Bool, subsamplingY: Bool
        /// The configuration OBUs (the sequence header) that precede the item's data.
        var configOBUs: ArraySlice<UInt8>

        init?(_ av1C: [UInt8]) {
            // marker and version, profile and level, then the colour configuration's bits.
            guard av1C.count >= 4, av1C[0] & 0x7F == 1 else { return nil }
            let flags = av1C[2]
            bytesPerSample = flags & 0x40 != 0 ? 2 : 1
            monochrome = flags & 0x10 != 0
            subsamplingX = flags & 0x08 != 0
            subsamplingY = flags & 0x04 != 0
            configOBUs = av1C[4...]
        }

        /// Bytes of a `width` × `height` picture's planes (what dav1d holds while decoding it).
        func pictureBytes(width: Int, height: Int) -> Int {
            let chromaWidth = subsamplingX ? (width + 1) / 2 : width
            let chromaHeight = subsamplingY ? (height + 1) / 2 : height
            return (width * height + (monochrome ? 0 : 2 * chromaWidth * chromaHeight)) * bytesPerSample
        }
    }

    /// An AV1 piece's storage, from its `av1C` property.
    func av1Layout(of item: UInt32) -> AV1Layout? {
        items.properties(of: item).first(where: { $0.type == "av1C" }).flatMap { AV1Layout($0.payload) }
    }

    /// Bytes of the largest AV1 picture decoded at once (0 for HEVC, or when unknown).
    var largestAV1PictureBytes: Int {
        guard codec == .av1 else { return 0 }
        return pieces.map { piece in av1Layout(of: piece.item)?.pictureBytes(width: piece.width, height: piece.height) ?? 0 }.max() ?? 0
    }

    /// Decodes one av01 item with dav1d and adds its planes to `partial`'s sums.
    ///
    /// - Throws: `Unsupported` for a picture not the size its `ispe` says or a layout this
    ///   does not read (libheif then decodes the file); `ThumbnailError.decodeFailed` when
    ///   dav1d fails.
    func addAV1Picture(_ piece: Piece, to partial: inout Partial, threads: Int, skipLoopFilters: Bool) throws {
        guard let library = Dav1dLibrary.shared, let layout = av1Layout(of: piece.item),
              let ranges = try? items.fileRanges(of: piece.item, fileSize: UInt64(file.count)) else { throw Unsupported() }
        // The sequence header from av1C, then the item's OBUs, as libheif hands them to dav1d.
        var bytes = Array(layout.configOBUs)
        for range in ranges {
            guard range.upperBound <= UInt64(file.count) else { throw Unsupported() }
            bytes += file[Int(range.lowerBound)..<Int(range.upperBound)]
        }
        try library.decodePicture(bytes, threads: threads, skipLoopFilters: skipLoopFilters,
                                  pixelLimit: piece.width * piece.height) { picture in
            let w = Int(picture.p.w), h = Int(picture.p.h), bits = Int(picture.p.bpc)
            guard w == piece.width, h == piece.height, bits == 8 || bits == 10 || bits == 12 else { throw Unsupported() }
            let bytesPerSample = bits > 8 ? 2 : 1
            let monochrome = picture.p.layout == DAV1D_PIXEL_LAYOUT_I400
            let chromaWidth = picture.p.layout == DAV1D_PIXEL_LAYOUT_I444 ? w : (w + 1) / 2
            let chromaHeight = picture.p.layout == DAV1D_PIXEL_LAYOUT_I420 ? (h + 1) / 2 : h
            let planes = [picture.data.0, picture.data.1, picture.data.2]
            let strides = [Int(picture.stride.0), Int(picture.stride.1), Int(picture.stride.1)]
            partial.monochrome = partial.monochrome || monochrome
            // Without an nclx box, the sequence header's colour config says how to convert, as
            // libheif reads it (unspecified matrices are BT.601).
            if piece.x == 0, piece.y == 0, let header = picture.seq_hdr {
                let fullRange = header.pointee.color_range != 0
                partial.conversion = YCbCrConversion(matrixCoefficients: Int(header.pointee.mtrx.rawValue), fullRange: fullRange)
                    ?? YCbCrConversion(kr: 0.299, kb: 0.114, fullRange: fullRange)
            }
            for channel in 0..<(monochrome ? 1 : 3) {
                let (planeWidth, planeHeight) = channel == 0 ? (w, h) : (chromaWidth, chromaHeight)
                guard let plane = planes[channel], strides[channel] >= planeWidth * bytesPerSample else { throw Unsupported() }
                partial.accumulator.add(UnsafeRawPointer(plane), samplesWide: planeWidth, samplesHigh: planeHeight,
                                        rowBytes: strides[channel], samples: bits == 8 ? .bytes : .wide(bits: bits),
                                        originX: piece.x, originY: piece.y, extentWidth: w, extentHeight: h, channel: channel)
            }
        }
    }
}
