/// Reads the still-image formats whose header is all there is to read cheaply: JPEG
/// 2000, ICO, BPG, Netpbm, PCX, FLIF, Radiance HDR, PGF, MRC and CZI (DjVu and Lytro
/// LFP have readers of their own).
///
/// Each is one small parser of its own header (one per container), taking the stored
/// pixel size and, where the format carries them, the EXIF and XMP blocks; the rest
/// is left to `MetadataReader`'s EXIF and XMP decoders. Each layout is the one its
/// specification gives: ISO/IEC 15444-1 Annex A (SIZ) and Annex I (JP2 boxes); the BPG
/// specification (bellard.org/bpg/bpg_spec.txt); Netpbm's `pbm`/`pgm`/`ppm`/`pam` manual
/// pages; ZSoft's PCX technical reference; the FLIF16 specification; Radiance's picture file format; libpgf's `PGFHeader`; MRC2014
/// (ccpem.ac.uk/mrc_format); Zeiss's CZI `ZISRAWFILE` segment header.
enum ImageHeaderReader {
    /// The most header bytes any of these formats needs.
    static let headerBytes = 64 << 10

    /// - Throws: `MetadataError` when the header the signature promises is cut short.
    static func read(_ source: ByteSource, format: MediaFormat) throws -> ContainerReading {
        var reading = ContainerReading(metadata: MediaMetadata(format: format))
        let head = try source.read(at: 0, count: headerBytes)
        var size: (width: Int, height: Int)?
        switch format {
        case .jpeg2000: size = try jpeg2000(source, head: head, into: &reading)
        case .ico: size = icon(head)
        case .bpg: size = bpg(head, into: &reading)
        case .netpbm: size = netpbm(head)
        case .pcx: size = pcx(head)
        case .flif: size = flif(head)
        case .radianceHDR: size = radiance(head)
        case .pgf: size = try pgf(source, head: head, into: &reading)
        case .mrc: size = mrc(head)
        case .czi:
            reading.metadata.warnings.append("only the format of \(format.rawValue.uppercased()) files is read")
            return reading
        default:
            throw MetadataError.unsupported("\(format.rawValue) is not an image-header format")
        }
        guard let size else {
            throw MetadataError.malformed("the \(format.rawValue.uppercased()) header does not give a pixel size")
        }
        reading.metadata.pixelWidth = size.width
        reading.metadata.pixelHeight = size.height
        return reading
    }

    // MARK: JPEG 2000

    /// The JPEG 2000 UUID box that holds EXIF ("JpgTiffExif->JP2").
    static let exifUUID: [UInt8] = Array("JpgTiffExif->JP2".utf8)

