import Foundation
import MediaMetadata
import Synchronization

/// A full-size 8-bit YCbCr 4:2:0 picture: what a compatible JPEG is encoded from when no
/// step needs RGB (`CompatibleImage`).
struct YCbCr420: Sendable {
    var width: Int, height: Int
    /// Y (`width` × `height`), then Cb and Cr (`chromaWidth` × `chromaHeight` each), rows packed.
    var y: [UInt8], cb: [UInt8], cr: [UInt8]
    /// How the samples become RGB, as the file or its HEVC stream declares.
    var conversion: YCbCrConversion

    var chromaWidth: Int { (width + 1) / 2 }
    var chromaHeight: Int { (height + 1) / 2 }

    init(width: Int, height: Int, conversion: YCbCrConversion) {
        self.width = width
        self.height = height
        self.conversion = conversion
        y = [UInt8](repeating: 0, count: width * height)
        cb = [UInt8](repeating: 128, count: ((width + 1) / 2) * ((height + 1) / 2))
        cr = cb
    }
}

extension HEIFDirectDecoder {
    /// Whether `fullPicture` can decode this image: HEVC, every piece of even size (so
    /// each tile's chroma lands on whole chroma samples).
    var decodesFullPicture: Bool {
        codec == .hevc && pieces.allSatisfy { $0.width % 2 == 0 && $0.height % 2 == 0 && $0.x % 2 == 0 && $0.y % 2 == 0 }
    }

    /// The picture at full size as 8-bit 4:2:0, turned upright by `orientation` (the EXIF
    /// orientation, or the irot/imir of `self.orientation`; 1 gives the coded picture), each
    /// tile copied into its upright place as it is decoded.
    ///
    /// libde265 decodes the tiles in this process, on `workers` threads. The `ffmpeg`
    /// program, when given, decodes them where libde265 is missing or fails: its decoder
    /// needs less CPU on a large tile, but starting it takes a core 50–80 ms, so on this
    /// machine's two cores libde265 alone is the faster on the corpus's 12 MP HEICs
    /// (docs/performance.md, Renditions).
    ///
    /// - Throws: `Unsupported` for pictures that are not 8-bit 4:2:0 (they go through the
    ///   RGB path), `ThumbnailError.decodeFailed` when a tile does not decode.
    func fullPicture(conversion: YCbCrConversion, orientation: Int = 1, ffmpeg: String? = nil) throws -> YCbCr420 {
        guard decodesFullPicture else { throw Unsupported() }
        let placements = YCbCr420.placements(codedWidth: width, codedHeight: height, orientation: orientation)
        var picture = YCbCr420(upright: placements, conversion: conversion)
        let found = try picture.withSharedPlanes { planes -> YCbCrConversion? in
            if let library = LibDe265.shared {
                do {
                    return try decodeTiles(pieces.indices, library: library, workers: workers, into: planes,
                                           placements: placements, conversion: conversion)
                } catch where ffmpeg == nil { throw error } catch {}
            }
            guard let ffmpeg else { throw Unsupported() }
            return try decodeTilesWithFFmpeg(ffmpeg, tiles: pieces.indices, threads: Self.maximumWorkers, into: planes,
                                             placements: placements)
        }
        // The stream's own conversion, when the file declares none.
        if conversion.followsBitstream, let found { picture.conversion = found }
        return picture
    }

    /// Decodes the tiles `tiles` with libde265 on `workers` threads into `planes`.
    ///
    /// - Returns: the first piece's conversion as its stream declares it (`resolved`).
    private func decodeTiles(_ tiles: Range<Int>, library: LibDe265, workers: Int, into planes: SharedPlanes,
                             placements: (luma: UprightPlacement, chroma: UprightPlacement),
                             conversion: YCbCrConversion) throws -> YCbCrConversion? {
        let failures = Mutex<[Error]>([]), resolved = Mutex<YCbCrConversion?>(nil)
        let workers = max(1, min(workers, tiles.count))
        // Tiles cover disjoint parts of the planes: the workers write without locks.
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            do {
                for index in stride(from: tiles.lowerBound + worker, to: tiles.upperBound, by: workers) {
                    let piece = pieces[index]
                    try withPicture(of: piece.item, library: library, skipLoopFilters: false) { decoded in
                        if index == 0 {
                            resolved.withLock { $0 = conversion.resolved(library: library, picture: decoded) }
                        }
                        try copy(decoded, library: library, piece: piece, into: planes, placements: placements)
                    }
                }
            } catch {
                failures.withLock { $0.append(error) }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
        return resolved.withLock { $0 }
    }

    /// Copies one decoded 8-bit 4:2:0 tile into its upright place in the full planes, cut
    /// at their edges.
    private func copy(_ decoded: LibDe265.Picture, library: LibDe265, piece: Piece, into planes: SharedPlanes,
                      placements: (luma: UprightPlacement, chroma: UprightPlacement)) throws {
        guard library.chromaFormat(decoded) == 1, Int(library.imageWidth(decoded, 0)) == piece.width,
              Int(library.imageHeight(decoded, 0)) == piece.height else { throw Unsupported() }
        for channel in 0..<3 {
            let c = Int32(channel)
            var stride: Int32 = 0
            guard library.bitsPerPixel(decoded, c) == 8, let plane = library.imagePlane(decoded, c, &stride) else {
                throw Unsupported()
            }
            let luma = channel == 0
            let tileWidth = Int(library.imageWidth(decoded, c)), tileHeight = Int(library.imageHeight(decoded, c))
            guard Int(stride) >= tileWidth else { continue }
            let target = luma ? planes.y : (channel == 1 ? planes.cb : planes.cr)
            (luma ? placements.luma : placements.chroma).place(plane, stride: Int(stride), width: tileWidth, height: tileHeight,
                                                               at: luma ? (piece.x, piece.y) : (piece.x / 2, piece.y / 2),
                                                               into: target)
        }
    }
}

/// The three planes' storage, written by several tile workers at once (each its own tiles).
struct SharedPlanes: @unchecked Sendable {
    let y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>

    init(y: UnsafeMutableBufferPointer<UInt8>, cb: UnsafeMutableBufferPointer<UInt8>, cr: UnsafeMutableBufferPointer<UInt8>) {
        self.y = y.baseAddress!
        self.cb = cb.baseAddress!
        self.cr = cr.baseAddress!
    }
}

extension YCbCr420 {
    /// Runs `body` with the planes' storage, which it may hand to several writers at once.
    mutating func withSharedPlanes<T>(_ body: (SharedPlanes) throws -> T) rethrows -> T {
        try y.withUnsafeMutableBufferPointer { y in
            try cb.withUnsafeMutableBufferPointer { cb in
                try cr.withUnsafeMutableBufferPointer { cr in try body(SharedPlanes(y: y, cb: cb, cr: cr)) }
            }
        }
    }
}
