/// What a container reader found in one file: the facts it read itself, and the
/// embedded metadata blocks it located but does not decode.
///
/// `MetadataReader` merges them: facts from the container win, then EXIF fills the
/// fields still empty, then XMP. This keeps each container reader ignorant of EXIF.
public struct ContainerReading: Sendable {
    /// Facts read from the container's own structures (frame header, `ispe`, `mvhd` …).
    public var metadata: MediaMetadata
    /// An EXIF block: either a TIFF header (`II*\0` / `MM\0*`) or `Exif\0\0` followed by one.
    public var exif: [UInt8]?
    /// An XMP packet (UTF-8 XML).
    public var xmp: [UInt8]?
    /// Further TIFF blocks that complete `exif`, in order: Canon CR3 keeps IFD0 in
    /// `CMT1` (handed as `exif`), the Exif IFD in `CMT2` and GPS in `CMT4`, each a
    /// TIFF structure of its own whose first IFD is that directory.
    public var extraExifBlocks: [[UInt8]] = []

    public init(metadata: MediaMetadata, exif: [UInt8]? = nil, xmp: [UInt8]? = nil) {
        self.metadata = metadata
        self.exif = exif
        self.xmp = xmp
    }
}
