import MediaMetadata

extension ThumbnailGenerator {
    /// The image formats that the index records as assets but that no linked decoder reads,
    /// each with the reason; their assets get no thumbnail, and the README lists them
    /// (a test checks that it names each with this reason).
    public static let formatsWithoutDecoder: [MediaFormat: String] = [
        .bpg: "BPG has no maintained decoding library in Debian",
        .pcx: "PCX bitmaps are not decoded",
        .flif: "FLIF is abandoned and has no decoding library in Debian's stable release",
        .djvu: "DjVu documents are not decoded",
        .radianceHDR: "Radiance HDR needs tone mapping that is not implemented",
        .pgf: "PGF has no decoding library in Debian",
        .mrc: "MRC electron-microscopy volumes are not decoded",
        .czi: "Zeiss CZI microscopy images are not decoded",
        .lytro: "Lytro light fields are not decoded",
        .ari: "ARRIRAW holds only sensor data, no preview, and raw sensor data is not decoded",
    ]
}
