-- Schema version 15: Google Takeout JSON files and album titles.
--
-- A Takeout JSON beside a media file (`IMG_1.jpg.json`, `IMG_1.jpg.supplemental-metadata.json`
-- and its cut forms) is a row of `files` with status 'ignored', role 'takeoutMetadata',
-- its parsed values as `metadata` and the asset of the media file it describes as
-- `asset_id` (NULL while none is indexed). An album folder's `metadata.json` has role
-- 'takeoutAlbumMetadata' and no asset: its `metadata` holds the folder album's title.
-- (Schema version 14, the Apple edit layouts, was merged after this one: a library
-- migrated to 15 without it gets 14 on its next open, see `DatabaseMigrator`.)

-- Takeout JSON by folder and name: the attacher's lookups from a media file's name.
CREATE INDEX files_takeout_metadata ON files (folder, stem_key) WHERE role = 'takeoutMetadata';
-- Album folders' titles, read with the album list.
CREATE INDEX files_takeout_albums ON files (folder) WHERE role = 'takeoutAlbumMetadata';

-- Assets a Takeout JSON marked `favorited`, by identifier, written by the index run
-- (`TakeoutAttacher`). The index never writes user state: the user-state side applies
-- each once (`MediaLibrary.applyTakeoutFavorites`, remembered in
-- `userstate.imported_favorites`), so a later change by the user is never overridden.
CREATE TABLE takeout_favorites (
    asset_identifier TEXT PRIMARY KEY,
    recorded_at      REAL NOT NULL
) WITHOUT ROWID;
