/// Reads a media file's metadata from its bytes.
public enum MetadataReader {
    /// Recognises the format from the first bytes; nil when the file is not an image
    /// or video this library indexes.
    public static func detectFormat(_ source: ByteSource) throws -> MediaFormat? {
        nil // filled in by the format detector
    }

    /// Reads everything the index records; nil when the file is not media.
    ///
    /// - Throws: `MetadataError` when the file is media but unreadable.
    public static func read(_ source: ByteSource) throws -> MediaMetadata? {
        guard let format = try detectFormat(source) else { return nil }
        return MediaMetadata(format: format)
    }
}
