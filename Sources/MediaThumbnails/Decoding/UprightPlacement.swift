/// Where the samples of one coded plane go once the picture is turned upright by an EXIF
/// orientation (1–8): coded sample (x, y) lands at `start + x * stepX + y * stepY` of the
/// upright plane (rows packed), as `PixelBuffer.oriented` turns pixels. Copying each
/// decoded tile through it turns the picture while the tile is put in place, so a
/// compatible JPEG needs no turning pass of its own.
struct UprightPlacement: Sendable {
    let codedWidth: Int, codedHeight: Int
    /// The plane's size once upright (width and height swapped for orientations 5–8).
    let uprightWidth: Int, uprightHeight: Int
    let start: Int, stepX: Int, stepY: Int

    init(codedWidth w: Int, codedHeight h: Int, orientation: Int) {
        let swaps = (5...8).contains(orientation)
        let dw = swaps ? h : w
        codedWidth = w
        codedHeight = h
        uprightWidth = dw
        uprightHeight = swaps ? w : h
        switch orientation {
        case 2: (start, stepX, stepY) = (w - 1, -1, dw)
        case 3: (start, stepX, stepY) = ((h - 1) * dw + w - 1, -1, -dw)
        case 4: (start, stepX, stepY) = ((h - 1) * dw, 1, -dw)
        case 5: (start, stepX, stepY) = (0, dw, 1)
        case 6: (start, stepX, stepY) = (h - 1, dw, -1)
        case 7: (start, stepX, stepY) = ((w - 1) * dw + h - 1, -dw, -1)
        case 8: (start, stepX, stepY) = ((w - 1) * dw, -dw, 1)
        default: (start, stepX, stepY) = (0, 1, dw)
        }
    }

    /// Copies a `width` × `height` block of coded samples (rows `stride` apart) whose top
    /// left is the coded sample `origin` into the upright `plane`, cut at the coded plane's
    /// right and bottom edges. A quarter turn goes in 64×64 pieces, so its scattered writes
    /// stay within the cache.
    func place(_ block: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, at origin: (x: Int, y: Int),
               into plane: UnsafeMutablePointer<UInt8>) {
        let columns = min(width, codedWidth - origin.x), rows = min(height, codedHeight - origin.y)
        guard columns > 0, rows > 0, origin.x >= 0, origin.y >= 0 else { return }
        let corner = start + origin.x * stepX + origin.y * stepY
        if stepX == 1 {
            for row in 0..<rows { (plane + corner + row * stepY).update(from: block + row * stride, count: columns) }
            return
        }
        let piece = 64
        for top in Swift.stride(from: 0, to: rows, by: piece) {
            for left in Swift.stride(from: 0, to: columns, by: piece) {
                let right = min(columns, left + piece)
                for row in top..<min(rows, top + piece) {
                    let source = block + row * stride
                    var target = corner + left * stepX + row * stepY
                    for column in left..<right {
                        plane[target] = source[column]
                        target &+= stepX
                    }
                }
            }
        }
    }
}

extension YCbCr420 {
    /// The placements of a coded picture's luma and chroma planes turned by `orientation`.
    static func placements(codedWidth: Int, codedHeight: Int,
                           orientation: Int) -> (luma: UprightPlacement, chroma: UprightPlacement) {
        (UprightPlacement(codedWidth: codedWidth, codedHeight: codedHeight, orientation: orientation),
         UprightPlacement(codedWidth: (codedWidth + 1) / 2, codedHeight: (codedHeight + 1) / 2, orientation: orientation))
    }

    /// An empty picture of the upright size of `placements` (`placements(codedWidth:…)`).
    init(upright placements: (luma: UprightPlacement, chroma: UprightPlacement), conversion: YCbCrConversion) {
        self.init(width: placements.luma.uprightWidth, height: placements.luma.uprightHeight, conversion: conversion)
    }
}
