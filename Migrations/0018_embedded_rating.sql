-- Schema version 18: an asset's rating also comes from its file.
--
-- `assets.rating` (migration 0012) held an XMP sidecar's `xmp:Rating` alone. A file's
-- own EXIF `Rating` (0x4746) and embedded `xmp:Rating` now fill it too (the sidecar's
-- still wins). The files that can carry either are read again by the next index run
-- (an mtime no file has makes them look changed); their assets keep their identifiers,
-- and the change feed lists `rating` where it changed.
UPDATE files SET mtime_ns = -1
WHERE status = 'media' AND format IN (
    'jpeg', 'png', 'gif', 'webp', 'tiff', 'heic', 'heif', 'avif', 'jxl',
    'dng', 'cr2', 'cr3', 'nef', 'arw', 'orf', 'rw2', 'raf', 'pef', 'srw', 'x3f', 'iiq',
    '3fr', 'fff', 'dcr', 'erf', 'mef', 'mos', 'rwl');
