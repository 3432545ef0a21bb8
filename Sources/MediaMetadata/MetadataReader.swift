/// Reads a media file's metadata from its bytes.
public enum MetadataReader {
    /// Recognises the format from the first bytes; nil when the file is not an image
    /// or video this library indexes.
    ///
    /// - Throws: `MetadataError.io` when the first bytes cannot be read.
    public static func detectFormat(_ source: ByteSource) throws -> MediaFormat? {
        try FormatDetector.detect(source)
    }

    /// Reads everything the index records; nil when the file is not media.
    ///
    /// Container facts win; EXIF fills the fields still empty, then XMP. A file whose
    /// signature names a format but whose structure is damaged past reading (a TIFF
    /// whose first directory is garbage, an MP4 without `moov` or `meta`) is still that
    /// format, as exiftool reports it: it comes back with its format alone and a warning
    /// saying what could not be read.
    /// - Throws: `MetadataError.io` when the file cannot be read at all.
    public static func read(_ source: ByteSource) throws -> MediaMetadata? {
        guard let format = try detectFormat(source) else { return nil }
        let reading = try readContainerKeepingFormat(source, format: format)
        guard !isAudioOnly(reading.metadata) else { return nil }
        var metadata = reading.metadata
        if !reading.extraExifBlocks.isEmpty {
            // CR3 splits its EXIF into several TIFF blocks (IFD0, Exif IFD, GPS).
            ExifDecoder.apply(exif: reading.exif, extraBlocks: reading.extraExifBlocks, to: &metadata)
        } else if let exif = reading.exif {
            ExifDecoder.apply(exif: exif, to: &metadata)
        }
        var properties: XMPProperties?
        if let xmp = reading.xmp {
            let parsed = XMPReader.parse(xmp)
            parsed.apply(to: &metadata)
            parsed.applyClassificationFacts(to: &metadata)
            properties = parsed
        }
        metadata.reconcileDescriptiveSources()
        metadata.motionPhoto = MotionPhotoLocator.locate(in: source, format: format, xmp: properties,
                                                         warnings: &metadata.warnings)
        return metadata
    }

    /// Whether a movie container holds sound alone: an `.m4a` or `.m4b` with an `isom` or
    /// `mp42` brand, a `.wma`, a `.mka`. That is an audio file, not a photo or a video, and
    /// is not media, as WAV, audio-only Ogg and M4A-branded files are. Only the containers
    /// whose readers list every track are judged (ISO-BMFF, Matroska, ASF, AVI), and only
    /// when they read a sound track and no video one.
    static func isAudioOnly(_ metadata: MediaMetadata) -> Bool {
        let judged: Set<MediaFormat> = [.quickTime, .mp4, .m4v, .threeGP, .matroska, .webm, .wmv, .avi]
        return judged.contains(metadata.format) && metadata.hasAudio == true
            && metadata.videoCodec == nil && metadata.pixelWidth == nil && metadata.pixelHeight == nil
    }

    /// The container's reading; for a file whose structure is damaged past reading, the
    /// format alone with a warning naming the damage.
    ///
    /// - Throws: `MetadataError.io` when the file cannot be read.
    static func readContainerKeepingFormat(_ source: ByteSource, format: MediaFormat) throws -> ContainerReading {
        do {
            return try readContainer(source, format: format)
        } catch let error as MetadataError where !error.isIO {
            var reading = ContainerReading(metadata: MediaMetadata(format: format))
            reading.metadata.warnings.append("only the format is known: \(error)")
            return reading
        }
    }

    /// The container reader for each format. Formats whose reader lives elsewhere
    /// return the format alone until wired here (one line each).
    static func readContainer(_ source: ByteSource, format: MediaFormat) throws -> ContainerReading {
        switch format {
        case .jpeg:
            return try JPEGReader.read(source)
        case .png:
            return try PNGReader.read(source)
        case .gif:
            return try GIFReader.read(source)
        case .bmp:
            return try BMPReader.read(source)
        case .webp:
            return try RIFFReader.readWebP(source)
        case .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .srw, .iiq,
             .threeFR, .fff, .dcr, .erf, .mef, .mos, .bay, .rwl:
            return try TIFFReader.read(source, format: format)
        case .mrw:
            return try RawHeaderReader.readMRW(source)
        case .ari:
            return try RawHeaderReader.readARRI(source)
        case .kyoceraRaw:
            return try RawHeaderReader.readKyocera(source)
        case .jpeg2000, .ico, .bpg, .netpbm, .pcx, .flif, .radianceHDR, .pgf, .mrc, .czi:
            return try ImageHeaderReader.read(source, format: format)
        case .raf:
            return try TIFFReader.readRAF(source)
        case .crw:
            return try CIFFReader.read(source)
        case .x3f:
            return try X3FReader.read(source)
        case .heic, .heif, .avif, .cr3, .quickTime, .mp4, .m4v, .threeGP:
            return try ISOBMFFReader.read(source, format: format)
        case .matroska, .webm:
            return try MatroskaReader.read(source)
        case .avi:
            return try RIFFReader.readAVI(source)
        case .wmv:
            return try ASFReader.read(source)
        case .flv:
            return try FLVReader.read(source)
        case .dv:
            return try DVReader.read(source)
        case .mpegPS:
            return try MPEGReader.readProgramStream(source)
        case .mpegTS:
            return try MPEGReader.readTransportStream(source)
        case .jpegXL:
            return try JXLReader.read(source)
        case .djvu:
            return try DjVuReader.read(source)
        case .lytro:
            return try LytroReader.read(source)
        case .ogv:
            return try OggReader.read(source)
        case .mxf:
            var metadata = MediaMetadata(format: format)
            metadata.warnings.append("only the format of \(format.rawValue.uppercased()) files is read")
            return ContainerReading(metadata: metadata)
        }
    }
}
