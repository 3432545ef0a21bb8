/// The arithmetic of thumbnail sizes, shared by decoders choosing a reduced scale and by
/// the final resize.
enum ThumbnailGeometry {
    /// The stored-orientation size the thumbnail will have, before cropping for `.fill`:
    /// for `.fit` the longer side becomes `size`; for `.fill` the shorter side does.
    /// Never larger than the source.
    static func scaledSize(width: Int, height: Int, request: ThumbnailRequest) -> (width: Int, height: Int) {
        let size = request.maxPixelSize
        let landscape = width >= height
        // .fit fixes the longer side, .fill the shorter one.
        let fixesWidth = request.mode == .fit ? landscape : !landscape
        let reference = fixesWidth ? width : height
        guard reference > size else { return (width, height) }
        let scale = Double(size) / Double(reference)
        if fixesWidth {
            return (size, max(1, Int((Double(height) * scale).rounded())))
        }
        return (max(1, Int((Double(width) * scale).rounded())), size)
    }

    /// Whether an image of `candidate` size is big enough to produce the thumbnail of an
    /// original of `original` size without upscaling.
    static func covers(candidate: (width: Int, height: Int), original: (width: Int, height: Int),
                       request: ThumbnailRequest) -> Bool {
        let needed = scaledSize(width: original.width, height: original.height, request: request)
        return candidate.width >= needed.width && candidate.height >= needed.height
    }

    /// Whether two sizes have the same shape (within 1 %), so one can stand in for the
    /// other; an EXIF thumbnail letterboxed to 4:3 from a 16:9 photo cannot.
    static func sameAspect(_ a: (width: Int, height: Int), _ b: (width: Int, height: Int),
                           tolerance: Double = 0.01) -> Bool {
        guard a.width > 0, a.height > 0, b.width > 0, b.height > 0 else { return false }
        let ra = Double(a.width) / Double(a.height), rb = Double(b.width) / Double(b.height)
        return abs(ra - rb) / rb <= tolerance
    }

    /// A size's shape as people name it: `3:2`, `4:3`, `16:9`, `1:1` … when it is within
    /// 1 % of one (landscape or portrait), else `W×H` itself.
    static func shapeName(_ size: (width: Int, height: Int)) -> String {
        let named: [(Int, Int)] = [(1, 1), (5, 4), (4, 3), (7, 5), (3, 2), (16, 10), (5, 3), (16, 9), (2, 1), (65, 24), (3, 1)]
        for (long, short) in named {
            let shape = size.width >= size.height ? (long, short) : (short, long)
            if sameAspect(size, shape) { return "\(shape.0):\(shape.1)" }
        }
        return "\(size.width)×\(size.height)"
    }
}
