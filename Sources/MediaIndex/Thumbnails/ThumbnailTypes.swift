// The thumbnail option and result types come with MediaIndex, so app code that asks a
// library for thumbnails needs no second import.
@_exported import enum MediaThumbnails.ThumbnailMode
@_exported import enum MediaThumbnails.ThumbnailFormat
@_exported import struct MediaThumbnails.ThumbnailRequest
@_exported import enum MediaThumbnails.ThumbnailError
@_exported import struct MediaThumbnails.CompatibleImageOptions

extension ThumbnailFormat {
    /// JPEG at the default quality (80), written as `format: .jpeg`.
    public static var jpeg: ThumbnailFormat { .jpeg(quality: 80) }
    /// WebP at the default quality (80), written as `format: .webp`.
    public static var webp: ThumbnailFormat { .webp(quality: 80) }
}
