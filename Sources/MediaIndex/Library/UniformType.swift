import MediaMetadata

/// A file's type as UTType names it: its uniform type identifier, its MIME type and its
/// usual extension, one value made where the type is known (from the format recognised
/// in the file's first bytes, or the kind of a describing file), never re-read from text.
public struct UniformType: Sendable, Hashable, CustomStringConvertible {
    /// The uniform type identifier (`public.jpeg`, `public.heic`,
    /// `com.apple.quicktime-movie`…): Apple's where it declares one, else a reverse-DNS
    /// name of the format's maker.
    public let identifier: String
    /// The MIME type (`image/jpeg`, `video/quicktime`…): the JSON's `contentType`.
    public let preferredMIMEType: String
    /// The usual extension of files of this type, without the dot (`jpg`, `heic`, `mov`).
    public let preferredFilenameExtension: String
    /// The media format of this type; nil for a describing file (XMP, property list, JSON).
    public let format: MediaFormat?

    /// The type of files of `format`.
    public init(_ format: MediaFormat) {
        identifier = Self.identifiers[format] ?? "public.data"
        preferredMIMEType = format.contentType
        preferredFilenameExtension = Self.extensions[format] ?? format.rawValue
        self.format = format
    }

    private init(identifier: String, mimeType: String, filenameExtension: String) {
        self.identifier = identifier
        preferredMIMEType = mimeType
        preferredFilenameExtension = filenameExtension
        format = nil
    }

    /// The identifier.
    public var description: String { identifier }

    /// An XMP sidecar.
    public static let xmp = UniformType(identifier: "com.adobe.xmp", mimeType: "application/rdf+xml", filenameExtension: "xmp")
    /// An XML file (a camcorder's clip description).
    public static let xml = UniformType(identifier: "public.xml", mimeType: "application/xml", filenameExtension: "xml")
    /// A property list (Apple's adjustments file, `.AAE`).
    public static let propertyList = UniformType(identifier: "com.apple.property-list", mimeType: "application/x-plist",
                                                 filenameExtension: "plist")
    /// A JSON file (a Google Takeout description).
    public static let json = UniformType(identifier: "public.json", mimeType: "application/json", filenameExtension: "json")

    static let extensions: [MediaFormat: String] = [
        .jpeg: "jpg", .tiff: "tif", .jpeg2000: "jp2", .netpbm: "pnm", .kyoceraRaw: "raw",
        .quickTime: "mov", .matroska: "mkv", .mpegTS: "ts", .mpegPS: "mpg", .wmv: "wmv", .ogv: "ogv",
    ]

    static let identifiers: [MediaFormat: String] = [
        .jpeg: "public.jpeg", .png: "public.png", .gif: "com.compuserve.gif", .webp: "org.webmproject.webp",
        .bmp: "com.microsoft.bmp", .tiff: "public.tiff", .heic: "public.heic", .heif: "public.heif",
        .avif: "public.avif", .jpegXL: "public.jpeg-xl", .jpeg2000: "public.jpeg-2000", .ico: "com.microsoft.ico",
        .bpg: "org.bellard.bpg", .netpbm: "public.pbm", .pcx: "com.zsoft.pcx", .flif: "org.flif.flif",
        .djvu: "com.lizardtech.djvu", .radianceHDR: "public.radiance", .pgf: "org.libpgf.pgf",
        .mrc: "org.ccpem.mrc", .czi: "com.zeiss.czi", .lytro: "com.lytro.lfp",
        .dng: "com.adobe.raw-image", .cr2: "com.canon.cr2-raw-image", .cr3: "com.canon.cr3-raw-image",
        .crw: "com.canon.crw-raw-image", .nef: "com.nikon.raw-image", .arw: "com.sony.arw-raw-image",
        .orf: "com.olympus.or-raw-image", .rw2: "com.panasonic.rw2-raw-image", .raf: "com.fuji.raw-image",
        .pef: "com.pentax.raw-image", .srw: "com.samsung.raw-image", .x3f: "com.sigma.raw-image",
        .iiq: "com.phaseone.raw-image", .threeFR: "com.hasselblad.3fr-raw-image",
        .fff: "com.hasselblad.fff-raw-image", .dcr: "com.kodak.raw-image", .erf: "com.epson.raw-image",
        .mef: "com.mamiya.raw-image", .mos: "com.leafamerica.raw-image", .bay: "com.casio.raw-image",
        .rwl: "com.leica.rwl-raw-image", .mrw: "com.konicaminolta.raw-image", .ari: "com.arri.raw-image",
        .kyoceraRaw: "com.kyocera.raw-image",
        .quickTime: "com.apple.quicktime-movie", .mp4: "public.mpeg-4", .m4v: "com.apple.m4v-video",
        .threeGP: "public.3gpp", .matroska: "org.matroska.mkv", .webm: "org.webmproject.webm", .avi: "public.avi",
        .mpegTS: "public.mpeg-2-transport-stream", .mpegPS: "public.mpeg-2-video",
        .wmv: "com.microsoft.windows-media-wmv", .flv: "com.adobe.flash.video", .dv: "public.dv-movie",
        .mxf: "org.smpte.mxf", .ogv: "org.xiph.ogv",
    ]
}
