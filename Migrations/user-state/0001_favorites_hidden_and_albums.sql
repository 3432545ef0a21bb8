-- The user state (user-state.sqlite, attached as `userstate`): favorites, hidden
-- assets, titles and captions, and user albums, all keyed by asset identifier.
-- IF NOT EXISTS: a store an earlier MediaIndex made without stamping it holds these.
CREATE TABLE IF NOT EXISTS userstate.asset_user_state (
    identifier  TEXT PRIMARY KEY,
    favorite    INTEGER NOT NULL DEFAULT 0,
    hidden      INTEGER NOT NULL DEFAULT 0,
    title       TEXT,
    caption     TEXT,
    modified_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS userstate.user_state_favorites ON asset_user_state (identifier) WHERE favorite = 1;
CREATE INDEX IF NOT EXISTS userstate.user_state_hidden ON asset_user_state (identifier) WHERE hidden = 1;
CREATE TABLE IF NOT EXISTS userstate.albums (
    id          INTEGER PRIMARY KEY,
    identifier  TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    key_asset   TEXT,
    created_at  REAL NOT NULL,
    modified_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS userstate.album_assets (
    album_id         INTEGER NOT NULL REFERENCES albums (id) ON DELETE CASCADE,
    asset_identifier TEXT NOT NULL,
    position         INTEGER NOT NULL,
    added_at         REAL NOT NULL,
    PRIMARY KEY (album_id, asset_identifier)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS userstate.album_assets_by_position ON album_assets (album_id, position);
CREATE INDEX IF NOT EXISTS userstate.album_assets_by_asset ON album_assets (asset_identifier);
