-- Schema version 6: what queries, sorting,
-- paging and folder albums need. User state (favorites, hidden, user albums) is NOT
-- here: it lives in user-state.sqlite beside the library, so that deleting and
-- rebuilding library.sqlite keeps it (see README, "User state").

-- Sort keys that are never NULL, so keyset paging compares plain values.
-- An asset without a capture date sorts as the oldest.
ALTER TABLE assets ADD COLUMN capture_sort REAL GENERATED ALWAYS AS (coalesce(creation_timestamp, -1e300)) VIRTUAL;
ALTER TABLE assets ADD COLUMN duration_sort REAL GENERATED ALWAYS AS (coalesce(duration, -1)) VIRTUAL;

-- Facts of the primary resource, copied onto the asset by the triggers below, so a
-- sort or filter on them reads one table through one index.
ALTER TABLE assets ADD COLUMN file_name TEXT NOT NULL DEFAULT '' COLLATE NOCASE;
ALTER TABLE assets ADD COLUMN file_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assets ADD COLUMN format TEXT;
ALTER TABLE assets ADD COLUMN folder_id INTEGER;

-- Every folder that holds (or held) a primary resource; paths without the trailing
-- slash, as the file system's bytes. Folder albums are the folders with assets.
CREATE TABLE folders (
    id   INTEGER PRIMARY KEY,
    path BLOB NOT NULL UNIQUE
);

-- No INSERT OR IGNORE here: an UPSERT on files would impose its own conflict handling
-- on the trigger's statements. The folder of a path is its bytes up to the last '/'. rtrim() with the set of every
-- non-slash character of the path strips the last component and never passes a '/'.
CREATE TRIGGER files_primary_inserted AFTER INSERT ON files
WHEN NEW.asset_id IS NOT NULL AND NEW.role IN ('photo', 'video')
BEGIN
    INSERT INTO folders (path) SELECT folder FROM (SELECT substr(
        CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB), 1,
        length(CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB)) - 1) AS folder)
        WHERE NOT EXISTS (SELECT 1 FROM folders WHERE path = folder);
    UPDATE assets SET
        file_name = CAST(substr(NEW.path, length(CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB)) + 1) AS TEXT),
        file_size = NEW.size,
        format = NEW.format,
        folder_id = (SELECT id FROM folders WHERE path = substr(
            CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB), 1,
            length(CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB)) - 1))
    WHERE id = NEW.asset_id;
END;

CREATE TRIGGER files_primary_updated AFTER UPDATE OF path, size, format, role, asset_id ON files
WHEN NEW.asset_id IS NOT NULL AND NEW.role IN ('photo', 'video')
BEGIN
    INSERT INTO folders (path) SELECT folder FROM (SELECT substr(
        CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB), 1,
        length(CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB)) - 1) AS folder)
        WHERE NOT EXISTS (SELECT 1 FROM folders WHERE path = folder);
    UPDATE assets SET
        file_name = CAST(substr(NEW.path, length(CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB)) + 1) AS TEXT),
        file_size = NEW.size,
        format = NEW.format,
        folder_id = (SELECT id FROM folders WHERE path = substr(
            CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB), 1,
            length(CAST(rtrim(CAST(NEW.path AS TEXT), replace(CAST(NEW.path AS TEXT), '/', '')) AS BLOB)) - 1))
    WHERE id = NEW.asset_id;
END;

-- Existing libraries: fill the new columns from the primary resources once.
UPDATE files SET role = role WHERE asset_id IS NOT NULL AND role IN ('photo', 'video');

-- Sorts: every key with the row id as the unique tiebreak, for keyset paging.
CREATE INDEX assets_by_capture ON assets (capture_sort, id);
CREATE INDEX assets_by_type_capture ON assets (media_type, capture_sort, id);
CREATE INDEX assets_by_added ON assets (added_at, id);
CREATE INDEX assets_by_modified ON assets (modified_at, id);
CREATE INDEX assets_by_file_name ON assets (file_name, id);
CREATE INDEX assets_by_file_size ON assets (file_size, id);
CREATE INDEX assets_by_duration ON assets (duration_sort, id);
-- Folder albums: paging inside a folder, and per-folder counts from the index alone.
CREATE INDEX assets_by_folder ON assets (folder_id, capture_sort, id, media_type, is_burst_representative);
-- Counts by media type and subtype from the index alone.
CREATE INDEX assets_by_type_subtypes ON assets (media_type, is_burst_representative, subtypes, capture_sort);
-- Place and camera filters.
CREATE INDEX assets_by_location ON assets (latitude, longitude) WHERE latitude IS NOT NULL;
CREATE INDEX assets_by_camera ON assets (make COLLATE NOCASE, model COLLATE NOCASE);

-- One small partial index per subtype (and bursts), in capture order: the first page
-- of a rare subtype reads only its own rows. The WHERE terms must stay textually equal
-- to what MediaFilter compiles (`(subtypes & N) <> 0`).
CREATE INDEX assets_raw_by_capture ON assets (capture_sort, id) WHERE (subtypes & 1) <> 0;
CREATE INDEX assets_live_by_capture ON assets (capture_sort, id) WHERE (subtypes & 2) <> 0;
CREATE INDEX assets_motion_by_capture ON assets (capture_sort, id) WHERE (subtypes & 4) <> 0;
CREATE INDEX assets_screenshot_by_capture ON assets (capture_sort, id) WHERE (subtypes & 8) <> 0;
CREATE INDEX assets_panorama_by_capture ON assets (capture_sort, id) WHERE (subtypes & 16) <> 0;
CREATE INDEX assets_hdr_by_capture ON assets (capture_sort, id) WHERE (subtypes & 32) <> 0;
CREATE INDEX assets_depth_by_capture ON assets (capture_sort, id) WHERE (subtypes & 64) <> 0;
CREATE INDEX assets_selfie_by_capture ON assets (capture_sort, id) WHERE (subtypes & 128) <> 0;
CREATE INDEX assets_animated_by_capture ON assets (capture_sort, id) WHERE (subtypes & 256) <> 0;
CREATE INDEX assets_slomo_by_capture ON assets (capture_sort, id) WHERE (subtypes & 512) <> 0;
CREATE INDEX assets_timelapse_by_capture ON assets (capture_sort, id) WHERE (subtypes & 1024) <> 0;
CREATE INDEX assets_screenrec_by_capture ON assets (capture_sort, id) WHERE (subtypes & 2048) <> 0;
CREATE INDEX assets_cinematic_by_capture ON assets (capture_sort, id) WHERE (subtypes & 4096) <> 0;
CREATE INDEX assets_spatial_by_capture ON assets (capture_sort, id) WHERE (subtypes & 8192) <> 0;
CREATE INDEX assets_burst_by_capture ON assets (capture_sort, id) WHERE burst_identifier IS NOT NULL;
