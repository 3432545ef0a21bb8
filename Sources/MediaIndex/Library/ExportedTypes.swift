// The metadata types the API speaks in come with MediaIndex, so app code needs one import.
@_exported import enum MediaMetadata.MediaType
@_exported import struct MediaMetadata.GeoLocation
@_exported import struct MediaPlaces.Place
@_exported import enum MediaPlaces.CaptureOffsetSource
@_exported import enum MediaPlaces.UserTimeSetting
