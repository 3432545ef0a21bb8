-- Schema version 11: each folder album's key asset (the newest listed asset) and
-- the capture dates of its oldest dated asset, kept by triggers in `folder_stats`, so
-- the album list reads one row per folder instead of seeking twice into every folder.
-- Kept over the assets `folder_stats` counts (is_burst_representative = 1). Hidden
-- assets (user state, in another file) cannot be seen here: the album list computes
-- the folders holding hidden assets apart.
--
-- key_id, key_identifier, key_capture: the asset first in (capture_sort DESC, id DESC);
--   key_capture is -1e300 when the folder has no dated asset.
-- first_capture: the smallest dated capture_sort (NULL when none is dated).
--
-- An insert only compares with the kept values. A delete or a change of date, folder
-- or burst role rereads the folder from `assets_by_folder` only when the asset that
-- left WAS the key or the oldest: two index seeks.

ALTER TABLE folder_stats ADD COLUMN key_id INTEGER;
ALTER TABLE folder_stats ADD COLUMN key_identifier TEXT;
ALTER TABLE folder_stats ADD COLUMN key_capture REAL;
ALTER TABLE folder_stats ADD COLUMN first_capture REAL;

UPDATE folder_stats SET
    (key_id, key_identifier, key_capture) = (
        SELECT a.id, a.identifier, a.capture_sort FROM assets a
        WHERE a.folder_id = folder_stats.folder_id AND a.is_burst_representative = 1
        ORDER BY a.capture_sort DESC, a.id DESC LIMIT 1),
    first_capture = (
        SELECT a.capture_sort FROM assets a
        WHERE a.folder_id = folder_stats.folder_id AND a.is_burst_representative = 1 AND a.capture_sort > -1e300
        ORDER BY a.capture_sort LIMIT 1);

-- An asset enters a folder: it is the key when it sorts after the key, the oldest
-- when it is dated and older. An upsert, so it does not depend on the count
-- triggers having made the row first.
CREATE TRIGGER assets_folder_key_inserted AFTER INSERT ON assets
WHEN NEW.folder_id IS NOT NULL AND NEW.is_burst_representative = 1
BEGIN
    INSERT INTO folder_stats (folder_id, key_id, key_identifier, key_capture, first_capture)
        VALUES (NEW.folder_id, NEW.id, NEW.identifier, NEW.capture_sort,
                CASE WHEN NEW.capture_sort > -1e300 THEN NEW.capture_sort END)
        ON CONFLICT (folder_id) DO UPDATE SET
            -- Every SET expression reads the row as it was, so the test is the same for all three.
            key_id = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_id ELSE key_id END,
            key_identifier = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_identifier ELSE key_identifier END,
            key_capture = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_capture ELSE key_capture END,
            first_capture = CASE WHEN excluded.first_capture < coalesce(first_capture, 1e300)
                THEN excluded.first_capture ELSE first_capture END;
END;

-- An asset leaves: reread its folder when it was the key or the oldest.
CREATE TRIGGER assets_folder_key_deleted AFTER DELETE ON assets
WHEN OLD.folder_id IS NOT NULL AND OLD.is_burst_representative = 1
BEGIN
    UPDATE folder_stats SET
        (key_id, key_identifier, key_capture) = (
            SELECT a.id, a.identifier, a.capture_sort FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1
            ORDER BY a.capture_sort DESC, a.id DESC LIMIT 1),
        first_capture = (
            SELECT a.capture_sort FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1 AND a.capture_sort > -1e300
            ORDER BY a.capture_sort LIMIT 1)
        WHERE folder_id = OLD.folder_id AND (key_id = OLD.id OR first_capture = OLD.capture_sort);
END;

-- A change of date, folder or burst role: the old place is reread as after a delete
-- (the table already holds the new values), then the new place compared as on insert.
-- The file triggers set folder_id on every update of a primary file, mostly to the
-- same value: the WHEN skips those.
CREATE TRIGGER assets_folder_key_updated
AFTER UPDATE OF creation_timestamp, folder_id, is_burst_representative ON assets
WHEN OLD.folder_id IS NOT NEW.folder_id OR OLD.creation_timestamp IS NOT NEW.creation_timestamp
    OR OLD.is_burst_representative IS NOT NEW.is_burst_representative
BEGIN
    UPDATE folder_stats SET
        (key_id, key_identifier, key_capture) = (
            SELECT a.id, a.identifier, a.capture_sort FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1
            ORDER BY a.capture_sort DESC, a.id DESC LIMIT 1),
        first_capture = (
            SELECT a.capture_sort FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1 AND a.capture_sort > -1e300
            ORDER BY a.capture_sort LIMIT 1)
        WHERE OLD.is_burst_representative = 1 AND folder_id = OLD.folder_id
          AND (key_id = OLD.id OR first_capture = OLD.capture_sort);
    INSERT INTO folder_stats (folder_id, key_id, key_identifier, key_capture, first_capture)
        SELECT NEW.folder_id, NEW.id, NEW.identifier, NEW.capture_sort,
               CASE WHEN NEW.capture_sort > -1e300 THEN NEW.capture_sort END
        WHERE NEW.folder_id IS NOT NULL AND NEW.is_burst_representative = 1
        ON CONFLICT (folder_id) DO UPDATE SET
            -- Every SET expression reads the row as it was, so the test is the same for all three.
            key_id = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_id ELSE key_id END,
            key_identifier = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_identifier ELSE key_identifier END,
            key_capture = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_capture ELSE key_capture END,
            first_capture = CASE WHEN excluded.first_capture < coalesce(first_capture, 1e300)
                THEN excluded.first_capture ELSE first_capture END;
END;

-- Identifiers do not change today; should one, the kept copy follows.
CREATE TRIGGER assets_folder_key_renamed AFTER UPDATE OF identifier ON assets
BEGIN
    UPDATE folder_stats SET key_identifier = NEW.identifier WHERE key_id = NEW.id AND NEW.folder_id IS NOT NULL
        AND folder_id = NEW.folder_id;
END;
