-- Schema version 12: XMP sidecars attached to their media file's asset.
--
-- A sidecar (`IMG_1.JPG.xmp`, `IMG_1.xmp`) is a row of `files` with status 'ignored'
-- (it is not an image or video), role 'sidecar', its parsed values as `metadata`, and
-- the asset of the media file it describes as `asset_id` (NULL while no media file
-- with its name is indexed). Its folder and stem key are written with the row.

-- The star rating (`xmp:Rating`, -1 for rejected to 5), from an attached sidecar.
ALTER TABLE assets ADD COLUMN rating INTEGER;

-- Sidecars by the name they describe: the attacher's lookups from a media file.
CREATE INDEX files_sidecars ON files (folder, stem_key) WHERE role = 'sidecar';
-- Sidecars waiting for their media file, looked at again after every run.
CREATE INDEX files_unattached_sidecars ON files (id) WHERE role = 'sidecar' AND asset_id IS NULL;
