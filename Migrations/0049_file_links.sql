-- Schema version 49: a file's other names (issue 33).
--
-- A hard link (the same device and inode under another path), or a file seen again
-- through a bind mount or a followed link to a folder, is one file and so one asset
-- with several paths, never a second asset. The first path indexed keeps the file's
-- row in `files`; each other name is a row here, owned by `FileLinkStore`, pointing at
-- that row. When the recorded path disappears while another name remains, that name
-- takes the row's place (the row's id, asset, thumbnails, user state and groups stay).
--
-- `size`, `mtime_ns` and `inode` are the name's stat when last seen, so an index run
-- compares it as it compares a file (unchanged: nothing written).
CREATE TABLE file_links (
    path      BLOB PRIMARY KEY,
    root_id   INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    size      INTEGER NOT NULL,
    mtime_ns  INTEGER NOT NULL,
    inode     INTEGER NOT NULL,
    added_at  REAL NOT NULL
);
CREATE INDEX file_links_by_file ON file_links (file_id);
CREATE INDEX file_links_by_inode ON file_links (inode);

-- A new path is looked up by its inode among the recorded files (then its device and
-- inode are compared by `lstat` of the recorded path).
CREATE INDEX files_by_inode ON files (inode);

-- Libraries indexed before recorded each hard link as a file and an asset of its own.
-- The next index run folds them once (`FileLinkStore.foldRecordedNames`): the later
-- row of each file becomes another name of the first, its asset deleted.
INSERT INTO library_meta (key, value) VALUES ('fold_file_links', '1')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value;