    /// JP2: the `ihdr` box of the `jp2h` header box (height, then width); EXIF from its
    /// UUID box, XMP from the XMP UUID box or an `xml ` box that holds an XMP packet.
    /// A bare codestream: the SIZ marker's reference grid less its offset.
    private static func jpeg2000(_ source: ByteSource, head: [UInt8], into reading: inout ContainerReading) throws -> (width: Int, height: Int)? {
        if head.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
            guard let xs = VideoFields.be32(head, 8), let ys = VideoFields.be32(head, 12),
                  let xo = VideoFields.be32(head, 16), let yo = VideoFields.be32(head, 20), xs > xo, ys > yo else { return nil }
            return (xs - xo, ys - yo)
        }
        var boxes = BoxReader(source: source)
        let top = try boxes.boxes(from: 0, to: source.size, depth: 0, in: "the file")
        var size: (width: Int, height: Int)?
        for box in top {
            switch box.type {
            case "jp2h":
                for child in try boxes.children(of: box, depth: 1) where child.type == "ihdr" {
                    if let ihdr = try boxes.payload(of: child, limit: 64), let h = VideoFields.be32(ihdr, 0),
                       let w = VideoFields.be32(ihdr, 4), w > 0, h > 0 { size = (w, h) }
                }
            case "uuid":
                if box.userType == exifUUID, reading.exif == nil {
                    reading.exif = try boxes.payload(of: box, limit: ISOBMFFReader.itemLimit)
                } else if box.userType == MovieBoxParser.xmpUUID, reading.xmp == nil {
                    reading.xmp = try boxes.payload(of: box, limit: ISOBMFFReader.itemLimit)
                }
            case "xml ":
                if reading.xmp == nil, let xml = try boxes.payload(of: box, limit: ISOBMFFReader.itemLimit),
                   contains(xml, Array("x:xmpmeta".utf8)) || contains(xml, Array("rdf:RDF".utf8)) {
                    reading.xmp = xml
                }
            default:
                break
            }
        }
        reading.metadata.warnings.append(contentsOf: boxes.warnings)
        return size
    }

    // MARK: ICO

    /// The first image of the icon directory; a width or height byte of 0 means 256.
    /// The largest picture the directory lists (its one-byte sizes, 0 standing for 256),
    /// among the entries within the header read: what a thumbnail is made from.
    private static func icon(_ h: [UInt8]) -> (width: Int, height: Int)? {
        let count = (VideoFields.u8(h, 4) ?? 0) | (VideoFields.u8(h, 5) ?? 0) << 8
        var largest: (width: Int, height: Int)?
        for index in 0..<min(count, 255) {
            guard let w = VideoFields.u8(h, 6 + 16 * index), let hgt = VideoFields.u8(h, 7 + 16 * index) else { break }
            let size = (width: w == 0 ? 256 : w, height: hgt == 0 ? 256 : hgt)
            if largest.map({ size.width * size.height > $0.width * $0.height }) ?? true { largest = size }
        }
        return largest
    }

    // MARK: BPG

    /// Big-endian base-128 numbers (7 bits a byte, high bit set on all but the last, at
    /// most 5 bytes): BPG's `ue7` (width, height, lengths) and FLIF's varints.
    private static func base128(_ b: [UInt8], _ p: inout Int) -> Int? {
        var value = 0
        for _ in 0..<5 {
            guard p < b.count else { return nil }
            let byte = Int(b[p]); p += 1
            value = value << 7 | (byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    /// Width and height, then the extensions: tag 1 EXIF, tag 3 XMP.
    private static func bpg(_ h: [UInt8], into reading: inout ContainerReading) -> (width: Int, height: Int)? {
        guard h.count > 6 else { return nil }
        let hasExtensions = h[5] & 0x08 != 0
        var p = 6
        guard let w = base128(h, &p), let hgt = base128(h, &p), w > 0, hgt > 0, base128(h, &p) != nil else { return nil }
        if hasExtensions, let total = base128(h, &p) {
            let end = min(h.count, p + total)
            while p < end, let tag = base128(h, &p), let length = base128(h, &p), p + length <= end {
                var data = Array(h[p..<(p + length)])
                if tag == 1 {
                    // Some writers put one byte before the TIFF header (exiftool: "Ignored
                    // extra byte at start of EXIF extension").
                    if data.count > 1, data[0] != 0x49, data[0] != 0x4D, data[1] == 0x49 || data[1] == 0x4D { data.removeFirst() }
                    reading.exif = data
                } else if tag == 3 {
                    reading.xmp = data
                }
                p += length
            }
        }
        return (w, hgt)
    }

    // MARK: Netpbm

    /// `P1`–`P6`: the width and height tokens after the magic (comments from `#` to the
    /// end of the line); `P7` (PAM): the `WIDTH` and `HEIGHT` header lines.
    private static func netpbm(_ h: [UInt8]) -> (width: Int, height: Int)? {
        guard h.count > 2 else { return nil }
        let text = h.prefix(4096)
        var tokens: [String] = []
        var current = ""
        var inComment = false
        for byte in text.dropFirst(2) {
            if inComment { if byte == 0x0A || byte == 0x0D { inComment = false }; continue }
            if byte == UInt8(ascii: "#") { inComment = true; continue }
            if [0x09, 0x0A, 0x0D, 0x20].contains(byte) {
                if !current.isEmpty { tokens.append(current); current = "" }
                if tokens.count >= 16 { break }
            } else if byte >= 0x21 && byte < 0x7F {
                current.append(Character(UnicodeScalar(byte)))
            } else {
                break  // the binary raster
            }
        }
        if h[1] == UInt8(ascii: "7") {
            var width: Int?, height: Int?
            for (i, token) in tokens.enumerated() where i + 1 < tokens.count {
                if token == "WIDTH" { width = Int(tokens[i + 1]) }
                if token == "HEIGHT" { height = Int(tokens[i + 1]) }
            }
            guard let width, let height, width > 0, height > 0 else { return nil }
            return (width, height)
        }
        guard tokens.count >= 2, let w = Int(tokens[0]), let hgt = Int(tokens[1]), w > 0, hgt > 0 else { return nil }
        return (w, hgt)
    }

    // MARK: PCX

    /// The window (Xmin, Ymin, Xmax, Ymax), inclusive.
    private static func pcx(_ h: [UInt8]) -> (width: Int, height: Int)? {
        guard let x0 = VideoFields.le16(h, 4), let y0 = VideoFields.le16(h, 6),
              let x1 = VideoFields.le16(h, 8), let y1 = VideoFields.le16(h, 10), x1 >= x0, y1 >= y0 else { return nil }
        return (x1 - x0 + 1, y1 - y0 + 1)
    }

    // MARK: FLIF

    /// FLIF16: after `FLIF`, a byte of interlacing/animation and channels, a byte of
    /// bytes per channel, then width − 1 and height − 1 as big-endian base-128 varints.
    private static func flif(_ h: [UInt8]) -> (width: Int, height: Int)? {
        var p = 6
        guard let w = base128(h, &p), let hgt = base128(h, &p) else { return nil }
        return (w + 1, hgt + 1)
    }

    // MARK: Radiance

    /// The resolution line after the blank line that ends the header: `-Y 480 +X 640`
    /// (standard orientation), or the other seven forms, which name the axes in order.
    private static func radiance(_ h: [UInt8]) -> (width: Int, height: Int)? {
        let lines = h.prefix(8192).split(separator: 0x0A, omittingEmptySubsequences: false)
        var afterBlank = false
        for line in lines {
            if line.isEmpty { afterBlank = true; continue }
            guard afterBlank else { continue }
            let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
            guard parts.count == 4 else { return nil }
            var width: Int?, height: Int?
            for k in [0, 2] {
                let axis = parts[k].last, value = Int(parts[k + 1])
                if axis == "X" { width = value } else if axis == "Y" { height = value }
            }
            guard let width, let height, width > 0, height > 0 else { return nil }
            return (width, height)
        }
        return nil
    }

    // MARK: PGF

    /// libpgf: `PGF`, a version byte, the header size (little-endian 32 bits), then
    /// `PGFHeader`: width and height (little-endian 32 bits). ImageMagick and exiv2 put
    /// the metadata in the user data that follows as a 1×1 PNG, read by `PNGReader`.
    private static func pgf(_ source: ByteSource, head: [UInt8], into reading: inout ContainerReading) throws -> (width: Int, height: Int)? {
        guard let headerSize = VideoFields.le32(head, 4), let w = VideoFields.le32(head, 8),
              let hgt = VideoFields.le32(head, 12), w > 0, hgt > 0 else { return nil }
        // PGFHeader (16 bytes) may be followed by a 1 KiB colour table; the PNG marks itself.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        for start in [24, 24 + 1024] where head.count >= start + 4 && Array(head[start..<(start + 4)]) == png {
            let slice = ByteSourceSlice(source, offset: UInt64(start), length: UInt64(max(0, headerSize + 8 - start)))
            if let embedded = try? PNGReader.read(slice) {
                reading.exif = embedded.exif
                reading.xmp = embedded.xmp
            }
        }
        return (w, hgt)
    }

    // MARK: MRC

    /// MRC2014: NX and NY, the first two 32-bit words, in the byte order the machine
    /// stamp (offset 212) names (0x44 little-endian, 0x11 big-endian).
    private static func mrc(_ h: [UInt8]) -> (width: Int, height: Int)? {
        let bigEndian = VideoFields.u8(h, 212) == 0x11
        let word = { (i: Int) in bigEndian ? VideoFields.be32(h, i) : VideoFields.le32(h, i) }
        guard let w = word(0), let hgt = word(4), w > 0, hgt > 0 else { return nil }
        return (w, hgt)
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return false }
        var i = 0
        while i + needle.count <= haystack.count {
            if haystack[i] == first, Array(haystack[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }
}
