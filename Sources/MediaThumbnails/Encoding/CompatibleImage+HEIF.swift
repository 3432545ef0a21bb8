import CJPEG
import MediaMetadata

extension ThumbnailGenerator {
    /// A HEIC's compatible JPEG made from its YCbCr 4:2:0 planes: its HEVC tiles decoded
    /// straight into their upright places in full-size planes (`HEIFDirectDecoder.fullPicture`),
    /// and handed to TurboJPEG as they are, with no RGB in between. JPEG's
    /// YCbCr is BT.601 full range, which is what phones write; a limited-range picture's
    /// samples are stretched first.
    ///
    /// Nil when the picture needs RGB: another matrix, a colour conversion (`colorspace=srgb`
    /// of a Display P3 picture), alpha, more than 8 bits, AV1, or a layout the direct
    /// decoder does not read. The caller then makes it the general way.
    ///
    /// - Parameter orientation: the file's EXIF orientation, applied when the item has no irot/imir.
    static func compatibleHEIFPlanes(_ data: UnsafeBufferPointer<UInt8>, orientation: Int,
                                     options: CompatibleImageOptions, pixelLimit: Int) -> EncodedThumbnail? {
        guard let items = try? HEIFItems.read(BufferByteSource(data)), let primary = items.primaryID,
              !items.hasAlpha(primary), let plan = try? HEIFDirectDecoder(data), plan.decodesFullPicture,
              plan.width * plan.height <= pixelLimit,
              let declared = YCbCrConversion(items: items, item: primary) else { return nil }
        let profile: [UInt8]?
        switch items.colourSpace(of: primary) {
        case .icc(let bytes) where !options.convertsToSRGB && !ColourConverter.isCMYKProfile(bytes): profile = bytes
        case .sRGB: profile = nil
        default: return nil
        }
        let upright = items.isTransformed(primary) ? plan.orientation : orientation
        let cost = plan.largestPiece >= DecodeBudget.exemptBelow ? plan.width * plan.height * 3 / 2 : 0
        guard var picture = try? DecodeBudget.shared.withPixels(cost, { () throws -> YCbCr420 in
                  // libde265 decodes; ffmpeg, when installed, where libde265 cannot.
                  try plan.fullPicture(conversion: declared, orientation: upright, ffmpeg: VideoFrameExtractor.ffmpegPath)
              }), picture.conversion.isJPEGMatrix else { return nil }
        if !picture.conversion.fullRange { picture.expandToFullRange() }
        guard let jpeg = try? ThumbnailEncoder.encodeJPEG(picture, quality: options.quality) else { return nil }
        var made = EncodedThumbnail(data: jpeg, width: picture.width, height: picture.height, path: .fullDecode)
        made.iccProfile = profile
        return made
    }
}

extension HEIFItems {
    /// Whether an alpha plane (an `auxl` item whose `auxC` names alpha) belongs to `id`.
    func hasAlpha(_ id: UInt32) -> Bool {
        items(referencing: id, by: "auxl").contains { aux in
            properties(of: aux).contains { $0.auxiliaryType?.contains("alpha") == true }
        }
    }

    /// An item's colour as libheif reports it (`HEIFDecoder.colourSpace`), read without
    /// libheif: its `colr` ICC profile (`prof`, `rICC`), else its nclx primaries and
    /// transfer, else sRGB.
    /// A grid without a `colr` of its own has its first tile's, as libheif gives it.
    func colourSpace(of id: UInt32) -> ColourSpace {
        var colours = properties(of: id).filter { $0.type == "colr" && $0.payload.count >= 4 }
        if colours.isEmpty, items[id]?.type == "grid", let tile = referenced(from: id, by: "dimg").first {
            colours = properties(of: tile).filter { $0.type == "colr" && $0.payload.count >= 4 }
        }
        if let icc = colours.first(where: { ["prof", "rICC"].contains(String(decoding: $0.payload.prefix(4), as: UTF8.self)) }),
           icc.payload.count >= 4 + 132 {
            return .icc(Array(icc.payload.dropFirst(4)))
        }
        if let nclx = colours.first(where: { $0.payload.starts(with: Array("nclx".utf8)) }), nclx.payload.count >= 11 {
            let p = nclx.payload
            return .fromCoded(primaries: Int(p[4]) << 8 | Int(p[5]), transfer: Int(p[6]) << 8 | Int(p[7]))
        }
        return .sRGB
    }
}

extension YCbCrConversion {
    /// Whether the matrix is BT.601's, the one JPEG (JFIF) uses.
    var isJPEGMatrix: Bool { kr == 0.299 && kb == 0.114 }
}

extension YCbCr420 {
    /// Stretches limited-range samples (Y 16–235, Cb and Cr 16–240) to JPEG's full range.
    mutating func expandToFullRange() {
        let luma = (0..<256).map { UInt8(max(0, min(255, ((Float($0) - 16) * 255 / 219).rounded()))) }
        let chroma = (0..<256).map { UInt8(max(0, min(255, ((Float($0) - 128) * 255 / 224 + 128).rounded()))) }
        for i in y.indices { y[i] = luma[Int(y[i])] }
        for i in cb.indices { cb[i] = chroma[Int(cb[i])] }
        for i in cr.indices { cr[i] = chroma[Int(cr[i])] }
        conversion.fullRange = true
    }
}

extension ThumbnailEncoder {
    /// A JPEG of `picture`'s planes as they are (4:2:0, the source's own chroma
    /// resolution). Wraps `tjCompressFromYUVPlanes`.
    static func encodeJPEG(_ picture: YCbCr420, quality: Int) throws -> [UInt8] {
        var strides: [Int32] = [Int32(picture.width), Int32(picture.chromaWidth), Int32(picture.chromaWidth)]
        return try withTurboJPEGCompressor { handle, output, length in
            picture.y.withUnsafeBufferPointer { y in
                picture.cb.withUnsafeBufferPointer { cb in
                    picture.cr.withUnsafeBufferPointer { cr in
                        var planes: [UnsafePointer<UInt8>?] = [y.baseAddress, cb.baseAddress, cr.baseAddress]
                        return tjCompressFromYUVPlanes(handle, &planes, Int32(picture.width), &strides, Int32(picture.height),
                                                       Int32(TJSAMP_420.rawValue), &output, &length,
                                                       Int32(max(1, min(100, quality))), 0)
                    }
                }
            }
        }
    }
}

