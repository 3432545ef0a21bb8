-- MediaIndex library, schema version 1: roots, files and assets.
-- Paths are stored as BLOBs of the file system's bytes, so non-UTF-8 names round-trip.

PRAGMA application_id = 1296630872; -- 'MIDX': marks the file as a MediaIndex library

-- A folder the user asked us to index.
CREATE TABLE roots (
    id              INTEGER PRIMARY KEY,
    path            BLOB NOT NULL UNIQUE,
    added_at        REAL NOT NULL,            -- Unix time
    last_indexed_at REAL
);

-- What a picker shows as one item. Columns mirror PHAsset and the JSON asset shape.
CREATE TABLE assets (
    id                  INTEGER PRIMARY KEY,
    identifier          TEXT NOT NULL UNIQUE,  -- opaque, URL-safe, stable
    media_type          TEXT NOT NULL CHECK (media_type IN ('image', 'video')),
    subtypes            INTEGER NOT NULL DEFAULT 0, -- bit set, see MediaSubtypes
    creation_date       TEXT,                  -- ISO 8601 as the file records it
    creation_timestamp  REAL,                  -- UTC seconds, for sorting
    pixel_width         INTEGER,               -- as displayed, after orientation
    pixel_height        INTEGER,
    orientation         INTEGER,
    duration            REAL,
    frame_rate          REAL,
    video_codec         TEXT,
    has_audio           INTEGER,
    latitude            REAL,
    longitude           REAL,
    altitude            REAL,
    make                TEXT,
    model               TEXT,
    software            TEXT,
    lens_make           TEXT,
    lens_model          TEXT,
    focal_length        REAL,
    f_number            REAL,
    exposure_time       REAL,
    iso                 INTEGER,
    flash               INTEGER,
    content_identifier  TEXT,
    burst_identifier    TEXT,
    fingerprint         TEXT NOT NULL,         -- fingerprint of the primary resource's content
    revision            INTEGER NOT NULL DEFAULT 1,
    added_at            REAL NOT NULL,
    modified_at         REAL NOT NULL
);
CREATE INDEX assets_by_creation ON assets (creation_timestamp DESC, id DESC);
CREATE INDEX assets_by_content_identifier ON assets (content_identifier) WHERE content_identifier IS NOT NULL;
CREATE INDEX assets_by_fingerprint ON assets (fingerprint);

-- Every regular file seen under a root: a resource of an asset, an error, or ignored.
-- The indexer compares size, mtime and inode against these rows to skip unchanged files.
CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    root_id     INTEGER NOT NULL REFERENCES roots (id) ON DELETE CASCADE,
    path        BLOB NOT NULL UNIQUE,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    inode       INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('media', 'error', 'ignored')),
    format      TEXT,                           -- MediaFormat raw value
    fingerprint TEXT,
    error       TEXT,                           -- one sentence, when status = 'error'
    asset_id    INTEGER REFERENCES assets (id) ON DELETE SET NULL,
    role        TEXT,                           -- photo, video, pairedVideo, alternatePhoto, sidecar
    metadata    TEXT,                           -- the reader's full result, JSON
    indexed_at  REAL NOT NULL
);
CREATE INDEX files_by_root ON files (root_id);
CREATE INDEX files_by_asset ON files (asset_id) WHERE asset_id IS NOT NULL;
CREATE INDEX files_by_status ON files (status) WHERE status <> 'media';
