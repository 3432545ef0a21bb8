/// A file format, as recognised from the file's first bytes (never its name).
public enum MediaFormat: String, Sendable, Codable, CaseIterable {
    // Still images
    case jpeg, png, gif, webp, bmp, tiff, heic, heif, avif, jpegXL = "jxl"
    /// JPEG 2000: the JP2/JPX file format and the bare codestream (J2C).
    case jpeg2000 = "jp2"
    /// Windows icon.
    case ico
    /// Fabrice Bellard's Better Portable Graphics.
    case bpg
    /// Netpbm: PBM, PGM, PPM and PAM.
    case netpbm = "pnm"
    case pcx, flif, djvu
    /// Radiance RGBE high dynamic range.
    case radianceHDR = "hdr"
    /// Progressive Graphics File.
    case pgf
    /// MRC, the electron-microscopy image format.
    case mrc
    /// Zeiss CZI microscope image.
    case czi
    /// Lytro light-field picture.
    case lytro = "lfp"
    // Camera raws (most are TIFF-based; CR3 is ISO-BMFF based). Formats that share a
    // structure and differ only by name share a case: NRW is read as NEF, SR2 and SRF
    // as ARW, ORI as ORF, CAP as IIQ, and Kodak's DCR, DCS, DRF, K25 and KDC as DCR.
    case dng, cr2, cr3, crw, nef, arw, orf, rw2, raf, pef, srw, x3f, iiq
    /// Hasselblad 3FR, Imacon/Hasselblad FFF, Kodak, Epson, Mamiya, Leaf and Casio raws
    /// (all TIFF-based), Leica's RWL (an RW2), Minolta MRW, ARRIRAW and Kyocera's raw.
    case threeFR = "3fr", fff, dcr, erf, mef, mos, bay, rwl, mrw, ari, kyoceraRaw = "raw"
    // Movies
    case quickTime = "mov", mp4, m4v, threeGP = "3gp", matroska = "mkv", webm, avi
    case mpegTS = "ts", mpegPS = "mpg", wmv = "asf", flv, dv, mxf, ogv = "ogg"

    /// Whether files of this format become image or video assets.
    public var mediaType: MediaType {
        switch self {
        case .quickTime, .mp4, .m4v, .threeGP, .matroska, .webm, .avi,
             .mpegTS, .mpegPS, .wmv, .flv, .dv, .mxf, .ogv:
            return .video
        default:
            return .image
        }
    }

    /// Whether the format is a camera raw.
    public var isRaw: Bool {
        switch self {
        case .dng, .cr2, .cr3, .crw, .nef, .arw, .orf, .rw2, .raf, .pef, .srw, .x3f, .iiq,
             .threeFR, .fff, .dcr, .erf, .mef, .mos, .bay, .rwl, .mrw, .ari, .kyoceraRaw:
            return true
        default:
            return false
        }
    }

    /// The MIME type reported for resources of this format.
    public var contentType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .gif: return "image/gif"
        case .webp: return "image/webp"
        case .bmp: return "image/bmp"
        case .tiff: return "image/tiff"
        case .heic: return "image/heic"
        case .heif: return "image/heif"
        case .avif: return "image/avif"
        case .jpegXL: return "image/jxl"
        case .dng: return "image/x-adobe-dng"
        case .cr2: return "image/x-canon-cr2"
        case .cr3: return "image/x-canon-cr3"
        case .crw: return "image/x-canon-crw"
        case .nef: return "image/x-nikon-nef"
        case .arw: return "image/x-sony-arw"
        case .orf: return "image/x-olympus-orf"
        case .rw2: return "image/x-panasonic-rw2"
        case .raf: return "image/x-fuji-raf"
        case .pef: return "image/x-pentax-pef"
        case .srw: return "image/x-samsung-srw"
        case .x3f: return "image/x-sigma-x3f"
        case .iiq: return "image/x-phaseone-iiq"
        case .threeFR: return "image/x-hasselblad-3fr"
        case .fff: return "image/x-hasselblad-fff"
        case .dcr: return "image/x-kodak-dcr"
        case .erf: return "image/x-epson-erf"
        case .mef: return "image/x-mamiya-mef"
        case .mos: return "image/x-leaf-mos"
        case .bay: return "image/x-casio-bay"
        case .rwl: return "image/x-leica-rwl"
        case .mrw: return "image/x-minolta-mrw"
        case .ari: return "image/x-arriraw"
        case .kyoceraRaw: return "image/x-raw"
        case .jpeg2000: return "image/jp2"
        case .ico: return "image/x-icon"
        case .bpg: return "image/bpg"
        case .netpbm: return "image/x-portable-anymap"
        case .pcx: return "image/pcx"
        case .flif: return "image/flif"
        case .djvu: return "image/vnd.djvu"
        case .radianceHDR: return "image/vnd.radiance"
        case .pgf: return "image/pgf"
        case .mrc: return "image/x-mrc"
        case .czi: return "image/x-zeiss-czi"
        case .lytro: return "image/x-lytro-lfp"
        case .quickTime: return "video/quicktime"
        case .mp4: return "video/mp4"
        case .m4v: return "video/x-m4v"
        case .threeGP: return "video/3gpp"
        case .matroska: return "video/x-matroska"
        case .webm: return "video/webm"
        case .avi: return "video/x-msvideo"
        case .mpegTS: return "video/mp2t"
        case .mpegPS: return "video/mpeg"
        case .wmv: return "video/x-ms-asf"
        case .flv: return "video/x-flv"
        case .dv: return "video/dv"
        case .mxf: return "application/mxf"
        case .ogv: return "video/ogg"
        }
    }
}

/// Image or video, as PHAssetMediaType.
public enum MediaType: String, Sendable, Codable {
    case image, video
}
