-- "Adjust date and time" (issue 31): the UTC offset or IANA zone a user set for an
-- asset's capture time, by asset identifier. It wins over every other rule (source
-- `user`), and lives here so that a re-index or a rebuild of library.sqlite keeps it:
-- each index run applies it again to the capture columns of `assets`. No row: the
-- file's own offset, GPS time, the position's zone or the neighbours decide.
CREATE TABLE userstate.capture_time_settings (
    identifier TEXT PRIMARY KEY NOT NULL,
    offset_seconds INTEGER,
    zone TEXT,
    modified_at REAL NOT NULL,
    CHECK ((offset_seconds IS NULL) <> (zone IS NULL))
);
