/// Recognises a file's format from its first bytes, never its name.
enum FormatDetector {
    /// How many bytes the first look reads; enough for every magic number here (MRC's
    /// `MAP ` sits at 208).
    static let headerBytes = 256

    /// The format of the file, or nil when it is not an image or video we index
    /// (audio, text, XMP, Photoshop files …).
    static func detect(_ source: ByteSource) throws -> MediaFormat? {
        let h = try source.read(at: 0, count: headerBytes)
        guard h.count >= 4 else { return nil }

        func at(_ offset: Int, _ ascii: String) -> Bool {
            let bytes = Array(ascii.utf8)
            guard offset + bytes.count <= h.count else { return false }
            for i in 0..<bytes.count where h[offset + i] != bytes[i] { return false }
            return true
        }
        func starts(_ prefix: [UInt8]) -> Bool {
            prefix.count <= h.count && zip(prefix, h).allSatisfy { $0 == $1 }
        }

        if h[0] == 0xFF && h[1] == 0xD8 && h[2] == 0xFF { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, "GIF87a") || at(0, "GIF89a") { return .gif }
        if at(0, "RIFF") && h.count >= 12 {
            if at(8, "WEBP") { return .webp }
            if at(8, "AVI ") || at(8, "AVIX") { return .avi }
            return nil  // WAV and other RIFF forms
        }
        if at(0, "BM") && h.count >= 18 {
            // The DIB header size distinguishes a bitmap from text starting with "BM".
            let dib = UInt32(h[14]) | UInt32(h[15]) << 8 | UInt32(h[16]) << 16 | UInt32(h[17]) << 24
            if [12, 40, 52, 56, 64, 108, 124].contains(dib) { return .bmp }
        }
        if at(0, "II") || at(0, "MM") { if let tiff = try detectTIFF(h, source) { return tiff } }
        // exiftool identifies a RAF by "FUJIFILM" alone; a damaged header is still a RAF.
        if at(0, "FUJIFILM") { return .raf }
        if starts([0x00, 0x4D, 0x52, 0x4D]) { return .mrw }  // "\0MRM": Minolta MRW, big-endian
        if at(0, "ARRI") && starts([0x41, 0x52, 0x52, 0x49, 0x12, 0x34, 0x56, 0x78]) { return .ari }
        if at(25, "ARECOYK") { return .kyoceraRaw }  // "KYOCERA", stored reversed
        if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
            return .jpeg2000  // the JP2 signature box, or a bare codestream's SOC + SIZ
        }
        if starts([0x42, 0x50, 0x47, 0xFB]) { return .bpg }
        if at(0, "FLIF") { return .flif }
        if at(0, "AT&TFORM") && (at(12, "DJVU") || at(12, "DJVM")) { return .djvu }
        if at(0, "#?RADIANCE") || at(0, "#?RGBE") { return .radianceHDR }
        if at(0, "PGF") && h.count >= 4 && (0x30...0x39).contains(h[3] & 0x7F) { return .pgf }  // "PGF" + version
        if at(0, "ZISRAWFILE") { return .czi }
        if starts([0x89, 0x4C, 0x46, 0x50, 0x0D, 0x0A, 0x1A, 0x0A]) { return .lytro }
        if h.count >= 3, h[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(h[1]),
           [0x09, 0x0A, 0x0D, 0x20].contains(h[2]) { return .netpbm }
        if at(0, "FOVb") { return .x3f }
        if h.count >= 14 && at(0, "II") && at(6, "HEAPCCDR") { return .crw }
        if h.count >= 12 && at(4, "ftyp") { return try detectISOBMFF(h, source) }
        if h.count >= 8 && (at(4, "moov") || at(4, "mdat") || at(4, "wide") || at(4, "free") || at(4, "skip") || at(4, "pnot")) {
            return .quickTime
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return try detectMatroska(source) }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .jpegXL
        }
        if starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]) {
            return .wmv
        }
        if at(0, "FLV") && h[3] == 1 { return .flv }
        if starts([0x06, 0x0E, 0x2B, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0D, 0x01, 0x02]) { return .mxf }
        if starts([0, 0, 1, 0xBA]) || starts([0, 0, 1, 0xB3]) { return .mpegPS }  // or a video elementary stream
        if at(0, "OggS") { return try detectOgg(source) }
        if h[0] == 0x47 || (h.count > 4 && h[4] == 0x47), try isTransportStream(source) { return .mpegTS }
        if h[0] == 0x1F && h[1] == 0x07 && h[2] == 0x00 { return .dv }  // DIF header block
        if isIcon(h) { return .ico }
        if isPCX(h) { return .pcx }
        if h.count >= 212, at(208, "MAP ") { return .mrc }  // MRC2014's map marker
        return nil
    }

    /// A Windows icon or cursor: reserved 0, type 1 (icon) or 2 (cursor), 1–255 images, and
    /// a first directory entry whose reserved byte is 0 and, for an icon, whose colour
    /// planes are 0 or 1.
    private static func isIcon(_ h: [UInt8]) -> Bool {
        guard h.count >= 22, h[0] == 0, h[1] == 0, h[2] == 1 || h[2] == 2, h[3] == 0 else { return false }
        let count = Int(h[4]) | Int(h[5]) << 8
        // An icon's first entry has 0 or 1 colour planes; a cursor's (type 2) holds its hotspot there.
        return (1...255).contains(count) && h[9] == 0 && (h[2] == 2 || (h[10] <= 1 && h[11] == 0))
    }

    /// ZSoft PCX: manufacturer 10, version 0–5, encoding 0 or 1, 1/2/4/8 bits per plane,
    /// and a window whose ends do not precede its starts.
    private static func isPCX(_ h: [UInt8]) -> Bool {
        guard h.count >= 128, h[0] == 0x0A, [0, 2, 3, 4, 5].contains(h[1]), h[2] <= 1, [1, 2, 4, 8].contains(h[3]) else {
            return false
        }
        let le = { (i: Int) in Int(h[i]) | Int(h[i + 1]) << 8 }
        return le(8) >= le(4) && le(10) >= le(6) && h[64] == 0 && (1...4).contains(h[65])
    }

    /// TIFF and the TIFF-based raws; nil when the header is not TIFF after all.
    private static func detectTIFF(_ h: [UInt8], _ source: ByteSource) throws -> MediaFormat? {
        guard h.count >= 8 else { return nil }
        let le = h[0] == 0x49
        let magic = le ? UInt16(h[2]) | UInt16(h[3]) << 8 : UInt16(h[2]) << 8 | UInt16(h[3])
        switch magic {
        case 0x4F52, 0x5352: return .orf   // "IIRO", "IIRS", "MMOR"
        case 0x0055:                       // "IIU\0": Panasonic RW2, or Leica's RWL
            return try makeOfIFD0(source)?.hasPrefix("LEICA") == true ? .rwl : .rw2
        case 42, 43: break
        default: return nil
        }
        if magic == 42 && h.count >= 10 && h[8] == 0x43 && h[9] == 0x52 { return .cr2 }  // "CR"
        if magic == 43 { return .tiff }  // BigTIFF
        // Phase One IIQ carries "IIII" right after the TIFF header.
        if h.count >= 12 && h[8] == 0x49 && h[9] == 0x49 && h[10] == 0x49 && h[11] == 0x49 { return .iiq }
        // The rest need IFD0: DNGVersion marks a DNG; the maker distinguishes raws.
        var warnings: [String] = []
        guard let walker = try? TIFFDirectoryWalker(source: source),
              let ifd0 = try? walker.directory(at: walker.firstDirectoryOffset, warnings: &warnings) else {
            return .tiff
        }
        if ifd0.entries.contains(where: { $0.tag == ExifTag.dngVersion }) { return .dng }
        // A maker's raw has a full-size image in a SubIFD, a CFA (photometric 32803) or
        // Kodak's private directory (0x8290); a TIFF a camera or scanner wrote is plain RGB.
        let hasSubIFDs = ifd0.entries.contains { $0.tag == ExifTag.subIFDs || $0.tag == 0x8290 }
        let photometric = try ifd0.entries.first(where: { $0.tag == 0x0106 }).flatMap { try walker.value(of: $0)?.integer() }
        guard hasSubIFDs || photometric == 32803, let makeEntry = ifd0.entries.first(where: { $0.tag == ExifTag.make }),
              let make = try walker.value(of: makeEntry)?.string?.uppercased() else { return .tiff }
        return rawFormat(ofMake: make) ?? .tiff
    }

    /// The raw format each maker's TIFF-based raws are recorded as (exiftool tells them
    /// apart by the file's extension, which we never trust; these share one structure).
    static func rawFormat(ofMake make: String) -> MediaFormat? {
        let makers: [(prefix: String, format: MediaFormat)] = [
            ("NIKON", .nef), ("SONY", .arw), ("PENTAX", .pef), ("RICOH", .pef), ("SAMSUNG", .srw),
            ("HASSELBLAD", .threeFR), ("IMACON", .fff), ("KODAK", .dcr), ("EASTMAN KODAK", .dcr),
            ("SEIKO EPSON", .erf), ("EPSON", .erf), ("MAMIYA", .mef), ("LEAF", .mos), ("CREO", .mos),
            ("CASIO", .bay), ("PHASE ONE", .iiq), ("LEICA", .rwl),
        ]
        return makers.first { make.hasPrefix($0.prefix) }?.format
    }

    /// IFD0's Make, for the raw variants whose magic number alone does not name the maker.
    private static func makeOfIFD0(_ source: ByteSource) throws -> String? {
        var warnings: [String] = []
        guard let walker = try? TIFFDirectoryWalker(source: source),
              let ifd0 = try? walker.directory(at: walker.firstDirectoryOffset, warnings: &warnings),
              let entry = ifd0.entries.first(where: { $0.tag == ExifTag.make }) else { return nil }
        return try walker.value(of: entry)?.string?.uppercased()
    }

    /// ISO base media files: any file whose first box is `ftyp` is one, whatever its
    /// brands say. The brands only refine the kind (the major brand first, then the
    /// compatible ones); with none we know, the top-level boxes decide: a `moov` makes
    /// a movie (MP4), a `meta` without one a HEIF image.
    private static func detectISOBMFF(_ h: [UInt8], _ source: ByteSource) throws -> MediaFormat? {
        let boxSize = Int(UInt32(h[0]) << 24 | UInt32(h[1]) << 16 | UInt32(h[2]) << 8 | UInt32(h[3]))
        var brands: [String] = [String(decoding: h[8..<12], as: UTF8.self)]
        var offset = 16
        let end = min(max(boxSize, 16), h.count)
        while offset + 4 <= end {
            brands.append(String(decoding: h[offset..<(offset + 4)], as: UTF8.self))
            offset += 4
        }
        // Audio-only majors are not media even when they list video-capable brands.
        if ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "].contains(brands[0]) { return nil }
        for brand in brands {
            if let format = format(ofBrand: brand) { return format }
        }
        let top = try topLevelBoxTypes(source, from: UInt64(max(boxSize, 8)))
        if !top.contains("moov"), top.contains("meta") { return .heif }
        return .mp4
    }

    /// The types of the first top-level boxes from `offset` on (at most 16), stopping at
    /// a size that cannot be a box.
    private static func topLevelBoxTypes(_ source: ByteSource, from offset: UInt64) throws -> Set<String> {
        var types: Set<String> = []
        var at = offset
        for _ in 0..<16 {
            let header = try source.read(at: at, count: 16)
            guard header.count >= 8 else { break }
            var size = UInt64(TIFFDirectoryWalker.u32(header, 0, false))
            if size == 1, header.count == 16 { size = TIFFDirectoryWalker.u64(header, 8, false) }
            types.insert(String(decoding: header[4..<8], as: UTF8.self))
            guard size >= 8, at.addingReportingOverflow(size).overflow == false else { break }
            at += size
        }
        return types
    }

    private static func format(ofBrand brand: String) -> MediaFormat? {
        switch brand {
        case "heic", "heix", "hevc", "heim", "heis", "hevm", "hevs", "hevx": return .heic
        case "avif", "avis": return .avif
        case "crx ": return .cr3
        case "mif1", "msf1": return .heif
        case "qt  ": return .quickTime
        case "M4V ", "M4VH", "M4VP": return .m4v
        case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "dash", "mmp4",
             "MSNV", "NDAS", "f4v ", "XAVC", "mp71", "iso8", "iso9": return .mp4
        default:
            if brand.hasPrefix("3gp") || brand.hasPrefix("3g2") || brand.hasPrefix("3ge") { return .threeGP }
            return nil  // unknown brands: the boxes decide
        }
    }

    /// WebM when the EBML DocType says so, Matroska otherwise.
    private static func detectMatroska(_ source: ByteSource) throws -> MediaFormat {
        let head = try source.read(at: 0, count: 64)
        // DocType element 0x4282, then a one-byte size marker, then the text.
        var i = 4
        while i + 3 < head.count {
            if head[i] == 0x42 && head[i + 1] == 0x82 {
                let text = head[(i + 3)..<min(head.count, i + 7)]
                return Array(text) == Array("webm".utf8) ? .webm : .matroska
            }
            i += 1
        }
        return .matroska
    }

    /// Ogg with a Theora (or other video) stream is a video; audio-only Ogg is not media.
    private static func detectOgg(_ source: ByteSource) throws -> MediaFormat? {
        // The first page of each logical stream holds its codec header; video streams
        // usually come first, so the first few pages are enough.
        let head = try source.read(at: 0, count: 4096)
        let theora: [UInt8] = [0x80, 0x74, 0x68, 0x65, 0x6F, 0x72, 0x61]
        let dirac: [UInt8] = [0x42, 0x42, 0x43, 0x44]  // "BBCD"
        let vp8: [UInt8] = [0x4F, 0x56, 0x50, 0x38, 0x30]  // "OVP80"
        for pattern in [theora, dirac, vp8] where contains(head, pattern) { return .ogv }
        return nil
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return false }
        var i = 0
        while i + needle.count <= haystack.count {
            if haystack[i] == first && Array(haystack[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }

    /// MPEG transport streams: sync byte 0x47 every 188 bytes, or every 192 after the
    /// 4-byte arrival timestamp of BDAV/AVCHD (`.m2ts`, `.mts`), or every 204 (with
    /// Reed-Solomon parity). Four syncs in a row (two in a file that short).
    private static func isTransportStream(_ source: ByteSource) throws -> Bool {
        let head = try source.read(at: 0, count: 204 * 4 + 4)
        for (stride, offset) in [(188, 0), (192, 4), (204, 0)] {
            let packets = min(4, (head.count - offset + stride - 1) / stride)
            guard packets >= 2 else { continue }
            if (0..<packets).allSatisfy({ offset + $0 * stride < head.count && head[offset + $0 * stride] == 0x47 }) {
                return true
            }
        }
        return false
    }
}
