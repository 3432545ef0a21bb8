-- Schema version 14: layouts of one asset in several files (Apple edits and their
-- adjustments, renamed live-photo movies, Pixel RAW pairs and bursts).
--
-- The lowercased base name pairing compares (`NameLayout`): the stem with the marks of
-- an edit (`IMG_E1234`, `IMG_1234 (Edited)`, `_edited`, `-edited`, `PXL_…~2`), of a
-- renamed live-photo movie (`_HEVC`, `_3`, `IMG_1234.JPG.MOV`) and of a Pixel RAW pair
-- (`.RAW-01.MP.COVER`, `.RAW-02.ORIGINAL`) taken off. NULL until written: the first
-- pairing pass after this migration fills every media row (and evaluates it) once.
ALTER TABLE files ADD COLUMN base_key TEXT;
CREATE INDEX files_by_folder_base ON files (folder, base_key) WHERE base_key IS NOT NULL;
CREATE INDEX files_without_base ON files (id) WHERE base_key IS NULL AND status = 'media';

-- A moved file's base key is recomputed by the next pairing pass, as its stem is.
CREATE TRIGGER files_path_changed_base AFTER UPDATE OF path ON files
WHEN OLD.path IS NOT NEW.path
BEGIN
    UPDATE files SET base_key = NULL WHERE id = NEW.id;
END;

-- `files.role` gains `fullSizePhoto`, `fullSizeVideo`, `fullSizePairedVideo` (edited
-- renderings, media rows) and `adjustmentData` (an `.AAE`, status 'ignored' like a sidecar).

-- Whether the asset has an edit: an edited rendering (`fullSizePhoto`, `fullSizeVideo`,
-- `fullSizePairedVideo`) or Apple's adjustments (`adjustmentData`, an `.AAE` file) among
-- its resources. Kept by the pairer; the `edited` filter reads it.
ALTER TABLE assets ADD COLUMN has_adjustments INTEGER NOT NULL DEFAULT 0;
CREATE INDEX assets_with_adjustments ON assets (id) WHERE has_adjustments <> 0;

-- `.AAE` files were ignored before: read them again (their stat no longer matches).
UPDATE files SET mtime_ns = -1 WHERE status = 'ignored' AND lower(name_text) LIKE '%.aae';
-- Pixel, Sony and Huawei bursts are named in their files' names (`…_BURST…`): read the
-- frames again, so that they get the burst's identifier.
UPDATE files SET mtime_ns = -1 WHERE status = 'media' AND lower(name_text) LIKE '%\_burst%' ESCAPE '\';
