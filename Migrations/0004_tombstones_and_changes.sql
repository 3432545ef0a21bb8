-- Schema version 4: identity that outlives deletion, and the change feed.

-- Assets whose last file disappeared. The same content reappearing within the
-- retention window takes the identifier back, with all user state keyed by it.
CREATE TABLE tombstones (
    identifier  TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    deleted_at  REAL NOT NULL
);
CREATE INDEX tombstones_by_fingerprint ON tombstones (fingerprint, deleted_at);

-- One row per change to an asset; the token is the row's number and only grows.
CREATE TABLE changes (
    token       INTEGER PRIMARY KEY AUTOINCREMENT,
    identifier  TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('inserted', 'updated', 'deleted', 'moved', 'paired', 'unpaired')),
    fields      TEXT,            -- JSON array of changed field names, for 'updated'
    changed_at  REAL NOT NULL
);

-- Small settings and bookkeeping values.
CREATE TABLE library_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- Tokens before this one have been trimmed from the change history.
INSERT INTO library_meta (key, value) VALUES ('change_history_start', '1');
