-- Schema version 10: the indexer now writes an asset's file name, size, format and
-- folder when it inserts the asset, so the triggers that keep them in step with the
-- primary file only write when something differs. Before, every new asset was
-- written twice (insert, then the trigger's update), and the update rewrote four of
-- the asset's indexes and fired the folder and kind counters again: about a fifth of
-- a cold index run.
--
-- The folder and name of a path are virtual columns of `files`, so the two triggers
-- share one definition of them. The folder is the path's bytes up to the last '/';
-- rtrim() with the set of every non-slash character of the path strips the last
-- component and never passes a '/'.

ALTER TABLE files ADD COLUMN parent_path BLOB GENERATED ALWAYS AS (substr(
    CAST(rtrim(CAST(path AS TEXT), replace(CAST(path AS TEXT), '/', '')) AS BLOB), 1,
    length(CAST(rtrim(CAST(path AS TEXT), replace(CAST(path AS TEXT), '/', '')) AS BLOB)) - 1)) VIRTUAL;
ALTER TABLE files ADD COLUMN name_text TEXT GENERATED ALWAYS AS (CAST(substr(path,
    length(CAST(rtrim(CAST(path AS TEXT), replace(CAST(path AS TEXT), '/', '')) AS BLOB)) + 1) AS TEXT)) VIRTUAL;

DROP TRIGGER files_primary_inserted;
DROP TRIGGER files_primary_updated;

-- No INSERT OR IGNORE here: an UPSERT on files would impose its own conflict handling
-- on the trigger's statements.
CREATE TRIGGER files_primary_inserted AFTER INSERT ON files
WHEN NEW.asset_id IS NOT NULL AND NEW.role IN ('photo', 'video')
BEGIN
    INSERT INTO folders (path) SELECT NEW.parent_path
        WHERE NOT EXISTS (SELECT 1 FROM folders WHERE path = NEW.parent_path);
    UPDATE assets SET file_name = NEW.name_text, file_size = NEW.size, format = NEW.format,
        folder_id = (SELECT id FROM folders WHERE path = NEW.parent_path)
    WHERE id = NEW.asset_id AND (file_name IS NOT NEW.name_text OR file_size IS NOT NEW.size
        OR format IS NOT NEW.format OR folder_id IS NOT (SELECT id FROM folders WHERE path = NEW.parent_path));
END;

CREATE TRIGGER files_primary_updated AFTER UPDATE OF path, size, format, role, asset_id ON files
WHEN NEW.asset_id IS NOT NULL AND NEW.role IN ('photo', 'video')
BEGIN
    INSERT INTO folders (path) SELECT NEW.parent_path
        WHERE NOT EXISTS (SELECT 1 FROM folders WHERE path = NEW.parent_path);
    UPDATE assets SET file_name = NEW.name_text, file_size = NEW.size, format = NEW.format,
        folder_id = (SELECT id FROM folders WHERE path = NEW.parent_path)
    WHERE id = NEW.asset_id AND (file_name IS NOT NEW.name_text OR file_size IS NOT NEW.size
        OR format IS NOT NEW.format OR folder_id IS NOT (SELECT id FROM folders WHERE path = NEW.parent_path));
END;

-- The pairer looks for paired videos and RAW alternates that lost their primary after
-- every run; without this index that was a scan of every file.
CREATE INDEX files_secondaries ON files (asset_id) WHERE role IN ('pairedVideo', 'alternatePhoto');

-- Every newest-first listing sorts by capture_sort (assets_by_capture, read backwards);
-- this older index on the raw timestamp only cost a write per asset.
DROP INDEX assets_by_creation;
