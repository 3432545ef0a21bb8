-- Duplicates and similar photos (issue 33). Three tables, one owner: DuplicateStore
-- (Duplicates/). Rebuilt from the files when lost: nothing here is user state.

-- Perceptual hashes of an asset's primary picture, per revision: a row of an older
-- revision is stale and recomputed. Hashes are 64-bit, stored as SQLite's signed
-- integers (the same bits). A file that could not be hashed keeps its error, so it is
-- not retried until its revision changes.
CREATE TABLE perceptual_hashes (
    asset_id    INTEGER PRIMARY KEY REFERENCES assets (id) ON DELETE CASCADE,
    revision    INTEGER NOT NULL,
    dct_hash    INTEGER,               -- pHash: 8×8 low frequencies of a 32×32 DCT, frame trimmed
    dct_crop1   INTEGER,               -- the same of the centre without 2.5 % per side
    dct_crop2   INTEGER,               -- … without 5 % per side
    gradient    INTEGER,               -- dHash: 9×8 horizontal gradients
    error       TEXT,                  -- one sentence, when no hash could be made
    computed_at REAL NOT NULL
);

-- Full-content hashes, read only for files whose size another file shares, keyed by
-- the file and valid while its size, mtime and inode are as recorded here.
CREATE TABLE content_hashes (
    file_id   INTEGER PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    size      INTEGER NOT NULL,
    mtime_ns  INTEGER NOT NULL,
    device    INTEGER NOT NULL,
    inode     INTEGER NOT NULL,
    hash      TEXT                     -- XXH64 of every byte, hex; NULL when unreadable
);
CREATE INDEX content_hashes_by_hash ON content_hashes (hash) WHERE hash IS NOT NULL;

-- Group membership as last computed: what the Duplicates and Similar albums, the
-- `duplicates` and `similar` filters and the change feed read. An asset is in at most
-- one group of each kind; a group's key is derived from its kind and its members.
CREATE TABLE duplicate_members (
    asset_id  INTEGER NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('same-file', 'duplicate', 'similar')),
    group_key TEXT NOT NULL,
    is_keeper INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, asset_id)
) WITHOUT ROWID;
CREATE INDEX duplicate_members_by_asset ON duplicate_members (asset_id);
CREATE INDEX duplicate_members_by_group ON duplicate_members (group_key);
