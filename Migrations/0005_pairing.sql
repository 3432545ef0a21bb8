-- Schema version 5: what pairing needs to find partners quickly, and a motion
-- photo's embedded video.

-- The parent folder's bytes and the lowercased file name without its last extension,
-- so same-folder, same-stem partners (RAW+JPEG, a live photo without identifiers) are
-- one indexed lookup. NULL until the pairer fills them: the first index run after
-- this migration fills every row (and evaluates its pairing) once.
ALTER TABLE files ADD COLUMN folder BLOB;
ALTER TABLE files ADD COLUMN stem_key TEXT;
CREATE INDEX files_by_folder_stem ON files (folder, stem_key) WHERE status = 'media';
CREATE INDEX files_without_stem ON files (id) WHERE stem_key IS NULL AND status = 'media';
CREATE INDEX files_by_indexed_at ON files (indexed_at);

-- A moved file's folder and stem are recomputed by the next pairing pass.
CREATE TRIGGER files_path_changed AFTER UPDATE OF path ON files
WHEN OLD.path IS NOT NEW.path
BEGIN
    UPDATE files SET folder = NULL, stem_key = NULL WHERE id = NEW.id;
END;

-- The MP4 appended to a motion photo: byte offset from the file's start, length,
-- and duration in seconds. NULL for every other asset.
ALTER TABLE assets ADD COLUMN embedded_video_offset INTEGER;
ALTER TABLE assets ADD COLUMN embedded_video_length INTEGER;
ALTER TABLE assets ADD COLUMN embedded_video_duration REAL;

CREATE INDEX assets_by_pairing_rule ON assets (pairing_rule) WHERE pairing_rule IS NOT NULL;
