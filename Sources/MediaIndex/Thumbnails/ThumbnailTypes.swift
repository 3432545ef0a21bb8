// The thumbnail option and result types come with MediaIndex, so app code that asks a
// library for thumbnails needs no second import.
@_exported import enum MediaThumbnails.ThumbnailMode
@_exported import enum MediaThumbnails.ThumbnailFormat
@_exported import struct MediaThumbnails.ThumbnailRequest
@_exported import enum MediaThumbnails.ThumbnailError
