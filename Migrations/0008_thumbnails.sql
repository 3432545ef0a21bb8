-- Schema version 8: what the thumbnail cache made, and what it could not make.
-- The cached files are the truth for what exists (the cache folder may be deleted at
-- any time); these rows remember failures with their reason, so a bulk build does not
-- retry an asset until its revision changes, and let gc find the files of deleted
-- assets and old revisions without walking the cache.

CREATE TABLE thumbnails (
    key         TEXT PRIMARY KEY,   -- hex hash of (identifier, revision, source, size, mode, format): the file's name
    identifier  TEXT NOT NULL,      -- the asset's identifier
    revision    INTEGER NOT NULL,   -- the asset's revision when made
    size        INTEGER NOT NULL,   -- requested pixels (longer side for fit, square side for fill)
    mode        TEXT NOT NULL CHECK (mode IN ('fit', 'fill')),
    format      TEXT NOT NULL,      -- jpeg or webp
    state       TEXT NOT NULL CHECK (state IN ('ready', 'failed', 'needsFFmpeg')),
    message     TEXT,               -- why it failed, one sentence
    bytes       INTEGER,            -- size of the cached file, when ready
    width       INTEGER,
    height      INTEGER,
    made_at     REAL NOT NULL       -- Unix time
) WITHOUT ROWID;
CREATE INDEX thumbnails_by_identifier ON thumbnails (identifier, revision);
CREATE INDEX thumbnails_not_ready ON thumbnails (state) WHERE state <> 'ready';
