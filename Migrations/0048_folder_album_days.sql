-- Schema version 48: the camera's days of each folder album (issue 35 item 12). Next to
-- the instants schema 11 keeps in `folder_stats`, the wall clocks (`local_time`, seconds
-- since 1970 read as UTC) of the same two assets: the key (newest) and the oldest dated,
-- as user and smart albums read them, so the album list still reads one row per folder.
--
-- key_local_time: `local_time` of the key asset (key_id).
-- first_local_time: `local_time` of the oldest dated asset (of one of them, on a tie).
--
-- Schema 11's three triggers are redefined to keep the two columns with the instants,
-- and the update trigger also runs when only `local_time` changes (the capture-time
-- pass resolves offsets after the index run).

ALTER TABLE folder_stats ADD COLUMN key_local_time REAL;
ALTER TABLE folder_stats ADD COLUMN first_local_time REAL;

UPDATE folder_stats SET
    key_local_time = (SELECT a.local_time FROM assets a WHERE a.id = folder_stats.key_id),
    first_local_time = (
        SELECT a.local_time FROM assets a
        WHERE a.folder_id = folder_stats.folder_id AND a.is_burst_representative = 1 AND a.capture_sort > -1e300
        ORDER BY a.capture_sort, a.id LIMIT 1);

DROP TRIGGER assets_folder_key_inserted;
DROP TRIGGER assets_folder_key_deleted;
DROP TRIGGER assets_folder_key_updated;

-- An asset enters a folder: it is the key when it sorts after the key, the oldest
-- when it is dated and older.
CREATE TRIGGER assets_folder_key_inserted AFTER INSERT ON assets
WHEN NEW.folder_id IS NOT NULL AND NEW.is_burst_representative = 1
BEGIN
    INSERT INTO folder_stats (folder_id, key_id, key_identifier, key_capture, key_local_time,
                              first_capture, first_local_time)
        VALUES (NEW.folder_id, NEW.id, NEW.identifier, NEW.capture_sort, NEW.local_time,
                CASE WHEN NEW.capture_sort > -1e300 THEN NEW.capture_sort END,
                CASE WHEN NEW.capture_sort > -1e300 THEN NEW.local_time END)
        ON CONFLICT (folder_id) DO UPDATE SET
            -- Every SET expression reads the row as it was, so the test is the same for all four.
            key_id = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_id ELSE key_id END,
            key_identifier = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_identifier ELSE key_identifier END,
            key_capture = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_capture ELSE key_capture END,
            key_local_time = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_local_time ELSE key_local_time END,
            first_capture = CASE WHEN excluded.first_capture < coalesce(first_capture, 1e300)
                THEN excluded.first_capture ELSE first_capture END,
            first_local_time = CASE WHEN excluded.first_capture < coalesce(first_capture, 1e300)
                THEN excluded.first_local_time ELSE first_local_time END;
END;

-- An asset leaves: reread its folder when it was the key or the oldest.
CREATE TRIGGER assets_folder_key_deleted AFTER DELETE ON assets
WHEN OLD.folder_id IS NOT NULL AND OLD.is_burst_representative = 1
BEGIN
    UPDATE folder_stats SET
        (key_id, key_identifier, key_capture, key_local_time) = (
            SELECT a.id, a.identifier, a.capture_sort, a.local_time FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1
            ORDER BY a.capture_sort DESC, a.id DESC LIMIT 1),
        (first_capture, first_local_time) = (
            SELECT a.capture_sort, a.local_time FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1 AND a.capture_sort > -1e300
            ORDER BY a.capture_sort, a.id LIMIT 1)
        WHERE folder_id = OLD.folder_id AND (key_id = OLD.id OR first_capture = OLD.capture_sort);
END;

-- A change of date, wall clock, folder or burst role: the old place is reread as after
-- a delete (the table already holds the new values), then the new place compared as on
-- insert. The file triggers set folder_id on every update of a primary file, mostly to
-- the same value: the WHEN skips those.
CREATE TRIGGER assets_folder_key_updated
AFTER UPDATE OF creation_timestamp, local_time, folder_id, is_burst_representative ON assets
WHEN OLD.folder_id IS NOT NEW.folder_id OR OLD.creation_timestamp IS NOT NEW.creation_timestamp
    OR OLD.local_time IS NOT NEW.local_time OR OLD.is_burst_representative IS NOT NEW.is_burst_representative
BEGIN
    UPDATE folder_stats SET
        (key_id, key_identifier, key_capture, key_local_time) = (
            SELECT a.id, a.identifier, a.capture_sort, a.local_time FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1
            ORDER BY a.capture_sort DESC, a.id DESC LIMIT 1),
        (first_capture, first_local_time) = (
            SELECT a.capture_sort, a.local_time FROM assets a
            WHERE a.folder_id = OLD.folder_id AND a.is_burst_representative = 1 AND a.capture_sort > -1e300
            ORDER BY a.capture_sort, a.id LIMIT 1)
        WHERE OLD.is_burst_representative = 1 AND folder_id = OLD.folder_id
          AND (key_id = OLD.id OR first_capture = OLD.capture_sort);
    INSERT INTO folder_stats (folder_id, key_id, key_identifier, key_capture, key_local_time,
                              first_capture, first_local_time)
        SELECT NEW.folder_id, NEW.id, NEW.identifier, NEW.capture_sort, NEW.local_time,
               CASE WHEN NEW.capture_sort > -1e300 THEN NEW.capture_sort END,
               CASE WHEN NEW.capture_sort > -1e300 THEN NEW.local_time END
        WHERE NEW.folder_id IS NOT NULL AND NEW.is_burst_representative = 1
        ON CONFLICT (folder_id) DO UPDATE SET
            -- Every SET expression reads the row as it was, so the test is the same for all four.
            key_id = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_id ELSE key_id END,
            key_identifier = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_identifier ELSE key_identifier END,
            key_capture = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_capture ELSE key_capture END,
            key_local_time = CASE WHEN key_id IS NULL OR (excluded.key_capture, excluded.key_id) > (key_capture, key_id)
                THEN excluded.key_local_time ELSE key_local_time END,
            first_capture = CASE WHEN excluded.first_capture < coalesce(first_capture, 1e300)
                THEN excluded.first_capture ELSE first_capture END,
            first_local_time = CASE WHEN excluded.first_capture < coalesce(first_capture, 1e300)
                THEN excluded.first_local_time ELSE first_local_time END;
END;
